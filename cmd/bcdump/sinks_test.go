package main

import (
	"io"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/report/stats"
)

// The Session may drop payload fields only when no sink in the chain reads
// them: stats with its gate and progress does not; a reporter, a filter or
// an unknown sink does.
func TestSinksFieldBlind(t *testing.T) {
	st := stats.NewStats()
	for _, c := range []struct {
		name  string
		ss    sinks
		blind bool
	}{
		{"stats", sinks{st}, true},
		{"stats+gate+progress", sinks{&progressSink{}, &severityGate{}, st}, true},
		{"empty", sinks{}, true},
		{"stats+json", sinks{st, render.NewJSON(io.Discard, false)}, false},
		{"filtered stats", sinks{query.NewSelect(st, query.SelectOptions{})}, false},
		{"unknown sink", sinks{st, dissect.SinkFuncs{}}, false},
	} {
		if got := c.ss.FieldBlind(); got != c.blind {
			t.Errorf("%s: FieldBlind %v, want %v", c.name, got, c.blind)
		}
	}
}
