// Package decodergen writes dissect/game/decoders_gen.go: a Go decoder for
// every layout of the layout table (game.Layouts) made of steps (the
// checksum handshake's are code), and a Summarizer for every Summaries
// entry. It goes through a layout with game.Walk, as the field schema, the
// Wireshark plugin and the conformance generator do; go generate runs it
// (the //go:generate line of dissect/game/layout.go):
//
//	go run ./internal/decodergen/cmd/gendecoders -o decoders_gen.go
//
// Its test checks that the committed decoders_gen.go is what it writes.
package decodergen

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"sort"
	"strings"

	"github.com/bcdump/bcdump/dissect/game"
)

// nameExprs turn a kept value (a uint64 expression) into its label, for
// the name tables a layout's Names refer to; a table missing here is
// looked up in nameTables.
var nameExprs = map[string]string{
	"species": "lookup(speciesNames[:], %s)",
	"torpedo": "lookup(torpedoNames[:], %s)",
	"boot":    "lookup(bootReasons[:], %s)",
	"endgame": "lookup(endGameReasons[:], %s)",
	"phaser":  "lookup(phaserLevels[:], %s)",
	"class":   "className(uint32(%s))",
	"factory": "factoryName(uint32(%s))",
	"event":   "eventName(uint32(%s))",
	"none_ff": "noneIfFF(uint8(%s))",
}

// readCalls are the fieldReader calls of the reads, and how their result
// converts to a uint64 kept value.
var readCalls = map[game.Op]struct{ call, conv string }{
	game.OpU8: {"u8", "uint64(%s)"}, game.OpHex8: {"hex8", "uint64(%s)"}, game.OpHex16: {"hex16", "uint64(%s)"},
	game.OpHex32: {"hex32", "uint64(%s)"}, game.OpObjID: {"objid", "uint64(%s)"}, game.OpI32: {"i32", "uint64(%s)"},
	game.OpF32: {"f32", ""}, game.OpCF16: {"cf16", ""}, game.OpCV3: {"cv3", ""}, game.OpCV4: {"cv4", ""}, game.OpVec3: {"vec3", ""},
	game.OpBit: {"bit", "b2u(%s)"}, game.OpStr8: {"str8", ""}, game.OpStr16: {"str16", ""}, game.OpStr32Z: {"str32z", ""},
	game.OpRest: {"rest", ""},
}

// gen writes one decoder.
type gen struct {
	b     bytes.Buffer
	vars  map[string]bool // kept values the steps read (Ref)
	offs  map[string]bool // kept values whose offset an OpFlag reads
	open  int             // containers open at this point
	ended bool            // the last step written returns
	peek  bool            // a peeking switch has set peek
	state []branchState   // of the steps with branches Walk is inside
	err   error
}

func goVar(prefix, name string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func (g *gen) line(format string, args ...any) {
	fmt.Fprintf(&g.b, format+"\n", args...)
}

// refs collects the kept values steps test, count or take flags from.
func (g *gen) refs(steps []game.Step) {
	game.Walk(steps, game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			if s.Ref != "" && s.Ref != "opcode" && s.Ref != "left" {
				g.vars[s.Ref] = true
				if s.Op == game.OpFlag {
					g.offs[s.Ref] = true
				}
			}
			return game.Into
		},
		OnBranch: func(_ *game.Step, b game.Branch) bool { return b.Kind != game.BranchShape },
	})
}

// value is the uint64 expression of a Ref.
func value(ref string) string {
	switch ref {
	case "opcode":
		return "uint64(p[0])"
	case "left":
		return "uint64(d.r.Len())"
	}
	return goVar("v", ref)
}

// lit writes a constant: small ones in decimal.
func lit(v uint64) string {
	if v < 10 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("0x%X", v)
}

// ret writes the end of the decoder at this point: closing what is open.
func (g *gen) ret(done bool) {
	if done {
		if g.open == 0 {
			g.line("return d.done()")
			g.ended = true
			return
		}
		g.line("d.r.End()")
	}
	for range g.open {
		g.line("d.end()")
	}
	g.line("return d.err()")
	g.ended = true
}

