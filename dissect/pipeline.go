package dissect

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
)

// The Parallel mode of Session.Run. Deciphering, wire decoding and opcode
// decoding (Decode) need no per-flow state, and neither does rendering a
// datagram once it is tracked (Renderer), so both run on every core;
// reading, per-flow tracking (Advance), the sink's in-order step and
// writing need capture order and run on Run's goroutine:
//
//	Run:      src.Next -> batch ------------------> jobs
//	helpers:  Decode (two at a time: decodePair)  -> done
//	Run:      in order: Advance, Sink (or Renderer.Order)
//	          if rendering: batch ----------------> jobs
//	helpers:  Renderer render into the batch's buffer -> done
//	Run:      in order: Renderer.Write, batch back to the free list
//
// Run's goroutine takes a job itself whenever it would otherwise wait, so
// there is no reader goroutine and no idle core: with W helpers there are
// at most W+1 runnable goroutines. A fixed set of batches circulates, so
// memory stays flat however long the capture.

const (
	// pipeBatchLen is the number of packets per batch: large enough that
	// the few channel operations per batch are rare, small enough that the
	// batches in flight stay small.
	pipeBatchLen = 32
	// pipeBatchBytes caps the payload bytes copied into one batch.
	pipeBatchBytes = 64 << 10
	// A slot keeps the buffers typical datagrams need; one that a rare huge
	// datagram grew beyond these is let go, so memory does not drift up to
	// slots x the largest datagram ever seen. The limits are far above
	// what BC traffic needs, so slots are not re-allocated in a run.
	keepBytes  = 16 << 10 // Raw, Plain, reassembled payloads
	keepMsgs   = 64       // messages, anomalies, GameSpy pairs
	keepFields = 2048     // decoded fields of all messages of a slot (x ~136 B)
	keepOutput = 4 << 20  // rendered bytes of a batch
)

// Renderer is a Sink whose Datagram splits into an in-order step and a
// rendering of the datagram that needs nothing but the datagram, so the
// Parallel mode runs the renderings of a batch on every core once the
// batch is tracked, and writes them in order: the output is what Datagram
// would write.
type Renderer interface {
	Sink
	// Order is Datagram without the rendering, called in capture order. It
	// returns 0 when dg is not shown, else a mark passed to the render.
	Order(dg *Datagram) (mark uint8, err error)
	// NewRender returns a render function for one goroutine; it appends
	// what Datagram would write for dg. nil: the output cannot be rendered
	// out of order now (it depends on the datagrams before, or is flushed
	// per record), and Datagram is called instead.
	NewRender() func(b []byte, dg *Datagram, mark uint8) []byte
	// Write writes rendered records, in capture order.
	Write(b []byte) error
}

// batch is a unit of work: packets read in a row and their datagrams.
type batch struct {
	pkts  []capture.Packet
	dgs   []Datagram
	marks []uint8 // Renderer.Order's, per datagram
	buf   []byte  // payload bytes of pkts
	out   []byte  // rendered output
	err   error   // reader error after pkts (io.EOF at the end); nil mid-stream
	n     int     // datagrams handed to the sink (all unless the run stopped)
	show  bool    // some datagram is rendered
	stage uint8   // the job to do or done: stageDecode or stageRender
	ready bool    // the stage's job is done
}

const (
	stageDecode uint8 = iota
	stageRender
)

// pipe is the state of one parallel run, owned by Run's goroutine.
type pipe struct {
	s     *Session
	sink  Sink
	rsink Renderer // sink when it renders out of order; nil otherwise
	jobs  chan *batch
	done  chan *batch
	stop  atomic.Bool                                     // helpers skip what is left
	rend  func(b []byte, dg *Datagram, mark uint8) []byte // Run's own render
	free  []*batch
	queue []*batch // in reading order: batches not yet written
	adv   int      // queue[:adv] are advanced

	// In Auto mode the pipeline hands the rest of the capture to Serial
	// when the sink shows few of the datagrams it has tracked (a -Y that
	// keeps little): with little to render, the pipeline only moves
	// decoding to another core, which costs more than it saves (README
	// "Serial or parallel"). adaptive enables it; seen and shown count
	// the datagrams tracked and marked; toSerial says the switch began
	// (no more reading), serial that the run ended for it.
	adaptive    bool
	seen, shown int
	toSerial    bool
	serial      bool
}

// The switch to Serial is decided once switchAfter datagrams are tracked,
// when fewer than one in switchRatio was shown.
const (
	switchAfter = 2048
	switchRatio = 8
)

// helpers is the number of goroutines that decode and render besides
// Run's: one per core beyond the first, unless Workers says.
func (s *Session) helpers() int {
	if s.opt.Workers > 0 {
		return s.opt.Workers
	}
	return cores() - 1
}

// cores is how many goroutines can run at once.
func cores() int {
	return min(runtime.GOMAXPROCS(0), runtime.NumCPU())
}

