package checksum

import (
	"bytes"
	"testing"
)

// Feed sees every game payload of a flow; all but a handful per join are
// other opcodes and must cost nothing.
func TestFeedOtherOpcodesNoAlloc(t *testing.T) {
	h := &Handshake{}
	runSteps(h, stockSteps())
	stateUpdate := []byte{0x1C, 0xFF, 0xFF, 0xFF, 0x3F, 0x00, 0x80, 0xE1, 0x41, 0x00}
	dst := make([]Finding, 0, 4)
	if n := testing.AllocsPerRun(100, func() {
		dst = h.Feed(dst[:0], true, stateUpdate)
		dst = h.Feed(dst[:0], false, stateUpdate)
		dst = h.Feed(dst[:0], true, msgSettings)
	}); n != 0 || len(dst) != 0 {
		t.Errorf("%v allocations, %d findings", n, len(dst))
	}
}

func BenchmarkHandshakeFeed(b *testing.B) {
	steps := stockSteps()
	size := 0
	for _, s := range steps {
		size += len(s.p)
	}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	var dst []Finding
	for b.Loop() {
		h := Handshake{}
		for _, s := range steps {
			dst = h.Feed(dst[:0], s.fromHost, s.p)
		}
	}
}

func BenchmarkLoadManifest(b *testing.B) {
	raw := vanillaBytes(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Load(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	m := vanilla(b)
	r, ok := m.Response(2)
	if !ok {
		b.Fatal("no round 2")
	}
	p := AppendResponse(nil, r)
	m.Compare(nil, r) // build the index once
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	var dst []Finding
	for b.Loop() {
		dst = m.Compare(dst[:0], r)
	}
}
