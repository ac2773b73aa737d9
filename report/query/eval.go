package query

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Eval tests a display filter on decoded records: it feeds the filter
// (filter.Filter's feeding API) the values the JSON writer would print
// at the paths the expression names, read from the *dissect.Datagram (or
// event) itself, so a record is never rendered to be tested. Its answer
// is Match's on the record's JSON: the accessors below follow the JSON
// writer (report/render's json.go and track.go) key by key, resolving the
// paths of the key table (report/jsonkeys); values are fed as their JSON
// text reads (strings as the writer escapes them, floats as their
// shortest float32 text parses, hashes as their "0x..." text), and
// TestEvalMatchesJSON checks the two on every record of the test captures
// for every schema path.
//
// A path that has no accessor here (a key added to the writer and the
// table but not yet to Eval) makes the Eval render each record and use
// Match: slow but right; TestEvalReadsEveryKey and the equivalence test
// fail on it.
//
// An Eval is not safe for concurrent use; it does not allocate per record
// once its scratch space is warm.
type Eval struct {
	f    *filter.Filter
	file string // the capture the records come from when a run reads several (SetFile)
	// slow: some path has no accessor; render the JSON and Match.
	slow bool
	buf  []byte

	top     topIDs
	msg     msgIDs // messages.*
	cut     msgIDs // cut.*
	anom    anomIDs
	ev      anomIDs // event records' top-level keys
	sum     anomIDs // summary records' anomalies.*
	msgs    bool    // some path is under messages
	cuts    bool    // ... under cut
	spyKeys bool    // ... under gamespy.

	scratch, path, alias []byte
	lens                 []int
	arr                  []bool
	handled              map[string]bool
}

type topIDs struct {
	kind, frame, time, src, dst, dir, len, truncated, truncatedBytes,
	text, gamespy, peerID, msgCount, messages, cut, uncaptured, plainHex,
	anomalies, file, ts int
}

// payIDs are a payload's keys (appendPayloadKeys) and its fields root.
type payIDs struct {
	opcode, opcodeName, fields, payloadHex int
	root                                   string
	flat                                   bool // some path is below root
}

// msgIDs are a transport message's keys (appendMessageKeys, appendCutJSON).
type msgIDs struct {
	typ, typeName, offset, len, seq, ackFrag, ackLow, fragIdx, reliable,
	ordered, fragment, fragTotal, payloadLen int
	pay payIDs
	retransmit, retransmitCount, firstFrame, keepalive, duplicate, ack,
	ackedFrame, rttMs int
	reasm, reasmLen, reasmFrags int
	reasmPay                    payIDs
	captured                    int
}

// anomIDs are an anomaly's keys (appendAnomalyKeys) and an event's
// (appendEventKeys).
type anomIDs struct {
	code, severity, message, offset, msg, frame, client, server int
}

// NewEval returns an evaluator of f (not nil). f's scratch space is
// shared: use f through one Eval or Match at a time.
func NewEval(f *filter.Filter) *Eval {
	e := &Eval{f: f, handled: map[string]bool{}}
	e.top = topIDs{
		kind: e.id(jsonkeys.Kind), frame: e.id(jsonkeys.Frame), time: e.id(jsonkeys.Time),
		src: e.id(jsonkeys.Src), dst: e.id(jsonkeys.Dst), dir: e.id(jsonkeys.Dir), len: e.id(jsonkeys.Len),
		truncated: e.id(jsonkeys.Truncated), truncatedBytes: e.id(jsonkeys.TruncatedBytes),
		text: e.id(jsonkeys.Text), gamespy: e.id(jsonkeys.GameSpy), peerID: e.id(jsonkeys.PeerID),
		msgCount: e.id(jsonkeys.MsgCount), messages: e.id(jsonkeys.Messages), cut: e.id(jsonkeys.Cut),
		uncaptured: e.id(jsonkeys.UncapturedMsgs), plainHex: e.id(jsonkeys.PlainHex),
		anomalies: e.id(jsonkeys.Anomalies), file: e.id(jsonkeys.File), ts: e.id(jsonkeys.TS),
	}
	e.id(jsonkeys.Context) // only on context records, which are never tested
	e.msg = e.msgIDs(jsonkeys.Messages)
	e.cut = e.msgIDs(jsonkeys.Cut)
	e.anom = e.anomIDs(jsonkeys.Anomalies + ".")
	e.sum = e.anom
	e.ev = e.anomIDs("")
	for _, p := range f.Paths() {
		switch {
		case p == jsonkeys.Messages || strings.HasPrefix(p, jsonkeys.Messages+"."):
			e.msgs = true
		case strings.HasPrefix(p, jsonkeys.Cut+"."):
			e.cuts = true
		case strings.HasPrefix(p, jsonkeys.GameSpy+"."):
			e.spyKeys = true
			e.handled[p] = true
		}
		for _, root := range fieldRoots {
			if strings.HasPrefix(p, root+".") {
				e.handled[p] = true
			}
		}
		if !e.handled[p] {
			e.slow = true
		}
	}
	e.handled = nil
	return e
}

