package dissecttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect/game"
)

var updateConformance = flag.Bool("update-conformance", false, "rewrite testdata/captures/conformance.*")

const (
	conformancePcap  = "../../testdata/captures/conformance.pcap"
	conformanceTruth = "../../testdata/captures/conformance.truth.jsonl"
)

// TestConformanceUpToDate checks the committed conformance capture and
// truth are what the generator writes now (go generate ./dissect/dissecttest
// or -update-conformance rewrites them).
func TestConformanceUpToDate(t *testing.T) {
	s, truth := Conformance()
	var pcap bytes.Buffer
	if err := s.WritePcap(&pcap); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{conformancePcap, pcap.Bytes()}, {conformanceTruth, WriteTruth(truth)}} {
		if *updateConformance {
			if err := os.WriteFile(f.path, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is stale: run go generate ./dissect/dissecttest (or go test -run ConformanceUpToDate -update-conformance)", f.path)
		}
	}
}

// TestConformanceCoversLayouts checks the conformance truth takes every
// branch of every layout and has every opcode with a layout in both
// directions: a new opcode or branch in the table fails here until the
// generator reaches it.
func TestConformanceCoversLayouts(t *testing.T) {
	_, truth := Conformance()
	taken := map[string]int{}
	dirs := map[int]map[string]bool{}
	for _, tr := range truth {
		for _, b := range tr.Branches {
			taken[b]++
		}
		if tr.Fields != nil {
			if dirs[tr.Opcode] == nil {
				dirs[tr.Opcode] = map[string]bool{}
			}
			dirs[tr.Opcode][tr.Dir] = true
		}
	}
	for _, b := range Branches() {
		if taken[b] == 0 {
			t.Errorf("no conformance message takes branch %s", b)
		}
	}
	for _, op := range slices.Sorted(maps.Keys(game.Layouts())) {
		if !dirs[int(op)]["c2s"] || !dirs[int(op)]["s2c"] {
			t.Errorf("opcode 0x%02X is not in the conformance capture in both directions (%v)", op, dirs[int(op)])
		}
	}
}

// TestConformanceDecodesEveryOpcodeWhole: every opcode with a layout
// appears at least once read whole (not malformed), and ObjCreate and
// ObjCreateTeam each with a full ship and a full torpedo body.
func TestConformanceDecodesEveryOpcodeWhole(t *testing.T) {
	_, truth := Conformance()
	whole := map[int]bool{}
	class := map[int]map[string]bool{}
	for _, tr := range truth {
		if tr.Fields == nil || tr.Malformed {
			continue
		}
		whole[tr.Opcode] = true
		var f struct {
			ClassID string `json:"class_id"`
		}
		if err := json.Unmarshal(tr.Fields, &f); err == nil && f.ClassID != "" {
			if class[tr.Opcode] == nil {
				class[tr.Opcode] = map[string]bool{}
			}
			class[tr.Opcode][f.ClassID] = true
		}
	}
	for _, op := range slices.Sorted(maps.Keys(game.Layouts())) {
		if !whole[int(op)] {
			t.Errorf("opcode 0x%02X never decodes whole in the conformance capture", op)
		}
	}
	for _, op := range []int{0x02, 0x03} {
		for _, id := range []string{"0x00008008", "0x00008009"} {
			if !class[op][id] {
				t.Errorf("opcode 0x%02X: no whole body of class %s (%v)", op, id, class[op])
			}
		}
	}
}

// TestConformanceTruthParses checks the committed truth file is JSON Lines.
func TestConformanceTruthParses(t *testing.T) {
	b, err := os.ReadFile(conformanceTruth)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var tr Truth
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("empty truth")
	}
}

// TestBranchesOfMatchesGenerator checks the branch tracer (run on real
// captures) names the branches of a payload as the generator that wrote
// it does.
func TestBranchesOfMatchesGenerator(t *testing.T) {
	for _, op := range slices.Sorted(maps.Keys(game.Layouts())) {
		rng := rand.New(rand.NewPCG(uint64(op), 7))
		for i := range 60 {
			m := encode(rng, op, i%3 == 0)
			want := slices.Sorted(slices.Values(m.branches))
			got := slices.Sorted(slices.Values(BranchesOf(m.payload)))
			if !slices.Equal(got, want) {
				t.Fatalf("opcode 0x%02X payload %x:\n tracer    %q\n generator %q", op, m.payload, got, want)
			}
		}
	}
}

// FuzzBranchesOf: the tracer reads any payload without a panic, a hang or
// a branch outside Branches.
func FuzzBranchesOf(f *testing.F) {
	for _, op := range slices.Sorted(maps.Keys(game.Layouts())) {
		rng := rand.New(rand.NewPCG(uint64(op), 9))
		for i := range 3 {
			f.Add(encode(rng, op, i == 2).payload)
		}
	}
	f.Add([]byte{0x21, 0x01, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	f.Add([]byte{0x03, 0, 0, 0x08, 0x80})
	known := map[string]bool{}
	for _, b := range Branches() {
		known[b] = true
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, b := range BranchesOf(p) {
			if !known[b] && !strings.Contains(b, "/directory ") && !strings.Contains(b, "/filter ") {
				t.Fatalf("branch %q is not in Branches()", b)
			}
		}
	})
}
