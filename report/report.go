// Package report renders decoded datagrams for people (table, hexdump) and
// machines (JSON Lines), and summarizes captures (stats).
package report

import (
	"github.com/bcdump/bcdump/dissect"
)

// Reporter is what a dissect.Session feeds: every decoded datagram in
// capture order, the events found mid-capture when they are shown as found
// (bcdump live), then what the end of the capture revealed (Finish, which
// also flushes).
type Reporter interface {
	dissect.Sink
}
