package report

import (
	"bufio"
	"io"
	"strconv"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Hex prints each datagram as a field tree with byte offsets followed by a
// hexdump of the bytes each message occupies, in the spirit of `tshark -V -x`.
// Offsets are positions in the deciphered datagram.
type Hex struct {
	w       *bufio.Writer
	pal     Palette
	cipher  bool // also dump the enciphered bytes as captured
	buf     []byte
	flush   bool
	context bool // the next datagram is shown as context (read -C)
	files   int  // file headers printed (StartFile)
	clock   clock
}

// SetTimeFormat sets how the time is shown (read -t).
func (h *Hex) SetTimeFormat(f TimeFormat) { h.clock.format = f }

// NewHex returns a hexdump reporter. withCipher adds the enciphered bytes.
func NewHex(w io.Writer, pal Palette, withCipher, flushEach bool) *Hex {
	return &Hex{w: bufio.NewWriterSize(w, 64<<10), pal: pal, cipher: withCipher, flush: flushEach}
}

func (h *Hex) Datagram(d *dissect.Datagram) error {
	b := h.buf[:0]
	b = append(b, "Frame "...)
	b = strconv.AppendInt(b, int64(d.Frame), 10)
	if h.context {
		b = append(b, " (context)"...)
	}
	b = append(b, ": "...)
	b = strconv.AppendInt(b, int64(len(d.Raw)), 10)
	b = append(b, " bytes, t="...)
	b = h.clock.append(b, d)
	b = append(b, ' ')
	b = d.Src.AppendTo(b)
	b = append(b, " -> "...)
	b = d.Dst.AppendTo(b)
	b = append(b, " ("...)
	b = append(b, d.Dir.String()...)
	b = append(b, ", "...)
	b = append(b, d.Kind.String()...)
	b = append(b, ")\n"...)
	if d.Kind == dissect.KindGameSpy {
		for _, kv := range d.GameSpy {
			b = append(b, "  "...)
			b = append(b, kv.Key...)
			b = append(b, ": "...)
			b = strconv.AppendQuote(b, string(kv.Value))
			b = append(b, '\n')
		}
		b = appendHexdump(b, d.Plain, 0, "  ")
	} else {
		b = h.appendGame(b, d)
	}
	for i := range d.Anomalies {
		a := &d.Anomalies[i]
		s := []byte("  !! ")
		s = append(s, a.Severity().String()...)
		s = append(s, ' ')
		s = append(s, a.Code.String()...)
		if a.Offset != anomaly.NoOffset {
			s = append(s, " @ 0x"...)
			s = appendHex4(s, a.Offset)
		}
		s = append(s, ": "...)
		s = a.AppendMessage(s)
		b = h.pal.paint(b, h.pal.severity(a.Severity()), s)
		b = append(b, '\n')
	}
	if h.cipher && d.Kind == dissect.KindGame {
		b = append(b, "  enciphered (as captured):\n"...)
		b = appendHexdump(b, d.Raw, 0, "  ")
	}
	b = append(b, '\n')
	h.buf = b
	if _, err := h.w.Write(b); err != nil {
		return err
	}
	if h.flush {
		return h.w.Flush()
	}
	return nil
}

func (h *Hex) appendGame(b []byte, d *dissect.Datagram) []byte {
	b = appendFieldLine(b, 1, 0, "peer_id", strconv.Itoa(int(d.Transport.PeerID)))
	if len(d.Plain) > 1 {
		b = appendFieldLine(b, 1, 1, "msg_count", strconv.Itoa(int(d.Transport.MsgCount)))
	}
	end := 2
	for i := range d.Transport.Messages {
		m := &d.Transport.Messages[i]
		dm := &d.Msgs[i]
		b = append(b, "  ["...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, "] 0x"...)
		b = appendHex4(b, m.Offset)
		b = append(b, "-0x"...)
		b = appendHex4(b, m.Offset+m.Len-1)
		b = append(b, ' ')
		b = appendMessageBrief(b, d, i)
		b = append(b, '\n')
		b = appendHeaderFields(b, m)
		if dm.Decoded {
			b = appendFieldTree(b, dm.Fields.List, m.PayloadOff, 3)
		}
		if r := dm.Reassembled; r != nil && r.Decoded {
			b = append(b, "      reassembled payload (offsets within it):\n"...)
			b = appendFieldTree(b, r.Fields.List, 0, 4)
		}
		b = appendHexdump(b, d.Plain[m.Offset:m.Offset+m.Len], m.Offset, "      ")
		end = m.Offset + m.Len
	}
	if t := &d.Transport; t.HasCut {
		m := &t.Cut
		b = append(b, "  [cut] 0x"...)
		b = appendHex4(b, m.Offset)
		b = append(b, "-0x"...)
		b = appendHex4(b, len(d.Plain)-1)
		b = append(b, ' ')
		b = appendCutBrief(b, d)
		b = append(b, '\n')
		if !t.CutInHeader {
			b = appendHeaderFields(b, m)
		}
		b = appendHexdump(b, d.Plain[m.Offset:], m.Offset, "      ")
		end = len(d.Plain)
	}
	if end < len(d.Plain) {
		b = append(b, "  undecoded bytes:\n"...)
		b = appendHexdump(b, d.Plain[end:], end, "      ")
	}
	return b
}

// appendHeaderFields lists the transport header bytes of one message.
func appendHeaderFields(b []byte, m *transport.Message) []byte {
	o := m.Offset
	b = appendFieldLine(b, 3, o, "type", "0x"+hex2(uint8(m.Type))+" "+m.Type.Name())
	if m.Type == transport.TypeACK {
		b = appendFieldLine(b, 3, o+1, "seq", strconv.Itoa(int(m.Seq)))
		flags := "0x" + hex2(m.AckFlags)
		if m.AckFrag {
			flags += " fragment"
		}
		if m.AckLow {
			flags += " low-channel"
		}
		b = appendFieldLine(b, 3, o+3, "flags", flags)
		if m.AckFrag {
			b = appendFieldLine(b, 3, o+4, "frag_idx", strconv.Itoa(int(m.FragIdx)))
		}
		return b
	}
	fl := "0x" + hex2(uint8(m.FlagsLen>>8)) + hex2(uint8(m.FlagsLen)) + " len=" + strconv.Itoa(m.Len)
	if m.Reliable {
		fl += " reliable"
	}
	if m.Ordered {
		fl += " ordered"
	}
	if m.Fragment {
		fl += " fragment"
	}
	b = appendFieldLine(b, 3, o+1, "flags_len", fl)
	p := o + 3
	if m.Reliable {
		b = appendFieldLine(b, 3, p, "seq", strconv.Itoa(int(m.Seq)))
		p += 2
	}
	if m.Fragment {
		b = appendFieldLine(b, 3, p, "frag_idx", strconv.Itoa(int(m.FragIdx)))
		p++
		if m.HasFragTotal {
			b = appendFieldLine(b, 3, p, "frag_total", strconv.Itoa(int(m.FragTotal)))
		}
	}
	return b
}

// appendFieldTree lists decoded fields with absolute offsets (base + Off).
func appendFieldTree(b []byte, fs []game.Field, base, indent int) []byte {
	depth := 0
	var val []byte
	for i := range fs {
		f := &fs[i]
		switch f.Kind {
		case game.KindEnd:
			depth--
			continue
		case game.KindObject, game.KindArray:
			name := f.Name
			if name == "" {
				name = "-"
			}
			b = appendFieldLine(b, indent+depth, base+f.Off, name, "")
			depth++
			continue
		}
		val = appendFieldValue(val[:0], f)
		name := f.Name
		if name == "" {
			name = "-"
		}
		if f.Kind == game.KindBool && f.Bit >= 0 {
			name += " (bit " + strconv.Itoa(int(f.Bit)) + ")"
		}
		b = appendFieldLine(b, indent+depth, base+f.Off, name, string(val))
	}
	return b
}

func appendFieldLine(b []byte, indent, off int, name, value string) []byte {
	for i := 0; i < indent; i++ {
		b = append(b, "  "...)
	}
	b = appendHex4(b, off)
	b = append(b, ' ')
	b = append(b, name...)
	if value != "" {
		b = append(b, ": "...)
		b = append(b, value...)
	}
	return append(b, '\n')
}

// appendHexdump appends p as `offset  16 hex bytes  ascii` lines; base is the
// offset of p[0] in the datagram.
func appendHexdump(b []byte, p []byte, base int, indent string) []byte {
	for line := 0; line < len(p); line += 16 {
		b = append(b, indent...)
		b = appendHex4(b, base+line)
		b = append(b, "  "...)
		end := min(line+16, len(p))
		for i := line; i < line+16; i++ {
			if i < end {
				b = append(b, hexDigits[p[i]>>4], hexDigits[p[i]&0xF], ' ')
			} else {
				b = append(b, "   "...)
			}
			if i == line+7 {
				b = append(b, ' ')
			}
		}
		b = append(b, ' ')
		for i := line; i < end; i++ {
			c := p[i]
			if c < 0x20 || c >= 0x7F {
				c = '.'
			}
			b = append(b, c)
		}
		b = append(b, '\n')
	}
	return b
}

func appendHex4(b []byte, v int) []byte {
	return append(b, hexDigits[v>>12&0xF], hexDigits[v>>8&0xF], hexDigits[v>>4&0xF], hexDigits[v&0xF])
}

func hex2(v uint8) string { return string([]byte{hexDigits[v>>4], hexDigits[v&0xF]}) }

func (h *Hex) Finish(end []dissect.Event) error {
	t := Table{w: h.w, pal: h.pal}
	return t.Finish(end)
}

// Events prints events found mid-capture (live) as the table does.
func (h *Hex) Events(ev []dissect.Event) error {
	t := Table{w: h.w, pal: h.pal, flush: h.flush}
	return t.Events(ev)
}

func (h *Hex) markContext(on bool) { h.context = on }

// StartFile prints the "==> name <==" header of the next capture.
func (h *Hex) StartFile(name string) error {
	h.buf = appendFileHeader(h.buf[:0], name, h.files == 0)
	h.files++
	_, err := h.w.Write(h.buf)
	return err
}
