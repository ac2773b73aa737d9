package capture

import (
	"bytes"
	"encoding/binary"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
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
// datagram per frame plus the ones it gave up, notes no more datagrams
// than it gave up, and holds bounded state.
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
		notes := len(r.TakeNotes())
		for _, p := range got {
			notes += len(p.Lost)
		}
		if notes > r.Stats().Incomplete {
			t.Errorf("%d notes of lost datagrams, %d given up", notes, r.Stats().Incomplete)
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

// frag4 is IPv4 fragment (flags, offset in 8-byte units) of datagram id
// from cli4 to srv4.
func frag4(t testing.TB, id uint16, flags layers.IPv4Flag, off uint16, part []byte) []byte {
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolUDP, Id: id, Flags: flags, FragOffset: off,
		SrcIP: cli4.Addr().AsSlice(), DstIP: srv4.Addr().AsSlice()}
	return serialize(t, ip, gopacket.Payload(part))
}

// Datagrams given up are reported in capture order: one without its first
// fragment in Packet.Lost of the next datagram returned (given up when a
// later datagram between the same hosts is reassembled or read whole, or
// at the timeout), one with it as a cut datagram before the datagram that
// revealed the loss (whose reassembled bytes stay intact), and one lost at
// the end of the file in TakeNotes.
func TestDefragLostInOrder(t *testing.T) {
	udpA := ipUDP(t, cli4, srv4, bytes.Repeat([]byte{0xA1}, 100))[20:]
	udpB := ipUDP(t, cli4, srv4, bytes.Repeat([]byte{0xB2}, 100))[20:]
	whole := ipUDP(t, cli4, srv4, bcPl)
	at := func(ms int, data []byte) frame {
		return frame{ts: t0.Add(time.Duration(ms) * time.Millisecond), data: data}
	}
	fs := []frame{
		at(0, frag4(t, 1, 0, 7, udpA[56:])),                          // 1: id 1, first fragment lost
		at(1, frag4(t, 2, layers.IPv4MoreFragments, 0, udpB[:56])),   // 2
		at(2, frag4(t, 2, 0, 7, udpB[56:])),                          // 3: id 2 whole: id 1 given up
		at(3, frag4(t, 3, layers.IPv4MoreFragments, 0, udpA[:56])),   // 4: id 3, last fragment lost
		at(4, frag4(t, 4, layers.IPv4MoreFragments, 0, udpB[:56])),   // 5
		at(5, frag4(t, 4, 0, 7, udpB[56:])),                          // 6: id 4 whole: id 3 given up, cut
		at(6, frag4(t, 5, 0, 7, udpA[56:])),                          // 7: id 5, first fragment lost
		at(31_010, ip4(t, layers.IPProtocolTCP, 0, 0, []byte{1, 2})), // 8: past the timeout
		at(31_020, whole),                        // 9
		at(31_030, frag4(t, 6, 0, 7, udpA[56:])), // 10: id 6, first fragment lost, then the end
	}
	r := openBytes(t, pcapFile(t, layers.LinkTypeRaw, false, false, fs), Options{})
	got, err := readAll(t, r)
	if err != io.EOF {
		t.Fatal(err)
	}
	type want struct {
		frame, payload int
		lost           string // what Packet.Lost's note says, "" for none
		cut            bool
	}
	wants := []want{
		{3, 100, "id 1 ", false},
		{4, 48, "", true},
		{6, 100, "", false},
		{9, len(bcPl), "id 5 ", false},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d datagrams, want %d", len(got), len(wants))
	}
	for i, w := range wants {
		p := got[i]
		if p.Frame != w.frame || len(p.Payload) != w.payload || (p.FragsLost != "") != w.cut {
			t.Errorf("datagram %d: frame %d, %d bytes, lost %q; want frame %d, %d bytes, cut %v", i, p.Frame, len(p.Payload), p.FragsLost, w.frame, w.payload, w.cut)
		}
		if i == 2 && !bytes.Equal(p.Payload, udpB[8:]) {
			t.Errorf("datagram %d: payload %x", i, p.Payload)
		}
		if w.lost == "" && len(p.Lost) > 0 || w.lost != "" && (len(p.Lost) != 1 || !strings.Contains(p.Lost[0].Message(), w.lost)) {
			t.Errorf("datagram %d: lost %+v, want %q", i, p.Lost, w.lost)
		}
	}
	if l := got[3].Lost; len(l) == 1 && (!strings.Contains(l[0].Message(), "after 30s") || l[0].Frame != 7 || l[0].Src.Addr() != cli4.Addr()) {
		t.Errorf("timeout note: %+v", l[0])
	}
	if n := r.TakeNotes(); len(n) != 1 || n[0].Frame != 10 || !strings.Contains(n[0].Message(), "at the end of the capture") {
		t.Errorf("notes at the end: %+v", n)
	}
	if s := r.Stats(); s.Incomplete != 4 || s.Reassembled != 2 {
		t.Errorf("stats: %+v", s)
	}
}

// A reassembled datagram, or one given up cut, lists the frames of its
// fragments (what read -w copies), in capture order; a whole one none.
func TestDefragFragFrames(t *testing.T) {
	udpA := ipUDP(t, cli4, srv4, bytes.Repeat([]byte{0xA1}, 100))[20:]
	udpB := ipUDP(t, cli4, srv4, bytes.Repeat([]byte{0xB2}, 100))[20:]
	at := func(ms int, data []byte) frame {
		return frame{ts: t0.Add(time.Duration(ms) * time.Millisecond), data: data}
	}
	fs := []frame{
		at(0, ipUDP(t, cli4, srv4, bcPl)),                          // 1: whole
		at(1, frag4(t, 2, 0, 7, udpB[56:])),                        // 2: id 2, last part first
		at(2, frag4(t, 2, layers.IPv4MoreFragments, 0, udpB[:56])), // 3: id 2 whole
		at(3, frag4(t, 3, layers.IPv4MoreFragments, 0, udpA[:56])), // 4: id 3, last fragment lost
		at(4, frag4(t, 4, layers.IPv4MoreFragments, 0, udpB[:56])), // 5
		at(5, frag4(t, 4, 0, 7, udpB[56:])),                        // 6: id 4 whole: id 3 given up, cut
	}
	r := openBytes(t, pcapFile(t, layers.LinkTypeRaw, false, false, fs), Options{})
	want := [][]int{nil, {2, 3}, {4}, {5, 6}}
	var p Packet
	for i, w := range want {
		if err := r.Next(&p); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
		if !slices.Equal(p.FragFrames, w) {
			t.Errorf("datagram %d (frame %d): fragment frames %v, want %v", i, p.Frame, p.FragFrames, w)
		}
	}
}