// SetFile makes the records tested from now on carry "file": name, as
// JSON.StartFile makes the records written carry it ("" for none).
func (e *Eval) SetFile(name string) { e.file = name }

// withFile adds the file key to a record rendered for Match, as the
// JSON writer does.
func (e *Eval) withFile(rec []byte) []byte { return render.AppendFileKey(rec, e.file) }

// id resolves a path the accessors know.
func (e *Eval) id(path string) int {
	e.handled[path] = true
	return e.f.PathID(path)
}

func (e *Eval) payIDs(prefix string) payIDs {
	p := prefix + "."
	root := p + jsonkeys.Fields
	flat := false
	for _, q := range e.f.Paths() {
		flat = flat || strings.HasPrefix(q, root+".")
	}
	return payIDs{
		opcode: e.id(p + jsonkeys.Opcode), opcodeName: e.id(p + jsonkeys.OpcodeName),
		fields: e.id(root), payloadHex: e.id(p + jsonkeys.PayloadHex),
		root: root, flat: flat,
	}
}

func (e *Eval) msgIDs(prefix string) msgIDs {
	p := prefix + "."
	m := msgIDs{
		typ: e.id(p + jsonkeys.Type), typeName: e.id(p + jsonkeys.TypeName), offset: e.id(p + jsonkeys.Offset),
		len: e.id(p + jsonkeys.Len), seq: e.id(p + jsonkeys.Seq), ackFrag: e.id(p + jsonkeys.AckFrag),
		ackLow: e.id(p + jsonkeys.AckLow), fragIdx: e.id(p + jsonkeys.FragIdx), reliable: e.id(p + jsonkeys.Reliable),
		ordered: e.id(p + jsonkeys.Ordered), fragment: e.id(p + jsonkeys.Fragment), fragTotal: e.id(p + jsonkeys.FragTotal),
		payloadLen: e.id(p + jsonkeys.PayloadLen), pay: e.payIDs(prefix),
		retransmit: -1, retransmitCount: -1, firstFrame: -1, keepalive: -1, duplicate: -1,
		ack: -1, ackedFrame: -1, rttMs: -1, reasm: -1, reasmLen: -1, reasmFrags: -1, captured: -1,
	}
	if prefix == jsonkeys.Cut {
		m.captured = e.id(p + jsonkeys.Captured)
		return m
	}
	m.retransmit, m.retransmitCount = e.id(p+jsonkeys.Retransmit), e.id(p+jsonkeys.RetransmitCount)
	m.firstFrame, m.keepalive, m.duplicate = e.id(p+jsonkeys.FirstFrame), e.id(p+jsonkeys.Keepalive), e.id(p+jsonkeys.Duplicate)
	m.ack, m.ackedFrame, m.rttMs = e.id(p+jsonkeys.Ack), e.id(p+jsonkeys.AckedFrame), e.id(p+jsonkeys.RTTMs)
	m.reasm, m.reasmLen, m.reasmFrags = e.id(p+jsonkeys.Reassembled), e.id(p+jsonkeys.Reassembled+"."+jsonkeys.Len), e.id(p+jsonkeys.Reassembled+"."+jsonkeys.Frags)
	m.reasmPay = e.payIDs(p + jsonkeys.Reassembled)
	return m
}

