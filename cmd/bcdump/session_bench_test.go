package main

import (
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/story"
)

// sessionPath is what `bcdump session` does per capture: every datagram and
// the end events into a story.Analyzer, then the story written (to nothing).
func sessionPath() (dissect.Sink, func(*dissect.Session)) {
	an := story.New()
	return an, func(*dissect.Session) { _ = an.Documents() }
}

// BenchmarkSession is the `bcdump session` path; compare with
// BenchmarkStats (the target is at least 80% of its rate).
func BenchmarkSession(b *testing.B) { benchDissect(b, dissect.Auto, sessionPath) }

// BenchmarkSessionSerial is BenchmarkSession on one goroutine.
func BenchmarkSessionSerial(b *testing.B) { benchDissect(b, dissect.Serial, sessionPath) }
