package main

import (
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/profile"
)

// profilePath is what `bcdump profile` does per capture: every datagram and
// the end events into a profile.Profiler, then the document.
func profilePath() (func(*dissect.Datagram) error, func(*dissect.Dissector) error) {
	p := profile.New(profile.Options{})
	p.SetSource("bench")
	return p.Datagram, func(d *dissect.Dissector) error {
		if err := p.Finish(d.Finish()); err != nil {
			return err
		}
		p.Doc(true)
		return nil
	}
}

// BenchmarkProfile is the `bcdump profile` path, to hold against
// BenchmarkStats (issue 15: at least 80% of its throughput).
func BenchmarkProfile(b *testing.B) { benchDissect(b, false, profilePath) }

// BenchmarkProfileSerial is BenchmarkProfile on one goroutine.
func BenchmarkProfileSerial(b *testing.B) { benchDissect(b, true, profilePath) }

// BenchmarkProfileCLI is `bcdump profile FILE > /dev/null`.
func BenchmarkProfileCLI(b *testing.B) { benchCLI(b, "profile") }
