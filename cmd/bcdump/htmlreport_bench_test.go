package main

import (
	"io"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/htmlreport"
)

// countWriter counts what the page weighs.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// htmlReportPath is what `bcdump report` does per capture: every datagram
// and the end events into an htmlreport.Builder, then the page rendered.
// The page's size is reported as page-bytes (the issue: under 10 MB for a
// million datagrams).
func htmlReportPath(b *testing.B) func() (dissect.Sink, func(*dissect.Session)) {
	return func() (dissect.Sink, func(*dissect.Session)) {
		hb := htmlreport.New(htmlreport.Options{Sources: []string{"bench"}})
		return hb, func(*dissect.Session) {
			var w countWriter
			if err := htmlreport.Render(&w, hb.Data()); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(w.n), "page-bytes")
		}
	}
}

// BenchmarkHTMLReport is the `bcdump report` path; compare with
// BenchmarkStats (the target is at least 50% of its rate).
func BenchmarkHTMLReport(b *testing.B) { benchDissect(b, dissect.Auto, htmlReportPath(b)) }

// BenchmarkHTMLReportSerial is BenchmarkHTMLReport on one goroutine.
func BenchmarkHTMLReportSerial(b *testing.B) { benchDissect(b, dissect.Serial, htmlReportPath(b)) }
