package render

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// session3Datagrams dissects openbc-session-3.pcap into one Datagram each,
// in capture order, for the formatting benchmarks.
func session3Datagrams(b testing.TB) []dissect.Datagram {
	r, err := capture.Open(filepath.Join(testdata, "captures", "openbc-session-3.pcap"), capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	d := dissect.New(dissect.Options{})
	var dgs []dissect.Datagram
	var p capture.Packet
	for {
		if err := r.Next(&p); err == io.EOF {
			return dgs
		} else if err != nil {
			b.Fatal(err)
		}
		dgs = append(dgs, dissect.Datagram{})
		d.Decode(&dgs[len(dgs)-1], &p)
		d.Advance(&dgs[len(dgs)-1])
	}
}

// benchReporter formats every datagram of session 3 per op, output
// discarded; datagrams/s and ns/datagram are the formatting stage alone,
// MB/s counts the captured bytes formatted.
func benchReporter(b *testing.B, rep Reporter) {
	dgs := session3Datagrams(b)
	size := 0
	for i := range dgs {
		size += len(dgs[i].Raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		for i := range dgs {
			if err := rep.Datagram(&dgs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := rep.Finish(nil); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(len(dgs)*b.N)/elapsed.Seconds(), "datagrams/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(len(dgs)*b.N), "ns/datagram")
}

// BenchmarkJSON is the JSON Lines reporter (read --format json).
func BenchmarkJSON(b *testing.B) { benchReporter(b, NewJSON(io.Discard, false)) }

// BenchmarkTable is the one-line-per-datagram reporter (read).
func BenchmarkTable(b *testing.B) { benchReporter(b, NewTable(io.Discard, NewPalette(false), false)) }

// BenchmarkHex is the field tree and hexdump reporter (read --format hex).
func BenchmarkHex(b *testing.B) {
	benchReporter(b, NewHex(io.Discard, NewPalette(false), false, false))
}
