package dissecttest

//go:generate go run ./cmd/genconformance -o ../../testdata/captures

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/transporttest"
)

// ConformanceStart is the fixed start time of the conformance capture.
var ConformanceStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Longest strings the generator writes: a str8 at its limit; the 16- and
// 32-bit lengths at a size that needs fragments (a whole u16 would pass
// the 64 KiB a flow may buffer).
const (
	longStr8  = 255
	longStr16 = 1500
	fragSize  = 400 // payload bytes per fragment, like the stock client's
)

// Truth is one line of the truth file.
type Truth struct {
	Frame       int             `json:"frame"`
	Msg         int             `json:"msg"` // the message's index in the datagram
	Dir         string          `json:"dir"` // "c2s" or "s2c"
	Reassembled bool            `json:"reassembled,omitempty"`
	Frags       int             `json:"frags,omitempty"`
	Duplicate   bool            `json:"duplicate,omitempty"` // a fragment bcdump marks duplicate (no fields)
	Opcode      int             `json:"opcode"`
	OpcodeName  string          `json:"opcode_name,omitempty"`
	Malformed   bool            `json:"malformed,omitempty"` // the layout fails (fields up to the failure)
	Fields      json.RawMessage `json:"fields,omitempty"`
	Branches    []string        `json:"branches,omitempty"`
}

// Conformance returns the conformance session and its truth.
func Conformance() (*Session, []Truth) {
	c := newConfGen()
	c.build()
	return c.s, c.truth
}

