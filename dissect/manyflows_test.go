package dissect_test

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest/replicate"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// decoded is what a run over a capture made of one copy of a session:
// per datagram its anomalies, the end-of-flow events and the flow records,
// with everything that differs between copies (frame numbers, addresses,
// flow ids, times) taken out.
type decoded struct {
	datagrams []string
	events    []string
	flows     []string
}

// decodeCopies runs path and sorts what it finds by copy: copyOf names the
// copy of a client address (-1: not a client of any copy).
func decodeCopies(t *testing.T, path string, mode dissect.Mode, copies int, copyOf func(netip.Addr) int) []decoded {
	t.Helper()
	r, err := capture.Open(path, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := make([]decoded, copies)
	type at struct{ k, i int } // copy, datagram index within the copy
	frames := map[int]at{}
	clientOf := func(dg *dissect.Datagram) netip.Addr {
		if dg.Dir == dissect.S2C {
			return dg.Dst.Addr()
		}
		return dg.Src.Addr()
	}
	var events []dissect.Event
	s := dissect.NewSession(dissect.SessionOptions{Mode: mode, EventsAsFound: true})
	err = s.Run(context.Background(), r, dissect.SinkFuncs{
		OnDatagram: func(dg *dissect.Datagram) error {
			k := copyOf(clientOf(dg))
			if k < 0 {
				t.Fatalf("frame %d: client %s of no copy", dg.Frame, clientOf(dg))
			}
			frames[dg.Frame] = at{k, len(out[k].datagrams)}
			var b bytes.Buffer
			fmt.Fprintf(&b, "%s %s %d bytes:", dg.Kind, dg.Dir, len(dg.Plain))
			if dg.Kind == dissect.KindGame {
				fmt.Fprintf(&b, " %d msgs", len(dg.Transport.Messages))
			}
			for _, a := range dg.Anomalies {
				fmt.Fprintf(&b, " %s@%d.%d", a.Code, a.Msg, a.Offset)
			}
			out[k].datagrams = append(out[k].datagrams, b.String())
			return nil
		},
		OnEvents: func(ev []dissect.Event) error { events = append(events, ev...); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		w, ok := frames[e.Frame]
		if !ok {
			t.Fatalf("event %s about frame %d, not a datagram of any copy", e.Code, e.Frame)
		}
		out[w.k].events = append(out[w.k].events, fmt.Sprintf("%s@datagram %d msg %d", e.Code, w.i, e.Msg))
	}
	for _, fs := range s.Flows() {
		if fs.Other {
			t.Fatalf("an \"other\" record for %d flows", fs.Flows)
		}
		k := copyOf(fs.Client.Addr())
		if k < 0 {
			t.Fatalf("flow %d: client %s of no copy", fs.ID, fs.Client)
		}
		dur := fs.Last.Sub(fs.First)
		fs.ID, fs.Client, fs.First, fs.Last = 0, netip.AddrPort{}, time.Time{}, time.Time{}
		out[k].flows = append(out[k].flows, fmt.Sprintf("%s %+v", dur, fs))
	}
	for k := range out {
		slices.Sort(out[k].events)
		slices.Sort(out[k].flows)
	}
	return out
}

// The many-flow capture (issue 17): copies of session 3 started within
// 10 s of each other, each client from its own address, so hundreds of
// flows are active at once. Every copy decodes exactly as the session
// alone does: the same anomalies on the same datagrams, the same events,
// the same per-flow statistics; and there are exactly as many flows as
// clients, none evicted or split.
func TestManyFlowsDecodeAlike(t *testing.T) {
	src3 := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	src := loadSource(t, src3)
	if src.Clients() != 4 { // 3 players and a GameSpy query
		t.Fatalf("session 3 has %d client ports, want 4", src.Clients())
	}
	orig := decodeCopies(t, src3, dissect.Serial, 1, func(netip.Addr) int { return 0 })[0]
	if len(orig.flows) != 3 || len(orig.datagrams) < 4000 {
		t.Fatalf("session 3: %d flows, %d datagrams", len(orig.flows), len(orig.datagrams))
	}
	tests := []struct {
		name   string
		copies int
		mode   dissect.Mode
	}{
		{"100 copies (300 flows, past the old 256)", 100, dissect.Serial},
		{"20 copies, parallel", 20, dissect.Parallel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && tt.copies > 20 {
				t.Skip("short")
			}
			path := writeReplica(t, src, replicate.Options{Copies: tt.copies, Spread: 10 * time.Second, ClientAddrs: true})
			copyOf := map[netip.Addr]int{}
			for k := range tt.copies {
				for c := range src.Clients() {
					copyOf[src.ClientAddr(k, c, true)] = k
				}
			}
			got := decodeCopies(t, path, tt.mode, tt.copies, func(a netip.Addr) int {
				if k, ok := copyOf[a]; ok {
					return k
				}
				return -1
			})
			flows := 0
			for k, g := range got {
				flows += len(g.flows)
				for _, diff := range []struct {
					what      string
					got, want []string
				}{
					{"datagrams", g.datagrams, orig.datagrams},
					{"events", g.events, orig.events},
					{"flows", g.flows, orig.flows},
				} {
					if !slices.Equal(diff.got, diff.want) {
						t.Fatalf("copy %d: %d %s differ from the original's %d; first difference:\n%s", k, len(diff.got), diff.what, len(diff.want), firstDiff(diff.got, diff.want))
					}
				}
			}
			if flows != 3*tt.copies {
				t.Errorf("%d flows, want %d", flows, 3*tt.copies)
			}
		})
	}
}

func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf(" got[%d]: %s\nwant[%d]: %s", i, g, i, w)
		}
	}
	return "none"
}