func (e *Eval) anomIDs(p string) anomIDs {
	return anomIDs{
		code: e.id(p + jsonkeys.Code), severity: e.id(p + jsonkeys.Severity), message: e.id(p + jsonkeys.Message),
		offset: e.id(p + jsonkeys.Offset), msg: e.id(p + jsonkeys.Msg), frame: e.id(p + jsonkeys.Frame),
		client: e.id(p + jsonkeys.Client), server: e.id(p + jsonkeys.Server),
	}
}

// Filter is the filter evaluated.
func (e *Eval) Filter() *filter.Filter { return e.f }

// Datagram reports whether d's record matches (appendDatagramJSON).
func (e *Eval) Datagram(d *dissect.Datagram) bool { return e.datagram(d, -1) }

// Messages says which of a matching datagram's messages match on their
// own: dst[i] is whether d's record with message i as its only message
// matches. It returns nil when that tells nothing apart (the filter reads
// no message field, every message or none matches alone) or the filter
// is evaluated on rendered JSON (slow).
func (e *Eval) Messages(d *dissect.Datagram, dst []bool) []bool {
	n := len(d.Transport.Messages)
	if !e.msgs || e.slow || n < 2 || d.Kind == dissect.KindGameSpy {
		return nil
	}
	dst = dst[:0]
	some, all := false, true
	for i := range n {
		m := e.datagram(d, i)
		dst = append(dst, m)
		some, all = some || m, all && m
	}
	if !some || all {
		return nil
	}
	return dst
}

// datagram is Datagram with only message only of d fed (-1: all).
func (e *Eval) datagram(d *dissect.Datagram, only int) bool {
	if e.slow {
		e.buf = e.withFile(render.AppendDatagramJSON(e.buf[:0], d))
		return e.f.Match(e.buf)
	}
	f, t := e.f, &e.top
	f.Reset()
	if e.file != "" {
		e.str(t.file, e.file)
	}
	f.Int(t.frame, int64(d.Frame))
	if t.time >= 0 {
		e.scratch = render.AppendTimeJSON(e.scratch[:0], d.Time)
		f.Text(t.time, e.scratch)
	}
	if t.ts >= 0 {
		e.scratch = render.AppendEpochJSON(e.scratch[:0], d.Time)
		e.number(t.ts, e.scratch)
	}
	e.addr(t.src, d.Src)
	e.addr(t.dst, d.Dst)
	e.str(t.dir, d.Dir.String())
	e.str(t.kind, d.Kind.String())
	f.Int(t.len, int64(len(d.Raw)))
	if d.Truncated {
		f.Bool(t.truncated, true)
		if d.Missing > 0 {
			f.Int(t.truncatedBytes, int64(d.Missing))
		}
	}
	if d.Kind == dissect.KindGameSpy {
		e.text(t.text, d.Plain)
		f.Present(t.gamespy)
		if e.spyKeys {
			for _, kv := range d.GameSpy {
				e.path = render.AppendJSONBytes(append(e.path[:0], "gamespy."...), kv.Key)
				// the key as the JSON writes it, without its quotes
				e.path = append(e.path[:8], e.path[9:len(e.path)-1]...)
				e.text(f.PathIDBytes(e.path), kv.Value)
			}
		}
	} else {
		f.Int(t.peerID, int64(d.Transport.PeerID))
		if len(d.Plain) > 1 { // no msg_count in a 1-byte datagram, as in the JSON
			f.Int(t.msgCount, int64(d.Transport.MsgCount))
		}
		if e.msgs {
			for i := range d.Transport.Messages {
				if only >= 0 && i != only {
					continue
				}
				f.Present(t.messages)
				e.message(&e.msg, &d.Transport.Messages[i], &d.Msgs[i], 3)
			}
		}
		if tr := &d.Transport; tr.HasCut {
			f.Present(t.cut)
			if e.cuts {
				e.cutMessage(d)
			}
		}
		if n := d.Transport.Uncaptured; n > 0 {
			f.Int(t.uncaptured, int64(n))
		}
		if (len(d.Transport.Messages) == 0 || len(d.Anomalies) > 0) && t.plainHex >= 0 {
			e.scratch = render.AppendHexJSON(e.scratch[:0], d.Plain)
			f.Text(t.plainHex, unquote(e.scratch))
		}
	}
	for i := range d.Anomalies {
		f.Present(t.anomalies)
		e.anomaly(&e.anom, &d.Anomalies[i])
	}
	return f.Result()
}