// runParallel is the Parallel mode of Run: the sink sees exactly what
// runSerial gives it, in the same order, on Run's goroutine; a Renderer's
// output is written in order. Everything runParallel starts has ended when
// it returns.
func (s *Session) runParallel(ctx context.Context, src capture.Source, sink Sink) error {
	h := s.helpers()
	// Enough batches that every goroutine has one to decode or render while
	// Run reads, tracks and writes others.
	nb := min(2*(h+1)+2, h+8)
	p := &pipe{s: s, sink: sink, jobs: make(chan *batch, nb), done: make(chan *batch, nb)}
	if r, ok := sink.(Renderer); ok && !s.opt.EventsAsFound {
		// Events given out as found go between the records: only Datagram
		// keeps them in place.
		if p.rend = r.NewRender(); p.rend != nil {
			p.rsink = r
		}
	}
	for range nb {
		p.free = append(p.free, &batch{})
	}
	var wg sync.WaitGroup
	wg.Add(h)
	for range h {
		var rend func([]byte, *Datagram, uint8) []byte
		if p.rsink != nil {
			rend = p.rsink.NewRender()
		}
		go func() {
			defer wg.Done()
			for b := range p.jobs {
				p.do(b, rend)
				p.done <- b
			}
		}()
	}
	p.adaptive = s.opt.Mode == Auto && p.rsink != nil
	err := p.run(ctx, src)
	p.stop.Store(true)
	close(p.jobs)
	wg.Wait()
	if p.serial && err == nil {
		// Every batch read so far is tracked and written: the source and
		// the sink go on from there, one datagram at a time.
		return s.runSerial(ctx, src, sink)
	}
	return err
}

// do runs b's job.
func (p *pipe) do(b *batch, rend func([]byte, *Datagram, uint8) []byte) {
	if p.stop.Load() {
		return
	}
	switch b.stage {
	case stageDecode:
		d := p.s.d
		i := 0
		for ; i+1 < len(b.pkts); i += 2 {
			d.decodePair(&b.dgs[i], &b.dgs[i+1], &b.pkts[i], &b.pkts[i+1])
		}
		if i < len(b.pkts) {
			d.Decode(&b.dgs[i], &b.pkts[i])
		}
	case stageRender:
		out := b.out[:0]
		for i := range b.n {
			if m := b.marks[i]; m != 0 {
				out = rend(out, &b.dgs[i], m)
			}
		}
		b.out = out
	}
}

// run reads, tracks and writes until the source ends or fails, the sink
// fails or stops, or ctx is done; batches tracked by then are still
// written. It returns with no job in flight.
func (p *pipe) run(ctx context.Context, src capture.Source) error {
	done := ctx.Done()
	reading := true  // the source may have more
	stopped := false // nothing more is read or tracked
	wfail := false   // a Write failed: nothing more is written
	var result error
	for {
		// Take what the helpers finished.
		for drained := false; !drained; {
			select {
			case b := <-p.done:
				b.ready = true
			default:
				drained = true
			}
		}
		progress := false
		// Track, in order, every batch decoded.
		for !stopped && p.adv < len(p.queue) && p.queue[p.adv].ready {
			b := p.queue[p.adv]
			p.adv++
			progress = true
			if end, err := p.track(b); end {
				stopped, reading, result = true, false, err
			}
		}
		if stopped && p.adv < len(p.queue) {
			// Batches read after the end: drop them untracked once decoded.
			for _, b := range p.queue[p.adv:] {
				for !b.ready {
					p.wait()
				}
				p.release(b)
			}
			p.queue = p.queue[:p.adv]
		}
		// Write, in order, every batch tracked and rendered.
		for p.adv > 0 && p.queue[0].ready {
			b := p.queue[0]
			if b.show && !wfail {
				if err := p.rsink.Write(b.out); err != nil {
					wfail, stopped, reading = true, true, false
					if result == nil || result == ErrStop {
						result = err
					}
				}
			}
			copy(p.queue, p.queue[1:])
			p.queue = p.queue[:len(p.queue)-1]
			p.adv--
			p.release(b)
			progress = true
		}
		if stopped && len(p.queue) == 0 {
			return result
		}
		if p.toSerial && len(p.queue) == 0 {
			p.serial = true
			return nil
		}
		if p.adaptive && reading && !p.toSerial && p.seen >= switchAfter {
			if p.shown*switchRatio < p.seen {
				p.toSerial, reading = true, false
			}
			p.adaptive = false // decided once
		}
		if !stopped {
			select {
			case <-done:
				stopped, reading = true, false
				continue
			default:
			}
		}
		if reading && len(p.free) > 0 {
			b := p.free[len(p.free)-1]
			p.free = p.free[:len(p.free)-1]
			b.err = fill(src, b)
			b.stage, b.ready = stageDecode, false
			if b.err != nil && b.err != capture.ErrNoPacket {
				reading = false
			}
			p.queue = append(p.queue, b)
			p.jobs <- b // never blocks: jobs has room for every batch
			continue
		}
		if !progress {
			p.wait()
		}
	}
}

// wait waits for a helper to finish a job, doing one itself meanwhile.
func (p *pipe) wait() {
	select {
	case b := <-p.done:
		b.ready = true
	case b := <-p.jobs:
		p.do(b, p.rend)
		b.ready = true
	}
}

