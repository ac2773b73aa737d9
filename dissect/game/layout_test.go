package game

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/cipher"
)

// layoutRun interprets a Layout with the decoders' own primitives, so what
// it appends can be compared with what the opcode's Decoder appends.
type layoutRun struct {
	d    fieldReader
	p    []byte
	vars map[string]uint64
	offs map[string]int
}

func interpretLayout(l Layout, p []byte, f *Fields) error {
	f.Reset()
	r := &layoutRun{p: p, vars: map[string]uint64{"opcode": uint64(p[0])}, offs: map[string]int{}}
	r.d.start(p, f)
	r.steps(l)
	for r.d.depth > 0 {
		r.d.end()
	}
	return r.d.err()
}

func (r *layoutRun) value(ref string) uint64 {
	if ref == "left" {
		return uint64(r.d.r.Len())
	}
	return r.vars[ref]
}

func (r *layoutRun) keep(s Step, v uint64, off int) {
	if s.Var != "" {
		r.vars[s.Var], r.offs[s.Var] = v, off
	}
	if s.Names != "" {
		tab, ok := NameTables()[s.Names]
		if !ok {
			panic("unknown name table " + s.Names)
		}
		r.d.note(tab[v])
	}
}

// steps runs steps; it reports whether the layout ended.
func (r *layoutRun) steps(steps []Step) bool {
	for _, s := range steps {
		if r.step(s) {
			return true
		}
	}
	return false
}

func (r *layoutRun) step(s Step) bool {
	d := &r.d
	off := d.r.Off()
	switch s.Op {
	case OpU8:
		r.keep(s, uint64(d.u8(s.Name)), off)
	case OpHex8:
		r.keep(s, uint64(d.hex8(s.Name)), off)
	case OpHex16:
		r.keep(s, uint64(d.hex16(s.Name)), off)
	case OpHex32:
		r.keep(s, uint64(d.hex32(s.Name)), off)
	case OpObjID:
		r.keep(s, uint64(d.objid(s.Name)), off)
	case OpI32:
		r.keep(s, uint64(int64(d.i32(s.Name))), off)
	case OpF32:
		d.f32(s.Name)
	case OpCF16:
		d.cf16(s.Name)
	case OpCV3:
		d.cv3(s.Name)
	case OpCV4:
		d.cv4(s.Name)
	case OpVec3:
		d.vec3(s.Name)
	case OpBit:
		var v uint64
		if d.bit(s.Name) {
			v = 1
		}
		r.keep(s, v, off)
	case OpFlag:
		d.flag(s.Name, r.offs[s.Ref], uint8(r.vars[s.Ref]), s.N)
	case OpStr8:
		d.str8(s.Name)
	case OpStr16:
		d.str16(s.Name)
	case OpStr32Z:
		d.str32z(s.Name)
	case OpBytes:
		d.bytes(s.Name, s.N)
	case OpRest:
		d.rest(s.Name)
	case OpObject, OpArray:
		if s.Op == OpObject {
			d.object(s.Name)
		} else {
			d.array(s.Name)
		}
		ended := r.steps(s.Body)
		d.end()
		return ended
	case OpIf:
		if s.Holds(r.value(s.Ref)) {
			return r.steps(s.Body)
		}
		return r.steps(s.Else)
	case OpSwitch:
		var v uint64
		if s.Peek {
			// A failure to peek is the first case's first field's, as
			// the generated decoders have it.
			save := d.r
			v = uint64(d.r.U32())
			if !d.check(save.Failed(), s.Cases[0].Body[0].Name) {
				return true
			}
			d.r = save
		} else {
			v = r.value(s.Ref)
		}
		for _, c := range s.Cases {
			if c.Value == v {
				return r.steps(c.Body)
			}
		}
		return r.steps(s.Else)
	case OpRepeat:
		for i := 0; i < int(r.value(s.Ref)) && d.ok(); i++ {
			if r.element(s.Body) {
				return true
			}
		}
	case OpPairs:
		for d.ok() && d.r.Len() > 0 {
			if d.r.Len() < s.N {
				d.r.Fail(d.r.Off(), s.Why)
				break
			}
			if r.element(s.Body) {
				return true
			}
		}
	case OpDone:
		d.r.End()
		return true
	case OpReturn:
		return true
	case OpFail:
		d.r.Fail(off, s.Name)
		return true
	case OpNote:
		d.note(s.Name)
	case OpChecksumRequest, OpChecksumResponse:
		// The checksum package's parsers: the plugin ports them in its
		// template; here they are the decoders themselves.
		dec := decodeChecksumReq
		if s.Op == OpChecksumResponse {
			dec = decodeChecksumResp
		}
		if err := dec(r.p, d.f); err != nil {
			d.r.Fail(off, err.Error())
		}
		return true
	default:
		panic("unknown layout op " + s.Op)
	}
	return false
}

// element runs body as one unnamed object of a loop; it reports whether
// the layout ended.
func (r *layoutRun) element(body []Step) bool {
	r.d.object("")
	ended := r.steps(body)
	r.d.end()
	return ended
}

// sameFields compares two decodings, labels (notes) included.
func sameFields(a, b []Field) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d fields, layout %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		if fmt.Sprint(x) != fmt.Sprint(y) {
			return fmt.Sprintf("field %d: decoder %+v, layout %+v", i, x, y)
		}
	}
	return ""
}

