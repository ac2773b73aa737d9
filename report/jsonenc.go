package report

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect/game"
)

// A small append-only JSON writer: the JSON reporter runs once per datagram
// on captures of millions of datagrams, so it builds each line in one reused
// buffer instead of going through reflection.

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Bytes that are not valid UTF-8
// are taken as Latin-1 (BC's 8-bit text is Windows code page text).
func appendString(b []byte, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
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
			case c < 0x20 || c == 0x7F:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, rune(c))
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func appendStr(b []byte, s string) []byte {
	return appendString(b, unsafeBytes(s))
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

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 32)
}

func appendHexU(b []byte, v uint64, digits int) []byte {
	b = append(b, '"', '0', 'x')
	for i := digits - 1; i >= 0; i-- {
		b = append(b, "0123456789ABCDEF"[(v>>(4*uint(i)))&0xF])
	}
	return append(b, '"')
}

func appendHexBytes(b []byte, p []byte) []byte {
	b = append(b, '"')
	for _, c := range p {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
	}
	return append(b, '"')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendFields renders a field token stream as the members of a JSON object
// (without the braces). A field with a Note gets a sibling "<key>_name".
func appendFields(b []byte, fs []game.Field) []byte {
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
		b = appendValue(b, f)
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

func appendValue(b []byte, f *game.Field) []byte {
	switch f.Kind {
	case game.KindUint:
		return strconv.AppendUint(b, f.U, 10)
	case game.KindInt:
		return strconv.AppendInt(b, f.I, 10)
	case game.KindFloat:
		return appendFloat(b, f.F)
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
			b = appendFloat(b, v)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}
