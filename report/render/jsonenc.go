package render

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// A small append-only JSON writer: the JSON reporter runs once per datagram
// on captures of millions of datagrams, so it builds each line in one reused
// buffer instead of going through reflection.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Bytes that are not valid UTF-8
// are taken as Latin-1 (BC's 8-bit text is Windows code page text). Runes
// package quote does not show as they are are \u escapes.
func appendString(b []byte, s []byte) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		// Copy the run of plain printable ASCII in one go.
		i := 0
		for i < len(s) && s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\\' {
			i++
		}
		b = append(b, s[:i]...)
		if i == len(s) {
			break
		}
		s = s[i:]
		c := s[0]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default: // other control bytes and DEL
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			s = s[1:]
			continue
		}
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			r = rune(c)
		}
		switch {
		case !quote.Printable(r): // C1 controls, bidi controls: see package quote
			b = quote.AppendJSONEscape(b, r)
		case size == 1:
			b = utf8.AppendRune(b, r)
		default:
			b = append(b, s[:size]...)
		}
		s = s[size:]
	}
	return append(b, '"')
}

// AppendJSONString appends s as a JSON string exactly as the JSON reporter
// writes string values (report/diff uses it as the canonical form).
func AppendJSONString(b []byte, s string) []byte { return appendStr(b, s) }

func appendStr(b []byte, s string) []byte {
	return appendString(b, unsafeBytes(s))
}