// 100,000 flows at once: the sample session (one client, 27 datagrams
// over 7 s) started 100,000 times within 5 s, each from its own address,
// streamed without a file. Every flow is tracked to the end of the capture
// (none evicted: no tracking-limit, one record per flow) and the heap with
// all of them active stays under 1 GB. They need more than the default
// bound (144 MiB), so the test raises it as --flow-memory 1GiB would. The
// figures are logged.
func TestHundredThousandFlows(t *testing.T) {
	if testing.Short() {
		t.Skip("2.7 million datagrams")
	}
	const copies = 100000
	samplePath := filepath.Join(testdata, "sample.pcap")
	src := loadSource(t, samplePath)
	stream, err := src.Stream(replicate.Options{Copies: copies, Spread: 5 * time.Second, ClientAddrs: true})
	if err != nil {
		t.Fatal(err)
	}
	var want int
	if r, err := capture.Open(samplePath, capture.Options{}); err == nil {
		var p capture.Packet
		for r.Next(&p) == nil {
			want++
		}
		r.Close()
	}
	want *= copies
	s := dissect.NewSession(dissect.SessionOptions{
		Options: dissect.Options{MaxFlowBytes: 1 << 30},
		Mode:    dissect.Serial, EventsAsFound: true,
	})
	var full uint64
	n, limits := 0, 0
	start := time.Now()
	err = s.Run(context.Background(), stream, dissect.SinkFuncs{
		OnDatagram: func(dg *dissect.Datagram) error {
			n++
			for _, a := range dg.Anomalies {
				if a.Code == anomaly.TrackingLimit {
					limits++
				}
			}
			if n == want { // every flow active, none finished yet
				full = heapInuse()
			}
			return nil
		},
		OnEvents: func(ev []dissect.Event) error {
			for _, e := range ev {
				if e.Code == anomaly.TrackingLimit {
					limits++
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	flows := s.Flows()
	covered, records := 0, 0
	for _, fs := range flows {
		covered += max(fs.Flows, 1)
		records++
	}
	t.Logf("%d datagrams in %s; heap in use with %d flows active: %.1f MB; %d flow records",
		n, time.Since(start).Round(time.Millisecond), copies, float64(full)/1e6, records)
	if n != want {
		t.Fatalf("%d datagrams, want %d", n, want)
	}
	if covered != copies {
		t.Errorf("flow records cover %d flows, want %d", covered, copies)
	}
	if limits != 0 {
		t.Errorf("%d tracking-limit anomalies", limits)
	}
	if records > transport.DefaultMaxFinishedFlows+1 {
		t.Errorf("%d flow records, want at most MaxFinishedFlows+1", records)
	}
	if full == 0 || full > 1<<30 {
		t.Errorf("heap in use %.1f MB with %d flows active, want under 1 GB", float64(full)/1e6, copies)
	}
}
