package main

import (
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/profile"
)

// profilePath is what `bcdump profile` does per capture: every datagram and
// the end events into a profile.Profiler, then the document.
func profilePath() (dissect.Sink, func(*dissect.Session)) {
	p := profile.New(profile.Options{})
	p.SetSource("bench")
	return p, func(*dissect.Session) { p.Doc(true) }
}

// BenchmarkProfile is the `bcdump profile` path, to hold against
// BenchmarkStats (issue 15: at least 80% of its throughput).
func BenchmarkProfile(b *testing.B) { benchDissect(b, dissect.Auto, profilePath) }

// BenchmarkProfileSerial is BenchmarkProfile on one goroutine.
func BenchmarkProfileSerial(b *testing.B) { benchDissect(b, dissect.Serial, profilePath) }

// BenchmarkProfileCLI is `bcdump profile FILE > /dev/null`.
func BenchmarkProfileCLI(b *testing.B) { benchCLI(b, "profile") }
