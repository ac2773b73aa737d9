package render

import (
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
)

// Text renderings shared by the table and hexdump reporters.

// appendFieldValue appends a field's value as people read it; m, when not
// nil, is the rendering goroutine's memo of float texts.
func appendFieldValue(b []byte, f *game.Field, m *recordMemo) []byte {
	switch f.Kind {
	case game.KindString:
		b = appendQuote(b, f.B)
	case game.KindBytes:
		for _, c := range f.B {
			b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
		}
	case game.KindHash, game.KindHex:
		n := len(b)
		b = appendValue(b, f, m)
		// Drop the JSON quotes around "0x...".
		copy(b[n:], b[n+1:len(b)-1])
		b = b[:len(b)-2]
	default:
		b = appendValue(b, f, m)
	}
	if f.Note != "" {
		b = append(b, " ("...)
		b = append(b, f.Note...)
		b = append(b, ')')
	}
	return b
}

// appendBriefFields renders the top-level scalar fields as k=v pairs, for
// opcodes without a summarizer. At most max fields are shown.
func appendBriefFields(b []byte, fs []game.Field, max int) []byte {
	depth, n := 0, 0
	for i := range fs {
		f := &fs[i]
		switch f.Kind {
		case game.KindObject, game.KindArray:
			depth++
			continue
		case game.KindEnd:
			depth--
			continue
		}
		if depth != 0 {
			continue
		}
		if n == max {
			return append(b, " …"...)
		}
		b = append(b, ' ')
		b = append(b, f.Name...)
		b = append(b, '=')
		b = appendFieldValue(b, f, nil)
		n++
	}
	return b
}

// appendMessageBrief appends the one-line description of a transport message
// used by the table reporter, e.g. `ACK seq=2 frag=1` or
// `DATA rel seq=3 ChecksumReq round=3 "scripts/mainmenu" "*.pyc"`.
func appendMessageBrief(b []byte, dg *dissect.Datagram, i int) []byte {
	return appendMsgBrief(b, dg, &dg.Transport.Messages[i], &dg.Msgs[i])
}

// appendCutBrief describes the message the capture cut (dg.Transport.Cut):
// what its captured bytes tell, then `[cut: 12 of 40 bytes]`.
func appendCutBrief(b []byte, dg *dissect.Datagram) []byte {
	t := &dg.Transport
	m := &t.Cut
	if t.CutInHeader {
		b = append(b, m.Type.Name()...)
	} else {
		b = appendMsgBrief(b, dg, m, &dg.Cut)
	}
	b = append(b, " [cut: "...)
	b = appendInt(b, int64(len(dg.Plain)-m.Offset))
	if m.Len > 0 {
		b = append(b, " of "...)
		b = appendInt(b, int64(m.Len))
	}
	return append(b, " bytes]"...)
}

func appendMsgBrief(b []byte, dg *dissect.Datagram, m *transport.Message, dm *dissect.Message) []byte {
	if m.Type == transport.TypeACK {
		b = append(b, "ACK seq="...)
		b = appendUint(b, uint64(m.Seq))
		if m.AckFrag {
			b = append(b, " frag="...)
			b = appendUint(b, uint64(m.FragIdx))
		}
		if m.AckLow {
			b = append(b, " low"...)
		}
		return appendTrackBrief(b, dm)
	}
	if m.Type == transport.TypeData {
		b = append(b, "DATA"...)
	} else {
		b = append(b, m.Type.Name()...)
		if m.Type == transport.TypeConnect {
			if dg.Transport.PeerID == 0xFF {
				b = append(b, " req"...)
			} else {
				b = append(b, " assign"...)
			}
		}
	}
	if m.Reliable {
		b = append(b, " rel seq="...)
		b = appendUint(b, uint64(m.Seq))
	}
	if m.Fragment {
		b = append(b, " frag="...)
		b = appendUint(b, uint64(m.FragIdx))
		if m.HasFragTotal {
			b = append(b, '/')
			b = appendUint(b, uint64(m.FragTotal))
		}
	}
	b = appendTrackBrief(b, dm)
	if m.Type != transport.TypeData {
		if dm.Decoded {
			b = appendControlBrief(b, dm.Fields.List)
		} else if len(m.Payload) > 0 {
			b = append(b, " raw="...)
			b = appendHexPrefix(b, m.Payload, 16)
		}
		return b
	}
	if dm.Opcode != nil {
		b = append(b, ' ')
		b = appendOpcodeBrief(b, &dm.Payload, !m.Fragment)
	} else if len(m.Payload) > 0 {
		b = append(b, " raw="...)
		b = appendHexPrefix(b, m.Payload, 16)
	}
	if r := dm.Reassembled; r != nil {
		b = append(b, " => reassembled "...)
		b = appendInt(b, int64(len(r.Bytes)))
		b = append(b, " bytes from "...)
		b = appendInt(b, int64(r.Frags))
		b = append(b, " frags: "...)
		if r.Opcode != nil {
			b = appendOpcodeBrief(b, &r.Payload, true)
		}
	}
	return b
}

// appendOpcodeBrief appends `Name summary`. whole says the payload is
// complete (not only fragment 0's slice), so a summary is meaningful.
func appendOpcodeBrief(b []byte, pl *dissect.Payload, whole bool) []byte {
	op, p, f, decoded, bad := pl.Opcode, pl.Bytes, &pl.Fields, pl.Decoded, pl.Malformed
	b = append(b, op.Name...)
	if !whole {
		return b
	}
	switch {
	case decoded && op.Summary != nil && bad == nil:
		b = append(b, ' ')
		n := len(b)
		b = op.Summary(b, p, f)
		if len(b) == n {
			b = b[:n-1]
		}
	case decoded:
		b = appendBriefFields(b, f.List, 6)
	case len(p) > 1:
		b = append(b, " raw="...)
		b = appendHexPrefix(b, p[1:], 16)
	}
	if bad != nil {
		// Another implementation's known shape is named (as the
		// Wireshark plugin's Info column does); anything else is malformed.
		if code, _, ok := game.NonStockCode(p); ok {
			b = append(b, " ["...)
			b = append(b, code.String()...)
			b = append(b, ']')
		} else {
			b = append(b, " [malformed @"...)
			b = appendInt(b, int64(bad.Off))
			b = append(b, ']')
		}
	}
	return b
}

func appendHexPrefix(b []byte, p []byte, max int) []byte {
	n := len(p)
	if n > max {
		p = p[:max]
	}
	for _, c := range p {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
	}
	if n > max {
		b = append(b, "…"...)
	}
	return b
}

// appendControlBrief summarizes a connection-management payload:
// `id=2`, `peer=2 ip=10.10.10.239 "Cady2"`.
func appendControlBrief(b []byte, fs []game.Field) []byte {
	for i := range fs {
		f := &fs[i]
		switch f.Name {
		case "assigned_peer_id":
			b = append(b, " id="...)
			b = appendUint(b, f.U)
		case "peer_id":
			b = append(b, " peer="...)
			b = appendUint(b, f.U)
		case "ip":
			b = append(b, " ip="...)
			b = append(b, f.B...)
		case "name":
			b = append(b, ' ')
			b = appendQuote(b, f.B)
		}
	}
	return b
}
