package render

import (
	"bufio"
	"io"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// JSON writes JSON Lines: one object per datagram, then one "summary"
// object with the anomalies only the end of the capture revealed. The keys
// are a contract (bcdump help json): new keys may be added, none renamed.
type JSON struct {
	w       *bufio.Writer
	buf     []byte
	flush   bool   // flush after every line (live capture)
	context bool   // the next datagram is shown as context (read -C)
	file    string // the capture the records come from (StartFile), or ""
	memo    recordMemo
}

// NewJSON returns a JSON Lines reporter writing to w. With flushEach every
// line is flushed at once, for piping a live capture into jq.
func NewJSON(w io.Writer, flushEach bool) *JSON {
	return &JSON{w: bufio.NewWriterSize(w, 64<<10), flush: flushEach}
}

func (j *JSON) Datagram(d *dissect.Datagram) error {
	j.buf = appendDatagramJSONMemo(j.buf[:0], d, &j.memo)
	return j.writeRecord(j.buf)
}

// writeRecord writes one datagram record rendered by appendDatagramJSON,
// marked as context if it is, and a newline. It may append to rec.
func (j *JSON) writeRecord(rec []byte) error {
	if j.context {
		rec = appendContextKey(rec)
	}
	rec = j.appendFileKey(rec)
	rec = append(rec, '\n')
	if _, err := j.w.Write(rec); err != nil {
		return err
	}
	if j.flush {
		return j.w.Flush()
	}
	return nil
}

func (j *JSON) MarkContext(on bool) { j.context = on }

// StartFile makes every record that follows carry "file": name; records
// have no file key until it is called (a run that reads one capture).
func (j *JSON) StartFile(name string) error {
	j.file = name
	return nil
}

// appendFileKey adds "file": j.file to a rendered object, if set.
func (j *JSON) appendFileKey(rec []byte) []byte {
	if j.file == "" || len(rec) < 2 || rec[len(rec)-1] != '}' {
		return rec
	}
	rec = rec[:len(rec)-1]
	first := false
	rec = appendKey(rec, &first, "file")
	rec = appendStr(rec, j.file)
	return append(rec, '}')
}

// appendContextKey adds "context":true to a rendered datagram object.
func appendContextKey(rec []byte) []byte {
	if len(rec) < 2 || rec[len(rec)-1] != '}' {
		return rec
	}
	rec = rec[:len(rec)-1]
	first := false
	rec = appendKey(rec, &first, "context")
	return append(rec, "true}"...)
}

func (j *JSON) Finish(end []dissect.Event) error {
	if len(end) > 0 {
		b := append(j.buf[:0], `{"kind":"summary","anomalies":[`...)
		for i := range end {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEventJSON(b, &end[i])
		}
		b = append(b, "]}"...)
		b = append(j.appendFileKey(b), '\n')
		j.buf = b
		if _, err := j.w.Write(b); err != nil {
			return err
		}
	}
	return j.w.Flush()
}

// Events writes each event found mid-capture (live) as its own line,
// {"kind":"event", ...} with the keys of a summary anomaly.
func (j *JSON) Events(ev []dissect.Event) error {
	for i := range ev {
		first := true
		b := append(j.buf[:0], '{')
		b = appendKey(b, &first, "kind")
		b = appendStr(b, "event")
		b = appendEventKeys(b, &first, &ev[i])
		b = append(b, '}')
		b = append(j.appendFileKey(b), '\n')
		j.buf = b
		if _, err := j.w.Write(b); err != nil {
			return err
		}
	}
	if j.flush {
		return j.w.Flush()
	}
	return nil
}

// AppendDatagramJSON appends the JSON object of one datagram (no newline).
func AppendDatagramJSON(b []byte, d *dissect.Datagram) []byte {
	return appendDatagramJSON(b, d)
}

func appendDatagramJSON(b []byte, d *dissect.Datagram) []byte {
	return appendDatagramJSONMemo(b, d, nil)
}

// appendDatagramJSONMemo is appendDatagramJSON with m's memory of the
// records before (nil: none).
func appendDatagramJSONMemo(b []byte, d *dissect.Datagram, m *recordMemo) []byte {
	// The keys every record has are written with their separators as one
	// constant each (a record is rendered millions of times).
	first := false
	b = append(b, `{"frame":`...)
	b = appendInt(b, int64(d.Frame))
	b = append(b, `,"time":"`...)
	b = m.appendTime(b, d.Time)
	b = append(b, `","ts":`...)
	b = m.appendEpoch(b, d.Time)
	b = append(b, `,"src":"`...)
	b = m.appendAddr(b, d.Src)
	b = append(b, `","dst":"`...)
	b = m.appendAddr(b, d.Dst)
	b = append(b, `","dir":`...)
	b = appendName(b, d.Dir.String())
	b = append(b, `,"kind":`...)
	b = appendName(b, d.Kind.String())
	b = append(b, `,"len":`...)
	b = appendInt(b, int64(len(d.Raw)))
	if d.Truncated {
		b = appendKey(b, &first, "truncated")
		b = append(b, "true"...)
		if d.Missing > 0 {
			b = appendKey(b, &first, "truncated_bytes")
			b = appendInt(b, int64(d.Missing))
		}
	}
	if d.Kind == dissect.KindGameSpy {
		b = appendKey(b, &first, "text")
		b = appendString(b, d.Plain)
		b = appendKey(b, &first, "gamespy")
		b = append(b, '{')
		kf := true
		for _, kv := range d.GameSpy {
			if !kf {
				b = append(b, ',')
			}
			kf = false
			b = appendString(b, kv.Key)
			b = append(b, ':')
			b = appendString(b, kv.Value)
		}
		b = append(b, '}')
	} else {
		b = append(b, `,"peer_id":`...)
		b = appendInt(b, int64(d.Transport.PeerID))
		if len(d.Plain) > 1 { // a 1-byte datagram has no msg_count: the key is absent
			b = append(b, `,"msg_count":`...)
			b = appendInt(b, int64(d.Transport.MsgCount))
		}
		b = append(b, `,"messages":[`...)
		for i := range d.Transport.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMessageJSON(b, &d.Transport.Messages[i], &d.Msgs[i], m)
		}
		b = append(b, ']')
		if t := &d.Transport; t.HasCut {
			b = appendKey(b, &first, "cut")
			b = appendCutJSON(b, d, m)
		}
		if n := d.Transport.Uncaptured; n > 0 {
			b = appendKey(b, &first, "uncaptured_msgs")
			b = appendInt(b, int64(n))
		}
		if len(d.Transport.Messages) == 0 || len(d.Anomalies) > 0 {
			// Raw bytes stay visible where decoding could not explain them.
			b = appendKey(b, &first, "plain_hex")
			b = appendHexBytes(b, d.Plain)
		}
	}
	if len(d.Anomalies) > 0 {
		b = appendKey(b, &first, "anomalies")
		b = append(b, '[')
		for i := range d.Anomalies {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAnomalyJSON(b, &d.Anomalies[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendCutJSON describes the message the capture cut: its header fields
// as far as they were captured, "captured" (its bytes in the capture) and
// "len" (its declared length, absent when not captured).
func appendCutJSON(b []byte, d *dissect.Datagram, mm *recordMemo) []byte {
	t := &d.Transport
	m := &t.Cut
	first := true
	b = append(b, '{')
	if t.CutInHeader {
		first = false
		b = append(b, msgHeads[m.Type]...)
		b = appendInt(b, int64(m.Offset))
		if m.Len > 0 {
			b = appendKey(b, &first, "len")
			b = appendInt(b, int64(m.Len))
		}
	} else {
		b = appendMessageKeys(b, &first, m, &d.Cut, mm)
	}
	b = appendKey(b, &first, "captured")
	b = appendInt(b, int64(len(d.Plain)-m.Offset))
	return append(b, '}')
}

func appendMessageJSON(b []byte, m *transport.Message, dm *dissect.Message, mm *recordMemo) []byte {
	first := true
	b = append(b, '{')
	b = appendMessageKeys(b, &first, m, dm, mm)
	return append(b, '}')
}

// appendMessageKeys appends a message's keys inside an open object, as
// its first keys.
func appendMessageKeys(b []byte, first *bool, m *transport.Message, dm *dissect.Message, mm *recordMemo) []byte {
	*first = false
	b = append(b, msgHeads[m.Type]...)
	b = appendInt(b, int64(m.Offset))
	b = append(b, `,"len":`...)
	b = appendInt(b, int64(m.Len))
	if m.Type == transport.TypeACK {
		b = appendKey(b, first, "seq")
		b = appendUint(b, uint64(m.Seq))
		b = appendKey(b, first, "ack_frag")
		b = appendBool(b, m.AckFrag)
		b = appendKey(b, first, "ack_low")
		b = appendBool(b, m.AckLow)
		if m.AckFrag {
			b = appendKey(b, first, "frag_idx")
			b = appendUint(b, uint64(m.FragIdx))
		}
		return appendTrackJSON(b, first, dm)
	}
	b = append(b, `,"reliable":`...)
	b = appendBool(b, m.Reliable)
	b = append(b, `,"ordered":`...)
	b = appendBool(b, m.Ordered)
	if m.Reliable {
		b = append(b, `,"seq":`...)
		b = appendUint(b, uint64(m.Seq))
	}
	if m.Fragment {
		b = appendKey(b, first, "fragment")
		b = append(b, "true"...)
		b = appendKey(b, first, "frag_idx")
		b = appendUint(b, uint64(m.FragIdx))
		if m.HasFragTotal {
			b = appendKey(b, first, "frag_total")
			b = appendUint(b, uint64(m.FragTotal))
		}
	}
	b = append(b, `,"payload_len":`...)
	b = appendInt(b, int64(len(m.Payload)))
	b = appendPayloadKeys(b, first, &dm.Payload, mm)
	b = appendTrackJSON(b, first, dm)
	if r := dm.Reassembled; r != nil {
		b = appendKey(b, first, "reassembled")
		rf := true
		b = append(b, '{')
		b = appendKey(b, &rf, "len")
		b = appendInt(b, int64(len(r.Bytes)))
		b = appendKey(b, &rf, "frags")
		b = appendInt(b, int64(r.Frags))
		b = appendPayloadKeys(b, &rf, &r.Payload, mm)
		b = append(b, '}')
	}
	return b
}

// msgHeads[t] is how a message of type t starts, up to its offset, and
// opcodeKeys[c] the keys of opcode c after others: constant text, built
// once, that a record copies in one piece instead of five.
var msgHeads, opcodeKeys = func() (heads, ops [256]string) {
	var b []byte
	for i := range 256 {
		t := transport.Type(i)
		b = append(b[:0], `"type":`...)
		b = appendInt(b, int64(t))
		b = append(b, `,"type_name":`...)
		b = appendName(b, t.Name())
		heads[i] = string(append(b, `,"offset":`...))
		op := game.Lookup(uint8(i))
		b = append(b[:0], `,"opcode":`...)
		b = appendUint(b, uint64(op.Code))
		b = append(b, `,"opcode_name":`...)
		ops[i] = string(appendName(b, op.Name))
	}
	return heads, ops
}()

// appendPayloadKeys appends what was decoded of a payload (a message's own
// or a reassembled one) inside an open object: the opcode, the fields, and
// the raw bytes when they were not (fully) decoded.
func appendPayloadKeys(b []byte, first *bool, p *dissect.Payload, m *recordMemo) []byte {
	if op := p.Opcode; op != nil && !*first && op == game.Lookup(op.Code) {
		b = append(b, opcodeKeys[op.Code]...)
	} else if op != nil {
		b = appendKey(b, first, "opcode")
		b = appendUint(b, uint64(op.Code))
		b = append(b, `,"opcode_name":`...)
		b = appendName(b, op.Name)
	}
	if p.Decoded {
		b = appendKey(b, first, "fields")
		b = append(b, '{')
		b = appendFields(b, p.Fields.List, m)
		b = append(b, '}')
	}
	if !p.Decoded || p.Malformed != nil {
		b = appendKey(b, first, "payload_hex")
		b = appendHexBytes(b, p.Bytes)
	}
	return b
}

func appendAnomalyJSON(b []byte, a *anomaly.Anomaly) []byte {
	first := true
	b = append(b, '{')
	b = appendAnomalyKeys(b, &first, a)
	return append(b, '}')
}

// appendAnomalyKeys appends the keys of an anomaly inside an open object.
func appendAnomalyKeys(b []byte, first *bool, a *anomaly.Anomaly) []byte {
	b = appendKey(b, first, "code")
	b = appendName(b, a.Code.String())
	b = appendKey(b, first, "severity")
	b = appendName(b, a.Severity().String())
	b = appendKey(b, first, "message")
	b = appendAnomalyMessage(b, a)
	if a.Offset != anomaly.NoOffset {
		b = appendKey(b, first, "offset")
		b = appendInt(b, int64(a.Offset))
	}
	if a.Msg != anomaly.NoMsg {
		b = appendKey(b, first, "msg")
		b = appendInt(b, int64(a.Msg))
	}
	return b
}

func appendEventJSON(b []byte, e *dissect.Event) []byte {
	first := true
	b = append(b, '{')
	b = appendEventKeys(b, &first, e)
	return append(b, '}')
}

// appendEventKeys appends the keys of an event (an anomaly plus where it
// points) inside an open object.
func appendEventKeys(b []byte, first *bool, e *dissect.Event) []byte {
	b = appendAnomalyKeys(b, first, &e.Anomaly)
	if e.Frame > 0 {
		b = appendKey(b, first, "frame")
		b = appendInt(b, int64(e.Frame))
	}
	if e.Client.IsValid() {
		b = appendKey(b, first, "client")
		b = append(b, '"')
		b = e.Client.AppendTo(b)
		b = append(b, '"')
	}
	if e.Server.IsValid() {
		b = appendKey(b, first, "server")
		b = append(b, '"')
		b = e.Server.AppendTo(b)
		b = append(b, '"')
	}
	return b
}
