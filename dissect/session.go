package dissect

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Sink consumes what a Session decodes. Its methods are called one at a
// time, in capture order: on the goroutine that called Run in Serial mode,
// on the worker whose turn it is in Parallel mode (a Renderer's render
// functions are the exception: see Renderer).
type Sink interface {
	// Datagram receives every datagram. dg, and everything it points to,
	// is reused once Datagram returns. ErrStop ends the run cleanly.
	Datagram(dg *Datagram) error
	// Events receives events right after the datagram or tick that found
	// them, when the session hands them out as found
	// (SessionOptions.EventsAsFound); they are not given to Finish again.
	Events(ev []Event) error
	// Finish is called once at the end, also after an error, with what
	// only the end of the capture revealed (and every event not yet given
	// to Events), in frame order; it flushes what the sink buffered.
	Finish(end []Event) error
}

// FieldBlind is implemented by a Sink that can say it never reads the
// fields of game payloads (Payload.Fields of messages and of reassembled
// payloads), such as report.Stats, which counts. A Session feeding one whose
// FieldBlind returns true decodes every payload as ever, so malformed ones
// are flagged the same, but stores no fields (Dissector.DropFields). A Sink
// that hands datagrams on to others is blind only if they all are.
type FieldBlind interface {
	FieldBlind() bool
}

// Ticker is implemented by sinks that want to hear about a tick: a live
// source had no packet for its tick period (capture.ErrNoPacket), and the
// session moved capture time on to now. Events the tick found come first.
type Ticker interface {
	Tick(now time.Time) error
}

// ErrStop, returned by a Sink's Datagram, ends a run as if the source had
// ended: Run finishes the capture and returns nil. The events that
// datagram found are still handed out.
var ErrStop = errors.New("dissect: stop")

// Mode says how a Session decodes.
type Mode int

const (
	// Auto is Parallel when two or more goroutines can run at once
	// (GOMAXPROCS and the CPUs the process may use) and events are not
	// handed out as found; Serial otherwise (on one core the pipeline would
	// be Serial with extra hand-offs). A live source or a pipe must ask for
	// Serial: Parallel reads a batch ahead, so a datagram would wait for
	// the packets after it (bcdump help performance, "Serial or parallel").
	Auto Mode = iota
	// Serial decodes each packet and hands it to the Sink before reading
	// the next, on Run's goroutine.
	Serial
	// Parallel reads batches of packets ahead and takes each through
	// decoding, tracking and (for a Renderer) rendering on one of Workers+1
	// goroutines, Run's among them, the ordered steps in batch order; the
	// Sink sees exactly what Serial gives it, one call at a time, and a
	// Renderer writes the same bytes.
	Parallel
)

// SessionOptions configure a Session.
type SessionOptions struct {
	Options
	Mode Mode
	// Workers is the number of goroutines that decode and render besides
	// Run's in Parallel mode; 0 means one per core beyond the first, eight
	// goroutines at most (Run's included: see maxWorkers).
	Workers int
	// EventsAsFound hands events to Sink.Events as soon as they are found
	// (live capture) instead of holding them for Sink.Finish (files).
	EventsAsFound bool
	// Now is the clock a tick reads; nil means time.Now.
	Now func() time.Time
}

// Session runs one source through a Dissector into a Sink: it picks serial
// or parallel decoding, tracks flows in capture order, hands out the
// datagrams and the events, ticks capture time on a quiet live wire and
// finishes the capture at the end. A Session runs once.
type Session struct {
	d   *Dissector
	opt SessionOptions
}

// NewSession returns a Session with a new Dissector.
func NewSession(opt SessionOptions) *Session {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Session{d: New(opt.Options), opt: opt}
}

