package fieldgen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
)

// OpcodesMarkdown returns the per-opcode field reference,
// cmd/bcdump/helptopics/opcodes.md: for each layout of the table
// (dissect/game.Layouts) its fields in wire order, with kind, size, the
// condition they depend on and their label, then the control messages'
// fields (dissect.ControlShapes).
func OpcodesMarkdown() []byte {
	var b bytes.Buffer
	b.WriteString(`# Fields per opcode

What the ` + "`fields`" + ` object of a message holds for each game opcode of a
delivered type 0x32 payload (unfragmented, or ` + "`reassembled`" + `), in wire
order. This page is generated from the layout table the decoders are
generated from (dissect/game/layout.go), so it says what bcdump does.

Kinds: ` + "`uint`, `int`, `float`" + ` (from float32 on the wire), ` + "`bool`" + `,
` + "`string`" + ` (8-bit text), ` + "`hash` (`\"0x%08X\"`), `hex`" + ` (an id or flag
word, ` + "`\"0x\"`" + ` and 2 digits per byte), ` + "`bytes`" + ` (raw, a hex string),
` + "`vec` (`[x, y, z]`), `object` / `array`" + ` (nested; array elements have no
key). A key written ` + "`a.b`" + ` is ` + "`b`" + ` inside object ` + "`a`" + `; ` + "`a[].b`" + ` is ` + "`b`" + ` in
each element of array ` + "`a`" + `.

A field with a label (an enum's name, an object id's slot, a fixed note)
gets a sibling key ` + "`<key>_name`" + `. Object ids are labelled ` + "`none`" + ` (0),
` + "`self`" + ` (0xFFFFFFFF) or ` + "`slot N`" + ` (in player slot N's id range).

A payload that does not fit its layout is malformed (` + "`payload-malformed`" + `,
the fields before the fault kept). "Ends: exact" means bytes after the
layout are malformed; "ends: open" means the layout ends where its last
field does and says nothing of the rest (it takes it as bytes where a
row says "to the end").
`)
	layouts := game.Layouts()
	codes := slices.Sorted(maps.Keys(layouts))
	// Opcodes sharing a layout share a section.
	var groups [][]uint8
	seen := map[string]int{}
	for _, c := range codes {
		key := fmt.Sprint(layouts[c])
		if i, ok := seen[key]; ok {
			groups[i] = append(groups[i], c)
			continue
		}
		seen[key] = len(groups)
		groups = append(groups, []uint8{c})
	}
	for _, g := range groups {
		var names []string
		for _, c := range g {
			names = append(names, fmt.Sprintf("0x%02X %s", c, game.Lookup(c).Name))
		}
		fmt.Fprintf(&b, "\n## %s\n\n", strings.Join(names, ", "))
		d := &docWriter{vars: map[string]game.Step{}}
		d.steps(layouts[g[0]], "", nil)
		d.write(&b)
	}

	var none []string
	for c := 0; c < 256; c++ {
		if _, ok := layouts[uint8(c)]; !ok && game.Lookup(uint8(c)).Known {
			none = append(none, fmt.Sprintf("0x%02X %s", c, game.Lookup(uint8(c)).Name))
		}
	}
	fmt.Fprintf(&b, `
## Opcodes without a layout

No `+"`fields`"+`, the raw `+"`payload_hex`"+`, never an error: %s, and the free
and mod ranges (named `+"`Unused05`, `MaxMessageTypes?`, `ModNN`"+`).
`, strings.Join(none, ", "))
	b.WriteString(`
## Control messages (transport types 0x00, 0x03, 0x05)

Not game opcodes, but their payloads also come as ` + "`fields`" + `. A Connect
from peer 0xFF is a request (` + "`role`" + ` "request", ` + "`ip`, `port_bytes`" + `);
from the host, an assignment (` + "`role`" + ` "assign", ` + "`assigned_peer_id`" + `).

| Message | Key | Kind |
|---------|-----|------|
`)
	shapes := dissect.ControlShapes()
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		game.WalkFields(shapes[name], func(s game.Step, k game.Kind) {
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", name, s.Name, k)
		})
	}
	return b.Bytes()
}

// docWriter collects the rows of one layout.
type docWriter struct {
	rows  [][5]string          // key, kind, size, when, label
	vars  map[string]game.Step // kept value -> the read that kept it
	ends  string
	ended bool
}

