// Package report renders decoded datagrams for people (table, hexdump) and
// machines (JSON Lines), and summarizes captures (stats).
package report

import (
	"github.com/bcdump/bcdump/dissect"
)

// Reporter receives every decoded datagram in capture order, then the
// anomalies found only at the end of the capture.
type Reporter interface {
	Datagram(d *dissect.Datagram) error
	// Finish reports what the end of the capture revealed and flushes.
	Finish(end []dissect.Event) error
}

// EventWriter is implemented by reporters that can show events as soon as
// they are found (bcdump live), instead of holding them for Finish. Events
// given to Events are not given to Finish again.
type EventWriter interface {
	Events(ev []dissect.Event) error
}
