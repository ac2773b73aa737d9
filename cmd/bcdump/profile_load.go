package main

import (
	"fmt"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/profile"
)

// profileOne adds one capture to p, through the decode loop read and stats
// share. Like statsOne, a capture that breaks off is profiled up to the
// break and its error returned; opened is false when it could not be opened.
// With a filter only the datagrams and events it selects are profiled.
func profileOne(s *streams, name string, opt dissect.Options, p *profile.Profiler, flt *filter.Filter, gate *severityGate) (opened bool, err error) {
	p.SetSource(sourceName(name))
	_, opened, err = decodeCapture(s, name, opt, selected(p, flt), gate)
	return opened, err
}

func parseDupWindow(s string) (time.Duration, error) {
	w, err := time.ParseDuration(s)
	if err != nil || w <= 0 {
		return 0, fmt.Errorf("--dup-window %q is not a positive duration (like 10s)", s)
	}
	return w, nil
}
