package filter

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type parser struct {
	src    string
	toks   []token
	i      int
	schema Schema
	f      *Filter
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// or binds loosest, then and, then not, as in Wireshark and C.
func (p *parser) parseOr() (node, error) {
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tOr {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = orNode{l, r}
	}
	return l, nil
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tAnd {
		p.next()
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = andNode{l, r}
	}
	return l, nil
}

func (p *parser) parseNot() (node, error) {
	if p.peek().kind == tNot {
		p.next()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return notNode{x}, nil
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() (node, error) {
	t := p.next()
	switch t.kind {
	case tLParen:
		x, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c.kind != tRParen {
			return nil, p.errAt(c.pos, "expected ')' before "+c.describe(), "the '(' at offset "+itoa(t.pos)+" is not closed")
		}
		p.next()
		return x, nil
	case tWord:
		return p.parseRelation(t)
	case tEOF:
		return nil, p.errAt(t.pos, "expression ends too early", "expected a field name")
	}
	return nil, p.errAt(t.pos, "unexpected "+t.describe(), "expected a field name, 'not' or '('")
}

// parseRelation reads what follows a field: nothing (presence), a
// comparison, contains, matches or in.
func (p *parser) parseRelation(field token) (node, error) {
	path := strings.TrimPrefix(field.text, Prefix)
	typ, ok := p.schema.Field(path)
	if !ok {
		if _, isNum := parseLiteralNumber(field.text); isNum {
			return nil, p.errSpan(field, "a field name must come first, not the value "+field.describe(), "write it as FIELD == "+field.text)
		}
		return nil, p.errSpan(field, "unknown field "+field.describe(), suggest(path, p.schema.Names()))
	}
	a := atom{path: path, typ: typ}
	opTok := p.peek()
	switch opTok.kind {
	case tOp:
		p.next()
		a.op = map[string]op{"==": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}[opTok.text]
	case tContains:
		p.next()
		a.op = opContains
	case tMatches:
		p.next()
		a.op = opMatches
	case tIn:
		p.next()
		a.op = opIn
	default:
		return p.addAtom(a, false), nil // presence
	}
	if err := p.checkOp(field, opTok, a); err != nil {
		return nil, err
	}
	if a.op == opIn {
		lits, err := p.parseSet(field, a)
		if err != nil {
			return nil, err
		}
		a.lits = lits
		return p.addAtom(a, false), nil
	}
	v := p.next()
	if v.kind != tWord && v.kind != tString {
		return nil, p.errAt(v.pos, "expected a value after "+opTok.describe()+", not "+v.describe(), "")
	}
	if a.op == opMatches {
		re, err := regexp.Compile(v.text)
		if err != nil {
			return nil, p.errSpan(v, "bad regular expression: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "), "matches takes RE2 syntax; (?i) makes it case-insensitive")
		}
		a.re = re
		return p.addAtom(a, false), nil
	}
	lt := a.typ
	if lt == Hex && a.op == opContains {
		lt = String // contains tests the text
	}
	lit, err := p.literal(field, lt, v)
	if err != nil {
		return nil, err
	}
	if a.op == opEq || a.op == opNe {
		if err := p.checkValue(field, path, v); err != nil {
			return nil, err
		}
	}
	a.lits = []literal{lit}
	neg := false
	if a.op == opNe {
		a.op, neg = opEq, true
	}
	return p.addAtom(a, neg), nil
}

// checkOp rejects relations the field's type has no meaning for.
func (p *parser) checkOp(field, opTok token, a atom) error {
	bad := false
	switch a.typ {
	case Object:
		bad = true
	case Number:
		bad = a.op == opContains || a.op == opMatches
	case Bool:
		bad = a.op != opEq && a.op != opNe && a.op != opIn
	}
	if !bad {
		return nil
	}
	hint := ""
	switch a.typ {
	case Object:
		hint = field.text + " holds other fields; test it bare for presence or name a field inside it"
	case Number:
		hint = "contains and matches need a string field"
	case Bool:
		hint = "a boolean field takes == or != with true or false"
	}
	return p.errSpan(opTok, "type mismatch: "+field.text+" is a "+a.typ.String()+"; "+opTok.text+" does not apply", hint)
}

func (p *parser) parseSet(field token, a atom) ([]literal, error) {
	open := p.next()
	if open.kind != tLBrace {
		return nil, p.errAt(open.pos, "expected '{' after in", "a set is written {a b c} or {100..200}")
	}
	var lits []literal
	for {
		t := p.next()
		switch t.kind {
		case tRBrace:
			if len(lits) == 0 {
				return nil, p.errAt(t.pos, "empty set", "")
			}
			return lits, nil
		case tComma:
			continue
		case tWord, tString:
		default:
			return nil, p.errAt(t.pos, "expected a value or '}' in the set, not "+t.describe(), "")
		}
		lit, err := p.literal(field, a.typ, t)
		if err != nil {
			return nil, err
		}
		if err := p.checkValue(field, a.path, t); err != nil {
			return nil, err
		}
		if p.peek().kind == tRange {
			r := p.next()
			if a.typ != Number && a.typ != Hex {
				return nil, p.errAt(r.pos, "a range needs a number field", field.text+" is a "+a.typ.String())
			}
			hiTok := p.next()
			if hiTok.kind != tWord {
				return nil, p.errAt(hiTok.pos, "expected the end of the range after '..'", "")
			}
			hi, err := p.literal(field, a.typ, hiTok)
			if err != nil {
				return nil, err
			}
			lit.hi, lit.rng = hi.num, true
		}
		lits = append(lits, lit)
	}
}

// literal converts a value token for a field of type t.
func (p *parser) literal(field token, t Type, v token) (literal, error) {
	switch t {
	case Number:
		if v.kind == tString {
			return literal{}, p.errSpan(v, "type mismatch: "+field.text+" is a number, not a string", "write the number without quotes")
		}
		n, ok := parseLiteralNumber(v.text)
		if !ok {
			return literal{}, p.errSpan(v, "type mismatch: "+field.text+" is a number; "+v.describe()+" is not", "numbers are decimal or 0x hex")
		}
		return literal{num: n}, nil
	case Hex:
		n, ok := parseLiteralNumber(v.text)
		if !ok {
			return literal{}, p.errSpan(v, "type mismatch: "+field.text+" is a hex number; "+v.describe()+" is not a number", "write it as 0x7E0CE243 or in decimal; contains and matches test the text")
		}
		return literal{num: n}, nil
	case Bool:
		switch strings.ToLower(v.text) {
		case "true", "1":
			return literal{boolv: true}, nil
		case "false", "0":
			return literal{boolv: false}, nil
		}
		return literal{}, p.errSpan(v, "type mismatch: "+field.text+" is a boolean; "+v.describe()+" is not", "use true or false")
	}
	return literal{str: v.text, bytes: []byte(v.text)}, nil
}

// checkValue refuses a value v the schema knows path never has (Valuer).
func (p *parser) checkValue(field token, path string, v token) error {
	vs, ok := p.schema.(Valuer)
	if !ok {
		return nil
	}
	values := vs.Values(path)
	if values == nil || slices.Contains(values, v.text) {
		return nil
	}
	hint := "`bcdump fields` says what " + field.text + " holds"
	if near := Closest(v.text, values); len(near) > 0 {
		hint = "did you mean " + strings.Join(near, ", ") + "?"
	} else if len(values) <= 8 {
		hint = "the values are " + strings.Join(values, ", ")
	}
	return p.errSpan(v, field.text+" never has the value "+strconv.Quote(v.text), hint)
}

func (p *parser) addAtom(a atom, neg bool) node {
	p.f.atoms = append(p.f.atoms, a)
	return atomNode{i: len(p.f.atoms) - 1, neg: neg}
}

func itoa(n int) string { return strconv.Itoa(n) }
