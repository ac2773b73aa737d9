package render

import (
	"bufio"
	"io"
	"strings"
	"time"

	"github.com/fatih/color"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Palette colours the table and hexdump output. The zero value (or one made
// with colour off) writes plain text.
type Palette struct {
	on                              bool
	frame, addr, ack, data, control *ink
	note, warn, err, gamespy        *ink
}

// ink is one colour's escape codes, built once: painting runs per field
// of every record, so it must not format or allocate.
type ink struct {
	start, end string
}

// newInk renders attrs as fatih/color does (Color.Sprint): ESC [ a;b m
// before, and each attribute's own reset (ESC [ 22;39 m) after.
func newInk(attrs ...color.Attribute) *ink {
	c := color.New(attrs...)
	c.EnableColor()
	// The text is a marker without escapes, so splitting at it is exact.
	const mark = "\x00"
	w := c.Sprint(mark)
	i := strings.Index(w, mark)
	return &ink{start: w[:i], end: w[i+len(mark):]}
}

// NewPalette returns a palette that colours only when on is true.
func NewPalette(on bool) Palette {
	mk := func(a ...color.Attribute) *ink {
		if !on {
			return nil
		}
		return newInk(a...)
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

func (p *Palette) paint(b []byte, c *ink, s []byte) []byte {
	b = p.start(b, c)
	b = append(b, s...)
	return p.end(b, c)
}

// start and end bracket text appended in place, to paint it without
// copying it through a scratch buffer.
func (p *Palette) start(b []byte, c *ink) []byte {
	if !p.on || c == nil {
		return b
	}
	return append(b, c.start...)
}

func (p *Palette) end(b []byte, c *ink) []byte {
	if !p.on || c == nil {
		return b
	}
	return append(b, c.end...)
}

func (p *Palette) severity(s anomaly.Severity) *ink {
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
	acksAt  bool          // ACKs as a count after the other messages (a cut compact line)
	// matches[i]: message i matched the filter on its own (MarkMatches);
	// nil when that is not known or tells nothing apart.
	matches []bool
	only    bool // only the matching messages are shown (--only-matching)
	// matchFirst: the matching messages first, marked * (a cut compact line)
	matchFirst bool
	// memo remembers the addresses written last (nil: none); each
	// goroutine rendering lines has its own.
	memo *recordMemo
}

// MarkMatches says which messages of the next datagram matched the
// filter on their own (nil: not known); see MatchMarker.
func (t *Table) MarkMatches(m []bool) { t.matches = m }

// SetOnlyMatching shows only the messages that matched (read
// --only-matching); a datagram that matched as a whole, with no message
// matching on its own, is shown whole.
func (t *Table) SetOnlyMatching(on bool) { t.only = on }

// WantsMatches reports whether the table uses MarkMatches: a line that may
// be cut (compact) shows matching messages first, and --only-matching.
func (t *Table) WantsMatches() bool { return t.only || t.compact != nil && t.compact.Width > 0 }

// SetTimeFormat sets how the time column is shown (read -t).
func (t *Table) SetTimeFormat(f TimeFormat) { t.clock.format = f }

// NewTable returns a table reporter. flushEach flushes every line (live).
func NewTable(w io.Writer, pal Palette, flushEach bool) *Table {
	return &Table{w: bufio.NewWriterSize(w, 64<<10), pal: pal, flush: flushEach, memo: new(recordMemo)}
}

func (t *Table) Datagram(d *dissect.Datagram) error {
	t.defs = t.defs[:0]
	clk := t.clock
	t.buf = t.appendLine(t.buf[:0], d)
	if t.compact != nil {
		if _, err := t.w.Write(t.defs); err != nil {
			return err
		}
		if w := t.compact.Width; w > 0 && !fitsRest(t.buf, w) {
			// The cut would take what the datagram carries or what
			// matched: show the matching messages first (marked *), the
			// other messages before the ACKs, the ACKs as a count.
			reorder, acks := t.matches != nil && !t.only, acksFirst(d)
			if reorder || acks {
				t.clock, t.acksAt, t.matchFirst = clk, acks, reorder
				t.buf = t.appendLine(t.buf[:0], d)
				t.acksAt, t.matchFirst = false, false
			}
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

// appendLine renders one datagram's line into b, painting in place (no
// scratch buffer); only the compact form's labels and the delta clock
// keep state between records.
func (t *Table) appendLine(b []byte, d *dissect.Datagram) []byte {
	p := &t.pal
	b = p.start(b, p.frame)
	b = appendPadInt(b, d.Frame, 6)
	if t.context {
		b = append(b, '-') // as grep -C marks context lines
	} else {
		b = append(b, ' ')
	}
	b = t.clock.append(b, d)
	b = p.end(b, p.frame)
	b = append(b, ' ')
	b = p.start(b, p.addr)
	b, t.defs = t.appendEndpoints(b, t.defs, d)
	b = p.end(b, p.addr)
	if d.Kind == dissect.KindGameSpy {
		b = append(b, ' ')
		b = p.start(b, p.gamespy)
		b = append(b, "GameSpy "...)
		b = appendQuoteLimited(b, d.Plain, 100)
		b = p.end(b, p.gamespy)
	} else {
		b = append(b, " peer="...)
		b = appendPeer(b, d.Transport.PeerID)
		shown, acks, others := 0, 0, 0
		matches := t.matches
		if len(matches) != len(d.Transport.Messages) {
			matches = nil
		}
		rounds := 1
		if t.matchFirst && matches != nil {
			rounds = 2 // the matching messages, then the others
		}
		for round := range rounds {
			for i := range d.Transport.Messages {
				matched := matches != nil && matches[i]
				if matches != nil && t.only && !matched {
					others++
					continue
				}
				if rounds == 2 && (round == 0) != matched {
					continue
				}
				c := p.data
				switch m := &d.Transport.Messages[i]; {
				case m.Type == transport.TypeACK:
					if t.acksAt && !(rounds == 2 && matched) {
						acks++
						continue
					}
					c = p.ack
				case m.Type != transport.TypeData:
					c = p.control
				}
				if shown > 0 {
					b = append(b, " | "...)
				} else {
					b = append(b, ' ')
				}
				shown++
				if rounds == 2 && matched {
					b = append(b, '*')
				}
				b = p.start(b, c)
				b = appendMessageBrief(b, d, i)
				b = p.end(b, c)
			}
		}
		if others > 0 {
			b = append(b, " | +"...)
			b = appendInt(b, int64(others))
			b = append(b, " not matching"...)
		}
		if acks > 0 {
			b = append(b, " | "...)
			b = p.start(b, p.ack)
			b = appendInt(b, int64(acks))
			b = append(b, " ACK"...)
			if acks > 1 {
				b = append(b, 's')
			}
			b = p.end(b, p.ack)
		}
		if d.Transport.HasCut {
			if len(d.Transport.Messages) > 0 {
				b = append(b, " |"...)
			}
			b = append(b, ' ')
			b = p.start(b, p.data)
			b = appendCutBrief(b, d)
			b = p.end(b, p.data)
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
		c := p.severity(a.Severity())
		b = p.start(b, c)
		b = append(b, " !"...)
		b = append(b, a.Code.String()...)
		if a.Offset != anomaly.NoOffset {
			b = append(b, '@')
			b = appendInt(b, int64(a.Offset))
		}
		b = p.end(b, c)
	}
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
			b = appendInt(b, int64(e.Frame))
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
	return appendUint(b, uint64(id))
}

func appendPadInt(b []byte, v, width int) []byte {
	n := len(b)
	b = appendInt(b, int64(v))
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
	b = appendInt(b, us/1e6)
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
		b = appendQuote(b, s[:max])
		return append(b, "…"...)
	}
	return appendQuote(b, s)
}

// appendQuote appends s double-quoted with its unprintable runes escaped.
func appendQuote(b []byte, s []byte) []byte { return quote.Append(b, s) }

func (t *Table) MarkContext(on bool) { t.context = on }

// StartFile prints the "==> name <==" header of the next capture.
func (t *Table) StartFile(name string) error {
	t.buf = appendFileHeader(t.buf[:0], name, t.files == 0)
	t.files++
	_, err := t.w.Write(t.buf)
	return err
}

// PaintSev paints s in the colour of the severity named sev (the stats
// and anomaly tables); s is returned as is without colour or for an
// unknown severity.
func (p *Palette) PaintSev(s, sev string) string {
	if !p.on {
		return s
	}
	sv, err := anomaly.ParseSeverity(sev)
	if err != nil {
		return s
	}
	return string(p.paint(nil, p.severity(sv), []byte(s)))
}
