package filter

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is a filter that does not parse or does not fit the schema. Its
// text shows the expression with a caret under the fault, as tshark does.
type Error struct {
	Expr string
	Pos  int // byte offset of the fault
	Len  int // bytes underlined (at least 1)
	Msg  string
	Hint string // may be empty
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("filter: ")
	b.WriteString(e.Msg)
	b.WriteString("\n  ")
	b.WriteString(e.Expr)
	b.WriteString("\n  ")
	pos := min(max(e.Pos, 0), len(e.Expr))
	b.WriteString(strings.Repeat(" ", utf8.RuneCountInString(e.Expr[:pos])))
	n := max(1, utf8.RuneCountInString(e.Expr[pos:min(len(e.Expr), pos+e.Len)]))
	b.WriteString(strings.Repeat("^", n))
	if e.Hint != "" {
		b.WriteString("\n  ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (p *parser) errAt(pos int, msg, hint string) error {
	return &Error{Expr: p.src, Pos: pos, Len: 1, Msg: msg, Hint: hint}
}

func (p *parser) errSpan(t token, msg, hint string) error {
	return &Error{Expr: p.src, Pos: t.pos, Len: t.end - t.pos, Msg: msg, Hint: hint}
}

// suggest names up to three known fields close to an unknown one: by edit
// distance, or sharing its last path element (opcode_name for
// msg.opcode_name).
func suggest(path string, names []string) string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	last := path[strings.LastIndexByte(path, '.')+1:]
	limit := max(2, len(path)/4)
	for _, n := range names {
		d := editDistance(path, n)
		if d > limit && n[strings.LastIndexByte(n, '.')+1:] == last {
			d = limit // same leaf: worth naming
		}
		if d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	if len(cs) == 0 {
		return "`bcdump fields` lists every field"
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return "did you mean " + strings.Join(out, ", ") + "?"
}

// editDistance is the Levenshtein distance over bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest are up to three of names nearest to word by edit distance (at
// most max(2, len(word)/4) edits; letter case ignored), nearest first.
func Closest(word string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	limit := max(2, len(word)/4)
	lw := strings.ToLower(word)
	for _, n := range names {
		if d := editDistance(lw, strings.ToLower(n)); d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
