package main

import (
	"fmt"
	"io"
	"time"
)

// progress is the stderr line a long read keeps up to date: bytes read of
// the file's size and datagrams per second. It draws only when stderr is a
// terminal and stdout is not (output to the same terminal would tear the
// line), only once a read has taken a second, and at most four times a
// second. A nil *progress does nothing, so callers need no checks.
type progress struct {
	w     io.Writer
	name  string
	total int64 // -1: unknown (stdin)
	now   func() time.Time

	start, next time.Time
	shown       bool
	calls       int
}

const (
	progressDelay  = time.Second            // short reads show nothing
	progressPeriod = 250 * time.Millisecond // refresh at most 4 times a second
	progressStride = 1024                   // datagrams between clock reads
)

// newProgress returns the progress line for reading total bytes (-1 when
// unknown), or nil when s's stderr is not a terminal or its stdout is one.
func newProgress(s *streams, name string, total int64) *progress {
	if !isTerminal(s.err) || isTerminal(s.out) {
		return nil
	}
	return newProgressTo(s.err, name, total, time.Now)
}

// newProgressTo draws on w unconditionally, with now as its clock (tests).
func newProgressTo(w io.Writer, name string, total int64, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, name: name, total: total, now: now, start: t, next: t.Add(progressDelay)}
}

// Update reports bytes read so far and datagrams decoded so far. It is
// called for every datagram and reads the clock only every 1024 calls.
func (p *progress) Update(bytes int64, datagrams int) {
	if p == nil {
		return
	}
	if p.calls++; p.calls%progressStride != 0 {
		return
	}
	t := p.now()
	if t.Before(p.next) {
		return
	}
	p.next = t.Add(progressPeriod)
	rate := float64(datagrams) / t.Sub(p.start).Seconds()
	var line string
	if p.total > 0 {
		line = fmt.Sprintf("%s: %3.0f%% %s of %s, %d datagrams, %s/s", p.name,
			100*float64(bytes)/float64(p.total), mb(bytes), mb(p.total), datagrams, si(rate))
	} else {
		line = fmt.Sprintf("%s: %s, %d datagrams, %s/s", p.name, mb(bytes), datagrams, si(rate))
	}
	io.WriteString(p.w, clearLine+line)
	p.shown = true
}

// Done takes the line away.
func (p *progress) Done() {
	if p != nil && p.shown {
		io.WriteString(p.w, clearLine)
		p.shown = false
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// si shortens a rate: 1234567 -> "1.23M".
func si(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
