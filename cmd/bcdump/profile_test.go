package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// profilePcap writes dissecttest.ProfileSession(p) to a temporary pcap.
func profilePcap(t *testing.T, name string, p dissecttest.ProfileParams) string {
	t.Helper()
	path := filepath.Join(tempDir(t), name+".pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := dissecttest.ProfileSession(p).WritePcap(f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestProfileCommand(t *testing.T) {
	path := profilePcap(t, "base", dissecttest.ProfileParams{})
	code, out, errs := runCLI(t, nil, "profile", path)
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	for _, want := range []string{"Opcodes c2s", "| 0x1C   | StateUpdate", "new_player_mission_init", "messages/datagram p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	code, out, _ = runCLI(t, nil, "profile", "--format", "json", "--per-flow", path)
	var doc struct {
		Version int               `json:"bcdump_profile"`
		Flows   int               `json:"flows"`
		PerFlow []json.RawMessage `json:"per_flow"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Version != 1 || doc.Flows != 1 || len(doc.PerFlow) != 1 {
		t.Errorf("json: code %d err %v doc %+v", code, err, doc)
	}
	data, _ := os.ReadFile(path)
	_, fromFile, _ := runCLI(t, nil, "profile", "--format", "json", path)
	quoted, _ := json.Marshal(path) // backslashes on Windows
	if code, fromStdin, _ := runCLI(t, data, "profile", "--format", "json", "-"); code != 0 ||
		strings.Replace(fromStdin, `"stdin"`, string(quoted), 1) != fromFile {
		t.Errorf("stdin: code %d; output differs from the file's", code)
	}
	missing := filepath.Join(tempDir(t), "missing.pcap")
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"profile", "--format", "xml", path}, "--format"},
		{[]string{"profile", "--dup-window", "soon", path}, "--dup-window"},
		{[]string{"profile", missing}, openError(missing)},
		{[]string{"profile", "--fail-on", "note", path}, "--fail-on note"}, // the chat retransmits
	} {
		code, _, errs := runCLI(t, nil, tc.args...)
		want := exitTrouble
		if strings.HasPrefix(tc.err, "--fail-on") {
			want = exitFinding
		}
		if code != want || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: code %d err %q, want %d and %q", tc.args, code, errs, want, tc.err)
		}
	}
}

// diff --profile finds a 30% rate change and a 50 ms latency change, passes
// within tolerance, and honours a baseline.
func TestDiffProfile(t *testing.T) {
	base := profilePcap(t, "base", dissecttest.ProfileParams{})
	slow := profilePcap(t, "7hz", dissecttest.ProfileParams{UpdateHz: 7})
	slower := profilePcap(t, "5hz", dissecttest.ProfileParams{UpdateHz: 5})
	late := profilePcap(t, "late", dissecttest.ProfileParams{MissionInitDelay: 52 * time.Millisecond})
	bitLate := profilePcap(t, "bitlate", dissecttest.ProfileParams{MissionInitDelay: 12 * time.Millisecond})
	dir := tempDir(t)
	_, saved, _ := runCLI(t, nil, "profile", "--format", "json", base)
	savedPath := filepath.Join(dir, "base.json")
	if err := os.WriteFile(savedPath, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(dir, "baseline.json")
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   []string // substrings of stdout
	}{
		{"same capture", "", []string{base, base}, 0, []string{"0 outside tolerance"}},
		{"saved profile vs capture", "", []string{savedPath, base}, 0, []string{"0 outside tolerance"}},
		{"saved profile on stdin", saved, []string{"-", base}, 0, []string{"--- stdin"}},
		{"rate -30%", "", []string{base, slow}, 1, []string{"drift", "s2c.opcode.StateUpdate(0x1C).rate_per_s", "40 -> 28", "-30.0%"}},
		{"latency +50ms", "", []string{savedPath, late}, 1, []string{"pair.new_player_mission_init.p50_ms", "2 -> 52", "+2500.0%"}},
		{"latency +10ms within 20ms", "", []string{base, bitLate}, 0, []string{"within", "2 -> 12"}},
		{"latency +50ms with latency=60ms", "", []string{"--tolerance", "latency=60ms", base, late}, 0, []string{"latency=60ms"}},
		{"write baseline", "", []string{"--write-baseline", baseline, base, slow}, 0, []string{"drift"}},
		{"with baseline", "", []string{"--baseline", baseline, base, slow}, 0, []string{"accepted", "0 outside tolerance"}},
		{"new drift despite baseline", "", []string{"--baseline", baseline, base, slower}, 1, []string{"drift", "40 -> 20"}},
		{"json", "", []string{"--format", "json", base, slow}, 1, []string{`"status": "drift"`, `"metric": "s2c.opcode.0x1C.rate_per_s"`}},
		{"rate change ignored", "", []string{"--ignore", "s2c.opcode.0x1C", "--ignore", "s2c.state_updates", base, slow}, 0, []string{"0 outside tolerance"}},
		{"bad tolerance", "", []string{"--tolerance", "speed=1", base, slow}, 2, nil},
		{"bad baseline", "", []string{"--baseline", base, base, slow}, 2, nil},
		{"both stdin", "", []string{"-", "-"}, 2, nil},
		{"not a profile", `{"sources":[]}`, []string{"-", base}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin []byte
			if tc.stdin != "" {
				stdin = []byte(tc.stdin)
			}
			code, out, errs := runCLI(t, stdin, append([]string{"diff", "--profile"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("code %d, want %d; err %q\n%s", code, tc.code, errs, out)
			}
			for _, want := range tc.out {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
	// The written baseline lists what drifted, with both values.
	var bl struct {
		Version  int `json:"bcdump_profile_baseline"`
		Accepted []struct {
			Metric   string
			Old, New *float64
		} `json:"accepted"`
	}
	data, err := os.ReadFile(baseline)
	if err != nil || json.Unmarshal(data, &bl) != nil || bl.Version != 1 || len(bl.Accepted) == 0 {
		t.Fatalf("baseline: %v %s", err, data)
	}
	found := false
	for _, a := range bl.Accepted {
		if a.Metric == "s2c.opcode.0x1C.rate_per_s" && *a.Old == 40 && *a.New == 28 {
			found = true
		}
	}
	if !found {
		t.Errorf("baseline lacks the rate: %s", data)
	}
}

// The profile of the sample in bcdump help profile is what bcdump prints.
func TestHelpProfileSample(t *testing.T) {
	code, out, errs := runCLI(t, nil, "profile", samplePcap)
	out = strings.Replace(out, testdata+"/", "testdata/", 1)
	if code != 0 || errs != "" {
		t.Fatalf("bcdump profile testdata/sample.pcap: code %d %s", code, errs)
	}
	checkDocBlocks(t, "<!-- bcdump profile testdata/sample.pcap -->\n```\n", "```\n<!-- /bcdump profile testdata/sample.pcap -->", out, false,
		"paste the output of bcdump profile testdata/sample.pcap between the markers")
}

// profile takes -t and --color as the other table commands do.
func TestProfileTimeAndColor(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", samplePcap}, 0, "Time:     0.000 s .. 6.843 s (6.843s; the capture starts 2026-01-02T20:00:00.000000000Z)"},
		{[]string{"profile", "-t", "abs", samplePcap}, 0, "Time:     2026-01-02 20:00:00.000000 .. 2026-01-02 20:00:06.843000 (6.843s)"},
		{[]string{"profile", "-t", "epoch", samplePcap}, 0, "Time:     1767384000.000000 .. 1767384006.843000"},
		{[]string{"profile", "--color", "always", samplePcap}, 0, "\x1b[1mOpcodes c2s\x1b[0m"},
		{[]string{"profile", "-t", "later", samplePcap}, exitTrouble, "--time-format must be rel, abs, delta or epoch"},
		{[]string{"profile", "-t", "abs", "-F", "json", samplePcap}, exitTrouble, "-F json has first and last always"},
		{[]string{"profile", "--color", "always", "-F", "json", samplePcap}, exitTrouble, "-F json has no colour"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.want) {
			t.Errorf("%v: exit %d, want %d; output lacks %q:\n%s%s", tt.args, code, tt.code, tt.want, out, errs)
		}
	}
}

// profileCaptures are the captures the baseline round trip runs on.
var profileCaptures = []string{
	samplePcap,
	testdata + "/unacked-fragment.pcap",
	testdata + "/captures/conformance.pcap",
	testdata + "/captures/openbc-session-2.pcap",
	testdata + "/captures/openbc-session-3.pcap",
	testdata + "/captures/stock-excerpts.pcap",
}

// A baseline written by diff --profile --write-baseline accepts everything
// that run reported, opcode parity included: the same diff gated by it
// exits 0, on every pair of test captures (OLD a saved profile, as in the
// CI recipe of bcdump help profile).
func TestProfileBaselineRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles 36 pairs")
	}
	dir := tempDir(t)
	docs := make([]string, len(profileCaptures))
	for i, c := range profileCaptures {
		code, out, errs := runCLI(t, nil, "profile", "--format", "json", c)
		if code != 0 {
			t.Fatalf("profile %s: %d %s", c, code, errs)
		}
		docs[i] = filepath.Join(dir, fmt.Sprintf("%d.json", i))
		if err := os.WriteFile(docs[i], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range profileCaptures {
		for j, nw := range profileCaptures {
			name := filepath.Base(profileCaptures[i]) + "-" + filepath.Base(nw)
			t.Run(name, func(t *testing.T) {
				base := filepath.Join(dir, fmt.Sprintf("base-%d-%d.json", i, j))
				if code, out, errs := runCLI(t, nil, "diff", "--profile", "--write-baseline", base, docs[i], nw); code != 0 || strings.Contains(out, "FAILED") {
					t.Fatalf("write: code %d %s\n%s", code, errs, out)
				}
				code, out, errs := runCLI(t, nil, "diff", "--profile", "--baseline", base, docs[i], nw)
				if code != 0 || strings.Contains(out, "FAILED") {
					t.Fatalf("gate: code %d %s\n%s", code, errs, out)
				}
			})
		}
	}
}

// A gate fails, naming the row, when one count changes after the baseline
// was written: a per-flow count outside tolerance, or an opcode gone.
func TestProfileBaselineNamesRow(t *testing.T) {
	dir := tempDir(t)
	// edit changes c2s opcode 0x21 of the profile; false drops it.
	doc := func(name, capture string, edit func(op map[string]any) bool) string {
		code, out, errs := runCLI(t, nil, "profile", "--format", "json", capture)
		if code != 0 {
			t.Fatalf("profile %s: %d %s", capture, code, errs)
		}
		if edit != nil {
			var d map[string]any
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			c2s := d["c2s"].(map[string]any)
			var kept []any
			for _, o := range c2s["opcodes"].([]any) {
				if op := o.(map[string]any); op["opcode_hex"] != "0x21" || edit(op) {
					kept = append(kept, o)
				}
			}
			c2s["opcodes"] = kept
			b, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			out = string(b)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stock := doc("stock.json", samplePcap, nil)
	ours := doc("ours.json", testdata+"/captures/openbc-session-2.pcap", nil)
	more := doc("more.json", testdata+"/captures/openbc-session-2.pcap", func(op map[string]any) bool { op["count"] = 30.0; return true })
	gone := doc("gone.json", testdata+"/captures/openbc-session-2.pcap", func(map[string]any) bool { return false })
	base := filepath.Join(dir, "base.json")
	if code, _, errs := runCLI(t, nil, "diff", "--profile", "--write-baseline", base, stock, ours); code != 0 || !strings.Contains(errs, "32 differences and 6 opcodes on one side only accepted") {
		t.Fatalf("write: %d %q", code, errs)
	}
	for _, tc := range []struct {
		name, nw string
		code     int
		want     []string
	}{
		{"unchanged", ours, 0, []string{"0 outside tolerance, 32 accepted", "6 of them accepted by the baseline"}},
		{"count 25 -> 30", more, 1, []string{
			"FAILED (exit 1): 1 metric outside tolerance and 0 opcodes on one side only, not accepted by the baseline:\n" +
				"  drift  c2s.opcode.ChecksumResp(0x21).per_flow  5 -> 6\n"}},
		{"opcode gone", gone, 1, []string{
			"FAILED (exit 1): 1 metric outside tolerance and 1 opcode on one side only, not accepted by the baseline:\n" +
				"  drift   c2s.opcode.ChecksumResp(0x21).per_flow  5 -> 0\n" +
				"  parity  c2s 0x21 ChecksumResp                   only in reference (5 -> 0)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, "diff", "--profile", "--baseline", base, stock, tc.nw)
			if code != tc.code {
				t.Fatalf("code %d, want %d; %s\n%s", code, tc.code, errs, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.code == 0 && strings.Contains(out, "FAILED") {
				t.Errorf("passing run says FAILED:\n%s", out)
			}
		})
	}
	// The JSON names the failed rows by key.
	_, out, _ := runCLI(t, nil, "diff", "--profile", "--format", "json", "--baseline", base, stock, gone)
	if !strings.Contains(out, `"failed": [`) || !strings.Contains(out, `"parity.c2s.0x21.only_old"`) {
		t.Errorf("JSON lacks the failed row:\n%s", out)
	}
}
