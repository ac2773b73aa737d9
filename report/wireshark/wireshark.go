// Package wireshark generates a Lua dissector plugin for Wireshark from
// bcdump's own tables: the transport types, the opcode names and layouts
// (dissect/game.Layouts), the anomaly codes, the record fields of
// `bcdump fields`, the decoders' field names and kinds (dissect.Fields,
// from the same layouts) and the cipher's tables. Nothing in the plugin is
// written by hand apart from the template plugin.lua.tmpl.
//
// It imports report/query, report/filter and report/quote, and dissect, dissect/game,
// transport, checksum and cipher for their tables.
package wireshark

import (
	_ "embed"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/bcdump/bcdump/checksum"
	"github.com/bcdump/bcdump/cipher"
	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/filter"
	"github.com/bcdump/bcdump/report/query"
	"github.com/bcdump/bcdump/report/quote"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

//go:embed plugin.lua.tmpl
var pluginTemplate string

// Port is the game port the plugin registers on (a protocol preference).
const Port = 22101

// The plugin's bounds on its flows, the counterpart in Lua of bcdump's
// tracker bounds (transport.Config): a flow idle for
// transport.DefaultFlowIdle of capture time is forgotten, and beyond
// MaxFlows flows or MaxFlowState bytes of estimated state the least
// recently active one is; each flow keeps bcdump's reassembly bounds
// (transport.DefaultMaxOpenReassemblies, DefaultMaxReassemblyBytes,
// DefaultReassemblyTimeout, DefaultMaxTrackedMessages joined messages
// remembered).
//
// The estimate is of tshark's resident memory, not of the Lua heap alone:
// flowCost a flow (its tables and key), partCost a fragment held (with its
// share of the incomplete message's tables), doneCost a joined message
// remembered for duplicates, and twice the fragments' bytes. Lua's
// collector lets its heap grow to about twice its live data and the C
// allocator keeps what it freed, so a flow of one 64-byte fragment costs
// tshark 4.0 (Lua 5.2) about 7,600 bytes of RSS (measured: 12,035 such
// flows held against 100, on 20,000 flows of dissecttest.ManyFragmentFlows),
// where collectgarbage("count") says 1,580 (931 for the flow, 646 for the
// message and fragment; 40 for a remembered message, plus its key): the
// costs are those counts scaled by 4.8. The bounds are far above what a game server's
// capture holds at once (a few dozen clients) and keep tshark with the
// plugin within 150 MB of tshark without it on a capture of 200,000 flows
// that each leave a message incomplete (TestWiresharkPluginMemory).
const (
	MaxFlows     = 16384
	MaxFlowState = 64 << 20
	flowCost     = 4600
	partCost     = 2800
	doneCost     = 336
)

// Field is one registered Wireshark field.
type Field struct {
	Abbr  string // "bc.messages.fields.round"
	Name  string // the label shown in the tree
	FType string // the Lua ProtoField constructor: uint32, int32, float, double, bool, string, none
	Base  string // "base.DEC", "base.HEX", "" for none
	Desc  string
	// Values names the plugin's Lua table whose names the tree shows for
	// the value ("Data (0x32)"); "" for none.
	Values string
}

// data is what the template renders.
type data struct {
	Port             int
	Transport        []kv
	Opcodes          []kv
	Layouts          []layoutEntry
	Summaries        []layoutEntry
	Anomalies        []anomaly.Info
	Fields           []Field
	Cols             [][]uint32
	Mults            [5]uint32
	GameFields       []string // field names below messages.fields, sorted
	ChecksumMaxDepth int
	Names            []layoutEntry // name tables (dissect/game.NameTables) by key
	PlayerIDBase     uint32
	PlayerIDStride   uint32
	NotePlainFlag    string
	HashNames        string // Lua table: checksum name hashes to names
	// The bounds of incomplete reassemblies, as bcdump's tracker has them.
	ReasmTimeout  float64 // seconds
	ReasmMaxOpen  int
	ReasmMaxBytes int
	ReasmDone     int // joined messages remembered per flow
	// The bounds of the plugin's flows: idle age (seconds, bcdump's), count
	// and estimated state, with the estimate's costs (see the constants).
	FlowIdle                     float64
	MaxFlows, MaxState           int
	FlowCost, PartCost, DoneCost int
	// NotPrint is the Lua list of the code point ranges from 0x80 up that
	// report/quote escapes (lo, hi, lo, hi, ...).
	NotPrint string
}

type kv struct {
	Code int
	Name string
}

type layoutEntry struct {
	Code int
	Lua  string
	Key  string
}

// Generate writes the plugin. names, when not nil, names the hashes of
// checksum responses (ref_hash, dir_hash, name_hash) as bcdump does with a
// manifest: pass the manifest's Resolver. bcdump names none without one,
// and neither does the plugin for nil.
func Generate(w io.Writer, names *checksum.Resolver) error {
	t, err := template.New("plugin").Funcs(template.FuncMap{
		"q":   luaString,
		"hex": func(v uint32) string { return "0x" + strconv.FormatUint(uint64(v), 16) },
	}).Parse(pluginTemplate)
	if err != nil {
		return err
	}
	d := build()
	hashes := map[uint64]string{}
	names.All(func(h uint32, n string) { hashes[uint64(h)] = n })
	d.HashNames = luaNames(hashes)
	return t.Execute(w, d)
}

func build() data {
	d := data{Port: Port}
	for t := 0; t < 256; t++ {
		if tt := transport.Type(t); tt.Known() {
			d.Transport = append(d.Transport, kv{t, tt.Name()})
		}
	}
	for c := 0; c < 256; c++ {
		d.Opcodes = append(d.Opcodes, kv{c, game.Lookup(uint8(c)).Name})
	}
	layouts := game.Layouts()
	codes := make([]int, 0, len(layouts))
	for c := range layouts {
		codes = append(codes, int(c))
	}
	sort.Ints(codes)
	for _, c := range codes {
		d.Layouts = append(d.Layouts, layoutEntry{Code: c, Lua: luaSteps(layouts[uint8(c)])})
	}
	sums := game.Summaries()
	for _, c := range codes {
		if items, ok := sums[uint8(c)]; ok {
			var parts []string
			for _, it := range items {
				parts = append(parts, "{"+luaString(it.Key)+", "+luaString(it.Label)+"}")
			}
			d.Summaries = append(d.Summaries, layoutEntry{Code: c, Lua: "{" + strings.Join(parts, ", ") + "}"})
		}
	}
	d.Anomalies = anomaly.All()
	d.Fields, d.GameFields = fields()
	d.Fields = named(d.Fields)
	d.ReasmTimeout = transport.DefaultReassemblyTimeout.Seconds()
	d.ReasmMaxOpen, d.ReasmMaxBytes = transport.DefaultMaxOpenReassemblies, transport.DefaultMaxReassemblyBytes
	d.ReasmDone = transport.DefaultMaxTrackedMessages
	d.FlowIdle = transport.DefaultFlowIdle.Seconds()
	d.MaxFlows, d.MaxState = MaxFlows, MaxFlowState
	d.FlowCost, d.PartCost, d.DoneCost = flowCost, partCost, doneCost
	cols, mults := cipher.Tables()
	for i := range cols {
		d.Cols = append(d.Cols, cols[i][:])
	}
	d.Mults = mults
	d.ChecksumMaxDepth = checksum.MaxDepth
	tabs := game.NameTables()
	for _, k := range slices.Sorted(maps.Keys(tabs)) {
		d.Names = append(d.Names, layoutEntry{Key: k, Lua: luaNames(tabs[k])})
	}
	d.PlayerIDBase, d.PlayerIDStride = game.PlayerIDBase, game.PlayerIDStride
	d.NotePlainFlag = game.NotePlainFlag
	d.NotPrint = notPrint()
	return d
}

// notPrint renders the ranges of code points from 0x80 up that
// quote.Printable rejects, as "lo, hi, lo, hi" in hex: the plugin quotes
// its Info column as bcdump quotes its table by this list.
func notPrint() string {
	var parts []string
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if quote.Printable(r) {
			continue
		}
		lo := r
		for r < unicode.MaxRune && !quote.Printable(r+1) {
			r++
		}
		parts = append(parts, fmt.Sprintf("0x%X,0x%X", lo, r))
	}
	return strings.Join(parts, ", ")
}