// branchState is what the generator keeps of a step with branches while
// game.Walk is inside it: whether every branch so far ended the decoder.
type branchState struct {
	thenEnded, elseEnded, all bool
}

// fail records the generator's first error and stops the walk.
func (g *gen) fail(format string, args ...any) game.Action {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
	return game.Stop
}

// Step writes a step's code up to its branches (game.Visitor).
func (g *gen) Step(_ int, s *game.Step) game.Action {
	if g.err != nil {
		return game.Stop
	}
	g.ended = false
	if rc, ok := readCalls[s.Op]; ok {
		call := fmt.Sprintf("d.%s(%q)", rc.call, s.Name)
		keep := s.Var != "" && g.vars[s.Var]
		if !keep && s.Names == "" {
			g.line("%s", call)
			return game.Skip
		}
		if rc.conv == "" {
			return g.fail("%s %q: a %s value cannot be kept or named", s.Op, s.Name, s.Op)
		}
		v := goVar("v", s.Name)
		if keep {
			v = goVar("v", s.Var)
		} else {
			g.vars["name "+s.Name] = true
		}
		if g.offs[s.Var] {
			g.line("%s = d.r.Off()", goVar("o", s.Var))
		}
		g.line("%s = "+rc.conv, v, call)
		if s.Names != "" {
			expr, ok := nameExprs[s.Names]
			if !ok {
				expr = "nameTables[" + fmt.Sprintf("%q", s.Names) + "][%s]"
			}
			g.line("d.note("+expr+")", v)
		}
		return game.Skip
	}
	switch s.Op {
	case game.OpBytes:
		g.line("d.bytes(%q, %d)", s.Name, s.N)
		return game.Skip
	case game.OpFlag:
		g.line("d.flag(%q, %s, uint8(%s), %d)", s.Name, goVar("o", s.Ref), value(s.Ref), s.N)
		return game.Skip
	case game.OpNote:
		g.line("d.note(%q)", s.Name)
		return game.Skip
	case game.OpObject, game.OpArray:
		g.line("d.%s(%q)", s.Op, s.Name)
		g.open++
	case game.OpIf:
		v := value(s.Ref)
		if s.Mask != 0 {
			v = fmt.Sprintf("%s&0x%X", v, s.Mask)
		}
		cmp := map[string]string{"eq": "==", "ne": "!="}[s.Cmp]
		if cmp == "" {
			return g.fail("if: comparison %q", s.Cmp)
		}
		g.line("if %s %s %s {", v, cmp, lit(s.Value))
	case game.OpSwitch:
		subject := value(s.Ref)
		if s.Peek {
			// The subject is the u32 at the read position, not consumed:
			// a failure to read it is the first case's first field's.
			name := "u32"
			if len(s.Cases) > 0 && len(s.Cases[0].Body) > 0 {
				name = s.Cases[0].Body[0].Name
			}
			g.line("save := d.r")
			g.line("peek := uint64(d.r.U32())")
			g.line("if !d.check(save.Failed(), %q) {", name)
			g.ret(false)
			g.line("}")
			g.line("d.r = save")
			subject = "peek"
			g.peek = true
		}
		g.line("switch %s {", subject)
	case game.OpRepeat:
		g.line("for i := uint64(0); i < %s && d.ok(); i++ {", value(s.Ref))
	case game.OpPairs:
		if s.Why == "" {
			return g.fail("pairs: no Why")
		}
		g.line("for d.ok() && d.r.Len() > 0 {")
		g.line("if d.r.Len() < %d {", s.N)
		g.line("d.r.Fail(d.r.Off(), %q)", s.Why)
		g.line("break")
		g.line("}")
	case game.OpDone:
		g.ret(true)
		return game.Skip
	case game.OpReturn:
		g.ret(false)
		return game.Skip
	case game.OpFail:
		if !g.peek {
			return g.fail("fail outside a peeking switch")
		}
		g.line("d.r.fail(d.r.Off(), why{kind: whyPeeked, what: %q, a: int(peek)})", s.Name)
		g.ret(false)
		return game.Skip
	default:
		return g.fail("op %s has no generated form", s.Op)
	}
	g.state = append(g.state, branchState{all: true})
	return game.Into
}

