package record

import (
	"net/netip"
	"strconv"

	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// AppendJSON appends the record as one line of `read -F json` (without
// the newline): byte for byte what the JSON writer of report/render
// writes for the datagram the record was made of.
func (d *Datagram) AppendJSON(b []byte) []byte {
	o := obj{b: append(b, '{')}
	switch d.Kind {
	case KindEvent:
		o.str(jsonkeys.Kind, d.Kind.String())
		if len(d.Anomalies) > 0 {
			o.event(&d.Anomalies[0])
		}
		return d.tail(o)
	case KindSummary:
		o.str(jsonkeys.Kind, d.Kind.String())
		objects(&o, jsonkeys.Anomalies, d.Anomalies, true)
		return d.tail(o)
	}
	o.int(jsonkeys.Frame, d.Frame)
	o.key(jsonkeys.Time)
	o.b = append(o.b, '"')
	o.b = render.AppendTimeJSON(o.b, d.Time)
	o.b = append(o.b, '"')
	o.key(jsonkeys.TS)
	o.b = render.AppendEpochJSON(o.b, d.Time)
	o.addr(jsonkeys.Src, d.Src)
	o.addr(jsonkeys.Dst, d.Dst)
	o.str(jsonkeys.Dir, d.Dir.String())
	o.str(jsonkeys.Kind, d.Kind.String())
	o.int(jsonkeys.Len, d.Len)
	if d.Truncated {
		o.bool(jsonkeys.Truncated, true)
		if d.TruncatedBytes > 0 {
			o.int(jsonkeys.TruncatedBytes, d.TruncatedBytes)
		}
	}
	if d.Kind == KindGameSpy {
		o.text(jsonkeys.Text, d.Text)
		o.key(jsonkeys.GameSpy)
		g := obj{b: append(o.b, '{')}
		for _, kv := range d.GameSpy {
			if g.more {
				g.b = append(g.b, ',')
			}
			g.more = true
			g.b = render.AppendJSONBytes(g.b, kv.Key) // quoted as values are
			g.b = append(g.b, ':')
			g.b = render.AppendJSONBytes(g.b, kv.Value)
		}
		o.b = append(g.b, '}')
	} else {
		o.int(jsonkeys.PeerID, d.PeerID)
		if d.HasMsgCount {
			o.int(jsonkeys.MsgCount, d.MsgCount)
		}
		objects(&o, jsonkeys.Messages, d.Messages, false)
		if d.HasCut {
			o.key(jsonkeys.Cut)
			c := obj{b: append(o.b, '{')}
			if d.Cut.HeaderOnly {
				c.int(jsonkeys.Type, int(d.Cut.Type))
				c.str(jsonkeys.TypeName, d.Cut.TypeName)
				c.int(jsonkeys.Offset, d.Cut.Offset)
				if d.Cut.Len > 0 {
					c.int(jsonkeys.Len, d.Cut.Len)
				}
			} else {
				c.message(&d.Cut.Message)
			}
			c.int(jsonkeys.Captured, d.Cut.Captured)
			o.b = append(c.b, '}')
		}
		if d.UncapturedMsgs > 0 {
			o.int(jsonkeys.UncapturedMsgs, d.UncapturedMsgs)
		}
		if d.HasPlain {
			o.key(jsonkeys.PlainHex)
			o.b = render.AppendHexJSON(o.b, d.Plain)
		}
	}
	if len(d.Anomalies) > 0 {
		objects(&o, jsonkeys.Anomalies, d.Anomalies, false)
	}
	if d.Context {
		o.bool(jsonkeys.Context, true)
	}
	return d.tail(o)
}

func (d *Datagram) tail(o obj) []byte {
	if d.File != "" {
		o.str(jsonkeys.File, d.File)
	}
	return append(o.b, '}')
}

// objects writes the member k: an array of one object per element of
// xs, a message's members or an anomaly's (as an event's: event).
func objects[T Message | Anomaly](o *obj, k string, xs []T, event bool) {
	o.key(k)
	o.b = append(o.b, '[')
	for i := range xs {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		e := obj{b: append(o.b, '{')}
		switch x := any(&xs[i]).(type) {
		case *Message:
			e.message(x)
		case *Anomaly:
			if event {
				e.event(x)
			} else {
				e.anomaly(x)
			}
		}
		o.b = append(e.b, '}')
	}
	o.b = append(o.b, ']')
}

// obj writes the members of one JSON object.
type obj struct {
	b    []byte
	more bool
}

func (o *obj) key(k string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = render.AppendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *obj) int(k string, v int) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, int64(v), 10)
}

func (o *obj) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *obj) str(k, v string) {
	o.key(k)
	o.b = render.AppendJSONString(o.b, v)
}

func (o *obj) text(k string, v []byte) {
	o.key(k)
	o.b = render.AppendJSONBytes(o.b, v)
}

func (o *obj) addr(k string, a netip.AddrPort) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = a.AppendTo(o.b)
	o.b = append(o.b, '"')
}

