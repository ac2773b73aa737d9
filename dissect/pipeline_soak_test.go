package dissect_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest/replicate"
	"github.com/bcdump/bcdump/transport"
)

// heapInuse is the heap in use after a full collection.
func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// A capture of 10,000 short sessions, each from a fresh client port (the
// sample session, 27 datagrams over 7 s, replicated 1 s apart): idle flows
// are finished and freed in capture time, finished-flow records stop at
// MaxFinishedFlows, and the heap after 10,000 flows is about what it was
// after 1,000. The bounds are generous; the figures are logged.
func TestSoakShortFlows(t *testing.T) {
	const copies = 10000
	src := loadSource(t, filepath.Join(testdata, "sample.pcap"))
	path := writeReplica(t, src, replicate.Options{Copies: copies, Gap: time.Second})

	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Events go out as found, as in a live capture, so none is held.
	s := dissect.NewSession(dissect.SessionOptions{EventsAsFound: true})
	per := src.Frames()
	var early uint64
	n, events := 0, 0
	err = s.Run(context.Background(), r, dissect.SinkFuncs{
		OnDatagram: func(dg *dissect.Datagram) error {
			n++
			if n == 1000*per {
				early = heapInuse()
			}
			return nil
		},
		OnEvents: func(ev []dissect.Event) error { events += len(ev); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	late := heapInuse()
	if n != copies*per {
		t.Fatalf("%d datagrams, want %d", n, copies*per)
	}
	flows := s.Flows()
	active, covered := 0, 0
	for _, fs := range flows {
		if !fs.Finished {
			active++
		}
		covered += max(fs.Flows, 1)
	}
	t.Logf("heap in use: %.1f MB after 1,000 flows, %.1f MB after %d; %d flow records, %d active, %d events",
		float64(early)/1e6, float64(late)/1e6, copies, len(flows), active, events)
	if covered != copies {
		t.Errorf("flow records cover %d flows, want %d", covered, copies)
	}
	// 120 s idle limit over 8 s sessions: about 16 flows are alive at once.
	if active > 2*int(transport.DefaultFlowIdle/(7*time.Second)) {
		t.Errorf("%d flows still active: idle flows are not finished", active)
	}
	if len(flows) > transport.DefaultMaxFinishedFlows+active+1 {
		t.Errorf("%d flow records, want at most MaxFinishedFlows+active+1", len(flows))
	}
	if late > early+32<<20 || late > 100<<20 {
		t.Errorf("heap grew from %.1f MB to %.1f MB", float64(early)/1e6, float64(late)/1e6)
	}
}