// luaNames renders a name table as a Lua table constructor.
func luaNames(tab map[uint64]string) string {
	vals := slices.Sorted(maps.Keys(tab))
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprintf("[0x%X]=%s", v, luaString(tab[v]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// valueNames are the fields whose tree items show a name beside the value
// ("Data (0x32)", "ChecksumResp (0x21)"): one-byte hex fields with the
// plugin's table of names. Filters and "tshark -T json" see the number.
var valueNames = map[string]string{
	"bc.messages.type":               "TRANSPORT",
	"bc.messages.opcode":             "OPCODES",
	"bc.messages.reassembled.opcode": "OPCODES",
}

// named gives the fields of valueNames their table.
func named(fs []Field) []Field {
	for i, f := range fs {
		if tab, ok := valueNames[f.Abbr]; ok {
			fs[i].FType, fs[i].Base, fs[i].Values = "uint8", "base.HEX", tab
		}
	}
	return fs
}

// labelled lists the decoder fields that may carry a label ("<name>_name"
// in bcdump's JSON): reads with a name table, object ids, fields an OpNote
// follows, and the checksum request's recursive flag.
func labelled() map[string]bool {
	// The checksum response's name hashes are labelled with their names.
	out := map[string]bool{"recursive": true, "ref_hash": true, "dir_hash": true, "name_hash": true}
	// The walk follows the steps in order; last is the field read last (""
	// after a container opens: a note there labels the container, not a
	// field). Each branch starts from the field read before its step, and
	// the step after a container or a branching step from none read.
	last := ""
	var before []string // last when each step with branches was entered
	v := game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			switch s.Op {
			case game.OpNote:
				if last != "" {
					out[last] = true
				}
			case game.OpObject, game.OpArray, game.OpIf, game.OpSwitch, game.OpRepeat, game.OpPairs:
				before = append(before, last)
				return game.Into
			}
			if s.Name != "" && (s.Names != "" || s.Op == game.OpObjID) {
				out[s.Name] = true
			}
			if s.Name != "" {
				last = s.Name
			}
			return game.Skip
		},
		OnBranch: func(s *game.Step, b game.Branch) bool {
			if b.Kind == game.BranchShape {
				return false
			}
			last = before[len(before)-1]
			if s.Op == game.OpObject || s.Op == game.OpArray {
				last = ""
			}
			return true
		},
		OnLeave: func(s *game.Step) {
			last = before[len(before)-1]
			before = before[:len(before)-1]
			if s.Op == game.OpObject || s.Op == game.OpArray {
				last = ""
			}
		},
	}
	for _, l := range game.Layouts() {
		last, before = "", before[:0]
		game.Walk(l, v)
	}
	return out
}

// fixedTypes overrides the storage of record fields that are not unsigned
// integers although their filter type is a number.
var fixedTypes = map[string]string{"rtt_ms": "double"}

// fields lists every record field `bcdump fields` names (as bc.<path>),
// then the decoders' fields (dissect.Fields) under messages.fields and
// messages.reassembled.fields.
func fields() ([]Field, []string) {
	var out []Field
	kinds := map[string][]string{}
	var game []string
	for _, f := range dissect.Fields() {
		game = append(game, f.Name)
		for _, k := range f.Kinds {
			kinds[f.Name] = append(kinds[f.Name], k.String())
		}
	}
	for _, f := range query.FieldSchema().Fields() {
		if strings.Contains(f.Path, "<") || strings.HasPrefix(f.Path, "messages.fields.") {
			continue
		}
		leaf := f.Path[strings.LastIndexByte(f.Path, '.')+1:]
		fl := Field{Abbr: "bc." + f.Path, Name: leaf, Desc: f.Meaning}
		switch f.Type {
		case filter.Number:
			fl.FType, fl.Base = "uint32", "base.DEC"
			if t, ok := fixedTypes[leaf]; ok {
				fl.FType, fl.Base = t, ""
			}
		case filter.Bool:
			fl.FType = "bool"
		case filter.Hex:
			fl.FType, fl.Base = "uint32", "base.HEX"
		case filter.Object:
			fl.FType = "none"
		default:
			fl.FType = "string"
		}
		out = append(out, fl)
	}
	labels := labelled()
	elems := elementKinds()
	for _, root := range []string{"messages.fields", "messages.reassembled.fields"} {
		for _, name := range game {
			fl := Field{Abbr: "bc." + root + "." + name, Name: name}
			fl.FType, fl.Base = gameFieldType(kinds[name])
			fl.Desc = strings.Join(kinds[name], " or ")
			if ek, ok := elems[name]; ok {
				// The plugin adds the array as a text item and each
				// element as this field: Wireshark refuses a value on a
				// field of type none.
				fl.FType, fl.Base = gameFieldType(ek)
				fl.Desc = "array of " + strings.Join(ek, " or ")
			}
			out = append(out, fl)
			if labels[name] {
				if slices.Contains(game, name+"_name") {
					panic("wireshark: label field " + name + "_name is also a decoder field")
				}
				out = append(out, Field{Abbr: fl.Abbr + "_name", Name: name + "_name", FType: "string",
					Desc: "label of " + name + ": enum name, object slot or the name a hash stands for"})
			}
		}
	}
	return out, game
}

// elementKinds returns, for the arrays whose elements are unnamed values
// (ObjCreate's orientation), the kinds of those values: the plugin shows
// such an element under its array's name, as bcdump's filter finds it.
func elementKinds() map[string][]string {
	out := map[string][]string{}
	// in is the array whose unnamed values the steps being walked are, by
	// depth: "" inside an object, a loop's round or a layout's top.
	in := []string{""}
	v := game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			array := in[len(in)-1]
			if k := game.OpKind(s.Op); k != 0 && s.Name == "" && array != "" && k != game.KindObject {
				if !slices.Contains(out[array], k.String()) {
					out[array] = append(out[array], k.String())
				}
			}
			switch s.Op {
			case game.OpArray:
				in = append(in, s.Name)
			case game.OpObject, game.OpRepeat, game.OpPairs:
				in = append(in, "") // elements that are objects: their fields have names
			default:
				in = append(in, array)
			}
			return game.Into
		},
		OnBranch: func(_ *game.Step, b game.Branch) bool { return b.Kind != game.BranchShape },
		OnLeave:  func(*game.Step) { in = in[:len(in)-1] },
	}
	for _, l := range game.Layouts() {
		game.Walk(l, v)
	}
	return out
}

