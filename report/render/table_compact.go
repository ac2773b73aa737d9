package render

import (
	"net/netip"
	"strconv"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/report/fit"
	"github.com/bcdump/bcdump/transport"
)

// Compact is the table's form for a terminal (read on a tty, or --width):
// each line is cut to Width columns with an ellipsis, and addresses are
// shown as short labels (c1, c2, ... for clients in order of appearance;
// s for the game server, s2, s3 for more), each defined once by a line
// "c1 = 192.168.1.20:2655" before the first datagram that uses it. The
// zero value is the full form: whole lines, whole addresses.
type Compact struct {
	Width int // columns; 0: no limit
}

// SetCompact switches the table to the compact form (see Compact).
func (t *Table) SetCompact(c Compact) {
	t.compact = &compactState{Compact: c, labels: map[netip.AddrPort]string{}}
}

type compactState struct {
	Compact
	labels           map[netip.AddrPort]string
	clients, servers int
}

// label returns addr's label and, for a new one, appends its definition
// line to defs.
func (c *compactState) label(addr netip.AddrPort, server bool, defs []byte, pal *Palette) (string, []byte) {
	if l, ok := c.labels[addr]; ok {
		return l, defs
	}
	var l string
	if server {
		c.servers++
		l = "s"
		if c.servers > 1 {
			l += strconv.Itoa(c.servers)
		}
	} else {
		c.clients++
		l = "c" + strconv.Itoa(c.clients)
	}
	c.labels[addr] = l
	line := append([]byte("       "), l...)
	line = append(line, " = "...)
	line = addr.AppendTo(line)
	defs = pal.paint(defs, pal.addr, line)
	return l, append(defs, '\n')
}

// appendEndpoints appends "src -> dst", as labels in the compact form;
// the definitions of new labels go to defs.
func (t *Table) appendEndpoints(s, defs []byte, d *dissect.Datagram) ([]byte, []byte) {
	if t.compact == nil {
		s = t.memo.appendAddr(s, d.Src)
		s = append(s, " -> "...)
		return t.memo.appendAddr(s, d.Dst), defs
	}
	c2s := d.Dir == dissect.C2S
	var src, dst string
	src, defs = t.compact.label(d.Src, !c2s, defs, &t.pal)
	dst, defs = t.compact.label(d.Dst, c2s, defs, &t.pal)
	s = append(s, src...)
	s = append(s, " -> "...)
	return append(s, dst...), defs
}

// cutLine cuts a line (ending in '\n') to width visible columns, the last
// one an ellipsis, counting runes and skipping colour escapes; a colour
// left open is reset.
func cutLine(b []byte, width int) []byte {
	if width <= 0 {
		return b
	}
	cols, escaped := 0, false
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '\n':
			return b
		case c == 0x1b:
			escaped = true
			i = fit.SkipEscape(b, i)
			continue
		}
		if cols == width-1 && !fitsRest(b[i:], 1) {
			out := append(b[:i], "…"...) // the cut tail is not read again
			if escaped {
				out = append(out, "\x1b[0m"...)
			}
			return append(out, '\n')
		}
		_, n := utf8.DecodeRune(b[i:])
		i += n
		cols++
	}
	return b
}

// fitsRest reports whether the visible text of b before its newline is at
// most n columns.
func fitsRest(b []byte, n int) bool {
	cols := 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '\n':
			return true
		case 0x1b:
			i = fit.SkipEscape(b, i)
			continue
		}
		_, sz := utf8.DecodeRune(b[i:])
		i += sz
		if cols++; cols > n {
			return false
		}
	}
	return true
}

// acksFirst reports whether an ACK comes before a message of another type
// in d: a cut line would keep the ACK and lose the opcode.
func acksFirst(d *dissect.Datagram) bool {
	ack := false
	for i := range d.Transport.Messages {
		if d.Transport.Messages[i].Type == transport.TypeACK {
			ack = true
		} else if ack {
			return true
		}
	}
	return false
}
