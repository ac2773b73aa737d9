// Package filter is bcdump's display filter: tshark-style expressions
// (`messages.opcode_name == ChecksumResp and dir == c2s`) over the fields of
// the JSON records that `bcdump read -F json` prints.
//
// A Filter is tested either against a record's JSON bytes (Match: saved
// traces) or on values fed to it from the decoded record (feed.go:
// report.Eval, for captures, with no JSON rendered). Both run the same
// atom tests and boolean structure; report's equivalence test keeps the
// values Eval feeds equal to those in the JSON the writer prints.
//
// Semantics follow Wireshark's display filters: a path through an array is
// true when any element makes it true; a relation on a field the record
// lacks is false, `!=` included (a != b means a is present and no value of a
// equals b); a bare field is true when present.
//
// It imports nothing of bcdump: the schema it checks against is an
// interface (report/query implements it).
package filter

import (
	"regexp"
	"strings"
)

// Type is a field's JSON type as the schema knows it.
type Type uint8

const (
	Number Type = iota + 1
	String
	Bool
	// Object is an object or an array of objects: it can only be tested
	// for presence.
	Object
	// Hex is a number the JSON writes as a "0x..." string (hashes, object
	// ids): compared as a number with a decimal or 0x literal, so
	// `name_hash == 0x7e0ce243` matches "0x7E0CE243"; contains and
	// matches test its text.
	Hex
)

func (t Type) String() string {
	switch t {
	case Number:
		return "number"
	case String:
		return "string"
	case Bool:
		return "boolean"
	case Object:
		return "object"
	case Hex:
		return "hex"
	}
	return "unknown"
}

// Schema says which fields exist and their types. Paths are dotted JSON
// keys with array levels left out (messages.opcode_name, not
// messages[0].opcode_name).
type Schema interface {
	// Field returns a path's type; ok is false for an unknown path.
	Field(path string) (t Type, ok bool)
	// Names lists the known paths, for suggestions in errors.
	Names() []string
}

// Valuer is a Schema that knows every value some string fields can have
// (opcode names, anomaly codes, ...): Values returns them, nil for a field
// that may hold any string. Compile refuses ==, != and in with a value
// not listed, which could never match (or always would), and names the
// nearest value.
type Valuer interface {
	Values(path string) []string
}

// Flattener is a Schema with paths below which a field is found by its
// name at any depth: with "messages.fields" flat,
// messages.fields.name_hash tests messages.fields.files.name_hash too
// (Wireshark's fields are names, not positions in a tree). Exact nested
// paths work as well.
type Flattener interface {
	Flat() []string
}

// Prefix is the optional protocol prefix: `bc.peer_id` is `peer_id`, so an
// expression written for Wireshark's bc dissector works here unchanged.
const Prefix = "bc."

// Filter is a compiled expression. Match is not safe for concurrent use
// (it reuses scratch space so that matching does not allocate).
type Filter struct {
	expr  string
	root  node
	atoms []atom
	// paths holds every path an atom names and every proper prefix of
	// one, so the scanner can skip whatever no atom needs.
	paths map[string]pathInfo
	// ids numbers the paths atoms name, for feeding decoded values
	// (feed.go): byID[id] is a path's atoms, names[id] the path.
	ids   map[string]int
	byID  [][]int
	names []string
	// scratch, reset per Match
	hit, seen []bool
	unesc     []byte
	path      []byte
	alias     []byte
}

// String returns the expression as given.
func (f *Filter) String() string { return f.expr }

// Fields lists the paths the expression reads, in order of first use.
func (f *Filter) Fields() []string {
	var out []string
	done := map[string]bool{}
	for _, a := range f.atoms {
		if !done[a.path] {
			done[a.path] = true
			out = append(out, a.path)
		}
	}
	return out
}

// Compile parses expr and checks it against s: unknown fields and type
// mismatches are errors (*Error), reported before any record is read.
func Compile(expr string, s Schema) (*Filter, error) {
	p := &parser{src: expr, schema: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	f := &Filter{expr: expr}
	p.f = f
	if p.peek().kind == tEOF {
		return nil, p.errAt(len(expr), "empty filter expression", "")
	}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t.pos, "unexpected "+t.describe(), "expected and, or or the end of the expression")
	}
	f.root = root
	f.paths = map[string]pathInfo{}
	for i, a := range f.atoms {
		pi := f.paths[a.path]
		pi.atoms = append(pi.atoms, i)
		f.paths[a.path] = pi
		for j := strings.IndexByte(a.path, '.'); j >= 0; j = nextDot(a.path, j) {
			pi := f.paths[a.path[:j]]
			pi.inner = true
			f.paths[a.path[:j]] = pi
		}
	}
	if fl, ok := s.(Flattener); ok {
		for _, root := range fl.Flat() {
			for _, a := range f.atoms {
				if strings.HasPrefix(a.path, root+".") {
					pi := f.paths[root]
					pi.flat = true
					f.paths[root] = pi
					break
				}
			}
		}
	}
	f.hit = make([]bool, len(f.atoms))
	f.seen = make([]bool, len(f.atoms))
	f.indexPaths()
	return f, nil
}

func nextDot(s string, j int) int {
	k := strings.IndexByte(s[j+1:], '.')
	if k < 0 {
		return -1
	}
	return j + 1 + k
}

// Match reports whether the expression is true for one JSON object.
// Malformed JSON matches nothing.
func (f *Filter) Match(record []byte) bool {
	clear(f.hit)
	clear(f.seen)
	sc := scanner{f: f, b: record, path: f.path[:0], flat: -1}
	sc.object(0)
	f.path = sc.path[:0] // keep the grown buffer for the next record
	return !sc.bad && f.root.eval(f)
}

// pathInfo says what a path means to the filter: atoms to test on its
// values, whether paths below it matter (inner), and whether it is a
// Flattener's root that atoms name fields below (flat).
type pathInfo struct {
	atoms []int
	inner bool
	flat  bool
}

// op is a relation.
type op uint8

const (
	opPresent op = iota
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opContains
	opMatches
	opIn
)

var opNames = [...]string{opPresent: "", opEq: "==", opNe: "!=", opLt: "<", opLe: "<=",
	opGt: ">", opGe: ">=", opContains: "contains", opMatches: "matches", opIn: "in"}

func (o op) String() string { return opNames[o] }

// atom is one relation on one path. A record satisfies it when any value
// at the path does (hit); seen records that the path is present at all.
type atom struct {
	path string
	typ  Type
	op   op // opNe is stored as opEq and negated by its node
	// one literal for relations, several for in
	lits []literal
	re   *regexp.Regexp
}

// literal is a value from the expression, pre-converted for the field's
// type. For in, hi is set on ranges (lo..hi, inclusive).
type literal struct {
	num   number
	hi    number
	rng   bool
	str   string
	bytes []byte // str, for comparisons that must not convert per record
	boolv bool
}

// node is the boolean structure over atoms.
type node interface {
	eval(f *Filter) bool
}

type (
	andNode  struct{ l, r node }
	orNode   struct{ l, r node }
	notNode  struct{ x node }
	atomNode struct {
		i   int
		neg bool // !=: present and no value equal
	}
)

func (n andNode) eval(f *Filter) bool { return n.l.eval(f) && n.r.eval(f) }
func (n orNode) eval(f *Filter) bool  { return n.l.eval(f) || n.r.eval(f) }
func (n notNode) eval(f *Filter) bool { return !n.x.eval(f) }
func (n atomNode) eval(f *Filter) bool {
	if n.neg {
		return f.seen[n.i] && !f.hit[n.i]
	}
	return f.hit[n.i]
}