// Run reads src until it ends (io.EOF), fails, the sink returns an error
// or ctx is done, then finishes the capture (Sink.Finish). It returns the
// first error of src, the sink or Finish; a clean end, ErrStop and a done
// ctx return nil. Everything Run starts has ended when it returns.
func (s *Session) Run(ctx context.Context, src capture.Source, sink Sink) error {
	fb, ok := sink.(FieldBlind)
	s.d.DropFields(ok && fb.FieldBlind())
	var err error
	if s.parallel() {
		err = s.runParallel(ctx, src, sink)
	} else {
		err = s.runSerial(ctx, src, sink)
	}
	if err == ErrStop {
		err = nil
	}
	// What the reader gave up on without a datagram to show it on
	// (fragmented datagrams whose ports are unknown) ends with the capture.
	if n, ok := src.(interface{ TakeNotes() []capture.Note }); ok {
		s.d.ReaderNotes(n.TakeNotes())
	}
	if ferr := sink.Finish(s.d.Finish()); err == nil {
		err = ferr
	}
	return err
}

// parallel decides the mode (see Auto).
func (s *Session) parallel() bool {
	switch s.opt.Mode {
	case Parallel:
		return true
	case Auto:
		return cores() >= 2 && !s.opt.EventsAsFound
	}
	return false
}

// runSerial decodes, advances and delivers each packet before reading the
// next.
func (s *Session) runSerial(ctx context.Context, src capture.Source, sink Sink) error {
	done := ctx.Done()
	var p capture.Packet
	for {
		select {
		case <-done:
			return nil
		default:
		}
		if err := src.Next(&p); err != nil {
			if done, err := s.noPacket(err, sink); done {
				return err
			}
			continue
		}
		if p.Kind != capture.KindMatched {
			continue // a live capture's odd first IP fragment or damaged frame
		}
		dg := &s.d.dg
		s.d.decode(dg, &p, true)
		if err := s.deliver(dg, sink); err != nil {
			return err
		}
	}
}

// noPacket handles an error from the source's Next: a tick goes on, the
// end of the source is done (nil), a failure is done with the error.
func (s *Session) noPacket(err error, sink Sink) (done bool, _ error) {
	switch err {
	case io.EOF:
		return true, nil
	case capture.ErrNoPacket:
		if err := s.tick(sink); err != nil {
			return true, err
		}
		return false, nil
	}
	return true, err
}

// deliver advances a decoded datagram and hands it, and the events it
// found, to the sink.
func (s *Session) deliver(dg *Datagram, sink Sink) error {
	s.d.Advance(dg)
	err := sink.Datagram(dg)
	if err == nil || err == ErrStop {
		if eerr := s.events(sink); eerr != nil {
			err = eerr
		}
	}
	return err
}

// events hands the events found so far to the sink, when they go out as
// found.
func (s *Session) events(sink Sink) error {
	if !s.opt.EventsAsFound {
		return nil
	}
	if ev := s.d.takeEvents(); len(ev) > 0 {
		return sink.Events(ev)
	}
	return nil
}

// tick moves capture time on without a packet, so timeouts fire on a
// quiet wire.
func (s *Session) tick(sink Sink) error {
	now := s.opt.Now()
	s.d.tick(now)
	if err := s.events(sink); err != nil {
		return err
	}
	if t, ok := sink.(Ticker); ok {
		return t.Tick(now)
	}
	return nil
}

// Flows returns the per-flow statistics so far (see transport.FlowStats).
func (s *Session) Flows() []transport.FlowStats { return s.d.Flows() }

// Unlisted returns, by code, the events Finish left out past MaxHeldEvents
// (nil when none were).
func (s *Session) Unlisted() map[anomaly.Code]int { return s.d.Unlisted() }

// EventsFound is how many events were found so far, listed or not.
func (s *Session) EventsFound() int { return s.d.EventsFound() }

// SinkFuncs is a Sink made of functions; a nil one does nothing.
type SinkFuncs struct {
	OnDatagram func(*Datagram) error
	OnEvents   func([]Event) error
	OnFinish   func([]Event) error
}

func (f SinkFuncs) Datagram(dg *Datagram) error { return call(f.OnDatagram, dg) }
func (f SinkFuncs) Events(ev []Event) error     { return call(f.OnEvents, ev) }
func (f SinkFuncs) Finish(end []Event) error    { return call(f.OnFinish, end) }

func call[T any](fn func(T) error, v T) error {
	if fn == nil {
		return nil
	}
	return fn(v)
}