// WriteTruth writes truth lines as JSON Lines.
func WriteTruth(truth []Truth) []byte {
	var b bytes.Buffer
	for _, t := range truth {
		line, err := json.Marshal(t)
		if err != nil {
			panic(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// ---------------------------------------------------------------- branches

// LayoutKey names a layout by the lowest opcode that has it (layouts are
// shared: 0x06 stands for every serialized event).
func LayoutKey(op uint8) string {
	ls := game.Layouts()
	for _, c := range slices.Sorted(maps.Keys(ls)) {
		if sameLayout(ls[c], ls[op]) {
			return fmt.Sprintf("0x%02X", c)
		}
	}
	return fmt.Sprintf("0x%02X", op)
}

func sameLayout(a, b game.Layout) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// Branches lists every branch of every layout, by layout key, as the
// generator and BranchesOf name them.
func Branches() []string {
	seen := map[string]bool{}
	ls := game.Layouts()
	for _, c := range slices.Sorted(maps.Keys(ls)) {
		key := LayoutKey(c)
		if seen[key+" "] {
			continue
		}
		seen[key+" "] = true
		staticBranches(key, "", ls[c], seen, false)
	}
	var out []string
	for b := range seen {
		if !strings.HasSuffix(b, " ") {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out
}

// staticBranches adds the branches of steps; left is set inside an "if
// bytes are left", where a rest cannot be empty.
func staticBranches(key, path string, steps []game.Step, out map[string]bool, left bool) {
	type frame struct {
		path string
		left bool
	}
	in := []frame{{path, left}} // the branch being walked
	var open []frame            // each step with branches: its path, and whether bytes are left in its Body
	game.Walk(steps, game.Visit{
		OnStep: func(i int, s *game.Step) game.Action {
			f := in[len(in)-1]
			p := stepPath(f.path, i, *s)
			for _, arm := range arms(*s) {
				if f.left && s.Op == game.OpRest && arm == "empty" {
					continue
				}
				out[key+" "+p+" "+arm] = true
			}
			inLeft := f.left || s.Op == game.OpIf && s.Ref == "left" && s.Cmp == "ne" && s.Value == 0
			open = append(open, frame{p, inLeft})
			return game.Into
		},
		OnBranch: func(s *game.Step, b game.Branch) bool {
			o := open[len(open)-1]
			switch b.Kind {
			case game.BranchBody:
				in = append(in, o)
			case game.BranchCase:
				in = append(in, frame{fmt.Sprintf("%s/0x%X", o.path, b.Value), in[len(in)-1].left})
			case game.BranchElse:
				in = append(in, frame{o.path + "/else", in[len(in)-1].left})
			default:
				return false // a Shape has no branches to cover
			}
			return true
		},
		OnEndBranch: func(*game.Step, game.Branch) { in = in[:len(in)-1] },
		OnLeave:     func(*game.Step) { open = open[:len(open)-1] },
	})
}

// stepPath names step i of a step list: its index and what it is.
func stepPath(parent string, i int, s game.Step) string {
	name := s.Name
	switch s.Op {
	case game.OpIf, game.OpSwitch, game.OpRepeat:
		name = s.Ref
		if s.Peek {
			name = "peek"
		}
	}
	p := fmt.Sprintf("%d.%s", i, s.Op)
	if name != "" {
		p += "(" + name + ")"
	}
	if parent != "" {
		return parent + "/" + p
	}
	return p
}

// arms are the ways a step can go.
func arms(s game.Step) []string {
	switch s.Op {
	case game.OpIf:
		return []string{"then", "else"}
	case game.OpSwitch:
		var out []string
		for _, c := range s.Cases {
			out = append(out, fmt.Sprintf("case 0x%X", c.Value))
		}
		return append(out, "default")
	case game.OpRepeat, game.OpPairs, game.OpRest:
		return []string{"empty", "non-empty"}
	case game.OpStr8, game.OpStr16, game.OpStr32Z:
		return []string{"shortest", "longest"}
	case game.OpChecksumRequest:
		return []string{"recursive bit group", "recursive plain byte"}
	case game.OpChecksumResponse:
		arms := []string{"round 0 (ref_hash)", "round other", "no files", "files", "no subdirs", "subdirs"}
		for d := 1; d <= checksum.MaxDepth; d++ {
			arms = append(arms, fmt.Sprintf("depth %d", d))
		}
		return arms
	}
	return nil
}

// ---------------------------------------------------------------- JSON values

// jobj is a JSON object that keeps its keys in order, as bcdump writes them.
type jobj struct {
	k []string
	v []any
}

func (o *jobj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.k {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.v[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type jarr struct{ v []any }

func (a *jarr) MarshalJSON() ([]byte, error) {
	if a.v == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(a.v)
}

// f32 is a float32 written with the fewest digits that read back as it.
type f32 float32

func (f f32) MarshalJSON() ([]byte, error) {
	v := float32(f)
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(v), 'g', -1, 32), nil
}

func hexText(v uint64, n int) string { return fmt.Sprintf("0x%0*X", 2*n, v) }

// cf16 decodes a compressed float as section 8.4 of the spec says, in
// float32 steps as the game does.
func cf16(u uint16) float32 {
	s := int(u>>12) & 7
	lo, hi := float32(0), float32(0.001)
	for ; s > 0; s-- {
		lo, hi = hi, hi*10
	}
	frac := float32(float32(u&0x0FFF) / 4095)
	v := lo + float32(frac*float32(hi-lo))
	if u&0x8000 != 0 {
		v = -v
	}
	return v
}

// objectLabel is section 8.5's reading of an object id.
func objectLabel(id uint32) string {
	switch {
	case id == 0:
		return "none"
	case id == 0xFFFFFFFF:
		return "self"
	case id >= game.PlayerIDBase && (id-game.PlayerIDBase)/game.PlayerIDStride < 32:
		return "slot " + strconv.Itoa(int((id-game.PlayerIDBase)/game.PlayerIDStride))
	}
	return ""
}

// ---------------------------------------------------------------- encoder

// enc writes one payload from a layout, choosing values, and records the
// fields it wrote and the branches it took.
type enc struct {
	rng      *rand.Rand
	key      string
	cands    map[string][]uint64
	masks    map[string][]uint64
	p        []byte
	vars     map[string]uint64
	grpAt    int // the open bit group's byte, -1 before the first
	grpN     int
	stack    []any // *jobj or *jarr
	last     string
	lastObj  *jobj
	forced   *uint32 // the class id a peeking switch chose
	restFull bool    // the next rest must hold bytes (an "if left" took then)
	failed   bool
	branches []string
	long     bool // choose the longest strings
}

func (e *enc) top() any { return e.stack[len(e.stack)-1] }

func (e *enc) put(name string, v any) {
	switch c := e.top().(type) {
	case *jobj:
		c.k, c.v = append(c.k, name), append(c.v, v)
		e.last, e.lastObj = name, c
	case *jarr:
		c.v = append(c.v, v)
		e.last, e.lastObj = "", nil
	}
}

func (e *enc) label(text string) {
	if text == "" || e.last == "" || e.lastObj == nil {
		return
	}
	e.lastObj.k, e.lastObj.v = append(e.lastObj.k, e.last+"_name"), append(e.lastObj.v, text)
}

func (e *enc) open(name string, c any) {
	e.put(name, c)
	e.stack = append(e.stack, c)
	e.last, e.lastObj = "", nil
}

func (e *enc) close() {
	e.stack = e.stack[:len(e.stack)-1]
	e.last, e.lastObj = "", nil
}

func (e *enc) took(path, arm string) { e.branches = append(e.branches, e.key+" "+path+" "+arm) }

// choose picks a value for a read that keeps variable v (or none).
func (e *enc) choose(v string, bits int) uint64 {
	max := uint64(1)<<bits - 1
	if v != "" {
		cs, ms := e.cands[v], e.masks[v]
		if len(ms) > 0 && e.rng.IntN(2) == 0 {
			var x uint64
			for _, m := range ms {
				if e.rng.IntN(2) == 0 {
					x |= m
				}
			}
			return x & max
		}
		if len(cs) > 0 && e.rng.IntN(5) > 0 {
			return cs[e.rng.IntN(len(cs))] & max
		}
	}
	switch e.rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return uint64(e.rng.IntN(10))
	}
	return e.rng.Uint64() & max
}

func (e *enc) named(table string, v uint64, bits int) uint64 {
	if tab := game.NameTables()[table]; table != "" && len(tab) > 0 && e.rng.IntN(3) > 0 {
		keys := slices.Sorted(maps.Keys(tab))
		return keys[e.rng.IntN(len(keys))] & (uint64(1)<<bits - 1)
	}
	return v
}

func (e *enc) nameOf(table string, v uint64) string {
	if table == "" {
		return ""
	}
	return game.NameTables()[table][v]
}

func (e *enc) text(n int) []byte {
	const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-"
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[e.rng.IntN(len(abc))]
	}
	return b
}

func (e *enc) strLen(path string, long int) int {
	switch e.rng.IntN(4) {
	case 0:
		e.took(path, "shortest")
		return 0
	case 1:
		if e.long {
			e.took(path, "longest")
			return long
		}
	}
	return 1 + e.rng.IntN(24)
}

func (e *enc) float() float32 {
	switch e.rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return float32(e.rng.IntN(2001)-1000) / 8
	}
	return math.Float32frombits(e.rng.Uint32()&0x3FFFFFFF | uint32(e.rng.IntN(2))<<31)
}

func (e *enc) cv3() [3]f32 {
	var v [3]f32
	for i := range v {
		b := int8(e.rng.IntN(256) - 128)
		e.p = append(e.p, byte(b))
		v[i] = f32(float32(b) / 127)
	}
	return v
}

func (e *enc) cf16() float32 {
	u := uint16(e.rng.Uint32())
	e.p = binary.LittleEndian.AppendUint16(e.p, u)
	return cf16(u)
}

// bit writes one bit-packed bool: into the open group byte while it has
// fewer than five, else into a new one (section 8.2).
func (e *enc) bit(v bool) {
	if e.grpAt < 0 || e.grpN == 5 {
		e.grpAt, e.grpN = len(e.p), 0
		e.p = append(e.p, 0)
	}
	if v {
		e.p[e.grpAt] |= 1 << e.grpN
	}
	e.grpN++
	e.p[e.grpAt] = e.p[e.grpAt]&0x1F | byte(e.grpN)<<5
}

// run writes steps; it reports whether the layout ended (done, return,
// fail).
func (e *enc) run(steps []game.Step) bool { return runLayout(e, steps) }

// enter opens the object of a container or of a loop's round.
func (e *enc) enter(s *game.Step, _ game.Branch) {
	switch s.Op {
	case game.OpObject:
		e.open(s.Name, &jobj{})
	case game.OpArray:
		e.open(s.Name, &jarr{})
	case game.OpRepeat, game.OpPairs:
		e.open("", &jobj{}) // a round: an unnamed object
	}
}

// exit closes what enter opened.
func (e *enc) exit(s *game.Step, _ game.Branch) {
	switch s.Op {
	case game.OpObject, game.OpArray, game.OpRepeat, game.OpPairs:
		e.close()
	}
}

func (e *enc) keep(s game.Step, v uint64) {
	if s.Var != "" {
		e.vars[s.Var] = v
	}
}

func (e *enc) step(p string, sp *game.Step) (game.Action, pick) {
	s := *sp
	switch s.Op {
	case game.OpU8, game.OpHex8:
		v := e.named(s.Names, e.choose(s.Var, 8), 8)
		e.keep(s, v)
		e.p = append(e.p, byte(v))
		if s.Op == game.OpU8 {
			e.put(s.Name, v)
		} else {
			e.put(s.Name, hexText(v, 1))
		}
		e.label(e.nameOf(s.Names, v))
	case game.OpHex16:
		v := e.choose(s.Var, 16)
		e.keep(s, v)
		e.p = binary.LittleEndian.AppendUint16(e.p, uint16(v))
		e.put(s.Name, hexText(v, 2))
	case game.OpHex32:
		v := e.named(s.Names, e.choose(s.Var, 32), 32)
		if e.forced != nil {
			v, e.forced = uint64(*e.forced), nil
		}
		e.keep(s, v)
		e.p = binary.LittleEndian.AppendUint32(e.p, uint32(v))
		e.put(s.Name, hexText(v, 4))
		e.label(e.nameOf(s.Names, v))
	case game.OpObjID:
		var v uint32
		switch e.rng.IntN(5) {
		case 0:
			v = 0
		case 1:
			v = 0xFFFFFFFF
		case 2, 3:
			v = game.PlayerIDBase + uint32(e.rng.IntN(33))*game.PlayerIDStride + uint32(e.rng.IntN(100))
		default:
			v = e.rng.Uint32()
		}
		e.keep(s, uint64(v))
		e.p = binary.LittleEndian.AppendUint32(e.p, v)
		if s.Name != "" {
			e.put(s.Name, hexText(uint64(v), 4))
			e.label(objectLabel(v))
		} else {
			e.put("", hexText(uint64(v), 4))
		}
	case game.OpI32:
		v := int32(uint32(e.choose(s.Var, 32)))
		if s.Var == "" && e.rng.IntN(3) == 0 {
			v = -v
		}
		if s.Names != "" && e.rng.IntN(2) == 0 {
			v = int32(e.named(s.Names, uint64(uint32(v)), 31))
		}
		e.keep(s, uint64(uint32(v)))
		e.p = binary.LittleEndian.AppendUint32(e.p, uint32(v))
		e.put(s.Name, int64(v))
		if v >= 0 {
			e.label(e.nameOf(s.Names, uint64(v)))
		}
	case game.OpF32:
		v := e.float()
		e.p = binary.LittleEndian.AppendUint32(e.p, math.Float32bits(v))
		e.put(s.Name, f32(v))
	case game.OpCF16:
		e.put(s.Name, f32(e.cf16()))
	case game.OpCV3:
		e.put(s.Name, e.cv3())
	case game.OpCV4:
		d := e.cv3()
		m := e.cf16()
		e.put(s.Name, [3]f32{f32(float32(d[0]) * m), f32(float32(d[1]) * m), f32(float32(d[2]) * m)})
	case game.OpVec3:
		var v [3]f32
		for i := range v {
			x := e.float()
			e.p = binary.LittleEndian.AppendUint32(e.p, math.Float32bits(x))
			v[i] = f32(x)
		}
		e.put(s.Name, v)
	case game.OpBit:
		v := e.rng.IntN(2) == 1
		if s.Var != "" {
			e.vars[s.Var] = b2u(v)
		}
		e.bit(v)
		e.put(s.Name, v)
	case game.OpFlag:
		e.put(s.Name, e.vars[s.Ref]>>s.N&1 == 1)
	case game.OpStr8:
		n := e.strLen(p, longStr8)
		e.p = append(e.p, byte(n))
		t := e.text(n)
		e.p = append(e.p, t...)
		e.put(s.Name, string(t))
	case game.OpStr16:
		n := e.strLen(p, longStr16)
		e.p = binary.LittleEndian.AppendUint16(e.p, uint16(n))
		t := e.text(n)
		e.p = append(e.p, t...)
		e.put(s.Name, string(t))
	case game.OpStr32Z:
		n := e.strLen(p, longStr16)
		e.p = binary.LittleEndian.AppendUint32(e.p, uint32(n))
		t := e.text(n)
		e.p = append(append(e.p, t...), 0)
		e.put(s.Name, string(t))
	case game.OpBytes:
		b := e.text(s.N)
		for i := range b {
			b[i] = byte(e.rng.IntN(256))
		}
		e.p = append(e.p, b...)
		e.put(s.Name, hex.EncodeToString(b))
	case game.OpRest:
		n := 0
		if e.restFull || e.rng.IntN(2) == 0 {
			n = 1 + e.rng.IntN(12)
		}
		e.restFull = false
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(e.rng.IntN(256))
		}
		e.took(p, map[bool]string{true: "empty", false: "non-empty"}[n == 0])
		e.p = append(e.p, b...)
		e.put(s.Name, hex.EncodeToString(b))
	case game.OpObject, game.OpArray:
		return game.Into, once(game.BranchBody)
	case game.OpIf:
		var yes bool
		if s.Ref == "left" {
			yes = e.rng.IntN(2) == 0
			e.restFull = yes
		} else {
			yes = s.Holds(e.vars[s.Ref])
		}
		if yes {
			e.took(p, "then")
			return game.Into, once(game.BranchBody)
		}
		e.took(p, "else")
		return game.Into, once(game.BranchElse)
	case game.OpSwitch:
		var v uint64
		if s.Peek {
			if e.rng.IntN(4) == 0 {
				v = uint64(e.rng.Uint32() | 0x10000)
			} else {
				v = s.Cases[e.rng.IntN(len(s.Cases))].Value
			}
			u := uint32(v)
			e.forced = &u
		} else {
			v = e.vars[s.Ref]
		}
		for _, c := range s.Cases {
			if c.Value == v {
				e.took(p, fmt.Sprintf("case 0x%X", c.Value))
				return game.Into, pick{kind: game.BranchCase, value: c.Value, rounds: 1}
			}
		}
		e.took(p, "default")
		if s.Peek && e.forced != nil {
			// nothing reads the peeked id: it is still on the wire
			e.p = binary.LittleEndian.AppendUint32(e.p, *e.forced)
			e.forced = nil
		}
		return game.Into, once(game.BranchElse)
	case game.OpRepeat:
		n := e.vars[s.Ref]
		e.took(p, map[bool]string{true: "empty", false: "non-empty"}[n == 0])
		return game.Into, pick{kind: game.BranchBody, rounds: n}
	case game.OpPairs:
		n := e.rng.IntN(4)
		e.took(p, map[bool]string{true: "empty", false: "non-empty"}[n == 0])
		return game.Into, pick{kind: game.BranchBody, rounds: uint64(n)}
	case game.OpDone, game.OpReturn:
		return game.Stop, none
	case game.OpFail:
		e.failed = true
		return game.Stop, none
	case game.OpNote:
		e.label(s.Name)
	case game.OpChecksumRequest:
		e.checksumRequest(p)
		return game.Stop, none
	case game.OpChecksumResponse:
		e.checksumResponse(p)
		return game.Stop, none
	default:
		panic("dissecttest: the conformance generator has no encoder for layout op " + string(s.Op))
	}
	return game.Skip, none
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// checksumRequest writes a ChecksumReq (section 6): round, directory and
// filter (u16 lengths), the recursive flag as a bit group or a plain byte.
func (e *enc) checksumRequest(p string) {
	round := byte(e.rng.IntN(4))
	if e.rng.IntN(4) == 0 {
		round = 0xFF
	}
	e.p = append(e.p, round)
	e.put("round", uint64(round))
	for _, name := range []string{"directory", "filter"} {
		n := e.strLen(p+"/"+name, longStr8)
		t := e.text(n)
		e.p = append(binary.LittleEndian.AppendUint16(e.p, uint16(n)), t...)
		e.put(name, string(t))
	}
	rec := e.rng.IntN(2) == 1
	if e.rng.IntN(2) == 0 {
		e.took(p, "recursive bit group")
		e.p = append(e.p, 0x20|byte(b2u(rec)))
		e.put("recursive", rec)
	} else {
		e.took(p, "recursive plain byte")
		e.p = append(e.p, byte(b2u(rec)))
		e.put("recursive", rec)
		e.label(game.NotePlainFlag)
	}
}

// checksumResponse writes a ChecksumResp: round, the reference hash in
// round 0, the directory hash, then the tree: files, subdirectory names,
// each subdirectory's tree, down to depth.
func (e *enc) checksumResponse(p string) {
	round := byte(e.rng.IntN(3))
	if e.rng.IntN(4) == 0 {
		round = 0xFF
	}
	e.p = append(e.p, round)
	e.put("round", uint64(round))
	if round == 0 {
		e.took(p, "round 0 (ref_hash)")
		h := e.rng.Uint32()
		e.p = binary.LittleEndian.AppendUint32(e.p, h)
		e.put("ref_hash", hexText(uint64(h), 4))
	} else {
		e.took(p, "round other")
	}
	h := e.rng.Uint32()
	e.p = binary.LittleEndian.AppendUint32(e.p, h)
	e.put("dir_hash", hexText(uint64(h), 4))
	depth := e.rng.IntN(checksum.MaxDepth + 1)
	e.dir(p, 0, depth)
}

func (e *enc) dir(p string, depth, maxDepth int) {
	if depth > 0 {
		e.took(p, fmt.Sprintf("depth %d", depth))
	}
	files := e.rng.IntN(4)
	e.took(p, map[bool]string{true: "no files", false: "files"}[files == 0])
	e.p = binary.LittleEndian.AppendUint16(e.p, uint16(files))
	e.put("file_count", uint64(files))
	e.open("files", &jarr{})
	for range files {
		e.open("", &jobj{})
		for _, k := range []string{"name_hash", "content_hash"} {
			h := e.rng.Uint32()
			e.p = binary.LittleEndian.AppendUint32(e.p, h)
			e.put(k, hexText(uint64(h), 4))
		}
		e.close()
	}
	e.close()
	subs := 0
	if depth < maxDepth {
		subs = 1 // one path down, so a deep tree stays a few fragments
		if depth == 0 {
			subs += e.rng.IntN(2)
		}
	}
	e.took(p, map[bool]string{true: "no subdirs", false: "subdirs"}[subs == 0])
	e.p = append(e.p, byte(subs))
	e.put("subdir_count", uint64(subs))
	names := make([]uint32, subs)
	for i := range names {
		names[i] = e.rng.Uint32()
		e.p = binary.LittleEndian.AppendUint32(e.p, names[i])
	}
	e.open("subdirs", &jarr{})
	for _, n := range names {
		e.open("", &jobj{})
		e.put("name_hash", hexText(uint64(n), 4))
		e.dir(p, depth+1, maxDepth)
		e.close()
	}
	e.close()
}

// ---------------------------------------------------------------- candidates

// candidates collects, per kept variable of a layout, the values its tests
// compare against (and one either side), its switch cases and its masks.
func candidates(steps []game.Step, cands, masks map[string][]uint64) {
	game.Walk(steps, game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			switch s.Op {
			case game.OpIf:
				if s.Mask != 0 {
					masks[s.Ref] = append(masks[s.Ref], s.Mask)
				}
				cands[s.Ref] = append(cands[s.Ref], s.Value, s.Value+1, s.Value^0xFF, 0)
			case game.OpSwitch:
				for _, c := range s.Cases {
					cands[s.Ref] = append(cands[s.Ref], c.Value)
				}
				cands[s.Ref] = append(cands[s.Ref], 0xEE)
			case game.OpRepeat:
				cands[s.Ref] = append(cands[s.Ref], 0, 1, 3)
			}
			return game.Into
		},
		OnBranch: func(_ *game.Step, b game.Branch) bool { return b.Kind != game.BranchShape },
	})
}

// ---------------------------------------------------------------- session

type confGen struct {
	s       *Session
	truth   []Truth
	seq     [2]uint16 // next reliable seq, by direction (0 c2s)
	covered map[string]bool
}

func newConfGen() *confGen {
	s := New(netip.MustParseAddrPort("10.9.0.20:2701"), netip.MustParseAddrPort("10.9.0.1:22101"), ConformanceStart)
	return &confGen{s: s, covered: map[string]bool{}}
}

func dirName(c2s bool) string {
	if c2s {
		return "c2s"
	}
	return "s2c"
}

func peerOf(c2s bool) byte {
	if c2s {
		return 2
	}
	return 1
}

func dirIdx(c2s bool) int {
	if c2s {
		return 0
	}
	return 1
}

// message is one generated payload and what it decodes to.
type message struct {
	payload  []byte
	fields   json.RawMessage
	malform  bool
	branches []string
}

func encode(rng *rand.Rand, op uint8, long bool) message {
	l := game.Layouts()[op]
	cands, masks := map[string][]uint64{}, map[string][]uint64{}
	candidates(l, cands, masks)
	root := &jobj{}
	e := &enc{rng: rng, key: LayoutKey(op), cands: cands, masks: masks, p: []byte{op},
		vars: map[string]uint64{"opcode": uint64(op)}, grpAt: -1, stack: []any{root}, long: long}
	e.run(l)
	f, err := json.Marshal(root)
	if err != nil {
		panic(err)
	}
	return message{payload: e.p, fields: f, malform: e.failed, branches: e.branches}
}

func (c *confGen) build() {
	ms := time.Millisecond
	// The stock connect, as the sample has it: the flow has a client.
	c.s.AddHex(0, true, "FF 01 03 0F C0 00 00 0A 09 00 14 8D 0A 00 00 00 00")
	c.s.AddHex(20*ms, false, "01 01 03 06 C0 00 00 02")
	dg := transporttest.AppendHeader(nil, 2, 2)
	dg = transporttest.AppendACK(dg, 0, true, false, 0) // a low ACK
	dg = transporttest.AppendLow(dg, transport.TypePeerInfo, true, true, 1, transporttest.AppendPeerInfo(nil, 2, [4]byte{10, 9, 0, 20}, "Conformance"))
	c.s.Add(15*ms, true, dg)
	c.s.Add(5*ms, false, transporttest.AppendACK(transporttest.AppendHeader(nil, 1, 1), 1, true, false, 0))

	ls := game.Layouts()
	for _, op := range slices.Sorted(maps.Keys(ls)) {
		rng := rand.New(rand.NewPCG(uint64(op), 0xBC))
		var picked []message
		// Per opcode, not only per layout: one message the layout reads
		// whole, and each case of a switch on a peeked class id (0x02 and
		// 0x03 share a layout, but each gets a full ship and a full
		// torpedo body).
		whole, ownCase := false, map[string]bool{}
		for try := 0; try < 400; try++ {
			m := encode(rng, op, try%3 == 2)
			fresh := !whole && !m.malform
			for _, b := range m.branches {
				if !c.covered[b] || peekCase(b) && !ownCase[b] && !m.malform {
					fresh = true
				}
			}
			if fresh || len(picked) < 2 {
				for _, b := range m.branches {
					c.covered[b] = true
					if !m.malform {
						ownCase[b] = true
					}
				}
				whole = whole || !m.malform
				picked = append(picked, m)
			}
		}
		// Both directions, one to three messages a datagram.
		for i := 0; i < len(picked); {
			n := min(1+i%3, len(picked)-i)
			c.send(i%2 == 0, picked[i:i+n])
			i += n
		}
	}
	c.transportShapes()
}

// peekCase reports whether branch b is a known case of a switch on a
// peeked value (ObjCreate's class id).
func peekCase(b string) bool {
	return strings.Contains(b, ".switch(peek) case ")
}

// send sends msgs in one direction: the short ones bundled in one
// datagram, each long one in fragments; the other side ACKs them.
func (c *confGen) send(c2s bool, msgs []message) {
	var short []message
	for _, m := range msgs {
		if len(m.payload) > fragSize {
			c.sendFragmented(c2s, m, nil)
			continue
		}
		short = append(short, m)
	}
	if len(short) == 0 {
		return
	}
	dg := transporttest.AppendHeader(nil, peerOf(c2s), byte(len(short)))
	var seqs []uint16
	frame := len(c.s.Datagrams) + 1
	for i, m := range short {
		h := transporttest.DataHeader{Reliable: i%4 != 3, Ordered: true}
		if h.Reliable {
			h.Seq = c.nextSeq(c2s)
			seqs = append(seqs, h.Seq)
		}
		dg = transporttest.AppendData(dg, h, m.payload)
		c.truth = append(c.truth, c.truthOf(frame, i, c2s, m))
	}
	c.s.Add(30*time.Millisecond, c2s, dg)
	c.ack(!c2s, seqs)
}

func (c *confGen) nextSeq(c2s bool) uint16 {
	s := c.seq[dirIdx(c2s)]
	c.seq[dirIdx(c2s)]++
	return s
}

func (c *confGen) truthOf(frame, idx int, c2s bool, m message) Truth {
	op := m.payload[0]
	return Truth{Frame: frame, Msg: idx, Dir: dirName(c2s), Opcode: int(op), OpcodeName: game.Lookup(op).Name,
		Malformed: m.malform, Fields: m.fields, Branches: m.branches}
}

// ack sends the plain ACKs of seqs from side c2s, bundled.
func (c *confGen) ack(c2s bool, seqs []uint16) {
	if len(seqs) == 0 {
		return
	}
	dg := transporttest.AppendHeader(nil, peerOf(c2s), byte(len(seqs)))
	for _, s := range seqs {
		dg = transporttest.AppendACK(dg, s, false, false, 0)
	}
	c.s.Add(5*time.Millisecond, c2s, dg)
}

// sendFragmented sends m in fragments in the given order (nil: in order),
// each ACKed with a fragment ACK; it returns the fragments' datagrams.
func (c *confGen) sendFragmented(c2s bool, m message, order []int) (seq uint16, frags [][]byte) {
	seq = c.nextSeq(c2s)
	parts := fragment(m.payload, fragSize)
	if order == nil {
		for i := range parts {
			order = append(order, i)
		}
	}
	for k, i := range order {
		h := transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq, Fragment: true, FragIdx: uint8(i), FragTotal: uint8(len(parts))}
		dg := transporttest.AppendData(transporttest.AppendHeader(nil, peerOf(c2s), 1), h, parts[i])
		c.s.Add(20*time.Millisecond, c2s, dg)
		frags = append(frags, dg)
		if k == len(order)-1 { // the fragment that completes it
			t := c.truthOf(len(c.s.Datagrams), 0, c2s, m)
			t.Reassembled, t.Frags = true, len(parts)
			c.truth = append(c.truth, t)
		}
		ack := transporttest.AppendACK(transporttest.AppendHeader(nil, peerOf(!c2s), 1), seq, false, true, uint8(i))
		c.s.Add(5*time.Millisecond, !c2s, ack)
	}
	return seq, frags
}

// transportShapes adds the transport cases every output must handle.
func (c *confGen) transportShapes() {
	ms := time.Millisecond
	rng := rand.New(rand.NewPCG(0x7A, 0xBC))
	long := func(op uint8) message {
		for {
			m := encode(rng, op, true)
			if len(m.payload) > 2*fragSize && !m.malform {
				return m
			}
		}
	}
	// Out of order: the last fragment first, fragment 0 last.
	m := long(0x2C)
	n := (len(m.payload) + fragSize - 1) / fragSize
	order := []int{n - 1}
	for i := 1; i < n-1; i++ {
		order = append(order, i)
	}
	c.sendFragmented(false, m, append(order, 0))

	// Retransmitted whole after it was joined, then in part: every copy
	// is a duplicate.
	m = long(0x18)
	_, frags := c.sendFragmented(true, m, nil)
	c.s.Add(time.Second, true, frags[0])
	c.dupTruth(true, m)
	for _, dg := range frags {
		c.s.Add(5*ms, true, dg)
		c.dupTruth(true, m)
	}

	// A fragment repeated before the message is complete.
	m = long(0x2D)
	parts := fragment(m.payload, fragSize)
	seq := c.nextSeq(false)
	for k, i := range []int{0, 0, 1} {
		h := transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq, Fragment: true, FragIdx: uint8(i), FragTotal: uint8(len(parts))}
		c.s.Add(20*ms, false, transporttest.AppendData(transporttest.AppendHeader(nil, 1, 1), h, parts[i]))
		if k == 1 {
			c.truth = append(c.truth, Truth{Frame: len(c.s.Datagrams), Dir: "s2c", Duplicate: true, Opcode: int(m.payload[0])})
		}
	}
	for i := 2; i < len(parts); i++ {
		h := transporttest.DataHeader{Reliable: true, Ordered: true, Seq: seq, Fragment: true, FragIdx: uint8(i)}
		c.s.Add(20*ms, false, transporttest.AppendData(transporttest.AppendHeader(nil, 1, 1), h, parts[i]))
	}
	t := c.truthOf(len(c.s.Datagrams), 0, false, m)
	t.Reassembled, t.Frags = true, len(parts)
	c.truth = append(c.truth, t)
	c.s.Add(5*ms, true, transporttest.AppendACK(transporttest.AppendHeader(nil, 2, 1), seq, false, true, uint8(len(parts)-1)))

	// A single message retransmitted (the stock 1 s resend): each copy
	// decodes; an ACK bundled with data answers it.
	m = encode(rng, 0x2C, false)
	h := transporttest.DataHeader{Reliable: true, Ordered: true, Seq: c.nextSeq(true)}
	dg := transporttest.AppendData(transporttest.AppendHeader(nil, 2, 1), h, m.payload)
	c.s.Add(20*ms, true, dg)
	c.truth = append(c.truth, c.truthOf(len(c.s.Datagrams), 0, true, m))
	c.s.Add(time.Second, true, dg)
	c.truth = append(c.truth, c.truthOf(len(c.s.Datagrams), 0, true, m))
	r := encode(rng, 0x2D, false)
	dg = transporttest.AppendHeader(nil, 1, 2)
	dg = transporttest.AppendACK(dg, h.Seq, false, false, 0)
	dg = transporttest.AppendData(dg, transporttest.DataHeader{Reliable: true, Ordered: true, Seq: c.nextSeq(false)}, r.payload)
	c.s.Add(10*ms, false, dg)
	c.truth = append(c.truth, c.truthOf(len(c.s.Datagrams), 1, false, r))
}

// dupTruth records that the fragment of m in the latest datagram is a
// duplicate.
func (c *confGen) dupTruth(c2s bool, m message) {
	c.truth = append(c.truth, Truth{Frame: len(c.s.Datagrams), Dir: dirName(c2s), Duplicate: true, Opcode: int(m.payload[0])})
}

// ---------------------------------------------------------------- tracing

// BranchesOf reads a game payload (byte 0 the opcode) as its layout says
// and returns the branches it takes, named as Branches names them, up to
// where the payload ends or fails. It is how the branch coverage of real
// captures is counted.
func BranchesOf(payload []byte) []string {
	if len(payload) == 0 {
		return nil
	}
	l, ok := game.Layouts()[payload[0]]
	if !ok {
		return nil
	}
	tr := &tracer{p: payload, off: 1, key: LayoutKey(payload[0]), vars: map[string]uint64{"opcode": uint64(payload[0])}, grpAt: -1}
	func() {
		defer func() {
			if r := recover(); r != nil && r != errShort {
				panic(r)
			}
		}()
		runLayout(tr, l)
	}()
	return tr.branches
}

type shortRead struct{}

var errShort = shortRead{}

type tracer struct {
	p           []byte
	off         int
	key         string
	vars        map[string]uint64
	grpAt, grpN int
	grpBits     int
	branches    []string
}

func (t *tracer) took(path, arm string) { t.branches = append(t.branches, t.key+" "+path+" "+arm) }

func (t *tracer) need(n int) {
	if n < 0 || len(t.p)-t.off < n {
		panic(errShort)
	}
}

func (t *tracer) u(n int) uint64 {
	t.need(n)
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(t.p[t.off+i])
	}
	t.off += n
	return v
}

