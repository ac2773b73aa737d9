package filter

import (
	"bytes"
	"unicode/utf8"

	"github.com/bcdump/bcdump/checksum"
)

// scanner walks one JSON object, testing the atoms on every value whose
// path some atom names and skipping everything else without looking
// inside. Array levels are transparent: a value in an array has the
// array's path. It never allocates once the filter's scratch is warm.
type scanner struct {
	f    *Filter
	b    []byte
	i    int
	path []byte
	bad  bool
	// flat is the length of the flat root s.path is under (Flattener),
	// or -1.
	flat int
}

// MaxDepth bounds recursion on hostile input: values deeper than it
// (the top-level object's members are at depth 1, each object or array
// level adds one) are skipped, by Match and by feeders alike. bcdump's
// deepest records, checksum trees, take two levels (the subdirs array, a
// subdirectory) per directory level it accepts, below a handful of record
// levels; they all fit.
const MaxDepth = 2*checksum.MaxDepth + 16

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object scans the top-level object.
func (s *scanner) object(depth int) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		s.bad = true
		return
	}
	s.members(depth)
}

// members scans an object at s.i ('{') whose keys extend s.path.
func (s *scanner) members(depth int) {
	s.i++ // {
	base := len(s.path)
	for !s.bad {
		s.ws()
		if s.i >= len(s.b) {
			s.bad = true
			return
		}
		if s.b[s.i] == '}' {
			s.i++
			return
		}
		if s.b[s.i] == ',' {
			s.i++
			continue
		}
		key, ok := s.str()
		if !ok {
			s.bad = true
			return
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.bad = true
			return
		}
		s.i++
		s.ws()
		if base > 0 {
			s.path = append(s.path, '.')
		}
		s.path = append(s.path, key...)
		s.value(depth + 1)
		s.path = s.path[:base]
	}
}

// value scans the value at s.i, whose path is s.path.
func (s *scanner) value(depth int) {
	if s.i >= len(s.b) {
		s.bad = true
		return
	}
	pi := s.f.paths[string(s.path)]
	atoms, inner := pi.atoms, pi.inner
	// Under a flat root, root.leaf names this value too, and every
	// container may hold a field an atom names.
	var alias []int
	if s.flat >= 0 {
		inner = true
		if rest := s.path[s.flat+1:]; bytes.IndexByte(rest, '.') >= 0 {
			leaf := rest[bytes.LastIndexByte(rest, '.')+1:]
			s.f.alias = append(append(append(s.f.alias[:0], s.path[:s.flat]...), '.'), leaf...)
			alias = s.f.paths[string(s.f.alias)].atoms
		}
	}
	enter := s.flat < 0 && pi.flat
	if (atoms == nil && alias == nil && !inner && !enter) || depth > MaxDepth {
		s.skip()
		return
	}
	if enter {
		s.flat = len(s.path)
		s.scan(depth, atoms, alias, true)
		s.flat = -1
		return
	}
	s.scan(depth, atoms, alias, inner)
}

// scan is value's second half: it tests atoms and alias on the value at
// s.i, descending into containers when inner.
func (s *scanner) scan(depth int, atoms, alias []int, inner bool) {
	switch c := s.b[s.i]; {
	case c == '{':
		s.f.present(atoms)
		s.f.present(alias)
		if inner {
			s.members(depth)
		} else {
			s.skip()
		}
	case c == '[':
		s.i++
		for !s.bad {
			s.ws()
			if s.i >= len(s.b) {
				s.bad = true
				return
			}
			switch s.b[s.i] {
			case ']':
				s.i++
				return
			case ',':
				s.i++
				continue
			}
			s.value(depth + 1)
		}
	case c == '"':
		raw, ok := s.str()
		if !ok {
			s.bad = true
			return
		}
		if len(atoms)+len(alias) > 0 {
			v := raw
			if bytes.IndexByte(raw, '\\') >= 0 {
				s.f.unesc = unescapeJSON(s.f.unesc[:0], raw)
				v = s.f.unesc
			}
			s.f.testString(atoms, v)
			s.f.testString(alias, v)
		}
	case c == 't' || c == 'f' || c == 'n':
		word := s.word()
		switch string(word) {
		case "true", "false":
			s.f.testBool(atoms, word[0] == 't')
			s.f.testBool(alias, word[0] == 't')
		case "null":
		default:
			s.bad = true
		}
	default:
		word := s.word()
		n, ok := parseJSONNumber(word)
		if !ok {
			s.bad = true
			return
		}
		s.f.testNumber(atoms, n)
		s.f.testNumber(alias, n)
	}
}

