package profile

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
)

// session3 dissects openbc-session-3.pcap into one Datagram each, with
// the total UDP payload bytes.
func session3(b testing.TB) ([]dissect.Datagram, int64) {
	r, err := capture.Open(filepath.Join(testdata, "captures", "openbc-session-3.pcap"), capture.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	d := dissect.New(dissect.Options{})
	var dgs []dissect.Datagram
	var n int64
	var p capture.Packet
	for {
		if err := r.Next(&p); err == io.EOF {
			return dgs, n
		} else if err != nil {
			b.Fatal(err)
		}
		dgs = append(dgs, dissect.Datagram{})
		d.Decode(&dgs[len(dgs)-1], &p)
		d.Advance(&dgs[len(dgs)-1])
		n += int64(len(p.Payload))
	}
}

// benchConsumer feeds every datagram of session 3 per op: the consumer
// stage alone, without decoding.
func benchConsumer(b *testing.B, rep render.Reporter) {
	dgs, n := session3(b)
	b.SetBytes(n)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		for i := range dgs {
			if err := rep.Datagram(&dgs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(dgs)*b.N)/time.Since(start).Seconds(), "datagrams/s")
}

// BenchmarkProfiler is Profiler.Datagram alone; in steady state it
// allocates nothing (allocs/op stays 0 as b.N grows).
func BenchmarkProfiler(b *testing.B) { benchConsumer(b, New(Options{})) }

// BenchmarkStatsConsumer is stats.Stats on the same input, for comparison.
func BenchmarkStatsConsumer(b *testing.B) { benchConsumer(b, stats.NewStats()) }

// The hot path does not allocate once flows, opcodes and objects are known.
func TestDatagramNoAlloc(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	dgs, _ := session3(t)
	p := New(Options{})
	for i := range dgs {
		_ = p.Datagram(&dgs[i])
	}
	allocs := testing.AllocsPerRun(3, func() {
		for i := range dgs {
			_ = p.Datagram(&dgs[i])
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per pass over session 3, want 0", allocs)
	}
}
