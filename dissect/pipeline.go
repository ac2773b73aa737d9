package dissect

import (
	"context"
	"runtime"
	"sync"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/transport"
)

// The Parallel mode of Session.Run. Deciphering, wire decoding and opcode
// decoding (Decode) need no per-flow state, so they run on every core;
// per-flow tracking (Advance) and the Sink need capture order and run on
// one goroutine, Run's:
//
//	reader goroutine:  src.Next -> batch (payloads copied out of the source)
//	N workers:         d.Decode on every packet of a batch, two at a time
//	                   (decodePair: the ciphers of two datagrams overlap)
//	Run (sequencer):   batches in reading order -> d.Advance, Sink
//
// A fixed set of batches circulates (free list -> reader -> workers ->
// sequencer -> free list), so memory stays flat however long the capture:
// at most (workers+3) x pipeBatchLen datagrams are in flight.

const (
	// pipeBatchLen is the number of packets per batch: large enough that
	// channel operations are rare, small enough that in-flight memory is
	// small.
	pipeBatchLen = 64
	// pipeBatchBytes caps the payload bytes copied into one batch.
	pipeBatchBytes = 64 << 10
	// A slot keeps the buffers it needed for typical datagrams; what only
	// a rare big one needed is let go after use (trim), so memory does not
	// drift up to slots x the largest datagram ever seen, and a typical
	// datagram never waits for an allocation.
	keepBytes  = 4 << 10 // Raw, Plain
	keepMsgs   = 8       // messages per datagram (Msgs, Transport.Messages)
	keepFields = 16      // fields per message
)

// batch is a unit of work: packets read in a row and their datagrams.
type batch struct {
	pkts []capture.Packet
	dgs  []Datagram
	buf  []byte // payload bytes of pkts
	err  error  // reader error after pkts (io.EOF at the end); nil mid-stream
	done chan struct{}
}

// runParallel is the Parallel mode of Run. The sink is called on the
// caller's goroutine, in capture order, with exactly the datagrams
// runSerial would give it. src is read by a goroutine of its own, ahead of
// the sink by at most a few batches; everything runParallel starts has
// ended when it returns.
func (s *Session) runParallel(ctx context.Context, src capture.Source, sink Sink) error {
	workers := s.opt.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	nb := workers + 3 // one being filled, one per worker, one being reported, one ready
	free := make(chan *batch, nb)
	work := make(chan *batch, nb)
	order := make(chan *batch, nb)
	quit := make(chan struct{})
	for range nb {
		free <- &batch{done: make(chan struct{}, 1)}
	}

	var wg sync.WaitGroup
	wg.Add(1 + workers)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		pipeRead(src, free, work, order, quit)
	}()
	d := s.d
	for range workers {
		go func() {
			defer wg.Done()
			for b := range work {
				i := 0
				for ; i+1 < len(b.pkts); i += 2 {
					d.decodePair(&b.dgs[i], &b.dgs[i+1], &b.pkts[i], &b.pkts[i+1])
				}
				if i < len(b.pkts) {
					d.Decode(&b.dgs[i], &b.pkts[i])
				}
				b.done <- struct{}{}
			}
		}()
	}

	err := s.sequence(ctx, order, free, sink)
	close(quit)
	wg.Wait()
	return err
}

// sequence advances and delivers every datagram in reading order; it
// returns at the reader's error, the sink's first error or when ctx is done.
func (s *Session) sequence(ctx context.Context, order <-chan *batch, free chan<- *batch, sink Sink) error {
	done := ctx.Done()
	for b := range order {
		<-b.done
		for i := range b.pkts {
			dg := &b.dgs[i]
			if err := s.deliver(dg, sink); err != nil {
				return err
			}
			dg.trim()
		}
		if b.err != nil {
			if done, err := s.noPacket(b.err, sink); done {
				return err
			}
		}
		free <- b
		select {
		case <-done:
			return nil
		default:
		}
	}
	return nil // not reached: the reader always sends a batch with err last
}

// trim lets go of buffers beyond what typical datagrams need. A slot then
// holds at most about keepMsgs x (2 x keepFields fields + a Message) plus
// 2 x keepBytes: about 50 KB, so 320 slots (2 workers) stay under 16 MB.
func (dg *Datagram) trim() {
	if cap(dg.Raw) > keepBytes {
		dg.Raw = nil
	}
	if cap(dg.Plain) > keepBytes {
		dg.Plain = nil
	}
	if cap(dg.Msgs) > keepMsgs {
		// Keep the first messages and their warm field lists, drop the tail.
		short := make([]Message, keepMsgs)
		copy(short, dg.Msgs[:min(len(dg.Msgs), keepMsgs)])
		for i := range short {
			short[i].Reassembled = nil // pointed into the old array
		}
		dg.Msgs = short[:min(len(dg.Msgs), keepMsgs)]
	}
	if cap(dg.Transport.Messages) > keepMsgs {
		dg.Transport.Messages = make([]transport.Message, 0, keepMsgs)
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
	for i := range dg.Msgs {
		m := &dg.Msgs[i]
		if cap(m.Fields.List) > keepFields {
			m.Fields.List = nil
		}
		if cap(m.reasm.Fields.List) > keepFields {
			m.reasm.Fields.List = nil
		}
	}
}

// pipeRead fills batches from src until an error (io.EOF included), which
// it sends with the last batch, or until quit is closed. ErrNoPacket ends a
// batch early without ending the reading, so that a live source's
// datagrams and ticks are not held up.
func pipeRead(src capture.Source, free <-chan *batch, work, order chan<- *batch, quit <-chan struct{}) {
	for {
		var b *batch
		select {
		case b = <-free:
		case <-quit:
			return
		}
		b.err = fill(src, b)
		// order never blocks: it and work have room for every batch.
		order <- b
		work <- b
		if b.err != nil && b.err != capture.ErrNoPacket {
			return
		}
	}
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
