package game

import "strconv"

// Helpers for the Summarizers: they append "label=value" pairs taken from the
// decoded Fields, so a summary never re-parses the payload and a payload cut
// short simply yields a shorter summary. Nothing here allocates.

// maxSummaryText caps quoted text in a summary; the full text is in the fields.
const maxSummaryText = 48

// kv appends "label=value" for the top-level field key, separated by a space
// from what was appended since start. A missing field appends nothing.
func kv(dst []byte, start int, f *Fields, key, label string) []byte {
	fl, ok := f.Get(key)
	if !ok {
		return dst
	}
	dst = sep(dst, start)
	if label != "" {
		dst = append(dst, label...)
		dst = append(dst, '=')
	}
	return appendValue(dst, fl)
}

// sep appends a space unless nothing was appended since start.
func sep(dst []byte, start int) []byte {
	if len(dst) > start {
		dst = append(dst, ' ')
	}
	return dst
}

// appendValue appends a field's value in short form: enums by name, ids in
// hex, floats with two decimals, text quoted and capped.
func appendValue(dst []byte, fl *Field) []byte {
	switch fl.Kind {
	case KindUint:
		if fl.Note != "" {
			return append(dst, fl.Note...)
		}
		return strconv.AppendUint(dst, fl.U, 10)
	case KindInt:
		if fl.Note != "" {
			return append(dst, fl.Note...)
		}
		return strconv.AppendInt(dst, fl.I, 10)
	case KindFloat:
		return appendFixed(dst, fl.F, 2)
	case KindBool:
		if fl.U != 0 {
			return append(dst, "on"...)
		}
		return append(dst, "off"...)
	case KindString:
		return appendQuoted(dst, fl.B, maxSummaryText)
	case KindHash, KindHex:
		n := fl.Len
		if fl.Kind == KindHash || n <= 0 || n > 8 {
			n = 4
		}
		return appendHex(dst, fl.U, n)
	case KindBytes:
		dst = append(dst, '[')
		dst = strconv.AppendInt(dst, int64(len(fl.B)), 10)
		return append(dst, "B]"...)
	case KindVec:
		dst = append(dst, '(')
		for i, v := range fl.V {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendFixed(dst, v, 1)
		}
		return append(dst, ')')
	}
	return dst
}

const hexDigits = "0123456789ABCDEF"

// appendHex appends v as "0x" and n*2 upper-case hex digits.
func appendHex(dst []byte, v uint64, n int) []byte {
	dst = append(dst, '0', 'x')
	for i := n*2 - 1; i >= 0; i-- {
		dst = append(dst, hexDigits[v>>(uint(i)*4)&0xF])
	}
	return dst
}

// appendQuoted appends b as a double-quoted string: printable ASCII as is,
// quotes and backslashes escaped, other bytes as \xNN; more than max bytes
// are cut with "...".
func appendQuoted(dst, b []byte, max int) []byte {
	cut := false
	if len(b) > max {
		b, cut = b[:max], true
	}
	dst = append(dst, '"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20 && c < 0x7F:
			dst = append(dst, c)
		default:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	dst = append(dst, '"')
	if cut {
		dst = append(dst, "..."...)
	}
	return dst
}
