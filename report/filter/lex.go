package filter

import (
	"strconv"
	"strings"
)

type tokKind uint8

const (
	tEOF    tokKind = iota
	tWord           // a field path, bare word or number
	tString         // "double quoted"
	tOp             // == != < <= > >= and the keyword forms
	tAnd
	tOr
	tNot
	tContains
	tMatches
	tIn
	tLParen
	tRParen
	tLBrace
	tRBrace
	tComma
	tRange // ..
)

type token struct {
	kind tokKind
	pos  int    // byte offset in the expression
	end  int    // byte offset just past the token
	text string // words: as written; strings: unquoted; ops: canonical
}

func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tString:
		return strconv.Quote(t.text)
	}
	return "'" + t.text + "'"
}

var keywords = map[string]token{
	"and": {kind: tAnd, text: "and"}, "or": {kind: tOr, text: "or"}, "not": {kind: tNot, text: "not"},
	"eq": {kind: tOp, text: "=="}, "ne": {kind: tOp, text: "!="},
	"lt": {kind: tOp, text: "<"}, "le": {kind: tOp, text: "<="},
	"gt": {kind: tOp, text: ">"}, "ge": {kind: tOp, text: ">="},
	"contains": {kind: tContains, text: "contains"}, "matches": {kind: tMatches, text: "matches"},
	"in": {kind: tIn, text: "in"},
}

// Word characters cover field paths (messages.opcode_name), anomaly codes
// (unacked-fragment-retransmit), numbers (-1, 0x7E0CE243, 1.5) and
// addresses (192.168.1.10:22101) written bare.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '-' || c == ':' || c == '/' || c == '+'
}

func (p *parser) lex() error {
	s := p.src
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"':
			text, n, err := unquote(s[i:])
			if err != "" {
				return p.errAt(i+n, err, "")
			}
			p.toks = append(p.toks, token{kind: tString, pos: i, end: i + n, text: text})
			i += n
			continue
		case c == '.' && strings.HasPrefix(s[i:], ".."):
			p.toks = append(p.toks, token{kind: tRange, pos: i, end: i + 2, text: ".."})
			i += 2
			continue
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) && !strings.HasPrefix(s[j:], "..") {
				j++
			}
			w := s[i:j]
			if k, ok := keywords[w]; ok {
				k.pos, k.end = i, j
				p.toks = append(p.toks, k)
			} else {
				p.toks = append(p.toks, token{kind: tWord, pos: i, end: j, text: w})
			}
			i = j
			continue
		}
		two := ""
		if i+1 < len(s) {
			two = s[i : i+2]
		}
		switch two {
		case "==", "!=", "<=", ">=":
			p.toks = append(p.toks, token{kind: tOp, pos: i, end: i + 2, text: two})
			i += 2
			continue
		case "&&":
			p.toks = append(p.toks, token{kind: tAnd, pos: i, end: i + 2, text: "&&"})
			i += 2
			continue
		case "||":
			p.toks = append(p.toks, token{kind: tOr, pos: i, end: i + 2, text: "||"})
			i += 2
			continue
		}
		kind := tEOF
		switch c {
		case '<', '>':
			kind = tOp
		case '!':
			kind = tNot
		case '(':
			kind = tLParen
		case ')':
			kind = tRParen
		case '{':
			kind = tLBrace
		case '}':
			kind = tRBrace
		case ',':
			kind = tComma
		case '=':
			return p.errAt(i, "'=' is not an operator", "use == to compare")
		}
		if kind == tEOF {
			return p.errAt(i, "unexpected character "+strconv.QuoteRune(rune(c)), "")
		}
		p.toks = append(p.toks, token{kind: kind, pos: i, end: i + 1, text: string(c)})
		i++
	}
	p.toks = append(p.toks, token{kind: tEOF, pos: len(s), end: len(s)})
	return nil
}

// unquote reads a double-quoted string at the start of s with Go/C escapes
// (\" \\ \n \t \xHH \uHHHH). It returns the text, the bytes consumed and,
// on failure, a message (n then points at the fault).
func unquote(s string) (text string, n int, err string) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch c {
		case '"':
			return b.String(), i + 1, ""
		case '\\':
			if i+1 >= len(s) {
				return "", i, "unfinished escape in string"
			}
			r, _, tail, e := strconv.UnquoteChar(s[i:], '"')
			if e != nil {
				return "", i, "bad escape in string"
			}
			b.WriteRune(r)
			i = len(s) - len(tail)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, "string not closed: a \" is missing"
}
