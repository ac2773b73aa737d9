package dissect

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
)

// The Parallel mode of Session.Run. Every worker (Run's goroutine and one
// helper per core beyond the first, up to maxWorkers in all) takes a batch
// through all the steps itself, so a decoded datagram never leaves the
// core that decoded it; only the steps that need capture order wait for
// their turn, which goes round the workers like a token ring:
//
//	worker k:  [read turn] fill batch from src
//	           Decode the batch (two datagrams at a time: decodePair)
//	           [track turn] Advance, Sink (or Renderer.Order), in order
//	           render the batch's records (Renderer)
//	           [write turn] Renderer.Write
//
// The per-flow state (tracker, sink) moves between cores once per batch,
// which is far less than a batch of decoded datagrams would: decoding on
// helpers and tracking on Run's goroutine makes the in-order step read
// another core's datagrams, at half the speed. There are never more
// runnable goroutines than workers, and each worker owns one batch, so
// memory stays flat however long the capture.

const (
	// pipeBatchLen is the number of packets per batch: large enough that
	// the turn hand-offs per batch are rare, small enough that a batch's
	// datagrams stay in the core's cache from decoding to writing.
	pipeBatchLen = 32
	// pipeBatchBytes caps the payload bytes copied into one batch.
	pipeBatchBytes = 64 << 10
	// A slot keeps the buffers typical datagrams need; one that a rare huge
	// datagram grew beyond these is let go, so memory does not drift up to
	// slots x the largest datagram ever seen. The limits are far above
	// what BC traffic needs, so slots are not re-allocated in a run.
	keepBytes  = 16 << 10 // Raw, Plain, reassembled payloads
	keepMsgs   = 128      // messages, anomalies, GameSpy pairs
	keepFields = 2048     // decoded fields of all messages of a slot (x 128 B)
	keepOutput = 4 << 20  // rendered bytes of a batch
)

// Renderer is a Sink whose Datagram splits into an in-order step and a
// rendering of the datagram that needs nothing but the datagram, so the
// Parallel mode renders on every core once a batch is tracked, and writes
// the renderings in order: the output is what Datagram would write.
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
}

// pipe is the state of one parallel run. Each field is owned by one turn:
// only the worker holding that turn touches it.
type pipe struct {
	s     *Session
	src   capture.Source
	sink  Sink
	rsink Renderer // sink when it renders out of order; nil otherwise
	done  <-chan struct{}

	// The ordered steps take turns in batch order; batch i is worker
	// i mod workers'.
	read, track, write turn

	halt atomic.Bool // the run is ending: read and decode nothing more

	reading bool // read turn: the source may have more

	// In Auto mode the pipeline checks, every coreCheckEvery batches read, how
	// many cores the process actually got (CPU time over wall time); when other
	// processes leave it less than coreCheckMin coreCheckLow times in a row, it
	// stops reading, finishes what it read and hands the rest of the capture to
	// Serial (bcdump help performance, "Serial or parallel"). All read turn.
	probe    func() (time.Duration, bool) // processCPU; tests replace it
	batches  int                          // batches read
	lastCPU  time.Duration                // at the last check
	lastWall time.Time
	low      int  // windows in a row short of cores
	toSerial bool // the switch was decided

	stopped  bool  // track turn: nothing more is tracked
	trackErr error // track turn: the source's, the sink's or ErrStop

	wfail    bool  // write turn: a Write failed, nothing more is written
	writeErr error // write turn
}

// maxWorkers caps the workers Auto and Parallel start (Run's goroutine
// included) when Workers does not say. The ordered steps (read, track,
// write) take about 0.5 µs a datagram together and the rest (decode,
// render) at most about 3 µs (hex), so past about 7 workers the ordered
// steps are the bound and more workers only wait. And they must not wait
// long: a worker waits about workers x one batch's ordered steps (about
// 18 µs) for its turn, which must stay within turnSpin, or waits end
// asleep and every hand-off pays a wake-up.
const maxWorkers = 8

// helpers is the number of goroutines that work besides Run's: one per
// core beyond the first, up to maxWorkers in all, unless Workers says.
func (s *Session) helpers() int { return helpersFor(s.opt.Workers, cores()) }

func helpersFor(workers, cores int) int {
	if workers > 0 {
		return workers
	}
	return max(min(cores, maxWorkers)-1, 0)
}

// cores is how many goroutines can run at once.
func cores() int {
	return min(runtime.GOMAXPROCS(0), runtime.NumCPU())
}