// gameFieldType picks the Wireshark storage for a decoder field from the
// kinds the decoders append under its name.
func gameFieldType(kinds []string) (ftype, base string) {
	all := func(ks ...string) bool {
		for _, k := range kinds {
			if !slices.Contains(ks, k) {
				return false
			}
		}
		return len(kinds) > 0
	}
	switch {
	case all("uint"):
		return "uint32", "base.DEC"
	case all("int"):
		return "int32", "base.DEC"
	case all("uint", "int", "float", "vec"):
		// float32 values shown as doubles: Wireshark prints a float field
		// with 6 digits, a double with enough for every float32.
		return "double", ""
	case all("bool"):
		return "bool", ""
	case all("hash", "hex"):
		return "uint32", "base.HEX"
	case all("object", "array"):
		return "none", ""
	}
	return "string", ""
}

// luaSteps renders a layout as a Lua table constructor, going through it
// with game.Walk.
func luaSteps(steps []game.Step) string {
	lists := [][]string{nil} // the rendered steps of each step list being walked
	var opens []*luaBranches // of each step with branches being walked
	add := func(t string) { lists[len(lists)-1] = append(lists[len(lists)-1], t) }
	game.Walk(steps, game.Visit{
		OnStep: func(_ int, s *game.Step) game.Action {
			if s.Body == nil && s.Else == nil && s.Cases == nil {
				add(luaStep(s, nil))
				return game.Skip
			}
			opens = append(opens, &luaBranches{})
			return game.Into
		},
		OnBranch: func(_ *game.Step, b game.Branch) bool {
			if b.Kind == game.BranchShape {
				return false // a Shape is for the field list, never run
			}
			lists = append(lists, nil)
			return true
		},
		OnEndBranch: func(_ *game.Step, b game.Branch) {
			t := "{" + strings.Join(lists[len(lists)-1], ", ") + "}"
			lists = lists[:len(lists)-1]
			o := opens[len(opens)-1]
			switch b.Kind {
			case game.BranchBody:
				o.body = t
			case game.BranchCase:
				o.cases = append(o.cases, fmt.Sprintf("[0x%X]=%s", b.Value, t))
			case game.BranchElse:
				o.orelse = t
			}
		},
		OnLeave: func(s *game.Step) {
			o := opens[len(opens)-1]
			opens = opens[:len(opens)-1]
			add(luaStep(s, o))
		},
	})
	return "{" + strings.Join(lists[0], ", ") + "}"
}

