package diff

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bcdump/bcdump/report/quote"
)

// maxSummary bounds a message's one-line summary (in runes).
const maxSummary = 140

// Summary renders m on one line: transport type, reliability and relative
// seq, opcode, then the top-level fields as key=value (labels in
// parentheses, nested values as [n] or {…}).
func (m *Message) Summary() string {
	var sb strings.Builder
	sb.WriteString(m.Type())
	if m.Channel >= 0 {
		sb.WriteString(" seq=")
		sb.WriteString(strconv.Itoa(int(m.Seq)))
	}
	if op := m.Opcode(); op != "" {
		sb.WriteByte(' ')
		sb.WriteString(op)
	}
	if m.Frags > 0 {
		sb.WriteString(" (")
		sb.WriteString(strconv.Itoa(int(m.Frags)))
		sb.WriteString(" frags)")
	}
	prefix := "fields."
	switch m.Type() {
	case "GameSpy":
		prefix = "gamespy."
	}
	ls := m.Leaves()
	for i := 0; i < len(ls); i++ {
		l := &ls[i]
		var key string
		switch {
		case l.Path == "text" && m.Type() == "GameSpy":
			key = "text"
		case l.Path == "payload_hex":
			sb.WriteString(" raw=")
			sb.WriteString(shorten(strings.Trim(l.Value, `"`), 32))
			continue
		case strings.HasPrefix(l.Path, prefix):
			key = l.Path[len(prefix):]
		case l.Path == strings.TrimSuffix(prefix, "."):
			continue // an empty object
		default:
			continue
		}
		if l.note {
			continue
		}
		top, rest := splitTop(key)
		sb.WriteByte(' ')
		sb.WriteString(quote.Name(top)) // a GameSpy key is the peer's bytes
		sb.WriteByte('=')
		if rest == "" {
			sb.WriteString(l.Value)
			if i+1 < len(ls) && ls[i+1].note {
				sb.WriteByte('(')
				sb.WriteString(strings.Trim(ls[i+1].Value, `"`))
				sb.WriteByte(')')
			}
			continue
		}
		// A nested value: show small arrays of scalars, else a count.
		j := i
		var elems []string
		scalars := true
		for j < len(ls) && strings.HasPrefix(ls[j].Path, prefix+top) {
			t, r := splitTop(ls[j].Path[len(prefix):])
			if t != top {
				break
			}
			if !ls[j].note {
				if r != "" && (r[0] == '.' || strings.ContainsAny(r[1:], ".[")) {
					scalars = false
				}
				elems = append(elems, ls[j].Value)
			}
			j++
		}
		switch {
		case rest[0] == '[' && scalars && len(elems) <= 4:
			sb.WriteString("[" + strings.Join(elems, ",") + "]")
		case rest[0] == '[':
			sb.WriteString("[…]")
		default:
			sb.WriteString("{…}")
		}
		i = j - 1
	}
	return shorten(sb.String(), maxSummary)
}

// splitTop splits "a.b" or "a[1].b" into the top key and the rest
// (".b", "[1].b"); a key may not contain '.' or '['.
func splitTop(k string) (string, string) {
	if i := strings.IndexAny(k, ".["); i >= 0 {
		return k[:i], k[i:]
	}
	return k, ""
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, c := 0, 0
	for i = range s {
		if c == n-1 {
			break
		}
		c++
	}
	return s[:i] + "…"
}
