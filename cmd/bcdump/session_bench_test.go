package main

import (
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/story"
)

// sessionPath is what `bcdump session` does per capture: every datagram and
// the end events into a story.Analyzer, then the story written (to nothing).
func sessionPath() (func(*dissect.Datagram) error, func(*dissect.Dissector) error) {
	an := story.New()
	return an.Datagram, func(d *dissect.Dissector) error {
		if err := an.Finish(d.Finish()); err != nil {
			return err
		}
		_ = an.Documents()
		return nil
	}
}

// BenchmarkSession is the `bcdump session` path; compare with
// BenchmarkStats (the target is at least 80% of its rate).
func BenchmarkSession(b *testing.B) { benchDissect(b, false, sessionPath) }

// BenchmarkSessionSerial is BenchmarkSession on one goroutine.
func BenchmarkSessionSerial(b *testing.B) { benchDissect(b, true, sessionPath) }
