package record

import (
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Converter turns dissect.Datagrams into records: the one conversion from
// the dissector's structures. Its zero value is ready; one Converter is
// for one goroutine.
type Converter struct {
	names interner
}

// Datagram fills r with the record of dg, as `read -F json` shows it
// (without "file" and "context", which belong to the run: set r.File and
// r.Context). After the first datagrams it allocates nothing.
func (c *Converter) Datagram(dg *dissect.Datagram, r *Datagram) {
	r.Reset()
	r.Frame = dg.Frame
	r.Time = dg.Time.UTC()
	r.Src, r.Dst = dg.Src, dg.Dst
	switch dg.Dir {
	case dissect.C2S:
		r.Dir = C2S
	case dissect.S2C:
		r.Dir = S2C
	}
	r.Len = len(dg.Raw)
	r.Truncated = dg.Truncated
	if dg.Truncated {
		r.TruncatedBytes = dg.Missing
	}
	if dg.Kind == dissect.KindGameSpy {
		r.Kind = KindGameSpy
		r.Text = r.latin1(dg.Plain)
		for _, kv := range dg.GameSpy {
			r.GameSpy = append(r.GameSpy, KV{Key: r.latin1(kv.Key), Value: r.latin1(kv.Value)})
		}
	} else {
		r.Kind = KindGame
		t := &dg.Transport
		r.PeerID, r.MsgCount = int(t.PeerID), int(t.MsgCount)
		r.HasMsgCount = len(dg.Plain) > 1
		for i := range t.Messages {
			m := r.newMessage()
			c.message(r, m, &t.Messages[i], &dg.Msgs[i])
			if re := dg.Msgs[i].Reassembled; re != nil {
				rr := r.newReasm(i)
				rr.Len, rr.Frags = len(re.Bytes), re.Frags
				c.payload(r, &rr.Payload, &re.Payload)
				m.Reassembled = rr
			}
		}
		if t.HasCut {
			r.HasCut = true
			cm := &t.Cut
			fs := r.Cut.Fields[:0]
			r.Cut = Cut{}
			if t.CutInHeader {
				r.Cut.HeaderOnly = true
				r.Cut.Type, r.Cut.TypeName, r.Cut.Offset, r.Cut.Len = uint8(cm.Type), cm.Type.Name(), cm.Offset, cm.Len
				r.Cut.Fields = fs
			} else {
				r.Cut.Fields = fs
				c.message(r, &r.Cut.Message, cm, &dg.Cut)
			}
			r.Cut.Captured = len(dg.Plain) - cm.Offset
		}
		r.UncapturedMsgs = t.Uncaptured
		if len(t.Messages) == 0 || len(dg.Anomalies) > 0 {
			r.HasPlain = true
			r.Plain = r.bytes(dg.Plain)
		}
	}
	for i := range dg.Anomalies {
		r.Anomalies = append(r.Anomalies, r.anomaly(&dg.Anomalies[i]))
	}
}

// Events fills r with the record of one event found mid-capture
// ({"kind":"event"}).
func (c *Converter) Event(e *dissect.Event, r *Datagram) {
	r.Reset()
	r.Kind = KindEvent
	r.Anomalies = append(r.Anomalies, r.event(e))
	r.Frame = e.Frame
}

// Summary fills r with the end-of-capture record of the events in end.
func (c *Converter) Summary(end []dissect.Event, r *Datagram) {
	r.Reset()
	r.Kind = KindSummary
	for i := range end {
		r.Anomalies = append(r.Anomalies, r.event(&end[i]))
	}
}

func (r *Datagram) event(e *dissect.Event) Anomaly {
	a := r.anomaly(&e.Anomaly)
	a.Frame, a.Client, a.Server = e.Frame, e.Client, e.Server
	return a
}

func (r *Datagram) anomaly(a *anomaly.Anomaly) Anomaly {
	n := len(r.arena)
	r.arena = a.AppendMessage(r.arena)
	msg := r.latin1Tail(n)
	return Anomaly{Code: a.Code, CodeName: a.Code.String(), Severity: a.Severity().String(),
		Message: msg, Offset: a.Offset, Msg: a.Msg}
}

func (c *Converter) message(r *Datagram, m *Message, tm *transport.Message, dm *dissect.Message) {
	m.Type, m.TypeName, m.Offset, m.Len = uint8(tm.Type), tm.Type.Name(), tm.Offset, tm.Len
	if tm.Type == transport.TypeACK {
		m.HasSeq, m.Seq = true, tm.Seq
		m.AckFrag, m.AckLow = tm.AckFrag, tm.AckLow
		if tm.AckFrag {
			m.HasFragIdx, m.FragIdx = true, tm.FragIdx
		}
	} else {
		m.Reliable, m.Ordered = tm.Reliable, tm.Ordered
		if tm.Reliable {
			m.HasSeq, m.Seq = true, tm.Seq
		}
		if tm.Fragment {
			m.Fragment = true
			m.HasFragIdx, m.FragIdx = true, tm.FragIdx
			if tm.HasFragTotal {
				m.HasFragTotal, m.FragTotal = true, tm.FragTotal
			}
		}
		m.PayloadLen = len(tm.Payload)
		c.payload(r, &m.Payload, &dm.Payload)
	}
	t := &dm.Track
	if t.Retransmit {
		m.Retransmit, m.RetransmitCount, m.FirstFrame = true, t.RetransmitCount, t.FirstFrame
	}
	m.Keepalive, m.Duplicate = t.Keepalive, t.Dup
	if t.Ack != transport.AckNone {
		m.Ack = t.Ack.String()
		m.AckedFrame = t.AckedFrame
		if t.HasRTT {
			m.HasRTT, m.RTT = true, t.RTT.Truncate(1000)
		}
	}
}

// payload fills p from dp.
func (c *Converter) payload(r *Datagram, p *Payload, dp *dissect.Payload) {
	if op := dp.Opcode; op != nil {
		p.HasOpcode, p.Opcode, p.OpcodeName = true, op.Code, op.Name
	}
	if dp.Decoded {
		p.Decoded = true
		p.Fields = c.fields(r, p.Fields[:0], dp.Fields.List)
	}
	if !dp.Decoded || dp.Malformed != nil {
		p.HasHex = true
		p.Bytes = r.bytes(dp.Bytes)
	}
}

// fields converts a field token stream as the JSON writer renders it:
// unbalanced ends dropped, levels a cut-short decode left open closed,
// notes as "<key>_name" string members.
func (c *Converter) fields(r *Datagram, out []Field, fs []game.Field) []Field {
	var arrBuf [16]bool
	inArray := arrBuf[:1]
	for i := range fs {
		f := &fs[i]
		lvl := len(inArray) - 1
		name := f.Name
		if inArray[lvl] {
			name = ""
		}
		switch f.Kind {
		case game.KindEnd:
			if lvl == 0 {
				continue
			}
			inArray = inArray[:lvl]
			out = append(out, Field{Kind: End})
			continue
		case game.KindObject:
			out = append(out, Field{Name: name, Kind: Object})
			inArray = append(inArray, false)
			continue
		case game.KindArray:
			out = append(out, Field{Name: name, Kind: Array})
			inArray = append(inArray, true)
			continue
		case game.KindVec:
			out = append(out, Field{Name: name, Kind: Array})
			for _, v := range f.V {
				n := len(r.arena)
				r.arena = render.AppendFloatJSON(r.arena, v)
				out = append(out, r.scalar("", n))
			}
			out = append(out, Field{Kind: End})
		case game.KindString:
			out = append(out, Field{Name: name, Kind: String, Value: r.latin1(f.B)})
		default:
			n := len(r.arena)
			r.arena = render.AppendValueJSON(r.arena, f)
			out = append(out, r.scalar(name, n))
		}
		if f.Note != "" && !inArray[lvl] {
			out = append(out, Field{Name: c.names.note(f.Name), Kind: String, Value: r.latin1([]byte(f.Note))})
		}
	}
	for lvl := len(inArray) - 1; lvl > 0; lvl-- {
		out = append(out, Field{Kind: End})
	}
	return out
}

// scalar makes the token of the JSON value the arena holds from n on.
func (r *Datagram) scalar(name string, n int) Field {
	v := r.arena[n:len(r.arena):len(r.arena)]
	switch {
	case len(v) >= 2 && v[0] == '"':
		// Hex and hash texts: ASCII, no escapes.
		return Field{Name: name, Kind: String, Value: v[1 : len(v)-1 : len(v)-1]}
	case string(v) == "null":
		return Field{Name: name, Kind: Null}
	case string(v) == "true" || string(v) == "false":
		return Field{Name: name, Kind: Bool, Value: v}
	}
	return Field{Name: name, Kind: Number, Value: v}
}

// latin1 copies s into the arena as UTF-8, each byte that is not part of
// valid UTF-8 taken as Latin-1: the text the JSON string shows.
func (r *Datagram) latin1(s []byte) []byte {
	n := len(r.arena)
	r.arena = appendLatin1(r.arena, s)
	return r.arena[n:len(r.arena):len(r.arena)]
}

// latin1Tail converts the arena's bytes from n on in place (a copy when
// some need it).
func (r *Datagram) latin1Tail(n int) []byte {
	if utf8.Valid(r.arena[n:]) {
		return r.arena[n:len(r.arena):len(r.arena)]
	}
	m := len(r.arena)
	r.arena = appendLatin1(r.arena, r.arena[n:m])
	return r.arena[m:len(r.arena):len(r.arena)]
}

func appendLatin1(b, s []byte) []byte {
	for len(s) > 0 {
		c := s[0]
		if c < utf8.RuneSelf {
			b = append(b, c)
			s = s[1:]
			continue
		}
		rn, size := utf8.DecodeRune(s)
		if rn == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, rune(c))
		} else {
			b = append(b, s[:size]...)
		}
		s = s[size:]
	}
	return b
}