// luaBranches are a step's branches rendered.
type luaBranches struct {
	body, orelse string
	cases        []string
}

// luaStep renders one step, its branches already rendered in br.
func luaStep(s *game.Step, br *luaBranches) string {
	parts := []string{"op=" + luaString(string(s.Op))}
	if s.Name != "" {
		parts = append(parts, "name="+luaString(s.Name))
	}
	if s.Var != "" {
		parts = append(parts, "var="+luaString(s.Var))
	}
	if s.N != 0 {
		parts = append(parts, fmt.Sprintf("n=%d", s.N))
	}
	if s.Ref != "" {
		parts = append(parts, "ref="+luaString(s.Ref))
	}
	if s.Mask != 0 {
		parts = append(parts, fmt.Sprintf("mask=0x%X", s.Mask))
	}
	if s.Cmp != "" {
		parts = append(parts, "cmp="+luaString(s.Cmp), fmt.Sprintf("value=0x%X", s.Value))
	}
	if s.Peek {
		parts = append(parts, "peek=true")
	}
	if s.Body != nil {
		parts = append(parts, "body="+br.body)
	}
	if s.Else != nil {
		parts = append(parts, "orelse="+br.orelse)
	}
	if s.Names != "" {
		parts = append(parts, "names="+luaString(s.Names))
	}
	if s.Cases != nil {
		parts = append(parts, "cases={"+strings.Join(br.cases, ", ")+"}")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// luaString quotes s as a Lua string literal (bytes escaped as \ddd).
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7F:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
