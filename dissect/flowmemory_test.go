package dissect

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// flowMemoryRun decodes a ManyFlows capture of n flows (all active at
// once) and, at its last datagram, before the flows are finished, measures
// the live heap and the tracker's estimate.
type flowMemoryRun struct {
	active, tracked int
	heap            int64 // live heap grown since the start
	evictions       int   // tracking-limit events
	message         string
}

func runManyFlows(t *testing.T, src capture.Source, datagrams int, opt Options) flowMemoryRun {
	t.Helper()
	var r flowMemoryRun
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewSession(SessionOptions{Options: opt, Mode: Serial, EventsAsFound: true})
	n := 0
	err := s.Run(context.Background(), src, SinkFuncs{
		OnDatagram: func(*Datagram) error {
			if n++; n == datagrams {
				var after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&after)
				r.heap = int64(after.HeapAlloc) - int64(before.HeapAlloc)
				r.active, r.tracked = s.d.track.ActiveFlows(), s.d.track.TrackedBytes()
			}
			return nil
		},
		OnEvents: func(ev []Event) error {
			for _, e := range ev {
				if e.Code == anomaly.TrackingLimit && strings.Contains(e.Message(), "flow evicted") {
					r.evictions++
					if r.message == "" {
						r.message = e.Message()
					}
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != datagrams {
		t.Fatalf("%d datagrams, want %d", n, datagrams)
	}
	return r
}

func manyFlowsReader(t *testing.T, flows int) capture.Source {
	t.Helper()
	var b bytes.Buffer
	if err := dissecttest.ManyFlows(&b, flows, 100*time.Second, true); err != nil {
		t.Fatal(err)
	}
	r, err := capture.NewReader(&b, "manyflows.pcap", capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// The tracker's estimate of the flows' state, which MaxFlowBytes bounds,
// is what they take on the heap: 20,000 flows of a connect request and its
// answer, all active, hold within a factor 1.5 of their estimate. And with
// a bound, flows past it are evicted with a note naming the flag, and the
// estimate stays within the bound.
func TestFlowMemoryAccounting(t *testing.T) {
	const flows = 20000
	r := runManyFlows(t, manyFlowsReader(t, flows), 2*flows, Options{MaxFlowBytes: 1 << 30})
	if r.active != flows || r.evictions != 0 {
		t.Fatalf("%d flows active, %d evicted; want %d and none", r.active, r.evictions, flows)
	}
	ratio := float64(r.heap) / float64(r.tracked)
	t.Logf("%d flows: estimate %d B a flow, heap %d B a flow (%.2f)", flows, r.tracked/flows, r.heap/flows, ratio)
	if ratio < 0.67 || ratio > 1.5 {
		t.Errorf("the heap holds %d B a flow, the estimate says %d B (%.2f times)", r.heap/flows, r.tracked/flows, ratio)
	}

	const bound = 4 << 20
	r = runManyFlows(t, manyFlowsReader(t, flows), 2*flows, Options{MaxFlowBytes: bound})
	if r.tracked > bound || r.active >= flows || r.evictions == 0 || r.active+r.evictions != flows {
		t.Errorf("bound %d: %d flows active holding %d B, %d evicted", bound, r.active, r.tracked, r.evictions)
	}
	if !strings.Contains(r.message, "reached the 4096 KB bound (--flow-memory;") {
		t.Errorf("the eviction note says %q", r.message)
	}
}

// A million flows active at once, with the default bound and the soft
// memory limit bcdump sets with it (the bound plus 112 MiB): the tracker
// keeps within the bound and the process's memory (what it took from the
// system, the heap's peak included) stays under 300 MB.
func TestFlowMemoryMillionFlows(t *testing.T) {
	if testing.Short() {
		t.Skip("a million flows: 2 million datagrams, 190 MB of capture")
	}
	const flows = 1000000
	path := filepath.Join(tempDir(t), "manyflows.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dissecttest.ManyFlows(f, flows, 100*time.Second, true); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	src, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(transport.DefaultMaxFlowBytes + 112<<20))
	r := runManyFlows(t, src, 2*flows, Options{})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d flows active holding %d B, %d evicted; heap %d MB, from the system %d MB",
		r.active, r.tracked, r.evictions, r.heap>>20, ms.Sys>>20)
	if r.tracked > transport.DefaultMaxFlowBytes || r.evictions == 0 {
		t.Errorf("%d B tracked, %d evicted", r.tracked, r.evictions)
	}
	if ms.Sys > 300<<20 {
		t.Errorf("%d MB taken from the system", ms.Sys>>20)
	}
}