func (t *tracer) enter(*game.Step, game.Branch) {}
func (t *tracer) exit(*game.Step, game.Branch)  {}

func (t *tracer) keep(s game.Step, v uint64) {
	if s.Var != "" {
		t.vars[s.Var] = v
	}
}

func (t *tracer) str(p string, n int) {
	t.need(n)
	t.off += n
	switch {
	case n == 0:
		t.took(p, "shortest")
	case n >= longStr8:
		t.took(p, "longest")
	}
}

func (t *tracer) step(p string, sp *game.Step) (game.Action, pick) {
	s := *sp
	switch s.Op {
	case game.OpU8, game.OpHex8:
		t.keep(s, t.u(1))
	case game.OpHex16:
		t.keep(s, t.u(2))
	case game.OpHex32, game.OpObjID, game.OpI32, game.OpF32:
		t.keep(s, t.u(4))
	case game.OpCF16:
		t.u(2)
	case game.OpCV3:
		t.u(3)
	case game.OpCV4:
		t.u(5)
	case game.OpVec3:
		t.u(12)
	case game.OpBit:
		if t.grpAt < 0 || t.grpN >= t.grpBits {
			b := t.u(1)
			t.grpAt, t.grpN, t.grpBits = t.off-1, 0, int(b>>5)
			if t.grpBits == 0 || t.grpBits > 5 {
				panic(errShort)
			}
		}
		t.keep(s, uint64(t.p[t.grpAt]>>t.grpN&1))
		t.grpN++
	case game.OpFlag, game.OpNote:
	case game.OpStr8:
		t.str(p, int(t.u(1)))
	case game.OpStr16:
		t.str(p, int(t.u(2)))
	case game.OpStr32Z:
		n := int(int32(uint32(t.u(4))))
		t.str(p, n)
		t.u(1)
	case game.OpBytes:
		t.need(s.N)
		t.off += s.N
	case game.OpRest:
		t.took(p, map[bool]string{true: "empty", false: "non-empty"}[t.off == len(t.p)])
		t.off = len(t.p)
	case game.OpObject, game.OpArray:
		return game.Into, once(game.BranchBody)
	case game.OpIf:
		v := t.vars[s.Ref]
		if s.Ref == "left" {
			v = uint64(len(t.p) - t.off)
		}
		if s.Holds(v) {
			t.took(p, "then")
			return game.Into, once(game.BranchBody)
		}
		t.took(p, "else")
		return game.Into, once(game.BranchElse)
	case game.OpSwitch:
		v := t.vars[s.Ref]
		if s.Peek {
			t.need(4)
			v = uint64(binary.LittleEndian.Uint32(t.p[t.off:]))
		}
		for _, c := range s.Cases {
			if c.Value == v {
				t.took(p, fmt.Sprintf("case 0x%X", c.Value))
				return game.Into, pick{kind: game.BranchCase, value: c.Value, rounds: 1}
			}
		}
		t.took(p, "default")
		return game.Into, once(game.BranchElse)
	case game.OpRepeat:
		n := t.vars[s.Ref]
		t.took(p, map[bool]string{true: "empty", false: "non-empty"}[n == 0])
		return game.Into, pick{kind: game.BranchBody, rounds: n}
	case game.OpPairs:
		t.took(p, map[bool]string{true: "empty", false: "non-empty"}[t.off == len(t.p)])
		return game.Into, pick{kind: game.BranchBody, more: func() bool { return len(t.p)-t.off >= s.N && s.N > 0 }}
	case game.OpDone, game.OpReturn, game.OpFail:
		return game.Stop, none
	case game.OpChecksumRequest:
		t.u(1)
		t.str(p+"/directory", int(t.u(2)))
		t.str(p+"/filter", int(t.u(2)))
		switch t.u(1) {
		case 0x20, 0x21:
			t.took(p, "recursive bit group")
		case 0, 1:
			t.took(p, "recursive plain byte")
		}
		return game.Stop, none
	case game.OpChecksumResponse:
		if t.u(1) == 0 {
			t.took(p, "round 0 (ref_hash)")
			t.u(4)
		} else {
			t.took(p, "round other")
		}
		t.u(4)
		t.dir(p, 0)
		return game.Stop, none
	default:
		panic("dissecttest: the branch tracer has no reader for layout op " + string(s.Op))
	}
	return game.Skip, none
}

func (t *tracer) dir(p string, depth int) {
	if depth > checksum.MaxDepth {
		panic(errShort)
	}
	if depth > 0 {
		t.took(p, fmt.Sprintf("depth %d", depth))
	}
	files := int(t.u(2))
	t.took(p, map[bool]string{true: "no files", false: "files"}[files == 0])
	t.need(8 * files)
	t.off += 8 * files
	subs := int(t.u(1))
	t.took(p, map[bool]string{true: "no subdirs", false: "subdirs"}[subs == 0])
	t.need(4 * subs)
	t.off += 4 * subs
	for range subs {
		t.dir(p, depth+1)
	}
}
