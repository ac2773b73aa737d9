package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// fuzzSeeds are small captures covering both containers, both byte orders,
// gzip, each link type and a few broken shapes.
func fuzzSeeds(tb testing.TB) [][]byte {
	v4, v6 := ipUDP(tb, cli4, srv4, bcPl), ipUDP(tb, srv6, cli6, bcPl[:2])
	le, be := binary.LittleEndian, binary.BigEndian
	ethMix := frames(eth(0x0800, v4), vlan([]uint16{0x88a8, 0x8100}, 0x86dd, ip6Ext(v6, extHopByHop)),
		eth(0x0800, ip4(tb, layers.IPProtocolUDP, layers.IPv4MoreFragments, 0, v4[20:])))
	nb := &ngb{o: be}
	nb.shb(nb.opt(4, []byte("x"))).idb(1, 0, nb.opt(2, []byte("eth0")), nb.opt(9, []byte{6})).idb(276, 64)
	nb.block(4, []byte{1, 0, 4, 0, 10, 0, 0, 1, 0, 0, 0, 0})
	nb.epb(0, 1, eth(0x0800, v4), 0, nb.opt(1, []byte("c"))).epb(1, 2, sll2(0x86dd, v6), 0).spb(eth(0x0806, make([]byte, 28)), 0)
	nb.shb().idb(108, 0).epb(0, 3, loopback(be, 2, v4), 0)
	pcap := pcapFile(tb, 1, false, false, ethMix)
	seeds := [][]byte{
		pcap,
		pcapFile(tb, 1, true, true, ethMix),
		pcapFile(tb, 113, false, false, frames(sll(0x0800, v4))),
		pcapFile(tb, 101, true, false, frames(v4, v6)),
		pcapFile(tb, 0, false, true, frames(loopback(le, 2, v4), loopback(be, 30, v6))),
		pcapFile(tb, 1, false, false, []frame{{ts: t0, data: eth(0x0800, v4)[:40], orig: 60}}),
		ngWriterFile(tb, [][]byte{eth(0x0800, v4)}, [][]byte{v6}),
		nb.b,
		gzipped(tb, pcap),
		pcap[:len(pcap)-7],
		nb.b[:len(nb.b)-30],
	}
	return seeds
}

// FuzzReader feeds arbitrary bytes as a capture file. The reader must not
// panic, must stop, must count every frame it returns, and must end in
// io.EOF or a *FrameError for the frame after the last one returned.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz", Options{AllFrames: true})
		if err != nil {
			return
		}
		w, err := NewWriterFor(io.Discard, r)
		if err != nil {
			t.Fatal(err)
		}
		var p Packet
		n := 0
		for {
			err := r.Next(&p)
			if err != nil {
				var fe *FrameError
				if err != io.EOF && (!errors.As(err, &fe) || fe.Frame != n+1) {
					t.Fatalf("after %d frames: %v", n, err)
				}
				break
			}
			n++
			if p.Frame != n {
				t.Fatalf("frame %d numbered %d", n, p.Frame)
			}
			checkPacket(t, &p)
			_ = FixUDPChecksum(&p)
			if err := w.Write(&p); err != nil && r.Format() == "pcapng" {
				t.Fatalf("writing frame %d: %v", n, err)
			}
			if n > 1<<22 {
				t.Fatal("reader does not stop")
			}
		}
		s := r.Stats()
		if s.Frames != n || s.Matched+s.OtherPort+s.NonUDP+s.NonIP+s.Fragments+s.Unsupported+s.Malformed != n {
			t.Fatalf("stats %+v after %d frames", s, n)
		}
		_ = w.Flush()
	})
}

var updateFuzzSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite testdata/fuzz/FuzzReader from fuzzSeeds")

// TestFuzzSeedCorpus checks that testdata/fuzz/FuzzReader holds exactly
// fuzzSeeds, so the corpus stays in step with the builders; -update-fuzz-seeds
// rewrites it.
func TestFuzzSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	want := map[string]string{}
	for _, s := range fuzzSeeds(t) {
		name := fmt.Sprintf("seed-%x", sha256.Sum256(s))[:21]
		want[name] = fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
	}
	if *updateFuzzSeeds {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range want {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[e.Name()]; !ok || w != string(body) {
			t.Errorf("%s is not one of fuzzSeeds (rerun with -update-fuzz-seeds)", e.Name())
		}
		delete(want, e.Name())
	}
	for name := range want {
		t.Errorf("%s missing from %s (rerun with -update-fuzz-seeds)", name, dir)
	}
}
