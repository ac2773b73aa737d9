package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step at every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name      string
		total     int64
		step      time.Duration // clock advance per reading (one per 1024 datagrams)
		datagrams int
		lines     int    // lines drawn
		want      string // in the last line
	}{
		{"short read: nothing", 1000, time.Millisecond, 100000, 0, ""},
		// 100 clock readings 100 ms apart: nothing in the first second, then
		// every third reading (250 ms apart at most).
		{"long read: percent and rate", 100e6, 100 * time.Millisecond, 102400, 31, " 51% 51.2 MB of 100.0 MB, 102400 datagrams, 10k/s"},
		{"unknown size", -1, 100 * time.Millisecond, 102400, 31, "stdin: 51.2 MB, 102400 datagrams, 10k/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			clk := &fakeClock{t: time.Unix(0, 0), step: tt.step}
			name := "big.pcap"
			if tt.total < 0 {
				name = "stdin"
			}
			p := newProgressTo(&buf, name, tt.total, clk.now)
			for i := 1; i <= tt.datagrams; i++ {
				p.Update(int64(i)*500, i)
			}
			out := buf.String()
			if n := strings.Count(out, clearLine); n != tt.lines {
				t.Errorf("%d lines drawn, want %d: %q", n, tt.lines, out)
			}
			if tt.want != "" && !strings.HasSuffix(out, tt.want) {
				t.Errorf("last line %q, want suffix %q", out[strings.LastIndex(out, "\r"):], tt.want)
			}
			p.Done()
			if tt.lines > 0 && !strings.HasSuffix(buf.String(), tt.want+clearLine) {
				t.Errorf("done did not clear the line: %q", buf.String())
			}
		})
	}
}

// Not a terminal (tests, pipes, files): no progress at all.
func TestProgressOffWithoutTerminal(t *testing.T) {
	var out, errb bytes.Buffer
	if p := newProgress(&streams{out: &out, err: &errb}, "x", 100); p != nil {
		t.Fatal("progress on a buffer")
	}
	var p *progress
	p.Update(1, 1) // a nil progress is a no-op
	p.Done()
}
