package profile

import (
	"strings"
	"testing"
)

func TestComparePresence(t *testing.T) {
	op := func(code uint8, name string, n uint64, rate float64) OpcodeDoc {
		return OpcodeDoc{Opcode: code, Hex: "0x" + strings.ToUpper(string("0123456789abcdef"[code>>4])+string("0123456789abcdef"[code&15])), Name: name, Count: n, RatePerS: rate}
	}
	old := &Doc{C2S: DirDoc{Opcodes: []OpcodeDoc{op(0x1C, "StateUpdate", 100, 10), op(0x08, "StopFiring", 1, 0.1)}},
		S2C: DirDoc{Opcodes: []OpcodeDoc{op(0x2C, "Chat", 2, 0)}}}
	nw := &Doc{C2S: DirDoc{Opcodes: []OpcodeDoc{op(0x1C, "StateUpdate", 90, 9)}},
		S2C: DirDoc{Opcodes: []OpcodeDoc{op(0x2C, "Chat", 2, 0), op(0x35, "MissionInit", 1, 0)}}}
	p := ComparePresence(old, nw)
	want := []struct {
		dir      string
		opcode   uint8
		presence Presence
		old, new uint64
	}{
		{"c2s", 0x08, OnlyOld, 1, 0},
		{"c2s", 0x1C, PresentBoth, 100, 90},
		{"s2c", 0x2C, PresentBoth, 2, 2},
		{"s2c", 0x35, OnlyNew, 0, 1},
	}
	if len(p.Rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(p.Rows), len(want), p.Rows)
	}
	for i, w := range want {
		r := p.Rows[i]
		if r.Dir != w.dir || r.Opcode != w.opcode || r.Presence != w.presence || r.OldCount != w.old || r.NewCount != w.new {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
	if p.OnlyOld != 1 || p.OnlyNew != 1 || p.Missing() != 2 {
		t.Errorf("only old %d, only new %d", p.OnlyOld, p.OnlyNew)
	}
	var b strings.Builder
	if err := p.WriteText(&b, "stock.log", "our.pcap"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"c2s  0x08    StopFiring   only in reference  1          0          0.1     0",
		"1 opcodes only in the reference (stock.log), 1 only in the other (our.pcap)"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, b.String())
		}
	}
	if r := Compare("a", old, "b", nw, CompareOptions{}); r.Passed() {
		t.Error("a comparison with an opcode missing passed")
	}
	if r := Compare("a", old, "b", old, CompareOptions{}); !r.Passed() || r.Parity.Missing() != 0 {
		t.Error("a profile differs from itself")
	}
}
