package dissect

import (
	"net/netip"
	"time"
)

// Event is an anomaly that belongs to no single datagram being reported:
// what the end of the capture (or a timeout) revealed about a flow.
type Event struct {
	Anomaly
	Frame          int // the frame it concerns (e.g. a message's first send), or 0
	Time           time.Time
	Client, Server netip.AddrPort
}

// Finish ends the capture and returns what only its end revealed.
func (d *Dissector) Finish() []Event {
	return nil
}