// appendName appends s quoted without looking for bytes to escape: for the
// protocol's own identifiers (message types, opcodes, anomaly codes,
// severities, directions, delivery states), which are printable ASCII
// without quotes or backslashes (TestNamesNeedNoEscape checks every one).
// It spares every record several escape scans.
func appendName(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendKey(b []byte, first *bool, key string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendFloat appends f as a JSON number, shown as float32 (as it is on
// the wire): strconv.AppendFloat(b, f, 'g', -1, 32), or null for NaN and
// infinities. m, the rendering goroutine's own memo (nil: none), may
// hold the text already; nothing is shared between goroutines.
func appendFloat(b []byte, f float64, m *recordMemo) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return m.appendFloat32(b, float32(f))
}

// TimeLayout is how JSON records write capture times: RFC 3339 in UTC with
// always nine fractional digits, so that times sort as text and
// nanosecond captures lose nothing ("2026-11-24T00:58:06.120000000Z").
const TimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// appendTimeUTC appends t.UTC().AppendFormat(b, TimeLayout), computing
// the date itself: no state, so records can be rendered on any goroutine.
func appendTimeUTC(b []byte, t time.Time) []byte {
	b, ok := appendDateClock(b, t.Unix(), 'T')
	if !ok {
		return t.UTC().AppendFormat(b, TimeLayout)
	}
	b = appendNanos(b, t.Nanosecond())
	return append(b, 'Z')
}

// appendNanos appends '.' and ns (0 <= ns < 1e9, as time gives it) as
// nine digits, two at a time.
func appendNanos(b []byte, ns int) []byte {
	b = append(b, ".000000000"...)
	writeDigits(b[len(b)-9:], uint32(ns))
	return b
}

// appendEpoch appends t as seconds since 1970-01-01 UTC, a JSON number
// with nine decimals (exact as text; tshark's frame.time_epoch).
func appendEpoch(b []byte, t time.Time) []byte {
	sec, ns := t.Unix(), t.Nanosecond()
	if sec >= 0 {
		return appendNanos(appendUint(b, uint64(sec)), ns)
	}
	// The magnitude as uint64: -sec overflows for the earliest second (a
	// pcapng if_tsoffset of -2^63 gets there).
	b = append(b, '-')
	if ns > 0 { // -0.25 s is sec -1, ns 750000000
		return appendNanos(appendUint(b, uint64(-(sec+1))), 1e9-ns)
	}
	return appendNanos(appendUint(b, uint64(-(sec+1))+1), 0)
}

func appendHexU(b []byte, v uint64, digits int) []byte {
	b = append(b, '"', '0', 'x')
	for i := digits - 1; i >= 0; i-- {
		b = append(b, "0123456789ABCDEF"[(v>>(4*uint(i)))&0xF])
	}
	return append(b, '"')
}

// appendHexBytes appends p as a quoted hex string, grown once and
// written by index: payloads run to hundreds of bytes.
func appendHexBytes(b []byte, p []byte) []byte {
	n := len(b)
	b = grow(b, 2*len(p)+2)
	o := b[n:]
	o[0] = '"'
	for i, c := range p {
		o[1+2*i], o[2+2*i] = hexDigits[c>>4], hexDigits[c&0xF]
	}
	o[len(o)-1] = '"'
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendFields renders a field token stream as the members of a JSON object
// (without the braces). A field with a Note gets a sibling "<key>_name".
func appendFields(b []byte, fs []game.Field, m *recordMemo) []byte {
	// firsts tracks, per nesting level, whether a member was written yet;
	// inArray whether the level is an array (elements have no keys).
	var firstsBuf [16]bool
	var arrBuf [16]bool
	firsts, inArray := firstsBuf[:1], arrBuf[:1]
	firsts[0] = true
	for i := range fs {
		f := &fs[i]
		lvl := len(firsts) - 1
		if f.Kind == game.KindEnd {
			if lvl == 0 {
				continue // unbalanced: ignore rather than corrupt output
			}
			if inArray[lvl] {
				b = append(b, ']')
			} else {
				b = append(b, '}')
			}
			firsts, inArray = firsts[:lvl], inArray[:lvl]
			continue
		}
		if inArray[lvl] {
			if !firsts[lvl] {
				b = append(b, ',')
			}
			firsts[lvl] = false
		} else {
			b = appendKey(b, &firsts[lvl], f.Name)
		}
		switch f.Kind {
		case game.KindObject, game.KindArray:
			if f.Kind == game.KindObject {
				b = append(b, '{')
			} else {
				b = append(b, '[')
			}
			firsts = append(firsts, true)
			inArray = append(inArray, f.Kind == game.KindArray)
			continue
		}
		b = appendValue(b, f, m)
		if f.Note != "" && !inArray[lvl] {
			b = append(b, ',', '"')
			b = append(b, f.Name...)
			b = append(b, "_name\":"...)
			b = appendStr(b, f.Note)
		}
	}
	// Close whatever a cut-short decode left open.
	for lvl := len(firsts) - 1; lvl > 0; lvl-- {
		if inArray[lvl] {
			b = append(b, ']')
		} else {
			b = append(b, '}')
		}
	}
	return b
}

func appendValue(b []byte, f *game.Field, m *recordMemo) []byte {
	switch f.Kind {
	case game.KindUint:
		return appendUint(b, f.U)
	case game.KindInt:
		return appendInt(b, f.I)
	case game.KindFloat:
		return appendFloat(b, f.F, m)
	case game.KindBool:
		return appendBool(b, f.U != 0)
	case game.KindString:
		return appendString(b, f.B)
	case game.KindHash:
		return appendHexU(b, f.U, 8)
	case game.KindHex:
		n := f.Len * 2
		if n <= 0 || n > 16 {
			n = 8
		}
		return appendHexU(b, f.U, n)
	case game.KindBytes:
		return appendHexBytes(b, f.B)
	case game.KindVec:
		b = append(b, '[')
		for i, v := range f.V {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, v, m)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

// appendAnomalyMessage appends an anomaly's message as a JSON string. The
// text is put into words here, when printed (anomaly.Text keeps it as
// parts): formatted onto the end of b, then quoted back into place from a
// stack copy (a buffer handed to the formatter itself would escape to the
// heap).
func appendAnomalyMessage(b []byte, a *anomaly.Anomaly) []byte {
	n := len(b)
	b = a.AppendMessage(b)
	var buf [512]byte
	if len(b)-n > len(buf) {
		raw := append([]byte(nil), b[n:]...) // rare: a very long message
		return appendString(b[:n], raw)
	}
	raw := buf[:copy(buf[:], b[n:])]
	return appendString(b[:n], raw)
}

// grow extends b by n bytes to be written by index. (append(b,
// make([]byte, n)...) does the same without allocating, but not under the
// race detector, which turns that optimization off.)
func grow(b []byte, n int) []byte {
	b = slices.Grow(b, n)
	return b[:len(b)+n]
}

// appendUint is strconv.AppendUint(b, v, 10) for records: the counts,
// offsets, ids and ports a record is full of fit 32 bits, and are written
// here in place (strconv copies a small number's digits with a memmove
// call, about a tenth of rendering a record).
func appendUint(b []byte, v uint64) []byte {
	if v < 10 {
		return append(b, byte('0'+v))
	}
	if v < 100 {
		return append(b, digitPairs[2*v], digitPairs[2*v+1])
	}
	if v > math.MaxUint32 {
		return strconv.AppendUint(b, v, 10)
	}
	n := decimalLen32(uint32(v))
	if cap(b)-len(b) < n {
		b = slices.Grow(b, n)
	}
	b = b[:len(b)+n]
	writeDigits(b[len(b)-n:], uint32(v))
	return b
}

// appendInt is strconv.AppendInt(b, v, 10) (see appendUint).
func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		// -v wraps for the most negative int64, whose magnitude uint64
		// still holds.
		return appendUint(append(b, '-'), uint64(-v))
	}
	return appendUint(b, uint64(v))
}

var pow10u32 = [...]uint32{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// decimalLen32 is the number of decimal digits of v (1 for 0).
func decimalLen32(v uint32) int {
	t := bits.Len32(v|1) * 1233 >> 12 // about log10(2^len)
	if v < pow10u32[t] {
		return t
	}
	return t + 1
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// writeDigits fills dst with the last len(dst) decimal digits of v.
func writeDigits(dst []byte, v uint32) {
	i := len(dst)
	for i >= 2 {
		i -= 2
		dd := v % 100 * 2
		v /= 100
		dst[i], dst[i+1] = digitPairs[dd], digitPairs[dd+1]
	}
	if i == 1 {
		dst[0] = byte('0' + v%10)
	}
}
