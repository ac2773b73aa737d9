package report

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/fatih/color"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Palette colours the table and hexdump output. The zero value (or one made
// with colour off) writes plain text.
type Palette struct {
	on                              bool
	frame, addr, ack, data, control *color.Color
	note, warn, err, gamespy        *color.Color
}

// NewPalette returns a palette that colours only when on is true.
func NewPalette(on bool) Palette {
	mk := func(a ...color.Attribute) *color.Color {
		c := color.New(a...)
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return Palette{
		on:      on,
		frame:   mk(color.Faint),
		addr:    mk(color.FgCyan),
		ack:     mk(color.Faint),
		data:    mk(color.FgGreen),
		control: mk(color.FgBlue, color.Bold),
		note:    mk(color.FgCyan),
		warn:    mk(color.FgYellow, color.Bold),
		err:     mk(color.FgRed, color.Bold),
		gamespy: mk(color.FgMagenta),
	}
}

func (p *Palette) paint(b []byte, c *color.Color, s []byte) []byte {
	if !p.on || c == nil {
		return append(b, s...)
	}
	return append(b, c.Sprint(string(s))...)
}

func (p *Palette) severity(s anomaly.Severity) *color.Color {
	switch s {
	case anomaly.Error:
		return p.err
	case anomaly.Warn:
		return p.warn
	}
	return p.note
}

// Table prints one line per datagram in the spirit of tshark's summary:
// frame, relative time, src -> dst, peer id, then every message in brief,
// anomalies marked with `!`.
type Table struct {
	w       *bufio.Writer
	pal     Palette
	buf     []byte
	scratch []byte
	flush   bool
	context bool // the next datagram is shown as context (read -C)
	files   int  // file headers printed (StartFile)
	clock   clock
	compact *compactState // nil: the full form
	defs    []byte        // label definitions before the line (compact)
}

// SetTimeFormat sets how the time column is shown (read -t).
func (t *Table) SetTimeFormat(f TimeFormat) { t.clock.format = f }

// NewTable returns a table reporter. flushEach flushes every line (live).
func NewTable(w io.Writer, pal Palette, flushEach bool) *Table {
	return &Table{w: bufio.NewWriterSize(w, 64<<10), pal: pal, flush: flushEach}
}

func (t *Table) Datagram(d *dissect.Datagram) error {
	t.defs = t.defs[:0]
	t.buf = t.appendLine(t.buf[:0], d)
	if t.compact != nil {
		if _, err := t.w.Write(t.defs); err != nil {
			return err
		}
		t.buf = cutLine(t.buf, t.compact.Width)
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return err
	}
	if t.flush {
		return t.w.Flush()
	}
	return nil
}

func (t *Table) appendLine(b []byte, d *dissect.Datagram) []byte {
	s := t.scratch[:0]
	s = appendPadInt(s, d.Frame, 6)
	if t.context {
		s = append(s, '-') // as grep -C marks context lines
	} else {
		s = append(s, ' ')
	}
	s = t.clock.append(s, d)
	b = t.pal.paint(b, t.pal.frame, s)
	b = append(b, ' ')
	s, t.defs = t.appendEndpoints(s[:0], t.defs, d)
	b = t.pal.paint(b, t.pal.addr, s)
	if d.Kind == dissect.KindGameSpy {
		b = append(b, ' ')
		s = append(s[:0], "GameSpy "...)
		s = appendQuoteLimited(s, d.Plain, 100)
		b = t.pal.paint(b, t.pal.gamespy, s)
	} else {
		b = append(b, " peer="...)
		b = appendPeer(b, d.Transport.PeerID)
		for i := range d.Transport.Messages {
			if i > 0 {
				b = append(b, " | "...)
			} else {
				b = append(b, ' ')
			}
			s = appendMessageBrief(s[:0], d, i)
			c := t.pal.data
			switch m := &d.Transport.Messages[i]; {
			case m.Type == transport.TypeACK:
				c = t.pal.ack
			case m.Type != transport.TypeData:
				c = t.pal.control
			}
			b = t.pal.paint(b, c, s)
		}
		if d.Transport.HasCut {
			if len(d.Transport.Messages) > 0 {
				b = append(b, " |"...)
			}
			b = append(b, ' ')
			b = t.pal.paint(b, t.pal.data, appendCutBrief(s[:0], d))
		}
		if len(d.Transport.Messages) == 0 && !d.Transport.HasCut && len(d.Plain) > 2 {
			b = append(b, " raw="...)
			b = appendHexPrefix(b, d.Plain[2:], 24)
		}
	}
	if d.Truncated {
		b = append(b, " [truncated]"...)
	}
	for i := range d.Anomalies {
		a := &d.Anomalies[i]
		s = append(s[:0], " !"...)
		s = append(s, a.Code.String()...)
		if a.Offset != anomaly.NoOffset {
			s = append(s, '@')
			s = strconv.AppendInt(s, int64(a.Offset), 10)
		}
		b = t.pal.paint(b, t.pal.severity(a.Severity()), s)
	}
	t.scratch = s
	return append(b, '\n')
}

func (t *Table) Finish(end []dissect.Event) error {
	if err := t.writeEvents("   end ", end); err != nil {
		return err
	}
	return t.w.Flush()
}

// Events prints events found mid-capture (live), one `event` line each.
func (t *Table) Events(ev []dissect.Event) error {
	if err := t.writeEvents(" event ", ev); err != nil {
		return err
	}
	if t.flush {
		return t.w.Flush()
	}
	return nil
}

func (t *Table) writeEvents(label string, ev []dissect.Event) error {
	for i := range ev {
		e := &ev[i]
		b := t.buf[:0]
		s := append(t.scratch[:0], label...)
		s = append(s, e.Severity().String()...)
		s = append(s, ' ')
		s = append(s, e.Code.String()...)
		b = t.pal.paint(b, t.pal.severity(e.Severity()), s)
		if e.Frame > 0 {
			b = append(b, " frame "...)
			b = strconv.AppendInt(b, int64(e.Frame), 10)
		}
		if e.Client.IsValid() {
			b = append(b, " client "...)
			b = e.Client.AppendTo(b)
		}
		b = append(b, ": "...)
		b = e.AppendMessage(b)
		b = append(b, '\n')
		if t.compact != nil {
			b = cutLine(b, t.compact.Width)
		}
		t.buf, t.scratch = b, s
		if _, err := t.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func appendPeer(b []byte, id uint8) []byte {
	if id == 0xFF {
		return append(b, "FF"...)
	}
	return strconv.AppendUint(b, uint64(id), 10)
}

func appendPadInt(b []byte, v, width int) []byte {
	n := len(b)
	b = strconv.AppendInt(b, int64(v), 10)
	for len(b)-n < width {
		b = append(b, ' ')
		copy(b[n+1:], b[n:len(b)-1])
		b[n] = ' '
	}
	return b
}

// appendSeconds appends a duration in seconds with microsecond precision,
// right-aligned in 11 columns, like tshark's default relative time.
func appendSeconds(b []byte, dur time.Duration) []byte {
	us := dur.Microseconds()
	n := len(b)
	b = strconv.AppendInt(b, us/1e6, 10)
	b = appendMicros(b, us%1e6)
	for len(b)-n < 11 {
		b = append(b, ' ')
		copy(b[n+1:], b[n:len(b)-1])
		b[n] = ' '
	}
	return b
}

func appendQuoteLimited(b []byte, s []byte, max int) []byte {
	if len(s) > max {
		b = strconv.AppendQuote(b, string(s[:max]))
		return append(b, "…"...)
	}
	return strconv.AppendQuote(b, string(s))
}

func (t *Table) markContext(on bool) { t.context = on }

// StartFile prints the "==> name <==" header of the next capture.
func (t *Table) StartFile(name string) error {
	t.buf = appendFileHeader(t.buf[:0], name, t.files == 0)
	t.files++
	_, err := t.w.Write(t.buf)
	return err
}