func (d *docWriter) write(b *bytes.Buffer) {
	if len(d.rows) == 0 {
		b.WriteString("No fields.\n")
	} else {
		b.WriteString("| Key | Kind | Bytes | When | Label |\n|-----|------|-------|------|-------|\n")
		for _, r := range d.rows {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", r[0], r[1], r[2], r[3], r[4])
		}
	}
	if d.ends != "" {
		fmt.Fprintf(b, "\nEnds: %s.\n", d.ends)
	}
}

// sizes says how many bytes a read takes.
var sizes = map[game.Op]string{
	game.OpU8: "1", game.OpU16: "2", game.OpHex8: "1", game.OpHex16: "2", game.OpHex32: "4",
	game.OpObjID: "4", game.OpI32: "4", game.OpF32: "4 (f32)", game.OpCF16: "2 (cf16)",
	game.OpCV3: "3 (cv3)", game.OpCV4: "5 (cv4)", game.OpVec3: "12 (3 x f32)", game.OpBit: "1 bit",
	game.OpStr8: "u8 length + text", game.OpStr16: "u16 length + text",
	game.OpStr32Z: "i32 length + text + NUL", game.OpHash32: "4", game.OpRest: "to the end",
}

// number writes a value: small ones in decimal.
func number(v uint64) string {
	if v < 10 {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("0x%X", v)
}

func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// subject names a kept value in a condition.
func (d *docWriter) subject(ref string) string {
	switch ref {
	case "opcode":
		return "opcode"
	case "left":
		return "bytes left"
	}
	if s, ok := d.vars[ref]; ok {
		return "`" + s.Name + "`"
	}
	return ref
}

// valueName is v with its name in the table a kept value's read uses.
func (d *docWriter) valueName(ref string, v uint64) string {
	out := number(v)
	if s, ok := d.vars[ref]; ok && s.Names != "" {
		if n := game.NameTables()[s.Names][v]; n != "" {
			out += " (" + n + ")"
		}
	}
	return out
}

func (d *docWriter) label(s game.Step) string {
	switch {
	case s.Names != "":
		tab := game.NameTables()[s.Names]
		vals := slices.Sorted(maps.Keys(tab))
		if len(vals) > 8 {
			return fmt.Sprintf("name from the %s table (%d names)", s.Names, len(vals))
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, number(v)+" "+tab[v])
		}
		return esc(strings.Join(parts, ", "))
	case s.Op == game.OpObjID:
		return "object slot"
	}
	return ""
}

func (d *docWriter) row(key, kind, size string, when []string, label string) {
	d.rows = append(d.rows, [5]string{key, kind, size, esc(strings.Join(when, "; ")), label})
}

// docFrame is where a step list's rows go: under key prefix pre, when
// the conditions in when hold; cond is a branching step's own condition
// (its subject, for a switch and its ref).
type docFrame struct {
	pre       string
	when      []string
	cond, ref string
}

// steps adds the rows of steps under key prefix pre, when the conditions
// in when hold, going through them with game.Walk. After a step that ends
// the layout (d.ended) the rest of its step list adds none; an If's or a
// Switch's branch that ends it does not end the steps after the branch.
func (d *docWriter) steps(steps []game.Step, pre string, when []string) {
	in := []docFrame{{pre: pre, when: when}} // the step list being walked
	var open []docFrame                      // each step with branches being walked
	with := func(when []string, c string) []string { return append(slices.Clone(when), c) }
	game.Walk(steps, game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			if d.ended {
				return game.Skip
			}
			f := in[len(in)-1]
			if !d.step(*s, &f) {
				return game.Skip
			}
			open = append(open, f)
			return game.Into
		},
		OnBranch: func(s *game.Step, b game.Branch) bool {
			f := open[len(open)-1]
			switch s.Op {
			case game.OpObject:
				f.pre += s.Name + "."
			case game.OpArray:
				f.pre += s.Name + "[]."
			case game.OpIf:
				if b.Kind == game.BranchElse {
					if len(b.Steps) == 0 {
						return false
					}
					f.when = with(f.when, "not "+f.cond)
				} else {
					f.when = with(f.when, f.cond)
				}
			case game.OpSwitch:
				if b.Kind == game.BranchElse {
					f.when = with(f.when, f.cond+" any other value")
				} else {
					f.when = with(f.when, f.cond+" = "+d.valueName(f.ref, b.Value))
				}
			case game.OpRepeat:
				f.when = with(f.when, d.subject(s.Ref)+" times")
			case game.OpPairs:
				f.when = with(f.when, fmt.Sprintf("%d-byte entries to the end", s.N))
			case game.OpChecksumRequest, game.OpChecksumResponse:
				if b.Kind != game.BranchShape {
					return false
				}
			}
			in = append(in, f)
			return true
		},
		OnEndBranch: func(s *game.Step, _ game.Branch) {
			in = in[:len(in)-1]
			if s.Op == game.OpIf || s.Op == game.OpSwitch {
				d.ended = false
			}
		},
		OnLeave: func(s *game.Step) {
			open = open[:len(open)-1]
			if s.Op == game.OpChecksumRequest || s.Op == game.OpChecksumResponse {
				d.ends = "as the checksum codec reads it (section 7.6)"
				d.ended = true
			}
		},
	})
}