// Branch writes what opens a branch (game.Visitor).
func (g *gen) Branch(s *game.Step, b game.Branch, round int) bool {
	if g.err != nil || round > 0 || b.Kind == game.BranchShape {
		return false
	}
	switch s.Op {
	case game.OpIf:
		if b.Kind == game.BranchElse {
			if len(b.Steps) == 0 {
				return false
			}
			g.line("} else {")
		}
	case game.OpSwitch:
		if b.Kind == game.BranchElse {
			g.line("default:")
		} else {
			g.line("case %s:", lit(b.Value))
		}
	case game.OpRepeat, game.OpPairs:
		// One round of a loop: an unnamed object.
		g.line(`d.object("")`)
		g.open++
	}
	g.ended = false
	return true
}

// EndBranch writes what closes a branch (game.Visitor).
func (g *gen) EndBranch(s *game.Step, b game.Branch) {
	if g.err != nil {
		return
	}
	st := &g.state[len(g.state)-1]
	switch s.Op {
	case game.OpObject, game.OpArray:
		g.open--
		if g.ended {
			g.fail("%s %q: a layout that ends inside a container", s.Op, s.Name)
			return
		}
		g.line("d.end()")
	case game.OpIf:
		if b.Kind == game.BranchElse {
			st.elseEnded = g.ended
		} else {
			st.thenEnded = g.ended
		}
	case game.OpSwitch:
		st.all = st.all && g.ended
	case game.OpRepeat, game.OpPairs:
		g.open--
		if g.ended {
			g.fail("a layout that ends inside a loop")
			return
		}
		g.line("d.end()")
		g.ended = false
	}
}

// Leave writes what ends a step with branches (game.Visitor).
func (g *gen) Leave(s *game.Step) {
	st := g.state[len(g.state)-1]
	g.state = g.state[:len(g.state)-1]
	if g.err != nil {
		return
	}
	switch s.Op {
	case game.OpIf:
		g.ended = st.thenEnded && len(s.Else) > 0 && st.elseEnded
		g.line("}")
	case game.OpSwitch:
		g.line("}")
		g.ended = st.all && s.Else != nil
	case game.OpRepeat, game.OpPairs:
		g.line("}")
	}
}

// steps writes a layout's decoder body.
func (g *gen) steps(steps []game.Step) error {
	g.ended = false
	game.Walk(steps, g)
	return g.err
}

// generated reports whether l is decoded by generated code: it has no step
// whose parser is code.
func generated(l game.Layout) bool {
	ok := true
	game.Walk(l, game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			if s.Op == game.OpChecksumRequest || s.Op == game.OpChecksumResponse {
				ok = false
			}
			return game.Into
		},
		OnBranch: func(_ *game.Step, b game.Branch) bool { return b.Kind != game.BranchShape },
	})
	return ok
}

// opNames lists the opcodes' names for a comment.
func opNames(codes []uint8) string {
	var names []string
	for _, c := range codes {
		names = append(names, fmt.Sprintf("0x%02X %s", c, game.Lookup(c).Name))
	}
	return strings.Join(names, ", ")
}