// runParallel is the Parallel mode of Run: the sink sees exactly what
// runSerial gives it, in the same order, one call at a time (on whichever
// worker holds the track turn); a Renderer's output is written in order.
// Everything runParallel starts has ended when it returns.
func (s *Session) runParallel(ctx context.Context, src capture.Source, sink Sink) error {
	w := s.helpers() + 1
	p := &pipe{s: s, src: src, sink: sink, done: ctx.Done(), reading: true}
	if s.opt.Mode == Auto {
		p.probe = cpuProbe
	}
	var rend0 func([]byte, *Datagram, uint8) []byte // worker 0's
	if r, ok := sink.(Renderer); ok && !s.opt.EventsAsFound {
		// Events given out as found go between the records: only Datagram
		// keeps them in place.
		if rend0 = r.NewRender(); rend0 != nil {
			p.rsink = r
		}
	}
	for _, t := range []*turn{&p.read, &p.track, &p.write} {
		t.init(w)
	}
	var wg sync.WaitGroup
	wg.Add(w - 1)
	for k := 1; k < w; k++ {
		go func() {
			defer wg.Done()
			p.work(k, nil)
		}()
	}
	p.work(0, rend0)
	wg.Wait()
	if p.toSerial && !p.stopped && !p.wfail {
		// Every batch read so far is tracked and written: the source and
		// the sink go on from there, one datagram at a time.
		return s.runSerial(ctx, src, sink)
	}
	if p.writeErr != nil && (p.trackErr == nil || p.trackErr == ErrStop) {
		return p.writeErr
	}
	return p.trackErr
}

// work is worker k's loop: one batch at a time through every step, each
// ordered step in its turn, until the source ends or the run stops. rend
// is the worker's render function; nil: work asks the Renderer for one.
func (p *pipe) work(k int, rend func([]byte, *Datagram, uint8) []byte) {
	if rend == nil && p.rsink != nil {
		rend = p.rsink.NewRender()
	}
	b := &batch{}
	spin := [3]time.Duration{turnSpin, turnSpin, turnSpin} // read, track, write
	for seq := uint64(k); ; seq += uint64(len(p.read.wake)) {
		p.read.wait(seq, &spin[0])
		more := p.reading && !p.halt.Load() && !p.isDone() && !p.crowded()
		if more {
			b.err = fill(p.src, b)
			if b.err != nil && b.err != capture.ErrNoPacket {
				p.reading = false
			}
		} else {
			p.reading = false
		}
		p.read.pass(seq)

		if more && !p.halt.Load() {
			p.decode(b)
		}

		p.track.wait(seq, &spin[1])
		// halt without stopped is a failed Write: tracking ends too.
		tracked := more && !p.stopped && !p.halt.Load()
		if tracked && p.isDone() {
			p.stopped, tracked = true, false
		}
		if tracked {
			if end, err := p.trackBatch(b); end {
				p.stopped, p.trackErr = true, err
				p.halt.Store(true)
			}
		}
		p.track.pass(seq)

		if tracked && b.show {
			out := b.out[:0]
			for i := range b.n {
				if m := b.marks[i]; m != 0 {
					out = rend(out, &b.dgs[i], m)
				}
			}
			b.out = out
		}

		p.write.wait(seq, &spin[2])
		if tracked && b.show && !p.wfail {
			if err := p.rsink.Write(b.out); err != nil {
				p.wfail, p.writeErr = true, err
				p.halt.Store(true)
			}
		}
		p.write.pass(seq)

		if !more {
			return
		}
		b.release()
	}
}

// turn orders one step of the workers: batch seq takes it after batch
// seq-1 passed it. A worker waiting for its turn spins first (pausing the
// core, and yielding its thread to other goroutines now and then), and
// only then sleeps: a sleeping goroutine woken by a channel send is queued
// on the sender's thread, where it waits for the sender to block, so
// hand-offs through channels alone ran the workers one after the other
// instead of side by side.
type turn struct {
	next atomic.Uint64
	wake []chan struct{} // per worker; a token means "look again"
}

// A worker spins at most turnSpin before it sleeps: longer than a batch's
// decoding, so on a busy pipeline turns pass without sleeping. Each wait
// that ends asleep halves the worker's budget for that turn (down to
// turnSpinMin) and each that ends spinning doubles it again: when another
// process holds a core, the turn's holder is often off-CPU, and spinning
// would take the core it needs.
const (
	turnSpin    = 200 * time.Microsecond
	turnSpinMin = 5 * time.Microsecond
)

func (t *turn) init(workers int) {
	t.wake = make([]chan struct{}, workers)
	for k := range t.wake {
		t.wake[k] = make(chan struct{}, 1)
	}
}

// wait returns once it is batch seq's turn; budget is the worker's spin
// budget for this turn (see turnSpin).
func (t *turn) wait(seq uint64, budget *time.Duration) {
	if t.next.Load() == seq {
		return
	}
	start := time.Now()
	for i := 1; t.next.Load() != seq; i++ {
		if i%64 == 0 && time.Since(start) > *budget {
			*budget = max(*budget/2, turnSpinMin)
			w := t.wake[seq%uint64(len(t.wake))]
			for t.next.Load() != seq {
				<-w
			}
			return
		}
		// Mostly pause; yield now and then, so a goroutine waiting for
		// this thread (the GC's, a ticker's) is not held up by the spin.
		if i%16 == 0 {
			runtime.Gosched()
		} else {
			spinPause()
		}
	}
	*budget = min(*budget*2, turnSpin)
}