func (o *obj) message(m *Message) {
	o.int(jsonkeys.Type, int(m.Type))
	o.str(jsonkeys.TypeName, m.TypeName)
	o.int(jsonkeys.Offset, m.Offset)
	o.int(jsonkeys.Len, m.Len)
	if m.IsACK() {
		o.int(jsonkeys.Seq, int(m.Seq))
		o.bool(jsonkeys.AckFrag, m.AckFrag)
		o.bool(jsonkeys.AckLow, m.AckLow)
		if m.HasFragIdx {
			o.int(jsonkeys.FragIdx, int(m.FragIdx))
		}
		o.track(&m.Track)
		return
	}
	o.bool(jsonkeys.Reliable, m.Reliable)
	o.bool(jsonkeys.Ordered, m.Ordered)
	if m.HasSeq {
		o.int(jsonkeys.Seq, int(m.Seq))
	}
	if m.Fragment {
		o.bool(jsonkeys.Fragment, true)
		o.int(jsonkeys.FragIdx, int(m.FragIdx))
		if m.HasFragTotal {
			o.int(jsonkeys.FragTotal, int(m.FragTotal))
		}
	}
	o.int(jsonkeys.PayloadLen, m.PayloadLen)
	o.payload(&m.Payload)
	o.track(&m.Track)
	if r := m.Reassembled; r != nil {
		o.key(jsonkeys.Reassembled)
		ro := obj{b: append(o.b, '{')}
		ro.int(jsonkeys.Len, r.Len)
		ro.int(jsonkeys.Frags, r.Frags)
		ro.payload(&r.Payload)
		o.b = append(ro.b, '}')
	}
}

func (o *obj) track(t *Track) {
	if t.Retransmit {
		o.bool(jsonkeys.Retransmit, true)
		o.int(jsonkeys.RetransmitCount, t.RetransmitCount)
		o.int(jsonkeys.FirstFrame, t.FirstFrame)
	}
	if t.Keepalive {
		o.bool(jsonkeys.Keepalive, true)
	}
	if t.Duplicate {
		o.bool(jsonkeys.Duplicate, true)
	}
	if t.Ack != "" {
		o.str(jsonkeys.Ack, t.Ack)
		if t.AckedFrame > 0 {
			o.int(jsonkeys.AckedFrame, t.AckedFrame)
		}
		if t.HasRTT {
			o.key(jsonkeys.RTTMs)
			o.b = strconv.AppendFloat(o.b, float64(t.RTT.Microseconds())/1000, 'f', 3, 64)
		}
	}
}

func (o *obj) payload(p *Payload) {
	if p.HasOpcode {
		o.int(jsonkeys.Opcode, int(p.Opcode))
		o.str(jsonkeys.OpcodeName, p.OpcodeName)
	}
	if p.Decoded {
		o.key(jsonkeys.Fields)
		o.b = AppendFields(o.b, p.Fields)
	}
	if p.HasHex {
		o.key(jsonkeys.PayloadHex)
		o.b = render.AppendHexJSON(o.b, p.Bytes)
	}
}

// AppendFields appends a field token stream as a JSON object.
func AppendFields(b []byte, fs []Field) []byte {
	b = append(b, '{')
	var moreBuf, arrBuf [16]bool
	more, inArray := moreBuf[:1], arrBuf[:1]
	for i := range fs {
		f := &fs[i]
		lvl := len(more) - 1
		if f.Kind == End {
			if lvl == 0 {
				continue
			}
			if inArray[lvl] {
				b = append(b, ']')
			} else {
				b = append(b, '}')
			}
			more, inArray = more[:lvl], inArray[:lvl]
			continue
		}
		if more[lvl] {
			b = append(b, ',')
		}
		more[lvl] = true
		if !inArray[lvl] {
			b = render.AppendJSONString(b, f.Name)
			b = append(b, ':')
		}
		b = AppendValue(b, f)
		if f.Kind == Object || f.Kind == Array {
			more, inArray = append(more, false), append(inArray, f.Kind == Array)
		}
	}
	for lvl := len(more) - 1; lvl > 0; lvl-- {
		if inArray[lvl] {
			b = append(b, ']')
		} else {
			b = append(b, '}')
		}
	}
	return append(b, '}')
}

// AppendValue appends a token's JSON value; for Object and Array only the
// opening bracket.
func AppendValue(b []byte, f *Field) []byte {
	switch f.Kind {
	case Null:
		return append(b, "null"...)
	case Bool, Number:
		return append(b, f.Value...)
	case String:
		return render.AppendJSONBytes(b, f.Value)
	case Object:
		return append(b, '{')
	case Array:
		return append(b, '[')
	}
	return append(b, "null"...)
}

func (o *obj) anomaly(a *Anomaly) {
	o.str(jsonkeys.Code, a.CodeName)
	o.str(jsonkeys.Severity, a.Severity)
	o.text(jsonkeys.Message, a.Message)
	if a.Offset != anomaly.NoOffset {
		o.int(jsonkeys.Offset, a.Offset)
	}
	if a.Msg != anomaly.NoMsg {
		o.int(jsonkeys.Msg, a.Msg)
	}
}

func (o *obj) event(a *Anomaly) {
	o.anomaly(a)
	if a.Frame > 0 {
		o.int(jsonkeys.Frame, a.Frame)
	}
	if a.Client.IsValid() {
		o.addr(jsonkeys.Client, a.Client)
	}
	if a.Server.IsValid() {
		o.addr(jsonkeys.Server, a.Server)
	}
}
