package capture

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// session3 returns openbc-session-3.pcap split into its file header and its
// records (a realistic mix of BC datagram sizes).
func session3(b *testing.B) (hdr []byte, recs [][]byte) {
	raw, err := os.ReadFile(filepath.Join(testdata, "captures", "openbc-session-3.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	hdr, rest := raw[:24], raw[24:]
	for len(rest) >= 16 {
		n := 16 + int(binary.LittleEndian.Uint32(rest[8:12]))
		recs = append(recs, rest[:n])
		rest = rest[n:]
	}
	return hdr, recs
}

// paths are the two ways a Reader can read: the fast path with the
// hardened one as fallback, and the hardened one alone.
var paths = []struct {
	name     string
	hardened bool
}{{"fast", false}, {"hardened", true}}

// BenchmarkReadFile reads session 3 replicated ten times (43250 datagrams)
// from memory, opening included.
func BenchmarkReadFile(b *testing.B) {
	for _, path := range paths {
		b.Run(path.name, func(b *testing.B) { benchReadFile(b, path.hardened) })
	}
}

func benchReadFile(b *testing.B, hardened bool) {
	hdr, recs := session3(b)
	file := bytes.Clone(hdr)
	for range 10 {
		for _, r := range recs {
			file = append(file, r...)
		}
	}
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	var p Packet
	n := 0
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(file), "bench", Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.hardened = hardened
		for r.Next(&p) == nil {
			n++
		}
	}
	if n%(10*len(recs)) != 0 {
		b.Fatalf("read %d datagrams", n)
	}
}

// cycle serves a pcap header once and then the records round and round.
type cycle struct {
	data []byte // records
	off  int
	hdr  []byte
}

func (c *cycle) Read(p []byte) (int, error) {
	if len(c.hdr) > 0 {
		n := copy(p, c.hdr)
		c.hdr = c.hdr[n:]
		return n, nil
	}
	n := copy(p, c.data[c.off:])
	c.off = (c.off + n) % len(c.data)
	return n, nil
}

// BenchmarkNext measures one Next per iteration on an endless stream of
// session 3's records, as pcap and as pcapng; allocs/op is the per-packet
// allocation count.
func BenchmarkNext(b *testing.B) {
	hdr, recs := session3(b)
	ng := &ngb{o: binary.LittleEndian}
	ng.shb().idb(1, 0)
	ngHdr := bytes.Clone(ng.b)
	ng.b = nil
	for i, rec := range recs {
		ng.epb(0, uint64(i), rec[16:], 0)
	}
	for _, format := range []struct {
		name     string
		hdr, rec []byte
	}{{"pcap", hdr, bytes.Join(recs, nil)}, {"pcapng", ngHdr, ng.b}} {
		for _, path := range paths {
			b.Run(format.name+"/"+path.name, func(b *testing.B) {
				benchNext(b, &cycle{data: format.rec, hdr: format.hdr}, len(recs), path.hardened)
			})
		}
	}
}

func benchNext(b *testing.B, src *cycle, recs int, hardened bool) {
	r, err := NewReader(src, "bench", Options{})
	if err != nil {
		b.Fatal(err)
	}
	r.hardened = hardened
	b.SetBytes(int64(len(src.data) / recs))
	b.ReportAllocs()
	var p Packet
	for b.Loop() {
		if err := r.Next(&p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode measures link/IP/UDP decoding alone on session 3's frames.
func BenchmarkDecode(b *testing.B) {
	for _, path := range paths {
		b.Run(path.name, func(b *testing.B) { benchDecode(b, path.hardened) })
	}
}

func benchDecode(b *testing.B, hardened bool) {
	_, recs := session3(b)
	r := &Reader{hardened: hardened}
	r.dec.init()
	total := 0
	for _, r := range recs {
		total += len(r) - 16
	}
	b.SetBytes(int64(total / len(recs)))
	b.ReportAllocs()
	var p Packet
	i := 0
	for b.Loop() {
		if r.decode(&p, 1, recs[i][16:]) != KindOtherPort {
			b.Fatal("not UDP")
		}
		i = (i + 1) % len(recs)
	}
}
