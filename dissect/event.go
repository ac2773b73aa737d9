package dissect

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// MaxHeldEvents bounds the events a Dissector keeps until Finish (about
// half a kilobyte each), so a hostile or endless capture cannot grow memory
// without limit. Past it, events are counted by code (Unlisted) and Finish
// ends with one tracking-limit note per code saying how many were left out.
const MaxHeldEvents = 1 << 16

// Event is an anomaly that belongs to no single datagram being reported:
// what the end of the capture, a timeout or a message's final state revealed
// about earlier traffic. Frame and Msg point at the datagram it concerns
// (Msg is anomaly.NoMsg when no single message is meant).
type Event = transport.Event

// Finish ends the capture and returns what only hindsight revealed, in
// frame order.
func (d *Dissector) Finish() []Event {
	d.hold(d.track.Finish())
	ev := d.events
	codes := slices.Collect(maps.Keys(d.unlisted))
	slices.SortFunc(codes, func(a, b anomaly.Code) int { return strings.Compare(a.String(), b.String()) })
	for _, code := range codes {
		ev = append(ev, Event{Frame: 0, Anomaly: anomaly.New(anomaly.TrackingLimit, anomaly.NoMsg, anomaly.NoOffset,
			"%d more %s (%s) anomalies were found but not listed: bcdump keeps the first %d end-of-capture anomalies; the stats count them all",
			d.unlisted[code], code, code.Severity(), d.maxEvents)})
	}
	d.events = nil
	return ev
}

// hold keeps events for Finish, up to MaxHeldEvents.
func (d *Dissector) hold(ev []Event) {
	d.found += len(ev)
	for _, e := range ev {
		if len(d.events) < d.maxEvents {
			d.events = append(d.events, e)
			continue
		}
		if d.unlisted == nil {
			d.unlisted = make(map[anomaly.Code]int)
		}
		d.unlisted[e.Code]++
	}
}

// tick moves capture time to now without a packet, so timeouts fire on a
// quiet wire (Session, on a live source's tick); what it finds is held like
// any event (takeEvents, Finish).
func (d *Dissector) tick(now time.Time) {
	d.track.Advance(now)
	if ev := d.track.Events(); len(ev) > 0 {
		d.hold(ev)
	}
}

// EventsFound is how many events were found so far, listed or not, for a
// live status line.
func (d *Dissector) EventsFound() int { return d.found }

// Unlisted returns, by code, the events Finish left out because more than
// MaxHeldEvents were found (nil when none were).
func (d *Dissector) Unlisted() map[anomaly.Code]int { return d.unlisted }

// takeEvents returns the events found so far and forgets them, for a
// Session that hands them out as found instead of at Finish.
func (d *Dissector) takeEvents() []Event {
	ev := d.events
	d.events = nil
	return ev
}

// Flows returns the per-flow statistics so far (see transport.FlowStats).
func (d *Dissector) Flows() []transport.FlowStats { return d.track.Flows() }
