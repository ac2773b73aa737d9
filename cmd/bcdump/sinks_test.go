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
// them: stats with its gate does not; a reporter, a filter or
// an unknown sink does.
func TestSinksFieldBlind(t *testing.T) {
	st := stats.NewStats()
	for _, c := range []struct {
		name  string
		ss    []dissect.Sink
		blind bool
	}{
		{"stats", []dissect.Sink{st}, true},
		{"stats+gate", []dissect.Sink{&severityGate{}, st}, true},
		{"empty", []dissect.Sink{}, true},
		{"stats+json", []dissect.Sink{st, render.NewJSON(io.Discard, false)}, false},
		{"filtered stats", []dissect.Sink{query.NewSelect(st, query.SelectOptions{})}, false},
		{"unknown sink", []dissect.Sink{st, dissect.SinkFuncs{}}, false},
	} {
		fb, ok := dissect.Chain(c.ss...).(dissect.FieldBlind)
		if got := ok && fb.FieldBlind(); got != c.blind {
			t.Errorf("%s: FieldBlind %v, want %v", c.name, got, c.blind)
		}
	}
}