// Event reports whether an event's own record matches (JSON.Events).
func (e *Eval) Event(ev *dissect.Event) bool {
	if e.slow {
		e.buf = e.withFile(render.AppendEventRecord(e.buf[:0], ev))
		return e.f.Match(e.buf)
	}
	e.f.Reset()
	if e.file != "" {
		e.str(e.top.file, e.file)
	}
	e.str(e.top.kind, jsonkeys.KindEvent)
	e.event(&e.ev, ev)
	return e.f.Result()
}

// Summary reports whether the summary record of the one end-of-capture
// event ev matches (JSON.Finish).
func (e *Eval) Summary(ev *dissect.Event) bool {
	if e.slow {
		b := append(e.buf[:0], `{"kind":"summary","anomalies":[`...)
		b = render.AppendEventJSON(b, ev)
		e.buf = e.withFile(append(b, "]}"...))
		return e.f.Match(e.buf)
	}
	e.f.Reset()
	if e.file != "" {
		e.str(e.top.file, e.file)
	}
	e.str(e.top.kind, jsonkeys.KindSummary)
	e.f.Present(e.top.anomalies)
	e.event(&e.sum, ev)
	return e.f.Result()
}

// message feeds a transport message (appendMessageKeys) whose fields
// object is at JSON depth depth.
func (e *Eval) message(p *msgIDs, m *transport.Message, dm *dissect.Message, depth int) {
	f := e.f
	e.header(p, m)
	f.Int(p.len, int64(m.Len))
	if m.Type == transport.TypeACK {
		f.Uint(p.seq, uint64(m.Seq))
		f.Bool(p.ackFrag, m.AckFrag)
		f.Bool(p.ackLow, m.AckLow)
		if m.AckFrag {
			f.Uint(p.fragIdx, uint64(m.FragIdx))
		}
		e.track(p, dm)
		return
	}
	f.Bool(p.reliable, m.Reliable)
	f.Bool(p.ordered, m.Ordered)
	if m.Reliable {
		f.Uint(p.seq, uint64(m.Seq))
	}
	if m.Fragment {
		f.Bool(p.fragment, true)
		f.Uint(p.fragIdx, uint64(m.FragIdx))
		if m.HasFragTotal {
			f.Uint(p.fragTotal, uint64(m.FragTotal))
		}
	}
	f.Int(p.payloadLen, int64(len(m.Payload)))
	e.payload(&p.pay, &dm.Payload, depth)
	e.track(p, dm)
	if r := dm.Reassembled; r != nil {
		f.Present(p.reasm)
		f.Int(p.reasmLen, int64(len(r.Bytes)))
		f.Int(p.reasmFrags, int64(r.Frags))
		e.payload(&p.reasmPay, &r.Payload, depth+1)
	}
}

// header feeds the keys every message starts with.
func (e *Eval) header(p *msgIDs, m *transport.Message) {
	e.f.Int(p.typ, int64(m.Type))
	e.str(p.typeName, m.Type.Name())
	e.f.Int(p.offset, int64(m.Offset))
}

