package render

import (
	"bufio"
	"io"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/quote"
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
	memo    recordMemo // float and address texts (jsonmemo.go); each rendering goroutine has its own Hex
	// noTree leaves out the header fields and field trees (read -x),
	// noDump the hexdumps (read -V).
	noTree, noDump bool
}

// SetParts chooses what each message shows: its field tree (tshark -V),
// its bytes as a hexdump (tshark -x), or both (the default).
func (h *Hex) SetParts(tree, dump bool) { h.noTree, h.noDump = !tree, !dump }

// SetTimeFormat sets how the time is shown (read -t).
func (h *Hex) SetTimeFormat(f TimeFormat) { h.clock.format = f }

// NewHex returns a hexdump reporter. withCipher adds the enciphered bytes.
func NewHex(w io.Writer, pal Palette, withCipher, flushEach bool) *Hex {
	return &Hex{w: bufio.NewWriterSize(w, 64<<10), pal: pal, cipher: withCipher, flush: flushEach}
}

func (h *Hex) Datagram(d *dissect.Datagram) error {
	b := h.appendRecord(h.buf[:0], d)
	h.buf = b
	if _, err := h.w.Write(b); err != nil {
		return err
	}
	if h.flush {
		return h.w.Flush()
	}
	return nil
}

// appendRecord appends the field tree and hexdump of one datagram.
func (h *Hex) appendRecord(b []byte, d *dissect.Datagram) []byte {
	b = append(b, "Frame "...)
	b = appendInt(b, int64(d.Frame))
	if h.context {
		b = append(b, " (context)"...)
	}
	b = append(b, ": "...)
	b = appendInt(b, int64(len(d.Raw)))
	b = append(b, " bytes, t="...)
	b = h.clock.append(b, d)
	b = append(b, ' ')
	b = h.memo.appendAddr(b, d.Src)
	b = append(b, " -> "...)
	b = h.memo.appendAddr(b, d.Dst)
	b = append(b, " ("...)
	b = append(b, d.Dir.String()...)
	b = append(b, ", "...)
	b = append(b, d.Kind.String()...)
	b = append(b, ")\n"...)
	if d.Kind == dissect.KindGameSpy {
		for _, kv := range d.GameSpy {
			if h.noTree {
				break
			}
			b = append(b, "  "...)
			b = quote.AppendName(b, kv.Key) // as read -F table shows names
			b = append(b, ": "...)
			b = appendQuote(b, kv.Value)
			b = append(b, '\n')
		}
		b = h.dump(b, d.Plain, 0, "  ")
	} else {
		b = h.appendGame(b, d)
	}
	for i := range d.Anomalies {
		a := &d.Anomalies[i]
		c := h.pal.severity(a.Severity())
		b = h.pal.start(b, c)
		b = append(b, "  !! "...)
		b = append(b, a.Severity().String()...)
		b = append(b, ' ')
		b = append(b, a.Code.String()...)
		if a.Offset != anomaly.NoOffset {
			b = append(b, " @ 0x"...)
			b = appendHex4(b, a.Offset)
		}
		b = append(b, ": "...)
		b = a.AppendMessage(b)
		b = h.pal.end(b, c)
		b = append(b, '\n')
	}
	if h.cipher && d.Kind == dissect.KindGame {
		b = append(b, "  enciphered (as captured):\n"...)
		b = appendHexdump(b, d.Raw, 0, "  ")
	}
	return append(b, '\n')
}

// dump is appendHexdump unless the hexdumps are left out.
func (h *Hex) dump(b []byte, p []byte, base int, indent string) []byte {
	if h.noDump {
		return b
	}
	return appendHexdump(b, p, base, indent)
}

func (h *Hex) appendGame(b []byte, d *dissect.Datagram) []byte {
	if !h.noTree {
		b = appendFieldUint(b, 1, 0, "peer_id", uint64(d.Transport.PeerID))
		if len(d.Plain) > 1 {
			b = appendFieldUint(b, 1, 1, "msg_count", uint64(d.Transport.MsgCount))
		}
	}
	end := 2
	for i := range d.Transport.Messages {
		m := &d.Transport.Messages[i]
		dm := &d.Msgs[i]
		b = append(b, "  ["...)
		b = appendInt(b, int64(i))
		b = append(b, "] 0x"...)
		b = appendHex4(b, m.Offset)
		b = append(b, "-0x"...)
		b = appendHex4(b, m.Offset+m.Len-1)
		b = append(b, ' ')
		b = appendMessageBrief(b, d, i)
		b = append(b, '\n')
		if !h.noTree {
			b = appendHeaderFields(b, m)
			if dm.Decoded {
				b = appendFieldTree(b, dm.Fields.List, m.PayloadOff, 3, &h.memo)
			}
			if r := dm.Reassembled; r != nil && r.Decoded {
				b = append(b, "      reassembled payload (offsets within it):\n"...)
				b = appendFieldTree(b, r.Fields.List, 0, 4, &h.memo)
			}
		}
		b = h.dump(b, d.Plain[m.Offset:m.Offset+m.Len], m.Offset, "      ")
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
		if !t.CutInHeader && !h.noTree {
			b = appendHeaderFields(b, m)
		}
		b = h.dump(b, d.Plain[m.Offset:], m.Offset, "      ")
		end = len(d.Plain)
	}
	if end < len(d.Plain) && !h.noDump {
		b = append(b, "  undecoded bytes:\n"...)
		b = h.dump(b, d.Plain[end:], end, "      ")
	}
	return b
}

