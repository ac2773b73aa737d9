// Package quote decides how text that bcdump does not control (strings
// from a capture, file names, manifest entries) reaches a terminal or a
// text file: a rune is shown as is when strconv.IsPrint says so (letters,
// marks, numbers, punctuation, symbols and the ASCII space); every other
// one (C0 and C1 controls, DEL, bidi embeddings, overrides and isolates,
// line separators, bytes that are not UTF-8) is written as a Go escape
// (\x1b, \u202e) in text and as \uXXXX in JSON, so that no capture can
// move the cursor, retitle the terminal, reorder a line or forge one.
//
// Every command uses these functions; report's table, hex and JSON
// writers use them on their hot paths, so the common case (printable
// ASCII) costs one scan and no allocation.
//
// It imports only the standard library, so that any package above
// dissect may use it.
package quote

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// Printable reports whether r is shown as is.
func Printable(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r < 0x7F
	}
	return strconv.IsPrint(r)
}

// Safe reports whether s can be printed as is: valid UTF-8 whose runes
// are all Printable.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// Name returns s as is when it is Safe, else quoted with its unsafe runes
// escaped: for names (files, players, maps) shown among other text, where
// an ordinary name should read as it is.
func Name(s string) string {
	if Safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// AppendName appends s as Name shows it, without converting s when it
// is printable ASCII: for a GameSpy key, shown bare beside its quoted
// value.
func AppendName(b []byte, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7F {
				return strconv.AppendQuote(b, string(s))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return strconv.AppendQuote(b, string(s))
		}
		i += n
	}
	return append(b, s...)
}

// String returns s double-quoted with its unsafe runes escaped
// (strconv.Quote): for text always shown quoted.
func String(s string) string { return strconv.Quote(s) }

// Escape returns s with every rune that is not Printable replaced by its
// Go escape and no quotes added: for messages (errors) that embed names
// somewhere in their text. A newline is escaped too, so that a message
// stays one line.
func Escape(s string) string {
	if Safe(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\x`...)
			b = append(b, hexDigits[s[i]>>4], hexDigits[s[i]&0xF])
		case Printable(r):
			b = append(b, s[i:i+n]...)
		default:
			q := strconv.QuoteRune(r) // 'x' with the escape inside
			b = append(b, q[1:len(q)-1]...)
		}
		i += n
	}
	return string(b)
}

// EscapeLines is Escape that keeps newlines: for messages laid out on
// several lines by bcdump itself (a filter error and its caret line).
func EscapeLines(s string) string {
	if Safe(s) {
		return s
	}
	var b []byte
	for i := 0; ; {
		j := i
		for j < len(s) && s[j] != '\n' {
			j++
		}
		b = append(b, Escape(s[i:j])...)
		if j == len(s) {
			return string(b)
		}
		b = append(b, '\n')
		i = j + 1
	}
}

// Append appends s double-quoted, as strconv.AppendQuote(b, string(s))
// does, without converting s (which allocates beyond 32 bytes) when s is
// printable ASCII, as names, paths and GameSpy's backslashed keys nearly
// always are.
func Append(b []byte, s []byte) []byte {
	for _, c := range s {
		if c < 0x20 || c >= 0x7F {
			return strconv.AppendQuote(b, string(s))
		}
	}
	b = append(b, '"')
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '"' && s[i] != '\\' {
			i++
		}
		b = append(b, s[:i]...)
		if i == len(s) {
			break
		}
		b = append(b, '\\', s[i])
		s = s[i+1:]
	}
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// AppendJSONEscape appends r as a JSON \u escape (a surrogate pair above
// U+FFFF).
func AppendJSONEscape(b []byte, r rune) []byte {
	if r > 0xFFFF {
		r -= 0x10000
		b = appendU(b, 0xD800+(r>>10))
		return appendU(b, 0xDC00+(r&0x3FF))
	}
	return appendU(b, r)
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// JSON returns the JSON text j (as encoding/json writes it: control bytes
// escaped, valid UTF-8) with DEL and every other rune that is not
// Printable written as a \u escape. Such runes can only be inside strings,
// so the document means the same. j is returned as is when it has none.
func JSON(j []byte) []byte {
	i := firstUnsafeJSON(j)
	if i == len(j) {
		return j
	}
	out := append(make([]byte, 0, len(j)+32), j[:i]...)
	for i < len(j) {
		c := j[i]
		if c < utf8.RuneSelf {
			if c == 0x7F {
				out = appendU(out, 0x7F)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(j[i:])
		if r == utf8.RuneError && n == 1 {
			out = appendU(out, utf8.RuneError)
		} else if strconv.IsPrint(r) {
			out = append(out, j[i:i+n]...)
		} else {
			out = AppendJSONEscape(out, r)
		}
		i += n
	}
	return out
}

// firstUnsafeJSON is the offset of the first rune JSON escapes, or len(j).
func firstUnsafeJSON(j []byte) int {
	for i := 0; i < len(j); {
		c := j[i]
		if c < utf8.RuneSelf {
			if c == 0x7F {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(j[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return i
		}
		i += n
	}
	return len(j)
}

// JSONWriter returns a writer that passes JSON text on to w through JSON.
// Each Write must hold whole runes, as json.Encoder's do (one per value).
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