// cutMessage feeds the cut message (appendCutJSON).
func (e *Eval) cutMessage(d *dissect.Datagram) {
	t := &d.Transport
	m := &t.Cut
	p := &e.cut
	if t.CutInHeader {
		e.header(p, m)
		if m.Len > 0 {
			e.f.Int(p.len, int64(m.Len))
		}
	} else {
		e.message(p, m, &d.Cut, 2)
	}
	e.f.Int(p.captured, int64(len(d.Plain)-m.Offset))
}

// track feeds the delivery marks (appendTrackJSON).
func (e *Eval) track(p *msgIDs, dm *dissect.Message) {
	f, t := e.f, &dm.Track
	if t.Retransmit {
		f.Bool(p.retransmit, true)
		f.Int(p.retransmitCount, int64(t.RetransmitCount))
		f.Int(p.firstFrame, int64(t.FirstFrame))
	}
	if t.Keepalive {
		f.Bool(p.keepalive, true)
	}
	if t.Dup {
		f.Bool(p.duplicate, true)
	}
	if t.Ack != transport.AckNone {
		e.str(p.ack, t.Ack.String())
		if t.AckedFrame > 0 {
			f.Int(p.ackedFrame, int64(t.AckedFrame))
		}
		if t.HasRTT && p.rttMs >= 0 {
			e.scratch = strconv.AppendFloat(e.scratch[:0], float64(t.RTT.Microseconds())/1000, 'f', 3, 64)
			e.number(p.rttMs, e.scratch)
		}
	}
}

// payload feeds a payload's keys (appendPayloadKeys); depth is the JSON
// depth of its fields object (messages.fields: 3).
func (e *Eval) payload(p *payIDs, pl *dissect.Payload, depth int) {
	f := e.f
	if pl.Opcode != nil {
		f.Uint(p.opcode, uint64(pl.Opcode.Code))
		e.str(p.opcodeName, pl.Opcode.Name)
	}
	if pl.Decoded {
		f.Present(p.fields)
		if p.flat {
			e.fields(p.root, depth+1, pl.Fields.List)
		}
	}
	if (!pl.Decoded || pl.Malformed != nil) && p.payloadHex >= 0 {
		e.scratch = render.AppendHexJSON(e.scratch[:0], pl.Bytes)
		f.Text(p.payloadHex, unquote(e.scratch))
	}
}

// fields feeds a field token stream under root (appendFields), as Match
// reads it below a Flattener root: each value at its exact path and at
// root.<its key>. depth is the JSON depth of the stream's top members.
func (e *Eval) fields(root string, depth int, fs []game.Field) {
	e.path = append(e.path[:0], root...)
	e.lens = append(e.lens[:0], len(root))
	e.arr = append(e.arr[:0], false)
	for i := range fs {
		fl := &fs[i]
		lvl := len(e.lens) - 1
		if fl.Kind == game.KindEnd {
			if lvl > 0 {
				e.lens, e.arr = e.lens[:lvl], e.arr[:lvl]
			}
			continue
		}
		e.path = e.path[:e.lens[lvl]]
		if !e.arr[lvl] {
			e.path = append(append(e.path, '.'), fl.Name...)
		}
		deep := depth+lvl > filter.MaxDepth
		switch fl.Kind {
		case game.KindObject, game.KindArray:
			if fl.Kind == game.KindObject && !deep {
				exact, alias := e.fieldIDs(len(root))
				e.f.Present(exact)
				e.f.Present(alias)
			}
			e.lens = append(e.lens, len(e.path))
			e.arr = append(e.arr, fl.Kind == game.KindArray)
			continue
		}
		if deep {
			continue
		}
		exact, alias := e.fieldIDs(len(root))
		e.value(exact, fl)
		e.value(alias, fl)
		if fl.Note != "" && !e.arr[lvl] {
			e.path = append(e.path, "_name"...)
			exact, alias := e.fieldIDs(len(root))
			e.str(exact, fl.Note)
			e.str(alias, fl.Note)
		}
	}
}

