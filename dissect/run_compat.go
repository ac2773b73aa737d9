package dissect

import (
	"context"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
)

// The drive loops the commands used before Session. They remain only until
// every caller runs a Session, and are then removed.

// Run is the old loop: datagrams to fn, no Finish.
func (d *Dissector) Run(r *capture.Reader, fn func(*Datagram) error) error {
	s := &Session{d: d, opt: SessionOptions{Now: time.Now}}
	sink := SinkFuncs{OnDatagram: fn}
	if s.parallel(r) {
		return s.runParallel(context.Background(), r, sink)
	}
	return s.runSerial(context.Background(), r, sink)
}

// RunSerial is Run on one goroutine.
func (d *Dissector) RunSerial(r *capture.Reader, fn func(*Datagram) error) error {
	s := &Session{d: d, opt: SessionOptions{Now: time.Now}}
	return s.runSerial(context.Background(), r, SinkFuncs{OnDatagram: fn})
}
