package record

import (
	"bytes"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/render"
)

// session3Lines returns the datagrams of openbc-session-3 as the JSON
// writer's lines.
func session3Lines(t testing.TB) [][]byte {
	var lines [][]byte
	run(t, session3(t), &sink{dg: func(d *dissect.Datagram) error {
		lines = append(lines, render.AppendDatagramJSON(nil, d))
		return nil
	}})
	return lines
}

// TestDecodeAllocs: once warm, decoding a trace line allocates nothing.
func TestDecodeAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts: not under -short")
	}
	if raceEnabled {
		t.Skip("allocation counts: not under the race detector, which allocates")
	}
	lines := session3Lines(t)
	var (
		dec Decoder
		rec Datagram
	)
	for _, l := range lines {
		if err := dec.Decode(l, &rec); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		for _, l := range lines {
			_ = dec.Decode(l, &rec)
		}
	})
	if perLine := allocs / float64(len(lines)); perLine > 0.01 {
		t.Errorf("%.3f allocations per line", perLine)
	}
}

// TestConvertAllocs: once warm, converting a datagram allocates nothing.
func TestConvertAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts: not under the race detector, which allocates")
	}
	var (
		conv Converter
		rec  Datagram
		n, a int
	)
	run(t, session3(t), &sink{dg: func(d *dissect.Datagram) error {
		conv.Datagram(d, &rec) // warm up on this datagram's shape
		a += int(testing.AllocsPerRun(2, func() { conv.Datagram(d, &rec) }))
		n++
		return nil
	}})
	if a > 0 {
		t.Errorf("%d allocations converting %d warm datagrams", a, n)
	}
}

func BenchmarkDecode(b *testing.B) {
	lines := session3Lines(b)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	var (
		dec Decoder
		rec Datagram
	)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if err := dec.Decode(l, &rec); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeAppendJSON: a trace line read into a record and written
// back.
func BenchmarkDecodeAppendJSON(b *testing.B) {
	lines := session3Lines(b)
	var (
		dec  Decoder
		rec  Datagram
		out  []byte
		size int
	)
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			_ = dec.Decode(l, &rec)
			out = rec.AppendJSON(out[:0])
			if !bytes.Equal(out, l) {
				b.Fatal("differs")
			}
		}
	}
}

func session3(t testing.TB) testCapture {
	for _, c := range corpus(t) {
		if c.name == "openbc-session-3.pcap" {
			return c
		}
	}
	t.Fatal("no openbc-session-3.pcap")
	return testCapture{}
}
