package dissect

import "github.com/bcdump/bcdump/transport"

// Event is an anomaly that belongs to no single datagram being reported:
// what the end of the capture, a timeout or a message's final state revealed
// about earlier traffic. Frame and Msg point at the datagram it concerns
// (Msg is -1 when no single message is meant).
type Event = transport.Event

// Finish ends the capture and returns what only hindsight revealed, in
// frame order.
func (d *Dissector) Finish() []Event {
	ev := append(d.events, d.track.Finish()...)
	d.events = nil
	return ev
}

// TakeEvents returns the events found so far and forgets them, for callers
// (live capture) that report them as they happen instead of at Finish.
func (d *Dissector) TakeEvents() []Event {
	ev := d.events
	d.events = nil
	return ev
}

// Flows returns the per-flow statistics so far (see transport.FlowStats).
func (d *Dissector) Flows() []transport.FlowStats { return d.track.Flows() }
