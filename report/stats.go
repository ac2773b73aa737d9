package report

import (
	"errors"
	"io"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport"
)

// Stats collects what `bcdump stats` prints (and `bcdump live` prints on
// exit): per-flow tables, opcode counts per direction and anomaly totals.
// It is a Reporter: feed it every datagram and the end events, then the
// flows of each capture, then write it.
//
// Placeholder API: being built (issue 3).
type Stats struct{}

// NewStats returns an empty collector.
func NewStats() *Stats { return &Stats{} }

// Datagram counts d's opcodes and anomalies.
func (s *Stats) Datagram(d *dissect.Datagram) error { return nil }

// Finish records the end-of-capture events.
func (s *Stats) Finish(end []dissect.Event) error { return nil }

// AddFlows records the flows of one capture (source names it).
func (s *Stats) AddFlows(source string, flows []transport.FlowStats) {}

// WriteTable writes the tables (tablewriter).
func (s *Stats) WriteTable(w io.Writer, pal Palette) error { return errors.New("stats: not implemented yet") }

// WriteJSON writes everything as one JSON document.
func (s *Stats) WriteJSON(w io.Writer) error { return errors.New("stats: not implemented yet") }