// Generate returns the source of dissect/game/decoders_gen.go.
func Generate() ([]byte, error) {
	layouts, summaries := game.Layouts(), game.Summaries()
	// Opcodes sharing a layout (one variable of layout.go) share a decoder,
	// named for the first of them.
	codes := make([]uint8, 0, len(layouts))
	for c := range layouts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	type group struct {
		first uint8
		codes []uint8
	}
	var decs []*group
	byLayout := map[*game.Step]*group{}
	for _, c := range codes {
		l := layouts[c]
		if !generated(l) {
			continue
		}
		if g, ok := byLayout[&l[0]]; ok {
			g.codes = append(g.codes, c)
			continue
		}
		g := &group{first: c, codes: []uint8{c}}
		byLayout[&l[0]] = g
		decs = append(decs, g)
	}
	var sums []*group
	bySummary := map[string]*group{}
	for _, c := range codes {
		items, ok := summaries[c]
		if !ok {
			continue
		}
		key := fmt.Sprint(items)
		if g, ok := bySummary[key]; ok {
			g.codes = append(g.codes, c)
			continue
		}
		g := &group{first: c, codes: []uint8{c}}
		bySummary[key] = g
		sums = append(sums, g)
	}

	var b bytes.Buffer
	b.WriteString(`// Code generated by the layout table's generator (dissect/game/internal/decodergen) from layouts and summaries in layout.go; DO NOT EDIT.

package game

func init() {
`)
	decOf := map[uint8]string{}
	for _, g := range decs {
		for _, c := range g.codes {
			decOf[c] = fmt.Sprintf("decodeLayout%02X", g.first)
		}
	}
	sumOf := map[uint8]string{}
	for _, g := range sums {
		for _, c := range g.codes {
			sumOf[c] = fmt.Sprintf("summarizeLayout%02X", g.first)
		}
	}
	for _, c := range codes {
		dec, sum := decOf[c], sumOf[c]
		if _, ok := game.DecodedByCode(c); ok {
			dec = ""
		}
		if dec == "" && sum == "" {
			continue
		}
		if dec == "" {
			dec = "nil"
		}
		if sum == "" {
			sum = "nil"
		}
		fmt.Fprintf(&b, "\tregister(0x%02X, %s, %s)\n", c, dec, sum)
	}
	b.WriteString("}\n")

	for _, grp := range decs {
		g := &gen{vars: map[string]bool{}, offs: map[string]bool{}}
		l := layouts[grp.first]
		g.refs(l)
		if err := g.steps(l); err != nil {
			return nil, fmt.Errorf("layout of 0x%02X: %v", grp.first, err)
		}
		if !g.ended {
			g.ret(false)
		}
		fmt.Fprintf(&b, "\n// decodeLayout%02X decodes %s.\n", grp.first, opNames(grp.codes))
		fmt.Fprintf(&b, "func decodeLayout%02X(p []byte, f *Fields) error {\n", grp.first)
		b.WriteString("var d fieldReader\nd.start(p, f)\n")
		var decl []string
		for v := range g.vars {
			if name, ok := strings.CutPrefix(v, "name "); ok {
				decl = append(decl, goVar("v", name))
			} else {
				decl = append(decl, goVar("v", v))
			}
		}
		sort.Strings(decl)
		decl = slices.Compact(decl)
		if len(decl) > 0 {
			fmt.Fprintf(&b, "var %s uint64\n", strings.Join(decl, ", "))
		}
		var offs []string
		for v := range g.offs {
			offs = append(offs, goVar("o", v))
		}
		sort.Strings(offs)
		if len(offs) > 0 {
			fmt.Fprintf(&b, "var %s int\n", strings.Join(offs, ", "))
		}
		b.Write(g.b.Bytes())
		b.WriteString("}\n")
	}

	for _, g := range sums {
		items := summaries[g.first]
		fmt.Fprintf(&b, "\n// summarizeLayout%02X summarizes %s.\n", g.first, opNames(g.codes))
		fmt.Fprintf(&b, "func summarizeLayout%02X(dst, _ []byte, f *Fields) []byte {\n", g.first)
		if len(items) == 1 {
			fmt.Fprintf(&b, "return kv(dst, len(dst), f, %q, %q)\n}\n", items[0].Key, items[0].Label)
			continue
		}
		b.WriteString("start := len(dst)\n")
		for i, it := range items {
			if i == len(items)-1 {
				fmt.Fprintf(&b, "return kv(dst, start, f, %q, %q)\n", it.Key, it.Label)
			} else {
				fmt.Fprintf(&b, "dst = kv(dst, start, f, %q, %q)\n", it.Key, it.Label)
			}
		}
		b.WriteString("}\n")
	}
	return format.Source(b.Bytes())
}
