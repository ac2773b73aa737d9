package dissect

import (
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
)

// The parallel pipeline behind Run. Deciphering, wire decoding and opcode
// decoding (Decode) need no per-flow state, so they run on every core;
// per-flow tracking (Advance) and the caller's fn need capture order and run
// on one goroutine, the caller's:
//
//	reader goroutine:  r.Next -> batch (payloads copied out of the reader)
//	N workers:         d.Decode on every packet of a batch
//	caller (sequencer): batches in reading order -> d.Advance, fn
//
// A fixed set of batches circulates (free list -> reader -> workers ->
// sequencer -> free list), so memory stays flat however long the capture:
// at most pipeBatches x pipeBatchLen datagrams are in flight.

const (
	// pipeBatchLen is the number of packets per batch: large enough that
	// channel operations are rare, small enough that in-flight memory is
	// small.
	pipeBatchLen = 64
	// pipeBatchBytes caps the payload bytes copied into one batch.
	pipeBatchBytes = 64 << 10
	// pipeKeepBytes: a datagram slot whose buffers grew beyond this (a huge
	// frame, many messages, a big reassembled payload's fields) is dropped
	// after use instead of being kept for the next batch: in-flight memory
	// stays under about slots x pipeKeepBytes (5 MB with 2 workers).
	pipeKeepBytes = 16 << 10
)

// batch is a unit of work: packets read in a row and their datagrams.
type batch struct {
	pkts []capture.Packet
	dgs  []Datagram
	buf  []byte // payload bytes of pkts
	err  error  // reader error after pkts (io.EOF at the end); nil mid-stream
	done chan struct{}
}

// RunSerial is Run on one goroutine: every packet is decoded, advanced and
// handed to fn before the next is read. Live sources, where a datagram must
// not wait for the packets after it, use this path.
func (d *Dissector) RunSerial(r *capture.Reader, fn func(*Datagram) error) error {
	var p capture.Packet
	for {
		err := r.Next(&p)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(d.Packet(&p)); err != nil {
			return err
		}
	}
}

// RunParallel is Run with workers goroutines decoding (workers < 1 means
// GOMAXPROCS). fn is called on the caller's goroutine, in capture order,
// with exactly the datagrams RunSerial would give it. r is read by a
// goroutine of its own, ahead of fn by at most a few batches; everything
// RunParallel starts has ended when it returns.
func (d *Dissector) RunParallel(r *capture.Reader, workers int, fn func(*Datagram) error) error {
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
		pipeRead(r, free, work, order, quit)
	}()
	for range workers {
		go func() {
			defer wg.Done()
			for b := range work {
				for i := range b.pkts {
					d.Decode(&b.dgs[i], &b.pkts[i])
				}
				b.done <- struct{}{}
			}
		}()
	}

	err := d.sequence(order, free, fn)
	close(quit)
	wg.Wait()
	return err
}

// sequence advances and reports every datagram in reading order; it returns
// at the reader's error or fn's first error.
func (d *Dissector) sequence(order <-chan *batch, free chan<- *batch, fn func(*Datagram) error) error {
	for b := range order {
		<-b.done
		for i := range b.pkts {
			dg := &b.dgs[i]
			d.Advance(dg)
			if err := fn(dg); err != nil {
				return err
			}
			if dg.oversized() {
				b.dgs[i] = Datagram{}
			}
		}
		if b.err != nil {
			if b.err == io.EOF {
				return nil
			}
			return b.err
		}
		free <- b
	}
	return nil // not reached: the reader always sends a batch with err last
}

// oversized reports whether the datagram's buffers are too large to keep
// for reuse. Every slot keeps the largest buffers it has needed, so without
// this the pipeline's memory would drift up to slots x the largest datagram
// (and field list per message) ever seen.
func (dg *Datagram) oversized() bool {
	const (
		fieldSize = int(unsafe.Sizeof(game.Field{}))
		msgSize   = int(unsafe.Sizeof(Message{}))
		tmsgSize  = int(unsafe.Sizeof(transport.Message{}))
	)
	n := cap(dg.Raw) + cap(dg.Plain) + cap(dg.Msgs)*msgSize + cap(dg.Transport.Messages)*tmsgSize
	for i := range dg.Msgs[:cap(dg.Msgs)] {
		m := &dg.Msgs[:cap(dg.Msgs)][i]
		n += (cap(m.Fields.List) + cap(m.reasm.Fields.List)) * fieldSize
	}
	return n > pipeKeepBytes
}

// pipeRead fills batches from r until an error (io.EOF included), which it
// sends with the last batch, or until quit is closed.
func pipeRead(r *capture.Reader, free <-chan *batch, work, order chan<- *batch, quit <-chan struct{}) {
	for {
		var b *batch
		select {
		case b = <-free:
		case <-quit:
			return
		}
		b.err = fill(r, b)
		// order never blocks: it and work have room for every batch.
		order <- b
		work <- b
		if b.err != nil {
			return
		}
	}
}

// fill reads packets into b, copying their payloads, until the batch is
// full or r fails.
func fill(r *capture.Reader, b *batch) error {
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
		if err = r.Next(p); err != nil {
			b.pkts = b.pkts[:len(b.pkts)-1]
			break
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
