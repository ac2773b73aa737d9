package capture

import (
	"io"
	"time"
)

// Follow reads a capture that arrives as it is taken (a pipe from
// tcpdump -U -w -) like a live source: Next returns ErrNoPacket when no
// packet came for tick, so a Session fires timeouts on a quiet wire
// instead of waiting in a read. Now is the capture clock for those ticks.
// The source is read on a goroutine of its own, one packet ahead of
// nothing: it reads the next packet only when Next is called again, so a
// packet's slices stay valid until then as the source promises.
type Follow struct {
	src  Source
	tick time.Duration
	req  chan struct{}
	res  chan followed
	busy bool // a read was requested and its result not taken yet
	done bool // the source ended; the goroutine has returned

	last    time.Time // capture time of the last packet
	arrived time.Time // wall time it was handed out
}

type followed struct {
	p   Packet
	err error
}

// NewFollow starts following src; Close (or the source's end) stops the
// goroutine.
func NewFollow(src Source, tick time.Duration) *Follow {
	f := &Follow{src: src, tick: tick, req: make(chan struct{}), res: make(chan followed, 1)}
	go f.read()
	return f
}

func (f *Follow) read() {
	for range f.req {
		var r followed
		r.err = f.src.Next(&r.p)
		f.res <- r
		if r.err != nil && r.err != ErrNoPacket {
			return
		}
	}
}

// Next returns the next packet, or ErrNoPacket after tick without one.
func (f *Follow) Next(p *Packet) error {
	if f.done {
		return io.EOF
	}
	if !f.busy {
		f.req <- struct{}{}
		f.busy = true
	}
	t := time.NewTimer(f.tick)
	defer t.Stop()
	select {
	case r := <-f.res:
		f.busy = false
		if r.err != nil && r.err != ErrNoPacket {
			f.done = true
			close(f.req)
			return r.err
		}
		*p = r.p
		if r.err == nil && !p.Time.IsZero() {
			f.last, f.arrived = p.Time, time.Now()
		}
		return r.err
	case <-t.C:
		return ErrNoPacket
	}
}

// Now is the capture clock: the last packet's capture time plus the wall
// time since it arrived. It follows the writer's clock, however far it is
// from this machine's; before the first packet it is the zero time,
// which moves nothing on.
func (f *Follow) Now() time.Time {
	if f.last.IsZero() {
		return time.Time{}
	}
	return f.last.Add(time.Since(f.arrived))
}

// TakeNotes passes on the notes of a source that has them (Reader), once
// it has ended.
func (f *Follow) TakeNotes() []Note {
	if n, ok := f.src.(interface{ TakeNotes() []Note }); ok && f.done {
		return n.TakeNotes()
	}
	return nil
}

// Close stops following. It reports whether a read is still in progress
// on the source (the run stopped during a quiet spell): the source must
// then not be closed under it; the read finishes on its own.
func (f *Follow) Close() (reading bool) {
	if !f.done {
		f.done = true
		close(f.req)
	}
	return f.busy
}