// release puts a batch out of the queue back on the free list.
func (p *pipe) release(b *batch) {
	if cap(b.out) > keepOutput {
		b.out = nil
	}
	for i := range b.dgs {
		b.dgs[i].trim()
	}
	p.free = append(p.free, b)
}

// track advances b's datagrams in order and hands them to the sink, then
// passes on the reader's error after them; with a Renderer, b is then
// queued for rendering. end says the run is over, with err.
func (p *pipe) track(b *batch) (end bool, err error) {
	s := p.s
	b.n, b.show = 0, false
	if cap(b.marks) < len(b.pkts) {
		b.marks = make([]uint8, pipeBatchLen)
	}
	b.marks = b.marks[:len(b.pkts)]
	for i := range b.pkts {
		dg := &b.dgs[i]
		b.n = i + 1
		if p.rsink == nil {
			err = s.deliver(dg, p.sink)
		} else {
			s.d.Advance(dg)
			b.marks[i], err = p.rsink.Order(dg)
			b.show = b.show || b.marks[i] != 0
			p.seen++
			if b.marks[i] != 0 {
				p.shown++
			}
		}
		if err != nil {
			end = true
			break
		}
	}
	if !end && b.err != nil {
		end, err = s.noPacket(b.err, p.sink)
	}
	if b.show {
		b.stage, b.ready = stageRender, false
		p.jobs <- b // never blocks: jobs has room for every batch
	}
	return end, err
}

// trim lets go of buffers a rare huge datagram grew (see keepBytes).
func (dg *Datagram) trim() {
	if cap(dg.Raw) > keepBytes {
		dg.Raw = nil
	}
	if cap(dg.Plain) > keepBytes {
		dg.Plain = nil
	}
	if cap(dg.reasmBuf) > keepBytes {
		dg.reasmBuf = nil
	}
	if cap(dg.Msgs) > keepMsgs {
		dg.Msgs = nil
	}
	if cap(dg.Transport.Messages) > keepMsgs {
		dg.Transport.Messages = nil
	}
	if cap(dg.Transport.Anomalies) > keepMsgs {
		dg.Transport.Anomalies = nil
	}
	if cap(dg.Anomalies) > keepMsgs {
		dg.Anomalies = nil
	}
	if cap(dg.GameSpy) > keepMsgs {
		dg.GameSpy = nil
	}
	// Field lists stay with their message slot across datagrams: without a
	// budget each slot would keep, per message index, the most fields any
	// datagram ever had there. fieldCaps remembers each message slot's
	// field capacity as trim last saw it, so the budget is summed from one
	// small array: only the slots this datagram used (in cache) are read,
	// and the cold ones only when the budget is exceeded (rare).
	ms := dg.Msgs
	if cap(ms) == 0 {
		dg.fieldCaps = [keepMsgs]int32{}
	}
	for i := range ms {
		dg.fieldCaps[i] = ms[i].fieldCap()
	}
	total := 0
	for _, n := range dg.fieldCaps {
		total += int(n)
	}
	if total <= keepFields {
		return
	}
	fields := 0
	all := ms[:cap(ms)]
	for i := range all {
		for _, f := range []*game.Fields{&all[i].Fields, &all[i].reasm.Fields} {
			if fields += cap(f.List); fields > keepFields {
				fields -= cap(f.List)
				f.List = nil
			}
		}
		dg.fieldCaps[i] = all[i].fieldCap()
	}
}

// fieldCap is the capacity of m's field lists, its own and its reassembled
// payload's.
func (m *Message) fieldCap() int32 {
	return int32(cap(m.Fields.List) + cap(m.reasm.Fields.List))
}

// fill reads the datagrams of src into b, copying their payloads, until
// the batch is full or Next returns an error.
func fill(src capture.Source, b *batch) error {
	if cap(b.buf) > 2*pipeBatchBytes {
		b.buf = nil // a huge frame grew it; do not keep that
	}
	if b.pkts == nil {
		b.pkts = make([]capture.Packet, 0, pipeBatchLen)
		b.dgs = make([]Datagram, pipeBatchLen)
		b.buf = make([]byte, 0, pipeBatchBytes)
	}
	b.pkts, b.buf = b.pkts[:0], b.buf[:0]
	var err error
	for len(b.pkts) < pipeBatchLen && len(b.buf) < pipeBatchBytes {
		b.pkts = append(b.pkts, capture.Packet{})
		p := &b.pkts[len(b.pkts)-1]
		if err = src.Next(p); err != nil || p.Kind != capture.KindMatched {
			b.pkts = b.pkts[:len(b.pkts)-1]
			if err != nil {
				break
			}
			continue
		}
		// Keep only what Decode reads; the rest aliases the reader's buffer.
		off := len(b.buf)
		b.buf = append(b.buf, p.Payload...)
		p.Payload = b.buf[off:len(b.buf):len(b.buf)]
		p.Data, p.CaptureInfo.AncillaryData = nil, nil
	}
	// Appending may have moved buf: point the payloads at its final place.
	off := 0
	for i := range b.pkts {
		p := &b.pkts[i]
		n := len(p.Payload)
		p.Payload = b.buf[off : off+n : off+n]
		off += n
	}
	return err
}
