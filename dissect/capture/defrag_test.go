package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// defragFrames splits b into raw IP frames: each a 2-byte length, then
// that many bytes.
func defragFrames(b []byte) [][]byte {
	var out [][]byte
	for len(b) >= 2 {
		n := int(binary.BigEndian.Uint16(b))
		b = b[2:]
		n = min(n, len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

func defragSeeds(tb testing.TB) [][]byte {
	udp := ipUDP(tb, cli4, srv4, bytes.Repeat([]byte{0xAB}, 100))[20:] // UDP header and data
	join := func(frames ...[]byte) []byte {
		var b []byte
		for _, f := range frames {
			b = binary.BigEndian.AppendUint16(b, uint16(len(f)))
			b = append(b, f...)
		}
		return b
	}
	v6 := ipUDP(tb, cli6, srv6, bytes.Repeat([]byte{0xCD}, 100))
	frag6 := func(off uint16, more bool, part []byte) []byte {
		// The part goes in before the header is inserted, so the IPv6
		// payload length counts it.
		return ip6Ext(append(bytes.Clone(v6[:40]), part...), extFragment(off, more))
	}
	return [][]byte{
		join(ip4(tb, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, udp[:56]), ip4(tb, layers.IPProtocolUDP, 0, 7, udp[56:])),
		join(ip4(tb, layers.IPProtocolUDP, 0, 7, udp[56:]), ip4(tb, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, udp[:56])),
		join(ip4(tb, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, udp[:56])),
		join(frag6(0, true, v6[40:88]), frag6(6, false, v6[88:])),
		join(frag6(6, false, v6[88:]), frag6(0, true, v6[40:88])),
	}
}

// Fragments of every shape: the reader never panics, returns at most one
// datagram per frame plus the ones it gave up, and holds bounded state.
func FuzzDefrag(f *testing.F) {
	for _, s := range defragSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		frames := defragFrames(b)
		r := openBytes(t, pcapFile(t, layers.LinkTypeRaw, false, false, framesOf(frames)), Options{})
		got, err := readAll(t, r)
		if err != io.EOF {
			t.Fatal(err)
		}
		if len(got) > 2*len(frames) {
			t.Fatalf("%d datagrams from %d frames", len(got), len(frames))
		}
		if len(r.frag.pend) != 0 || r.frag.bytes != 0 {
			t.Errorf("%d datagrams, %d bytes still pending at the end", len(r.frag.pend), r.frag.bytes)
		}
	})
}

func framesOf(datas [][]byte) []frame { return frames(datas...) }

// The seeds reassemble, IPv4 and IPv6, in order and reversed, or are
// given up (seed 2, its last fragment missing).
func TestDefragSeeds(t *testing.T) {
	for i, s := range defragSeeds(t) {
		r := openBytes(t, pcapFile(t, layers.LinkTypeRaw, false, false, framesOf(defragFrames(s))), Options{})
		got, err := readAll(t, r)
		if err != io.EOF || len(got) != 1 {
			t.Fatalf("seed %d: %d datagrams, %v", i, len(got), err)
		}
		whole := i != 2
		if p := got[0]; len(p.Payload) != 100 && whole || (p.FragsLost == "") != whole {
			t.Errorf("seed %d: %d payload bytes, lost %q", i, len(p.Payload), p.FragsLost)
		}
	}
}

// BenchmarkDefrag reads a datagram in two IPv4 fragments per iteration.
func BenchmarkDefrag(b *testing.B) {
	s := defragSeeds(b)[0]
	fs := defragFrames(s)
	var datas [][]byte
	for range 2000 {
		datas = append(datas, fs...)
	}
	file := pcapFile(b, layers.LinkTypeRaw, false, false, framesOf(datas))
	b.ReportAllocs()
	b.ResetTimer()
	var p Packet
	r := openBytes(b, file, Options{})
	for b.Loop() {
		if err := r.Next(&p); err != nil {
			r = openBytes(b, file, Options{})
		}
	}
}