// fieldIDs are the ids of e.path below a flat root of length n: its
// own, and root.leaf's when it is deeper than one level (-1 otherwise).
func (e *Eval) fieldIDs(n int) (exact, alias int) {
	exact, alias = e.f.PathIDBytes(e.path), -1
	if rest := e.path[n+1:]; bytes.IndexByte(rest, '.') >= 0 {
		leaf := rest[bytes.LastIndexByte(rest, '.')+1:]
		e.alias = append(append(append(e.alias[:0], e.path[:n]...), '.'), leaf...)
		alias = e.f.PathIDBytes(e.alias)
	}
	return exact, alias
}

// value feeds one field value as appendValue writes it.
func (e *Eval) value(id int, fl *game.Field) {
	if id < 0 {
		return
	}
	f := e.f
	switch fl.Kind {
	case game.KindUint:
		f.Uint(id, fl.U)
	case game.KindInt:
		f.Int(id, fl.I)
	case game.KindBool:
		f.Bool(id, fl.U != 0)
	case game.KindString:
		e.text(id, fl.B)
	case game.KindHash, game.KindHex, game.KindBytes:
		e.scratch = render.AppendValueJSON(e.scratch[:0], fl)
		f.Text(id, unquote(e.scratch))
	case game.KindFloat:
		e.float(id, fl.F)
	case game.KindVec:
		for _, v := range fl.V {
			e.float(id, v)
		}
	}
}

// float feeds a float the JSON writes as its shortest float32 text.
func (e *Eval) float(id int, v float64) {
	e.scratch = render.AppendFloatJSON(e.scratch[:0], v)
	e.number(id, e.scratch)
}

// number feeds a JSON number's text (null feeds nothing).
func (e *Eval) number(id int, text []byte) {
	if string(text) == "null" {
		return
	}
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(text), len(text)), 64)
	if err == nil {
		e.f.Float(id, v)
	}
}

// anomaly feeds an anomaly's keys (appendAnomalyKeys).
func (e *Eval) anomaly(p *anomIDs, a *anomaly.Anomaly) {
	e.str(p.code, a.Code.String())
	e.str(p.severity, a.Severity().String())
	if p.message >= 0 { // built only for a filter that reads it
		e.str(p.message, a.Message())
	}
	if a.Offset != anomaly.NoOffset {
		e.f.Int(p.offset, int64(a.Offset))
	}
	if a.Msg != anomaly.NoMsg {
		e.f.Int(p.msg, int64(a.Msg))
	}
}

// event feeds an event's keys (appendEventKeys).
func (e *Eval) event(p *anomIDs, ev *dissect.Event) {
	e.anomaly(p, &ev.Anomaly)
	if ev.Frame > 0 {
		e.f.Int(p.frame, int64(ev.Frame))
	}
	if ev.Client.IsValid() {
		e.addr(p.client, ev.Client)
	}
	if ev.Server.IsValid() {
		e.addr(p.server, ev.Server)
	}
}

// addr feeds an address:port's text.
func (e *Eval) addr(id int, a netip.AddrPort) {
	if id >= 0 {
		e.scratch = a.AppendTo(e.scratch[:0])
		e.f.Text(id, e.scratch)
	}
}

func (e *Eval) str(id int, s string) {
	if id >= 0 {
		e.text(id, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
}

// text feeds bytes the JSON writes with appendString: as they are when
// valid UTF-8, else with each stray byte taken as Latin-1.
func (e *Eval) text(id int, b []byte) {
	if id < 0 {
		return
	}
	if utf8.Valid(b) {
		e.f.Text(id, b)
		return
	}
	s := e.scratch[:0]
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			s = utf8.AppendRune(s, rune(b[0]))
		} else {
			s = append(s, b[:size]...)
		}
		b = b[size:]
	}
	e.scratch = s
	e.f.Text(id, s)
}

// unquote strips a rendered JSON string's quotes (its text has no
// escapes: hex digits).
func unquote(b []byte) []byte { return b[1 : len(b)-1] }
