package record

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/jsonkeys"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Decoder reads the lines of a JSON trace (`bcdump read -F json` output)
// into records. Unknown keys are skipped, so traces of a newer bcdump
// (keys are only ever added) still read; a key of the wrong type is an
// error. It is a small hand-written reader: after the first lines it
// allocates nothing per line (names and codes are interned, bytes go to
// the record's arena). Its zero value is ready; one Decoder is for one
// goroutine.
type Decoder struct {
	names interner
	addrs [4]addrMemo
	next  int
}

type addrMemo struct {
	text [48]byte
	n    int
	ap   netip.AddrPort
}

// MaxDepth bounds the nesting of a record's fields the decoder follows:
// checksum trees take two levels per directory level bcdump accepts.
const MaxDepth = 2*checksum.MaxDepth + 16

// Decode reads one JSON object (one line of a trace, without its newline)
// into r.
func (dec *Decoder) Decode(line []byte, r *Datagram) error {
	r.Reset()
	s := scanner{b: line, d: dec, r: r}
	sawTime := false
	err := s.object(func(key []byte) error {
		switch string(key) {
		case jsonkeys.Kind:
			v, err := s.rawString()
			if err != nil {
				return err
			}
			switch string(v) {
			case jsonkeys.KindGame:
				r.Kind = KindGame
			case jsonkeys.KindGameSpy:
				r.Kind = KindGameSpy
			case jsonkeys.KindEvent:
				r.Kind = KindEvent
			case jsonkeys.KindSummary:
				r.Kind = KindSummary
			default:
				return fmt.Errorf("unknown kind %q", v)
			}
		case jsonkeys.Frame:
			return s.intTo(&r.Frame)
		case jsonkeys.Time:
			v, err := s.rawString()
			if err != nil {
				return err
			}
			if r.Time, err = parseTime(v); err != nil {
				return err
			}
			sawTime = true
		case jsonkeys.Src:
			return s.addrTo(&r.Src)
		case jsonkeys.Dst:
			return s.addrTo(&r.Dst)
		case jsonkeys.Dir:
			v, err := s.rawString()
			if err != nil {
				return err
			}
			switch string(v) {
			case "c2s":
				r.Dir = C2S
			case "s2c":
				r.Dir = S2C
			default:
				return fmt.Errorf("bad dir %q", v)
			}
		case jsonkeys.Len:
			return s.intTo(&r.Len)
		case jsonkeys.Context:
			return s.boolTo(&r.Context)
		case jsonkeys.File:
			v, err := s.str()
			if err != nil {
				return err
			}
			r.File = dec.names.get(v)
		case jsonkeys.Truncated:
			return s.boolTo(&r.Truncated)
		case jsonkeys.TruncatedBytes:
			return s.intTo(&r.TruncatedBytes)
		case jsonkeys.Text:
			v, err := s.str()
			r.Text = v
			return err
		case jsonkeys.GameSpy:
			return s.object(func(k []byte) error {
				kv := KV{Key: k}
				v, err := s.str()
				kv.Value = v
				r.GameSpy = append(r.GameSpy, kv)
				return err
			})
		case jsonkeys.PeerID:
			return s.intTo(&r.PeerID)
		case jsonkeys.MsgCount:
			r.HasMsgCount = true
			return s.intTo(&r.MsgCount)
		case jsonkeys.Messages:
			return s.array(func() error {
				i := len(r.Messages)
				m := r.newMessage()
				return s.message(m, i, false)
			})
		case jsonkeys.Cut:
			r.HasCut = true
			fs := r.Cut.Fields[:0]
			r.Cut = Cut{}
			r.Cut.Fields = fs
			return s.message(&r.Cut.Message, -1, true)
		case jsonkeys.UncapturedMsgs:
			return s.intTo(&r.UncapturedMsgs)
		case jsonkeys.PlainHex:
			r.HasPlain = true
			return s.hexTo(&r.Plain)
		case jsonkeys.Anomalies:
			return s.array(func() error {
				r.Anomalies = append(r.Anomalies, Anomaly{Offset: anomaly.NoOffset, Msg: anomaly.NoMsg})
				return s.anomaly(&r.Anomalies[len(r.Anomalies)-1])
			})
		default:
			if r.Kind == KindEvent && isEventKey(key) {
				// An event record's anomaly keys are on top.
				if len(r.Anomalies) == 0 {
					r.Anomalies = append(r.Anomalies, Anomaly{Offset: anomaly.NoOffset, Msg: anomaly.NoMsg})
				}
				if ok, err := s.anomalyKey(key, &r.Anomalies[0]); ok || err != nil {
					return err
				}
			}
			return s.skip(0)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.Kind == KindNone:
		return errors.New("record without kind")
	case r.Kind.IsDatagram() && (!sawTime || r.Dir == DirNone || !r.Src.IsValid() || !r.Dst.IsValid()):
		return errors.New("datagram record without time, src, dst or dir")
	case r.Kind == KindEvent:
		// The event's frame is the anomaly's (the table lists it on top).
		if len(r.Anomalies) > 0 {
			r.Anomalies[0].Frame = r.Frame
		}
	}
	return nil
}

func isEventKey(k []byte) bool {
	switch string(k) {
	case jsonkeys.Code, jsonkeys.Severity, jsonkeys.Message, jsonkeys.Offset, jsonkeys.Msg, jsonkeys.Client, jsonkeys.Server:
		return true
	}
	return false
}

// scanner reads one line.
type scanner struct {
	b []byte
	i int
	d *Decoder
	r *Datagram
}

var errSyntax = errors.New("malformed JSON")

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// object reads an object, calling fn with each key (valid until the next
// call) to read its value.
func (s *scanner) object(fn func(key []byte) error) error {
	if s.peek() != '{' {
		return errSyntax
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		if s.peek() != '"' {
			return errSyntax
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return errSyntax
		}
		s.i++
		if err := fn(key); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

func (s *scanner) array(fn func() error) error {
	if s.peek() != '[' {
		return errSyntax
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return errSyntax
		}
	}
}

// rawString returns a string's bytes as written, for names that need no
// unescaping (escapes are refused).
func (s *scanner) rawString() ([]byte, error) {
	if s.peek() != '"' {
		return nil, errors.New("not a string")
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '"':
			s.i = j + 1
			return s.b[start:j], nil
		case '\\':
			return s.str()
		}
	}
	return nil, errSyntax
}

// str reads a string into the record's arena, unescaped.
func (s *scanner) str() ([]byte, error) {
	if s.peek() != '"' {
		return nil, errors.New("not a string")
	}
	s.i++
	r := s.r
	n := len(r.arena)
	for {
		start := s.i
		for s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != '\\' && s.b[s.i] >= 0x20 {
			s.i++
		}
		r.arena = append(r.arena, s.b[start:s.i]...)
		if s.i >= len(s.b) || s.b[s.i] < 0x20 {
			return nil, errSyntax
		}
		if s.b[s.i] == '"' {
			s.i++
			v := r.arena[n:len(r.arena):len(r.arena)]
			if !utf8.Valid(v) {
				// Stray bytes as the writer would have shown them.
				m := len(r.arena)
				r.arena = appendLatin1(r.arena, v)
				v = r.arena[m:len(r.arena):len(r.arena)]
			}
			return v, nil
		}
		// An escape.
		s.i++
		if s.i >= len(s.b) {
			return nil, errSyntax
		}
		c := s.b[s.i]
		s.i++
		switch c {
		case '"', '\\', '/':
			r.arena = append(r.arena, c)
		case 'b':
			r.arena = append(r.arena, '\b')
		case 'f':
			r.arena = append(r.arena, '\f')
		case 'n':
			r.arena = append(r.arena, '\n')
		case 'r':
			r.arena = append(r.arena, '\r')
		case 't':
			r.arena = append(r.arena, '\t')
		case 'u':
			c1, ok := s.hex4()
			if !ok {
				return nil, errSyntax
			}
			rn := rune(c1)
			if utf16.IsSurrogate(rn) {
				rn = utf8.RuneError
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if c2, ok := s.hex4(); ok {
						if d := utf16.DecodeRune(rune(c1), rune(c2)); d != utf8.RuneError {
							rn = d
						} else {
							s.i = save
						}
					} else {
						s.i = save
					}
				}
			}
			r.arena = utf8.AppendRune(r.arena, rn)
		default:
			return nil, errSyntax
		}
	}
}

func (s *scanner) hex4() (uint16, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	var v uint16
	for _, c := range s.b[s.i : s.i+4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint16(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			v |= uint16(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	s.i += 4
	return v, true
}

// number returns a number's text.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return nil, errors.New("not a number")
	}
	return s.b[start:s.i], nil
}

func (s *scanner) intTo(v *int) error {
	t, err := s.number()
	if err != nil {
		return err
	}
	neg := t[0] == '-'
	if neg {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 18 {
		return errors.New("not an integer in range")
	}
	n := 0
	for _, c := range t {
		if c < '0' || c > '9' {
			return errors.New("not an integer")
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*v = n
	return nil
}

func (s *scanner) uintTo(v any, max int) error {
	var n int
	if err := s.intTo(&n); err != nil {
		return err
	}
	if n < 0 || n > max {
		return fmt.Errorf("%d out of range", n)
	}
	switch p := v.(type) {
	case *uint8:
		*p = uint8(n)
	case *uint16:
		*p = uint16(n)
	}
	return nil
}

func (s *scanner) boolTo(v *bool) error {
	s.ws()
	switch {
	case hasPrefix(s.b[s.i:], "true"):
		*v, s.i = true, s.i+4
	case hasPrefix(s.b[s.i:], "false"):
		*v, s.i = false, s.i+5
	default:
		return errors.New("not a boolean")
	}
	return nil
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

func (s *scanner) hexTo(v *[]byte) error {
	t, err := s.rawString()
	if err != nil {
		return err
	}
	if len(t)%2 != 0 {
		return errors.New("odd hex length")
	}
	r := s.r
	n := len(r.arena)
	r.arena = append(r.arena, make([]byte, len(t)/2)...)
	if _, err := hex.Decode(r.arena[n:], t); err != nil {
		return errors.New("bad hex")
	}
	*v = r.arena[n:len(r.arena):len(r.arena)]
	return nil
}

func (s *scanner) addrTo(v *netip.AddrPort) error {
	t, err := s.rawString()
	if err != nil {
		return err
	}
	d := s.d
	for i := range d.addrs {
		if a := &d.addrs[i]; a.n == len(t) && a.n > 0 && string(a.text[:a.n]) == string(t) {
			*v = a.ap
			return nil
		}
	}
	ap, err := netip.ParseAddrPort(string(t))
	if err != nil {
		return fmt.Errorf("bad address %q", t)
	}
	*v = ap
	if len(t) <= len(d.addrs[0].text) {
		a := &d.addrs[d.next]
		a.n, a.ap = copy(a.text[:], t), ap
		d.next = (d.next + 1) % len(d.addrs)
	}
	return nil
}

// skip skips one value.
func (s *scanner) skip(depth int) error {
	if depth > MaxDepth {
		return errors.New("nested too deep")
	}
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(func() error { return s.skip(depth + 1) })
	case c == '"':
		_, err := s.rawSkipString()
		return err
	case c == 't' || c == 'f':
		var b bool
		return s.boolTo(&b)
	case c == 'n':
		if !hasPrefix(s.b[s.i:], "null") {
			return errSyntax
		}
		s.i += 4
		return nil
	}
	_, err := s.number()
	return err
}

func (s *scanner) rawSkipString() (int, error) {
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			s.i++
			return s.i, nil
		}
		s.i++
	}
	return 0, errSyntax
}

// message reads one message object (cut: the "cut" object, with
// "captured").
func (s *scanner) message(m *Message, idx int, cut bool) error {
	sawBody := false
	err := s.object(func(key []byte) error {
		switch string(key) {
		case jsonkeys.Type:
			return s.uintTo(&m.Type, 255)
		case jsonkeys.TypeName:
			v, err := s.str()
			if err != nil {
				return err
			}
			m.TypeName = s.d.names.get(v)
			if n := transport.Type(m.Type).Name(); n == string(v) {
				m.TypeName = n
			}
		case jsonkeys.Offset:
			return s.intTo(&m.Offset)
		case jsonkeys.Len:
			return s.intTo(&m.Len)
		case jsonkeys.Seq:
			m.HasSeq = true
			return s.uintTo(&m.Seq, 65535)
		case jsonkeys.AckFrag:
			sawBody = true
			return s.boolTo(&m.AckFrag)
		case jsonkeys.AckLow:
			return s.boolTo(&m.AckLow)
		case jsonkeys.FragIdx:
			m.HasFragIdx = true
			return s.uintTo(&m.FragIdx, 255)
		case jsonkeys.Reliable:
			sawBody = true
			return s.boolTo(&m.Reliable)
		case jsonkeys.Ordered:
			return s.boolTo(&m.Ordered)
		case jsonkeys.Fragment:
			return s.boolTo(&m.Fragment)
		case jsonkeys.FragTotal:
			m.HasFragTotal = true
			return s.uintTo(&m.FragTotal, 255)
		case jsonkeys.PayloadLen:
			return s.intTo(&m.PayloadLen)
		case jsonkeys.Retransmit:
			return s.boolTo(&m.Retransmit)
		case jsonkeys.RetransmitCount:
			return s.intTo(&m.RetransmitCount)
		case jsonkeys.FirstFrame:
			return s.intTo(&m.FirstFrame)
		case jsonkeys.Keepalive:
			return s.boolTo(&m.Keepalive)
		case jsonkeys.Duplicate:
			return s.boolTo(&m.Duplicate)
		case jsonkeys.Ack:
			v, err := s.str()
			if err != nil {
				return err
			}
			m.Ack = s.d.names.get(v)
		case jsonkeys.AckedFrame:
			return s.intTo(&m.AckedFrame)
		case jsonkeys.RTTMs:
			t, err := s.number()
			if err != nil {
				return err
			}
			us, ok := parseMillis(t)
			if !ok {
				return fmt.Errorf("bad rtt %q", t)
			}
			m.HasRTT, m.RTT = true, time.Duration(us)*time.Microsecond
		case jsonkeys.Reassembled:
			if idx < 0 {
				return s.skip(0)
			}
			re := s.r.newReasm(idx)
			m.Reassembled = re
			return s.object(func(k []byte) error {
				switch string(k) {
				case jsonkeys.Len:
					return s.intTo(&re.Len)
				case jsonkeys.Frags:
					return s.intTo(&re.Frags)
				}
				if ok, err := s.payloadKey(k, &re.Payload); ok || err != nil {
					return err
				}
				return s.skip(0)
			})
		case jsonkeys.Captured:
			if !cut {
				return s.skip(0)
			}
			return s.intTo(&s.r.Cut.Captured)
		default:
			if ok, err := s.payloadKey(key, &m.Payload); ok || err != nil {
				return err
			}
			return s.skip(0)
		}
		return nil
	})
	if cut {
		s.r.Cut.HeaderOnly = !sawBody
	}
	return err
}

// payloadKey reads key if it is one of a payload's.
func (s *scanner) payloadKey(key []byte, p *Payload) (bool, error) {
	switch string(key) {
	case jsonkeys.Opcode:
		p.HasOpcode = true
		return true, s.uintTo(&p.Opcode, 255)
	case jsonkeys.OpcodeName:
		v, err := s.str()
		if err != nil {
			return true, err
		}
		if n := game.Lookup(p.Opcode).Name; n == string(v) {
			p.OpcodeName = n
		} else {
			p.OpcodeName = s.d.names.get(v)
		}
		return true, nil
	case jsonkeys.Fields:
		p.Decoded = true
		var err error
		p.Fields, err = s.fields(p.Fields[:0])
		return true, err
	case jsonkeys.PayloadHex:
		p.HasHex = true
		return true, s.hexTo(&p.Bytes)
	}
	return false, nil
}

// fields reads the fields object into tokens.
func (s *scanner) fields(out []Field) ([]Field, error) {
	var err error
	var value func(name string, depth int) error
	value = func(name string, depth int) error {
		if depth > MaxDepth {
			return errors.New("fields nested too deep")
		}
		switch c := s.peek(); {
		case c == '{':
			out = append(out, Field{Name: name, Kind: Object})
			if err := s.object(func(k []byte) error { return value(s.d.names.get(k), depth+1) }); err != nil {
				return err
			}
			out = append(out, Field{Kind: End})
		case c == '[':
			out = append(out, Field{Name: name, Kind: Array})
			if err := s.array(func() error { return value("", depth+1) }); err != nil {
				return err
			}
			out = append(out, Field{Kind: End})
		case c == '"':
			v, err := s.str()
			if err != nil {
				return err
			}
			out = append(out, Field{Name: name, Kind: String, Value: v})
		case c == 't' || c == 'f':
			st := s.i
			var b bool
			if err := s.boolTo(&b); err != nil {
				return err
			}
			out = append(out, Field{Name: name, Kind: Bool, Value: s.r.bytes(s.b[st:s.i])})
		case c == 'n':
			if !hasPrefix(s.b[s.i:], "null") {
				return errSyntax
			}
			s.i += 4
			out = append(out, Field{Name: name, Kind: Null})
		default:
			t, err := s.number()
			if err != nil {
				return err
			}
			out = append(out, Field{Name: name, Kind: Number, Value: s.r.bytes(t)})
		}
		return nil
	}
	if s.peek() != '{' {
		return out, errors.New("fields: not an object")
	}
	err = s.object(func(k []byte) error { return value(s.d.names.get(k), 1) })
	return out, err
}

func (s *scanner) anomaly(a *Anomaly) error {
	return s.object(func(key []byte) error {
		if ok, err := s.anomalyKey(key, a); ok || err != nil {
			return err
		}
		if string(key) == jsonkeys.Frame {
			return s.intTo(&a.Frame)
		}
		return s.skip(0)
	})
}

// anomalyKey reads key if it is one of an anomaly's or an event's.
func (s *scanner) anomalyKey(key []byte, a *Anomaly) (bool, error) {
	switch string(key) {
	case jsonkeys.Code:
		v, err := s.str()
		if err != nil {
			return true, err
		}
		a.CodeName = s.d.names.get(v)
		a.Code, _ = anomaly.Parse(a.CodeName)
	case jsonkeys.Severity:
		v, err := s.str()
		if err != nil {
			return true, err
		}
		a.Severity = s.d.names.get(v)
	case jsonkeys.Message:
		v, err := s.str()
		a.Message = v
		return true, err
	case jsonkeys.Offset:
		return true, s.intTo(&a.Offset)
	case jsonkeys.Msg:
		return true, s.intTo(&a.Msg)
	case jsonkeys.Client:
		return true, s.addrTo(&a.Client)
	case jsonkeys.Server:
		return true, s.addrTo(&a.Server)
	default:
		return false, nil
	}
	return true, nil
}

// parseTime reads a "time" value: RFC 3339, as the writer's nine-digit UTC
// form or any other.
func parseTime(b []byte) (time.Time, error) {
	// 2026-11-24T00:58:06.120000000Z
	if len(b) == 30 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && b[13] == ':' && b[16] == ':' && b[19] == '.' && b[29] == 'Z' {
		num := func(p []byte) (int, bool) {
			n := 0
			for _, c := range p {
				if c < '0' || c > '9' {
					return 0, false
				}
				n = n*10 + int(c-'0')
			}
			return n, true
		}
		y, ok1 := num(b[0:4])
		mo, ok2 := num(b[5:7])
		d, ok3 := num(b[8:10])
		h, ok4 := num(b[11:13])
		mi, ok5 := num(b[14:16])
		se, ok6 := num(b[17:19])
		ns, ok7 := num(b[20:29])
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && se < 60 {
			t := time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC)
			if t.Day() == d {
				return t, nil
			}
		}
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, fmt.Errorf("bad time %q", b)
	}
	return t.UTC(), nil
}

// parseMillis reads a non-negative decimal count of milliseconds with up
// to three decimals as microseconds.
func parseMillis(t []byte) (int64, bool) {
	var us int64
	dec := -1
	for _, c := range t {
		switch {
		case c == '.' && dec < 0:
			dec = 0
		case c >= '0' && c <= '9':
			if dec >= 3 {
				continue // finer than a microsecond: dropped
			}
			if us > 1<<50 {
				return 0, false
			}
			us = us*10 + int64(c-'0')
			if dec >= 0 {
				dec++
			}
		default:
			return 0, false
		}
	}
	if dec < 0 {
		dec = 0
	}
	for ; dec < 3; dec++ {
		us *= 10
	}
	return us, true
}