// step adds the rows of step s in f; for a step with branches it sets
// f's condition and reports true: steps adds the rows of its branches.
func (d *docWriter) step(s game.Step, f *docFrame) (branches bool) {
	pre, when := f.pre, f.when
	if s.Var != "" {
		d.vars[s.Var] = s
	}
	switch s.Op {
	case game.OpObject, game.OpArray:
		d.row("`"+pre+s.Name+"`", string(s.Op), "", when, "")
		return true
	case game.OpFlag:
		d.row("`"+pre+s.Name+"`", "bool", fmt.Sprintf("bit %d of `%s`", s.N, d.vars[s.Ref].Name), when, "")
		return false
	case game.OpNote:
		if n := len(d.rows); n > 0 {
			d.rows[n-1][4] = esc(s.Name)
		}
		return false
	case game.OpBytes:
		d.row("`"+pre+s.Name+"`", "bytes", fmt.Sprint(s.N), when, "")
		return false
	case game.OpIf:
		cond := d.subject(s.Ref)
		if s.Mask != 0 {
			cond += fmt.Sprintf(" & 0x%02X", s.Mask)
		}
		op := map[string]string{"eq": "=", "ne": "≠"}[s.Cmp]
		c := fmt.Sprintf("%s %s %s", cond, op, d.valueName(s.Ref, s.Value))
		if v, ok := d.vars[s.Ref]; ok && game.OpKind(v.Op) == game.KindBool && s.Value == 0 && s.Mask == 0 {
			c = cond + map[string]string{"eq": " not set", "ne": " set"}[s.Cmp]
		}
		f.cond = c
		return true
	case game.OpSwitch:
		subject, ref := d.subject(s.Ref), s.Ref
		if s.Peek && len(s.Cases) > 0 && len(s.Cases[0].Body) > 0 {
			first := s.Cases[0].Body[0]
			subject, ref = "`"+first.Name+"`", "peek"
			d.vars["peek"] = first
		}
		f.cond, f.ref = subject, ref
		return true
	case game.OpRepeat, game.OpPairs:
		return true
	case game.OpDone:
		d.end("exact", when)
		return false
	case game.OpReturn:
		d.end("open", when)
		return false
	case game.OpFail:
		d.row("", "", "", when, "malformed: "+esc(strings.ReplaceAll(s.Name, "%08X", "…")))
		d.ended = true
		return false
	case game.OpChecksumRequest, game.OpChecksumResponse:
		return true // its Shape's rows, then the end
	}
	k := game.OpKind(s.Op)
	if k == 0 {
		panic("fieldgen: no doc form for op " + string(s.Op))
	}
	key := "`" + pre + s.Name + "`"
	if s.Name == "" {
		key = "`" + strings.TrimSuffix(pre, ".") + "` element"
	}
	d.row(key, k.String(), sizes[s.Op], when, d.label(s))
	return false
}

// end records how the layout ends when the conditions hold.
func (d *docWriter) end(how string, when []string) {
	d.ended = true
	if len(when) > 0 {
		how += " when " + strings.Join(when, "; ")
	}
	if d.ends != "" {
		d.ends += "; "
	}
	d.ends += how
}
