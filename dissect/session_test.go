package dissect_test

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
)

// liveSource plays packets like a live capture: each entry is a packet or,
// when nil, a tick (capture.ErrNoPacket); io.EOF after the last.
type liveSource struct {
	pkts []*capture.Packet
	i    int
}

func (s *liveSource) Next(p *capture.Packet) error {
	if s.i == len(s.pkts) {
		return io.EOF
	}
	q := s.pkts[s.i]
	s.i++
	if q == nil {
		return capture.ErrNoPacket
	}
	*p = *q
	return nil
}

// samplePackets reads the sample capture's packets, payloads copied.
func samplePackets(t *testing.T) []*capture.Packet {
	t.Helper()
	r, err := capture.Open(filepath.Join("..", "testdata", "sample.pcap"), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ps []*capture.Packet
	for {
		p := new(capture.Packet)
		if err := r.Next(p); err == io.EOF {
			return ps
		} else if err != nil {
			t.Fatal(err)
		}
		p.Payload = slices.Clone(p.Payload)
		p.Data = nil
		ps = append(ps, p)
	}
}

// recorder is a Sink and Ticker that logs what it was given, in order.
type recorder struct {
	log    []string
	events int
	stopAt int // Datagram returns ErrStop at this datagram; 0 never
	n      int
}

func (r *recorder) Datagram(dg *dissect.Datagram) error {
	r.n++
	r.log = append(r.log, "datagram")
	if r.n == r.stopAt {
		return dissect.ErrStop
	}
	return nil
}

func (r *recorder) Events(ev []dissect.Event) error {
	r.events += len(ev)
	r.log = append(r.log, "events")
	return nil
}

func (r *recorder) Finish(end []dissect.Event) error {
	r.events += len(end)
	r.log = append(r.log, "finish")
	return nil
}

func (r *recorder) Tick(time.Time) error {
	r.log = append(r.log, "tick")
	return nil
}

// On a live source, a tick moves capture time on: the session, cut off in
// the middle, idles out and its timeouts reach the sink at once, not at
// Finish; the sink hears of the tick after them.
func TestSessionTickOnQuietWire(t *testing.T) {
	ps := samplePackets(t)
	ps = ps[:len(ps)/2]
	last := ps[len(ps)-1].Time
	src := &liveSource{pkts: append(slices.Clone(ps), nil)}
	s := dissect.NewSession(dissect.SessionOptions{EventsAsFound: true,
		Now: func() time.Time { return last.Add(10 * time.Minute) }})
	rec := &recorder{}
	if err := s.Run(context.Background(), src, rec); err != nil {
		t.Fatal(err)
	}
	n := len(rec.log)
	if n < 3 || rec.log[n-3] != "events" || rec.log[n-2] != "tick" || rec.log[n-1] != "finish" {
		t.Fatalf("log ends %v, want events, tick, finish", rec.log[max(0, n-5):])
	}
	for _, f := range s.Flows() {
		if !f.Finished {
			t.Errorf("flow %v still active after 10 idle minutes", f.Client)
		}
	}
	if s.EventsFound() == 0 || rec.events < s.EventsFound() {
		t.Errorf("sink got %d events of %d found", rec.events, s.EventsFound())
	}
}

// With events as found, a sink gets every event once: the ones handed out
// early plus the end ones are what a file run gives at Finish.
func TestSessionEventsAsFound(t *testing.T) {
	ps := samplePackets(t)
	for _, early := range []bool{false, true} {
		s := dissect.NewSession(dissect.SessionOptions{EventsAsFound: early})
		rec := &recorder{}
		if err := s.Run(context.Background(), &liveSource{pkts: ps}, rec); err != nil {
			t.Fatal(err)
		}
		if rec.events != s.EventsFound() || rec.log[len(rec.log)-1] != "finish" {
			t.Errorf("early %v: sink got %d events, %d found; log %v", early, rec.events, s.EventsFound(), rec.log)
		}
		if !early && slices.Contains(rec.log, "events") {
			t.Error("events handed out early without EventsAsFound")
		}
	}
}

// ErrStop ends the run cleanly in either mode, Finish still runs, and a
// done context ends it before the first packet.
func TestSessionStop(t *testing.T) {
	path := filepath.Join("..", "testdata", "sample.pcap")
	for _, opt := range []dissect.SessionOptions{{Mode: dissect.Serial}, parallel2} {
		r, err := capture.Open(path, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{stopAt: 5}
		err = dissect.NewSession(opt).Run(context.Background(), r, rec)
		r.Close()
		if err != nil || rec.n != 5 || rec.log[len(rec.log)-1] != "finish" {
			t.Errorf("mode %v: err %v, %d datagrams, log %v", opt.Mode, err, rec.n, rec.log)
		}

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec = &recorder{}
		err = dissect.NewSession(dissect.SessionOptions{Mode: dissect.Serial}).Run(ctx, &liveSource{pkts: samplePackets(t)}, rec)
		if err != nil || rec.n != 0 || len(rec.log) != 1 {
			t.Errorf("done context: err %v, log %v", err, rec.log)
		}
	}
}

// Parallel mode on a ticking source ends a batch at each tick, so the sink
// sees datagrams, events and ticks in the very order Serial gives them.
func TestSessionParallelTicks(t *testing.T) {
	ps := samplePackets(t)
	var pkts []*capture.Packet
	for i, p := range ps {
		pkts = append(pkts, p)
		if i%5 == 4 {
			pkts = append(pkts, nil)
		}
	}
	last := ps[len(ps)-1].Time
	var logs [2][]string
	for i, mode := range []dissect.Mode{dissect.Serial, dissect.Parallel} {
		s := dissect.NewSession(dissect.SessionOptions{Mode: mode, Workers: 2, EventsAsFound: true,
			Now: func() time.Time { return last.Add(10 * time.Minute) }})
		rec := &recorder{}
		if err := s.Run(context.Background(), &liveSource{pkts: pkts}, rec); err != nil {
			t.Fatal(err)
		}
		logs[i] = rec.log
	}
	if !slices.Equal(logs[0], logs[1]) || !slices.Contains(logs[0], "tick") {
		t.Errorf("parallel log %v\nserial log   %v", logs[1], logs[0])
	}
}
