package game

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The generator of decoders_gen.go: a Go decoder for every layout made of
// steps (the checksum handshake's are code), and a Summarizer for every
// Summaries entry. It lives in a test so that it sees the package's
// unexported tables; go generate runs it:
//
//	go test -run '^TestDecodersGenerated$' -update-decoders

var updateDecoders = flag.Bool("update-decoders", false, "rewrite decoders_gen.go from the layouts")

const decodersGen = "decoders_gen.go"

// TestDecodersGenerated: decoders_gen.go is what the generator makes of the
// layout table now.
func TestDecodersGenerated(t *testing.T) {
	want, err := generateDecoders()
	if err != nil {
		t.Fatal(err)
	}
	if *updateDecoders {
		if err := os.WriteFile(decodersGen, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(decodersGen)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal(decodersGen + " is stale: the layouts changed; run go generate ./dissect/game")
	}
}

// TestEveryLayoutRegistered: every opcode with a layout has a decoder and
// a summarizer, the generated ones or those written by hand.
func TestEveryLayoutRegistered(t *testing.T) {
	for c := range Layouts() {
		if op := Lookup(c); op.Decode == nil || op.Summary == nil {
			t.Errorf("opcode 0x%02X %s: decoder %v, summarizer %v", c, op.Name, op.Decode != nil, op.Summary != nil)
		}
	}
}

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
var readCalls = map[Op]struct{ call, conv string }{
	OpU8: {"u8", "uint64(%s)"}, OpHex8: {"hex8", "uint64(%s)"}, OpHex16: {"hex16", "uint64(%s)"},
	OpHex32: {"hex32", "uint64(%s)"}, OpObjID: {"objid", "uint64(%s)"}, OpI32: {"i32", "uint64(%s)"},
	OpF32: {"f32", ""}, OpCF16: {"cf16", ""}, OpCV3: {"cv3", ""}, OpCV4: {"cv4", ""}, OpVec3: {"vec3", ""},
	OpBit: {"bit", "b2u(%s)"}, OpStr8: {"str8", ""}, OpStr16: {"str16", ""}, OpStr32Z: {"str32z", ""},
	OpRest: {"rest", ""},
}

// gen writes one decoder.
type gen struct {
	b     bytes.Buffer
	vars  map[string]bool // kept values the steps read (Ref)
	offs  map[string]bool // kept values whose offset an OpFlag reads
	open  int             // containers open at this point
	ended bool            // the last step written returns
	peek  bool            // a peeking switch has set peek
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
func (g *gen) refs(steps []Step) {
	for _, s := range steps {
		if s.Ref != "" && s.Ref != "opcode" && s.Ref != "left" {
			g.vars[s.Ref] = true
			if s.Op == OpFlag {
				g.offs[s.Ref] = true
			}
		}
		g.refs(s.Body)
		g.refs(s.Else)
		for _, c := range s.Cases {
			g.refs(c.Body)
		}
	}
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

func (g *gen) steps(steps []Step) error {
	g.ended = false
	for _, s := range steps {
		if err := g.step(s); err != nil {
			return err
		}
	}
	return nil
}

func (g *gen) step(s Step) error {
	g.ended = false
	if rc, ok := readCalls[s.Op]; ok {
		call := fmt.Sprintf("d.%s(%q)", rc.call, s.Name)
		if s.Op == OpBytes {
			call = fmt.Sprintf("d.bytes(%q, %d)", s.Name, s.N)
		}
		keep := s.Var != "" && g.vars[s.Var]
		if !keep && s.Names == "" {
			g.line("%s", call)
			return nil
		}
		if rc.conv == "" {
			return fmt.Errorf("%s %q: a %s value cannot be kept or named", s.Op, s.Name, s.Op)
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
		return nil
	}
	switch s.Op {
	case OpBytes:
		g.line("d.bytes(%q, %d)", s.Name, s.N)
	case OpFlag:
		g.line("d.flag(%q, %s, uint8(%s), %d)", s.Name, goVar("o", s.Ref), value(s.Ref), s.N)
	case OpNote:
		g.line("d.note(%q)", s.Name)
	case OpObject, OpArray:
		g.line("d.%s(%q)", s.Op, s.Name)
		g.open++
		if err := g.steps(s.Body); err != nil {
			return err
		}
		g.open--
		if g.ended {
			return fmt.Errorf("%s %q: a layout that ends inside a container", s.Op, s.Name)
		}
		g.line("d.end()")
	case OpIf:
		v := value(s.Ref)
		if s.Mask != 0 {
			v = fmt.Sprintf("%s&0x%X", v, s.Mask)
		}
		cmp := map[string]string{"eq": "==", "ne": "!="}[s.Cmp]
		if cmp == "" {
			return fmt.Errorf("if: comparison %q", s.Cmp)
		}
		g.line("if %s %s %s {", v, cmp, lit(s.Value))
		if err := g.steps(s.Body); err != nil {
			return err
		}
		thenEnded := g.ended
		if len(s.Else) > 0 {
			g.line("} else {")
			if err := g.steps(s.Else); err != nil {
				return err
			}
		}
		g.ended = thenEnded && len(s.Else) > 0 && g.ended
		g.line("}")
	case OpSwitch:
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
		all := true
		for _, c := range s.Cases {
			g.line("case %s:", lit(c.Value))
			if err := g.steps(c.Body); err != nil {
				return err
			}
			all = all && g.ended
		}
		if s.Else != nil {
			g.line("default:")
			if err := g.steps(s.Else); err != nil {
				return err
			}
			all = all && g.ended
		} else {
			all = false
		}
		g.line("}")
		g.ended = all
	case OpRepeat:
		g.line("for i := uint64(0); i < %s && d.ok(); i++ {", value(s.Ref))
		if err := g.element(s.Body); err != nil {
			return err
		}
		g.line("}")
	case OpPairs:
		why := s.Why
		if why == "" {
			return fmt.Errorf("pairs: no Why")
		}
		g.line("for d.ok() && d.r.Len() > 0 {")
		g.line("if d.r.Len() < %d {", s.N)
		g.line("d.r.Fail(d.r.Off(), %q)", why)
		g.line("break")
		g.line("}")
		if err := g.element(s.Body); err != nil {
			return err
		}
		g.line("}")
	case OpDone:
		g.ret(true)
	case OpReturn:
		g.ret(false)
	case OpFail:
		if !g.peek {
			return fmt.Errorf("fail outside a peeking switch")
		}
		g.line("d.r.fail(d.r.Off(), why{kind: whyPeeked, what: %q, a: int(peek)})", s.Name)
		g.ret(false)
	default:
		return fmt.Errorf("op %s has no generated form", s.Op)
	}
	return nil
}

// element writes one round of a loop: an unnamed object.
func (g *gen) element(body []Step) error {
	g.line(`d.object("")`)
	g.open++
	if err := g.steps(body); err != nil {
		return err
	}
	g.open--
	if g.ended {
		return fmt.Errorf("a layout that ends inside a loop")
	}
	g.line("d.end()")
	g.ended = false
	return nil
}

// generated reports whether l is decoded by generated code: it has no step
// whose parser is code.
func generated(l Layout) bool {
	ok := true
	var walk func([]Step)
	walk = func(steps []Step) {
		for _, s := range steps {
			if s.Op == OpChecksumRequest || s.Op == OpChecksumResponse {
				ok = false
			}
			walk(s.Body)
			walk(s.Else)
			for _, c := range s.Cases {
				walk(c.Body)
			}
		}
	}
	walk(l)
	return ok
}

// opNames lists the opcodes' names for a comment.
func opNames(codes []uint8) string {
	var names []string
	for _, c := range codes {
		names = append(names, fmt.Sprintf("0x%02X %s", c, Lookup(c).Name))
	}
	return strings.Join(names, ", ")
}

func generateDecoders() ([]byte, error) {
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
	byLayout := map[*Step]*group{}
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
	b.WriteString(`// Code generated by the layout table's generator (gen_test.go) from layouts and summaries in layout.go; DO NOT EDIT.

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
		if _, ok := decodedByCode[c]; ok {
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
