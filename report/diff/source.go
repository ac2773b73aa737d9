package diff

import (
	"bufio"
	"fmt"
	"io"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/record"
)

// IsTrace reports whether r holds a saved `bcdump read --format json`
// trace (compressed or not) rather than a capture: the input sniff of
// package capture (capture.SniffReader, the one place formats are told
// apart) names it JSON. It reads the first bytes of r.
func IsTrace(name string, r io.Reader) (bool, error) {
	br, _, zc, err := capture.Decompress(bufio.NewReaderSize(r, 4<<10), name)
	if err != nil {
		return false, err
	}
	defer zc.Close()
	format, err := capture.SniffReader(br)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	if format == "" {
		if b, _ := br.Peek(1); len(b) == 0 {
			return false, fmt.Errorf("%s: empty input: neither a capture nor a JSON trace", name)
		}
	}
	return format == capture.FormatJSON, nil
}

// LoadTrace reads one side of a diff from a saved `bcdump read --format
// json` trace (gzip, xz or zstd allowed), keeping only the records the
// display filter f selects by their JSON (all when f is nil). A capture is
// read by dissect.Dissect into a CaptureSink instead.
func LoadTrace(name string, r io.Reader, f *filter.Filter, opt *Options) (*Conversation, error) {
	br, _, zc, err := capture.Decompress(bufio.NewReaderSize(r, 64<<10), name)
	if err != nil {
		return nil, err
	}
	defer zc.Close()
	var keep Keep
	if f != nil {
		keep = f.Match
	}
	return loadJSON(name, br, keep, opt)
}

// Keep selects the records of a saved trace by their JSON (one object, as
// `read -F json` prints it): diff -Y passes a display filter's Match. nil
// keeps every record.
type Keep func(record []byte) bool

// LoadJSON reads a JSON Lines trace written by `bcdump read --format json`
// for comparing under opt (nil: the defaults).
func LoadJSON(name string, r io.Reader, opt *Options) (*Conversation, error) {
	return loadJSON(name, r, nil, opt)
}

func loadJSON(name string, r io.Reader, keep Keep, opt *Options) (*Conversation, error) {
	b := newBuilder(name, "json", opt)
	if err := readTrace(r, keep, b.add); err != nil {
		b.conv.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b.finish(), nil
}

// CaptureSink builds the conversation of a capture from the datagrams a
// dissect Session hands it. Each datagram is turned into the typed record
// `read -F json` prints (record.Converter), the same record a saved trace
// of it decodes to, so a capture and its saved trace give the same
// conversation by construction. End-of-capture events are not part of it.
type CaptureSink struct {
	b    *builder
	keep func(*dissect.Datagram) bool
	conv record.Converter
	rec  record.Datagram
}

// NewCaptureSink returns the sink for the capture called name, keeping the
// datagrams the display filter f selects (report.Eval; all when f is nil):
// the same records f.Match would keep of the capture's trace. opt is what
// the conversation will be compared under (nil: the defaults).
func NewCaptureSink(name string, f *filter.Filter, opt *Options) *CaptureSink {
	c := &CaptureSink{b: newBuilder(name, "capture", opt)}
	if f != nil {
		c.keep = query.NewEval(f).Datagram
	}
	return c
}

func (c *CaptureSink) Datagram(dg *dissect.Datagram) error {
	if c.keep != nil && !c.keep(dg) {
		return nil
	}
	c.conv.Datagram(dg, &c.rec)
	return c.b.add(&c.rec)
}

func (c *CaptureSink) Events([]dissect.Event) error { return nil }
func (c *CaptureSink) Finish([]dissect.Event) error { return nil }

// Conversation is what the sink was handed, once the Session has run.
func (c *CaptureSink) Conversation() *Conversation { return c.b.finish() }