// pass gives the turn after batch seq to the next batch's worker.
func (t *turn) pass(seq uint64) {
	t.next.Store(seq + 1)
	select {
	case t.wake[(seq+1)%uint64(len(t.wake))] <- struct{}{}:
	default: // a token is there already
	}
}

// The pipeline spends about 1.5 times Serial's CPU per datagram without
// rendering (the per-flow state moving between cores, waiting for turns),
// so it is faster only with more than 1.5 cores to itself. Measured on the
// 2-vCPU machine: about 1.9-2.0 cores when it is otherwise idle, 0.9-1.1
// with one other busy process, which made stats 50% slower than Serial.
const (
	coreCheckMin = 1.4
	coreCheckLow = 4
)

// coreCheckEvery (batches), and cpuProbe and wallClock, what Auto
// measures the process's cores with, are variables for the tests.
var (
	coreCheckEvery = 256
	cpuProbe       = processCPU
	wallClock      = time.Now
)

// crowded checks, in the read turn, whether the pipeline got too few cores
// over the last coreCheckEvery batches (see coreCheckMin); once it has,
// nothing more is read.
func (p *pipe) crowded() bool {
	if p.probe == nil || p.toSerial {
		return p.toSerial
	}
	p.batches++
	if (p.batches-1)%coreCheckEvery != 0 {
		return false
	}
	cpu, ok := p.probe()
	if !ok {
		p.probe = nil
		return false
	}
	now := wallClock()
	// The first window (start-up, warming the slots) only sets the mark;
	// a window is a few milliseconds, so one short of cores may be a
	// passing hiccup (a GC cycle, a short-lived process): coreCheckLow in
	// a row decide. Windows' clock may move only every 0.5-15.6 ms: until
	// it has moved, the window goes on.
	if p.batches > 1 {
		wall := now.Sub(p.lastWall)
		if wall <= 0 {
			return false
		}
		if float64(cpu-p.lastCPU) < coreCheckMin*float64(wall) {
			if p.low++; p.low >= coreCheckLow {
				p.toSerial = true
				return true
			}
		} else {
			p.low = 0
		}
	}
	p.lastCPU, p.lastWall = cpu, now
	return false
}

// isDone reports whether the run's context is done.
func (p *pipe) isDone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// decode decodes b's packets into its datagrams.
func (p *pipe) decode(b *batch) {
	d := p.s.d
	i := 0
	for ; i+1 < len(b.pkts); i += 2 {
		d.decodePair(&b.dgs[i], &b.dgs[i+1], &b.pkts[i], &b.pkts[i+1])
	}
	if i < len(b.pkts) {
		d.Decode(&b.dgs[i], &b.pkts[i])
	}
}

// release lets go of what a rare huge datagram grew, so the batch can be
// filled again.
func (b *batch) release() {
	if cap(b.out) > keepOutput {
		b.out = nil
	}
	for i := range b.dgs {
		b.dgs[i].trim()
	}
}

// trackBatch advances b's datagrams in order and hands them to the sink,
// then passes on the reader's error after them. end says the run is over,
// with err.
func (p *pipe) trackBatch(b *batch) (end bool, err error) {
	s := p.s
	b.n, b.show = 0, false
	if cap(b.marks) < len(b.pkts) {
		b.marks = make([]uint8, pipeBatchLen)
	}
	b.marks = b.marks[:len(b.pkts)]
	for i := range b.pkts {
		dg := &b.dgs[i]
		b.n = i + 1
		if i+1 < len(b.pkts) && b.dgs[i+1].Kind == KindGame {
			s.d.track.Prefetch(b.dgs[i+1].flowHash) // see Tracker.Prefetch
		}
		if p.rsink == nil {
			err = s.deliver(dg, p.sink)
		} else {
			s.d.Advance(dg)
			b.marks[i], err = p.rsink.Order(dg)
			b.show = b.show || b.marks[i] != 0
		}
		if err != nil {
			return true, err
		}
	}
	if b.err != nil {
		return s.noPacket(b.err, p.sink)
	}
	return false, nil
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
	// field capacity as trim last saw it and fieldsCap their sum, so only
	// the slots this datagram used (in cache) are read, and the cold ones
	// only when the budget is exceeded (rare).
	ms := dg.Msgs
	if cap(ms) == 0 {
		dg.fieldCaps, dg.fieldsCap = [keepMsgs]int32{}, 0
	}
	for i := range ms {
		c := ms[i].fieldCap()
		dg.fieldsCap += int(c - dg.fieldCaps[i])
		dg.fieldCaps[i] = c
	}
	if dg.fieldsCap <= keepFields {
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
	dg.fieldsCap = fields
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
		// The slot is reused as it is, as the serial loop reuses its one
		// Packet: Next sets all of it. (Zeroing its 344 bytes first cost
		// 5% of this in-order step, BenchmarkFill.)
		b.pkts = b.pkts[:len(b.pkts)+1]
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
		if p.FragFrames != nil {
			p.FragFrames = slices.Clone(p.FragFrames) // the reader reuses it (rare)
		}
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
