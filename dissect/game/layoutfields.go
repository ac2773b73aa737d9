package game

import (
	"slices"
	"sort"
	"strings"
)

// kindNames are the Kinds' names in the field schema and the docs.
var kindNames = [...]string{
	KindUint: "uint", KindInt: "int", KindFloat: "float", KindBool: "bool",
	KindString: "string", KindHash: "hash", KindHex: "hex", KindBytes: "bytes",
	KindVec: "vec", KindObject: "object", KindArray: "array", KindEnd: "end",
}

// String names k as the field schema does ("uint", "hex", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind?"
}

// opKinds is the Kind of field each read appends.
var opKinds = map[Op]Kind{
	OpU8: KindUint, OpU16: KindUint, OpHex8: KindHex, OpHex16: KindHex, OpHex32: KindHex,
	OpObjID: KindHex, OpI32: KindInt, OpF32: KindFloat, OpCF16: KindFloat,
	OpCV3: KindVec, OpCV4: KindVec, OpVec3: KindVec, OpBit: KindBool, OpFlag: KindBool,
	OpStr8: KindString, OpStr16: KindString, OpStr32Z: KindString,
	OpBytes: KindBytes, OpRest: KindBytes, OpHash32: KindHash,
	OpObject: KindObject, OpArray: KindArray,
}

// OpKind returns the Kind of field op appends; 0 for steps that append
// none of their own (tests, loops, notes).
func OpKind(op Op) Kind { return opKinds[op] }

// WalkFields calls fn, in layout order, for every step of steps that
// appends a named field (reads, objects, arrays), with its Kind, going
// into every branch, loop and Shape. An array of unnamed values
// (ObjCreate's orientation) has their Kind: the JSON shows it as a list of
// them, which filters as a field of that kind.
func WalkFields(steps []Step, fn func(s Step, k Kind)) {
	Walk(steps, Visit{OnStep: func(_ int, s *Step) Action {
		if k := OpKind(s.Op); k != 0 && s.Name != "" {
			if ek := elementKind(*s); ek != 0 {
				k = ek
			}
			fn(*s, k)
		}
		return Into
	}})
}

// elementKind is the Kind of the unnamed values an array step holds
// directly, 0 when it holds none (its elements are objects).
func elementKind(s Step) Kind {
	if s.Op != OpArray {
		return 0
	}
	for _, b := range s.Body {
		if k := OpKind(b.Op); k != 0 && b.Name == "" && k != KindObject && k != KindArray {
			return k
		}
	}
	return 0
}

// FieldInfo is one field name the layouts append.
type FieldInfo struct {
	Name  string
	Kinds []Kind   // distinct, sorted by name
	In    []string // the opcodes (or messages) whose layouts append it, sorted
}

// FieldInfos lists the fields of every opcode's layout, and of the
// layouts in more (by message name: the dissector's control messages),
// sorted by name. It is the field schema's source (`bcdump fields`, the
// filter, the Wireshark plugin's field names).
func FieldInfos(more map[string]Layout) []FieldInfo {
	byName := map[string]*FieldInfo{}
	add := func(in string, l Layout) {
		WalkFields(l, func(s Step, k Kind) {
			f := byName[s.Name]
			if f == nil {
				f = &FieldInfo{Name: s.Name}
				byName[s.Name] = f
			}
			f.Kinds = append(f.Kinds, k)
			f.In = append(f.In, in)
		})
	}
	for code, l := range layouts {
		add(Lookup(code).Name, l)
	}
	for name, l := range more {
		add(name, l)
	}
	out := make([]FieldInfo, 0, len(byName))
	for _, f := range byName {
		slices.SortFunc(f.Kinds, func(a, b Kind) int { return strings.Compare(a.String(), b.String()) })
		f.Kinds = slices.Compact(f.Kinds)
		sort.Strings(f.In)
		f.In = slices.Compact(f.In)
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