// appendHeaderFields lists the transport header bytes of one message.
func appendHeaderFields(b []byte, m *transport.Message) []byte {
	o := m.Offset
	b = appendFieldName(b, 3, o, "type")
	b = append(b, ": 0x"...)
	b = appendHex2(b, uint8(m.Type))
	b = append(b, ' ')
	b = append(b, m.Type.Name()...)
	b = append(b, '\n')
	if m.Type == transport.TypeACK {
		b = appendFieldUint(b, 3, o+1, "seq", uint64(m.Seq))
		b = appendFieldName(b, 3, o+3, "flags")
		b = append(b, ": 0x"...)
		b = appendHex2(b, m.AckFlags)
		if m.AckFrag {
			b = append(b, " fragment"...)
		}
		if m.AckLow {
			b = append(b, " low-channel"...)
		}
		b = append(b, '\n')
		if m.AckFrag {
			b = appendFieldUint(b, 3, o+4, "frag_idx", uint64(m.FragIdx))
		}
		return b
	}
	b = appendFieldName(b, 3, o+1, "flags_len")
	b = append(b, ": 0x"...)
	b = appendHex2(b, uint8(m.FlagsLen>>8))
	b = appendHex2(b, uint8(m.FlagsLen))
	b = append(b, " len="...)
	b = appendInt(b, int64(m.Len))
	if m.Reliable {
		b = append(b, " reliable"...)
	}
	if m.Ordered {
		b = append(b, " ordered"...)
	}
	if m.Fragment {
		b = append(b, " fragment"...)
	}
	b = append(b, '\n')
	p := o + 3
	if m.Reliable {
		b = appendFieldUint(b, 3, p, "seq", uint64(m.Seq))
		p += 2
	}
	if m.Fragment {
		b = appendFieldUint(b, 3, p, "frag_idx", uint64(m.FragIdx))
		p++
		if m.HasFragTotal {
			b = appendFieldUint(b, 3, p, "frag_total", uint64(m.FragTotal))
		}
	}
	return b
}

// appendFieldTree lists decoded fields with absolute offsets (base + Off).
func appendFieldTree(b []byte, fs []game.Field, base, indent int, m *recordMemo) []byte {
	depth := 0
	for i := range fs {
		f := &fs[i]
		name := f.Name
		if name == "" {
			name = "-"
		}
		switch f.Kind {
		case game.KindEnd:
			depth--
			continue
		case game.KindObject, game.KindArray:
			b = appendFieldName(b, indent+depth, base+f.Off, name)
			b = append(b, '\n')
			depth++
			continue
		}
		b = appendFieldName(b, indent+depth, base+f.Off, name)
		if f.Kind == game.KindBool && f.Bit >= 0 {
			b = append(b, " (bit "...)
			b = appendInt(b, int64(f.Bit))
			b = append(b, ')')
		}
		// The value is appended in place; an empty one drops its ": ".
		n := len(b)
		b = appendFieldValue(append(b, ": "...), f, m)
		if len(b) == n+2 {
			b = b[:n]
		}
		b = append(b, '\n')
	}
	return b
}

// appendFieldName starts a field line: indent, offset, name.
func appendFieldName(b []byte, indent, off int, name string) []byte {
	for i := 0; i < indent; i++ {
		b = append(b, "  "...)
	}
	b = appendHex4(b, off)
	b = append(b, ' ')
	return append(b, name...)
}

// appendFieldUint appends a whole field line with a decimal value.
func appendFieldUint(b []byte, indent, off int, name string, v uint64) []byte {
	b = appendFieldName(b, indent, off, name)
	b = append(b, ": "...)
	b = appendUint(b, v)
	return append(b, '\n')
}

// appendHexdump appends p as `offset  16 hex bytes  ascii` lines; base is the
// offset of p[0] in the datagram.
func appendHexdump(b []byte, p []byte, base int, indent string) []byte {
	for line := 0; line < len(p); line += 16 {
		b = append(b, indent...)
		b = appendHex4(b, base+line)
		end := min(line+16, len(p))
		// "  " 16 x "hh " with a space after the 8th, " " then the text:
		// laid out blank and filled in by index.
		n := len(b)
		b = append(b, hexLineBlank...)
		o := b[n:]
		for i, c := range p[line:end] {
			j := 2 + 3*i
			if i >= 8 {
				j++
			}
			o[j], o[j+1] = hexDigits[c>>4], hexDigits[c&0xF]
		}
		for _, c := range p[line:end] {
			if c < 0x20 || c >= 0x7F {
				c = '.'
			}
			b = append(b, c)
		}
		b = append(b, '\n')
	}
	return b
}

// hexLineBlank is a hexdump line between the offset and the text, blank.
const hexLineBlank = "  " + "                        " + " " + "                        " + " "

func appendHex4(b []byte, v int) []byte {
	return append(b, hexDigits[v>>12&0xF], hexDigits[v>>8&0xF], hexDigits[v>>4&0xF], hexDigits[v&0xF])
}

func appendHex2(b []byte, v uint8) []byte {
	return append(b, hexDigits[v>>4], hexDigits[v&0xF])
}

func (h *Hex) Finish(end []dissect.Event) error {
	t := Table{w: h.w, pal: h.pal}
	return t.Finish(end)
}

// Events prints events found mid-capture (live) as the table does.
func (h *Hex) Events(ev []dissect.Event) error {
	t := Table{w: h.w, pal: h.pal, flush: h.flush}
	return t.Events(ev)
}

func (h *Hex) MarkContext(on bool) { h.context = on }

// StartFile prints the "==> name <==" header of the next capture.
func (h *Hex) StartFile(name string) error {
	h.buf = appendFileHeader(h.buf[:0], name, h.files == 0)
	h.files++
	_, err := h.w.Write(h.buf)
	return err
}