// present marks a non-scalar value at the atoms' path.
func (f *Filter) present(atoms []int) {
	for _, i := range atoms {
		f.seen[i] = true
		if f.atoms[i].op == opPresent {
			f.hit[i] = true
		}
	}
}

// testNumber tests a number value at the atoms' path.
func (f *Filter) testNumber(atoms []int, n number) {
	for _, i := range atoms {
		f.seen[i] = true
		if f.hit[i] {
			continue
		}
		a := &f.atoms[i]
		if a.op == opPresent {
			f.hit[i] = true
			continue
		}
		if a.typ != Number {
			continue
		}
		f.hit[i] = numberHit(a, n)
	}
}

// numberHit applies a number atom's relation (or set) to n.
func numberHit(a *atom, n number) bool {
	if a.op == opIn {
		for _, l := range a.lits {
			if l.rng {
				lo, hi := cmpNumber(n, l.num), cmpNumber(n, l.hi)
				if lo != 2 && hi != 2 && lo >= 0 && hi <= 0 {
					return true
				}
			} else if cmpNumber(n, l.num) == 0 {
				return true
			}
		}
		return false
	}
	return relation(a.op, cmpNumber(n, a.lits[0].num))
}

// testString tests a string value (unescaped) at the atoms' path.
func (f *Filter) testString(atoms []int, v []byte) {
	for _, i := range atoms {
		f.seen[i] = true
		if f.hit[i] {
			continue
		}
		a := &f.atoms[i]
		switch {
		case a.op == opPresent:
			f.hit[i] = true
		case a.typ == Hex && a.op == opContains:
			f.hit[i] = containsFold(v, a.lits[0].bytes)
		case a.typ == Hex && a.op != opMatches:
			if n, ok := parseHexText(v); ok {
				f.hit[i] = numberHit(a, n)
			}
		case a.typ != String && a.typ != Hex:
		case a.op == opContains:
			f.hit[i] = bytes.Contains(v, a.lits[0].bytes)
		case a.op == opMatches:
			f.hit[i] = a.re.Match(v)
		case a.op == opIn:
			for _, l := range a.lits {
				if string(v) == l.str {
					f.hit[i] = true
					break
				}
			}
		default:
			f.hit[i] = relation(a.op, bytes.Compare(v, a.lits[0].bytes))
		}
	}
}

// testBool tests a boolean value at the atoms' path.
func (f *Filter) testBool(atoms []int, v bool) {
	for _, i := range atoms {
		f.seen[i] = true
		if f.hit[i] {
			continue
		}
		a := &f.atoms[i]
		switch {
		case a.op == opPresent:
			f.hit[i] = true
		case a.typ != Bool:
		default: // == (!= is == negated) and in
			for _, l := range a.lits {
				if l.boolv == v {
					f.hit[i] = true
				}
			}
		}
	}
}

// relation applies a comparison to a three-way result (2: incomparable).
func relation(o op, c int) bool {
	if c == 2 {
		return false
	}
	switch o {
	case opEq:
		return c == 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	case opGe:
		return c >= 0
	}
	return false
}

// str reads a JSON string at s.i and returns its raw (still escaped)
// contents.
func (s *scanner) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return s.b[start:j], true
		}
	}
	return nil, false
}

// word reads a bare JSON token (number, true, false, null).
func (s *scanner) word() []byte {
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
			return s.b[start:s.i]
		}
		s.i++
	}
	return s.b[start:s.i]
}

// skip passes over one value of any depth without recursion.
func (s *scanner) skip() {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			if _, ok := s.str(); !ok {
				s.bad = true
				return
			}
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth < 0 {
				s.bad = true
				return
			}
			if depth == 0 {
				s.i++
				return
			}
		case ',', ':':
			if depth == 0 {
				s.bad = true
				return
			}
		default:
			if depth == 0 {
				if len(s.word()) == 0 {
					s.bad = true
				}
				return
			}
		}
		s.i++
	}
	s.bad = true
}

// unescapeJSON appends the decoded form of a JSON string's contents.
func unescapeJSON(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			if i+4 < len(raw) {
				if r, ok := hex4(raw[i+1 : i+5]); ok {
					i += 4
					if r >= 0xD800 && r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
						if lo, ok := hex4(raw[i+3 : i+7]); ok && lo >= 0xDC00 && lo < 0xE000 {
							r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
							i += 6
						}
					}
					dst = utf8.AppendRune(dst, r)
					continue
				}
			}
			dst = append(dst, '\\', 'u')
		default: // \" \\ \/
			dst = append(dst, raw[i])
		}
	}
	return dst
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