// layoutPayloads are the distinct Data payloads of the test captures.
func layoutPayloads(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	paths, _ := filepath.Glob(filepath.Join(testdata, "captures", "*.pcap"))
	paths = append(paths, filepath.Join(testdata, "sample.pcap"))
	seen := map[string]bool{}
	for _, path := range paths {
		for _, u := range captureUDP(t, path) {
			if len(u) == 0 || u[0] == '\\' {
				continue
			}
			plain := append([]byte(nil), u...)
			cipher.Decrypt(plain)
			for _, p := range dataPayloads(plain) {
				if seen[string(p)] {
					continue
				}
				seen[string(p)] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// mutations are p, every truncation of it, one-byte changes and one extra
// byte, so the layouts' failure paths are compared too.
func mutations(p []byte) [][]byte {
	out := [][]byte{p}
	for n := 1; n < len(p); n++ {
		out = append(out, p[:n])
	}
	for i := 1; i < len(p) && i < 48; i++ {
		for _, x := range []byte{0x00, 0xFF, 0x21, 0x80} {
			q := append([]byte(nil), p...)
			q[i] = x
			out = append(out, q)
		}
	}
	return append(out, append(append([]byte(nil), p...), 0x00))
}

// TestLayoutsMatchDecoders proves the declarative layouts (which the
// Wireshark plugin is generated from) equal the Go decoders: same fields,
// kinds, offsets, values and the same malformed verdict on every payload of
// the test captures and on their truncations and mutations.
func TestLayoutsMatchDecoders(t *testing.T) {
	var want, got Fields
	n, perOp := 0, map[uint8]int{}
	check := func(p []byte) {
		op := Lookup(p[0])
		l, ok := Layouts()[p[0]]
		if op.Decode == nil {
			if ok {
				t.Errorf("opcode 0x%02X has a layout but no decoder", p[0])
			}
			return
		}
		if !ok {
			t.Errorf("opcode 0x%02X %s has no layout", p[0], op.Name)
			return
		}
		_, errD := Decode(p, &want)
		errL := interpretLayout(l, p, &got)
		n++
		perOp[p[0]]++
		if diff := sameFields(want.List, got.List); diff != "" {
			t.Fatalf("%s % X: %s", op.Name, p, diff)
		}
		if (errD == nil) != (errL == nil) {
			t.Fatalf("%s % X: decoder error %v, layout error %v", op.Name, p, errD, errL)
		}
	}
	payloads := layoutPayloads(t)
	mutated := map[uint8]int{}
	for _, p := range payloads {
		if mutated[p[0]] >= 25 {
			check(p)
			continue
		}
		mutated[p[0]]++
		for _, q := range mutations(p) {
			check(q)
		}
	}
	// Opcodes the captures lack: their opcode byte before each capture
	// payload's body.
	for c := 0; c < 256; c++ {
		if perOp[uint8(c)] > 0 || Lookup(uint8(c)).Decode == nil {
			continue
		}
		for _, p := range payloads[:20] {
			q := append([]byte{byte(c)}, p[1:]...)
			for _, m := range mutations(q) {
				check(m)
			}
		}
	}
	t.Logf("%d payloads decoded both ways, %d opcodes", n, len(perOp))
}

// TestSummariesMatchSummarizers checks the declarative summaries (the
// plugin's Info column) against the Summarizers on every capture payload.
func TestSummariesMatchSummarizers(t *testing.T) {
	var f Fields
	n := 0
	for _, p := range layoutPayloads(t) {
		items, ok := Summaries()[p[0]]
		if !ok {
			continue
		}
		op, _ := Decode(p, &f)
		want := string(op.Summary(nil, p, &f))
		var got []byte
		for _, it := range items {
			got = kv(got, 0, &f, it.Key, it.Label)
		}
		if string(got) != want {
			t.Fatalf("%s % X: summarizer %q, table %q", op.Name, p, want, got)
		}
		n++
	}
	for c, items := range Summaries() {
		if Lookup(c).Summary == nil || len(items) == 0 {
			t.Errorf("opcode 0x%02X: a summary table without a summarizer", c)
		}
	}
	t.Logf("%d summaries compared", n)
}

// TestShapesMatchDecoders: the Shapes of the steps whose parser is code
// (the checksum handshake's) list exactly the fields those decoders
// append on the test captures, with the same kinds.
func TestShapesMatchDecoders(t *testing.T) {
	seen := map[uint8]map[string]bool{}
	var f Fields
	for _, p := range layoutPayloads(t) {
		l := Layouts()[p[0]]
		if len(l) != 1 || l[0].Shape == nil {
			continue
		}
		kinds := map[string]Kind{}
		WalkFields(l, func(s Step, k Kind) { kinds[s.Name] = k })
		Decode(p, &f)
		if seen[p[0]] == nil {
			seen[p[0]] = map[string]bool{}
		}
		for _, fl := range f.List {
			if fl.Kind == KindEnd || fl.Name == "" {
				continue
			}
			if k, ok := kinds[fl.Name]; !ok || k != fl.Kind {
				t.Fatalf("%s % X: field %q %v, shape has %v (present %v)", Lookup(p[0]).Name, p, fl.Name, fl.Kind, k, ok)
			}
			seen[p[0]][fl.Name] = true
		}
	}
	for c, l := range Layouts() {
		if len(l) != 1 || l[0].Shape == nil {
			continue
		}
		WalkFields(l, func(s Step, _ Kind) {
			if !seen[c][s.Name] {
				t.Errorf("%s: shape field %q is in no capture's decoding", Lookup(c).Name, s.Name)
			}
		})
	}
}
