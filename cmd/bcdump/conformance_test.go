package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// The conformance capture (dissecttest.Conformance): every opcode, every
// branch of every layout, the transport shapes, with its truth written by
// the generator from the values it encoded.
const (
	conformancePcap  = "../../testdata/captures/conformance.pcap"
	conformanceTruth = "../../testdata/captures/conformance.truth.jsonl"
)

func readTruth(t *testing.T) []dissecttest.Truth {
	t.Helper()
	b, err := os.ReadFile(conformanceTruth)
	if err != nil {
		t.Fatal(err)
	}
	var out []dissecttest.Truth
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var tr dissecttest.Truth
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

// flatValues is a JSON document's scalars by key path (array levels left
// out), in document order.
func flatValues(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if len(b) == 0 {
		return out
	}
	walkJSON(t, b, func(path []string, val string) {
		k := strings.Join(path, ".")
		out[k] = append(out[k], val)
	})
	return out
}

// diffValues is the first difference of two flattened documents, "" when
// they agree (numbers at float32 precision, hex and decimal alike).
func diffValues(want, got map[string][]string) string {
	keys := slices.Sorted(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		w, g := want[k], got[k]
		if len(w) != len(g) {
			return fmt.Sprintf("%s: truth %q, bcdump %q", k, clip(w), clip(g))
		}
		for i := range w {
			if !sameValue(w[i], g[i]) {
				return fmt.Sprintf("%s[%d]: truth %q, bcdump %q", k, i, w[i], g[i])
			}
		}
	}
	return ""
}

type confMessage struct {
	OpcodeName  string          `json:"opcode_name"`
	Duplicate   bool            `json:"duplicate"`
	Fields      json.RawMessage `json:"fields"`
	Reassembled *struct {
		Frags      int             `json:"frags"`
		OpcodeName string          `json:"opcode_name"`
		Fields     json.RawMessage `json:"fields"`
	} `json:"reassembled"`
}

type confRecord struct {
	Frame     int           `json:"frame"`
	Messages  []confMessage `json:"messages"`
	Anomalies []struct {
		Code string `json:"code"`
		Msg  int    `json:"msg"`
	} `json:"anomalies"`
}

// TestConformanceTruth checks "bcdump read -F json" decodes every message
// of the conformance capture as the generator encoded it, field by field,
// marks every duplicate fragment, and reassembles every fragmented message
// once.
func TestConformanceTruth(t *testing.T) {
	recs := map[int]confRecord{}
	reassembled := 0
	for _, r := range readRecords(t, "read", "-F", "json", conformancePcap) {
		var cr confRecord
		if err := json.Unmarshal(r.line, &cr); err != nil {
			t.Fatal(err)
		}
		recs[r.Frame] = cr
		for _, m := range cr.Messages {
			if m.Reassembled != nil {
				reassembled++
			}
		}
	}
	truth := readTruth(t)
	want, dups, bad := 0, 0, 0
	for _, tr := range truth {
		r := recs[tr.Frame]
		if tr.Msg >= len(r.Messages) {
			t.Errorf("frame %d: bcdump has no message %d", tr.Frame, tr.Msg)
			continue
		}
		m := r.Messages[tr.Msg]
		var diff string
		switch {
		case tr.Duplicate:
			dups++
			if !m.Duplicate {
				diff = "not marked duplicate"
			}
		case tr.Reassembled:
			want++
			if m.Reassembled == nil {
				diff = "not reassembled"
			} else if m.Reassembled.Frags != tr.Frags || m.Reassembled.OpcodeName != tr.OpcodeName {
				diff = fmt.Sprintf("reassembled %s from %d frags, truth %s from %d", m.Reassembled.OpcodeName, m.Reassembled.Frags, tr.OpcodeName, tr.Frags)
			} else {
				diff = diffValues(flatValues(t, tr.Fields), flatValues(t, m.Reassembled.Fields))
			}
		default:
			if m.OpcodeName != tr.OpcodeName {
				diff = fmt.Sprintf("opcode %s, truth %s", m.OpcodeName, tr.OpcodeName)
			} else {
				diff = diffValues(flatValues(t, tr.Fields), flatValues(t, m.Fields))
			}
		}
		if tr.Malformed && diff == "" {
			diff = "not payload-malformed"
			for _, a := range r.Anomalies {
				if a.Code == "payload-malformed" && a.Msg == tr.Msg {
					diff = ""
				}
			}
		}
		if diff != "" {
			bad++
			if bad <= 10 {
				t.Errorf("frame %d message %d (%s): %s", tr.Frame, tr.Msg, tr.OpcodeName, diff)
			}
		}
	}
	if reassembled != want {
		t.Errorf("bcdump reassembled %d messages, the truth has %d", reassembled, want)
	}
	t.Logf("%d truth lines (%d reassembled, %d duplicate fragments), %d differ", len(truth), want, dups, bad)
}

// TestConformanceOutputs runs every output on the conformance capture:
// each must succeed and say something, and every filter field of bcdump
// fields must parse and run (most select frames there).
func TestConformanceOutputs(t *testing.T) {
	dir := tempDir(t)
	runs := [][]string{
		{"read", "--color", "never", conformancePcap},
		{"read", "-F", "json", conformancePcap},
		{"read", "-F", "hex", "--cipher", conformancePcap},
		{"read", "-w", filepath.Join(dir, "annotated.pcapng"), conformancePcap},
		{"read", "-F", "parquet", "-o", filepath.Join(dir, "read.parquet"), conformancePcap},
		{"stats", "--color", "never", conformancePcap},
		{"session", conformancePcap},
		{"profile", conformancePcap},
		{"report", "-o", filepath.Join(dir, "report.html"), conformancePcap},
		{"diff", conformancePcap, conformancePcap},
	}
	for _, args := range runs {
		var out, errb bytes.Buffer
		code := run(args, nil, &out, &errb)
		if code != exitOK {
			t.Errorf("bcdump %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
			continue
		}
		if out.Len() == 0 && !slices.Contains(args, "-o") && !slices.Contains(args, "-w") {
			t.Errorf("bcdump %s printed nothing", strings.Join(args, " "))
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"fields"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("bcdump fields: exit %d: %s", code, errb.String())
	}
	fields, matched := 0, 0
	for i, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if i == 0 || len(f) < 2 || strings.Contains(f[0], "<") {
			continue // the header; paths with a placeholder
		}
		fields++
		cmd := "read" // session.* filters the players of bcdump session
		if strings.HasPrefix(f[0], "session.") {
			cmd = "session"
		}
		var o, e bytes.Buffer
		args := []string{cmd, "-Y", "bc." + f[0], conformancePcap}
		if cmd == "read" {
			args = []string{cmd, "-F", "json", "-Y", "bc." + f[0], conformancePcap}
		}
		if code := run(args, nil, &o, &e); code != exitOK {
			t.Errorf("bcdump %s -Y bc.%s: exit %d: %s", cmd, f[0], code, e.String())
			continue
		}
		if o.Len() > 0 {
			matched++
		}
	}
	// The deepest value of the deepest checksum tree is found too.
	deepest, frame, depth := "", 0, 0
	for _, tr := range readTruth(t) {
		for k, v := range flatValues(t, tr.Fields) {
			if d := strings.Count(k, "subdirs."); strings.HasSuffix(k, "name_hash") && d > depth {
				deepest, frame, depth = v[len(v)-1], tr.Frame, d
			}
		}
	}
	expr := fmt.Sprintf("bc.messages.fields.name_hash == %s or bc.messages.reassembled.fields.name_hash == %s", deepest, deepest)
	found := false
	for _, r := range readRecords(t, "read", "-F", "json", "-Y", expr, conformancePcap) {
		found = found || r.Frame == frame
	}
	if !found {
		t.Errorf("-Y %q does not select frame %d (a name hash %d directories deep)", expr, frame, depth)
	}
	if fields < 50 {
		t.Errorf("only %d fields tried", fields)
	}
	t.Logf("%d filter fields run on the conformance capture, %d select frames", fields, matched)
}

// TestWiresharkReassembledOnce checks tshark with the plugin reassembles
// each fragmented message of every test capture once, on the frame bcdump
// reassembles it on.
func TestWiresharkReassembledOnce(t *testing.T) {
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	for _, c := range wiresharkCaptures(t) {
		var want []string
		for _, r := range readRecords(t, "read", "-F", "json", "-Y", "bc.messages.reassembled", c) {
			want = append(want, fmt.Sprint(r.Frame))
		}
		out, err := exec.Command(tshark, "-X", "lua_script:"+plugin, "-r", c, "-2", "-Y", "bc.messages.reassembled",
			"-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatalf("tshark on %s: %v", c, err)
		}
		if got := strings.Fields(string(out)); !slices.Equal(got, want) {
			t.Errorf("%s: tshark reassembles on frames %v, bcdump on %v", filepath.Base(c), clip(got), clip(want))
		}
	}
}

// TestWiresharkNoLuaErrors runs the plugin in tshark over every capture
// under testdata/ and counts Lua errors in the full tree output: none.
func TestWiresharkNoLuaErrors(t *testing.T) {
	tshark := tsharkOrSkip(t)
	plugin := writePlugin(t)
	var caps []string
	err := filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcapng")) {
			caps = append(caps, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range caps {
		out, _ := exec.Command(tshark, "-X", "lua_script:"+plugin, "-r", c, "-2", "-V").CombinedOutput()
		if n := bytes.Count(out, []byte("Lua Error")); n > 0 {
			i := bytes.Index(out, []byte("Lua Error"))
			t.Errorf("%s: %d Lua errors, first: %s", c, n, bytes.SplitN(out[i:], []byte("\n"), 2)[0])
		}
		if n := bytes.Count(out, []byte("bcdump plugin:")); n > 0 {
			t.Errorf("%s: the plugin refused %d items", c, n)
		}
	}
	t.Logf("%d captures", len(caps))
}

// TestBranchCoverage is the branch-coverage report: every layout branch
// with the number of messages (own payloads and reassembled ones) that take
// it across the test captures. None may be zero; the conformance capture
// sees to that. go test -run BranchCoverage -v prints the table.
func TestBranchCoverage(t *testing.T) {
	caps := wiresharkCaptures(t)
	count := map[string]int{}
	byCapture := map[string]map[string]int{}
	for _, c := range caps {
		byCapture[c] = map[string]int{}
		r, err := capture.Open(c, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := dissect.New(dissect.Options{})
		var p capture.Packet
		var dg dissect.Datagram
		for r.Next(&p) == nil {
			d.Decode(&dg, &p)
			d.Advance(&dg)
			for i := range dg.Msgs {
				m := &dg.Msgs[i]
				var payload []byte
				switch {
				case m.Reassembled != nil:
					payload = m.Reassembled.Bytes
				case i < len(dg.Transport.Messages) && !dg.Transport.Messages[i].Fragment && m.Opcode != nil:
					payload = m.Bytes
				}
				seen := map[string]bool{}
				for _, b := range dissecttest.BranchesOf(payload) {
					if !seen[b] { // a branch counts once a message
						seen[b] = true
						count[b]++
						byCapture[c][b]++
					}
				}
			}
		}
		r.Close()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %-10s %s\n", "msgs", "conform.", "branch")
	zero := 0
	for _, br := range dissecttest.Branches() {
		fmt.Fprintf(&b, "%7d %10d  %s\n", count[br], byCapture[conformancePcap][br], br)
		if count[br] == 0 {
			zero++
			t.Errorf("no message of the test captures takes branch %s", br)
		}
	}
	real := 0
	for _, br := range dissecttest.Branches() {
		if count[br] > byCapture[conformancePcap][br] {
			real++
		}
	}
	t.Logf("layout branches taken by messages of the test captures (all, and the conformance capture's):\n%s", b.String())
	t.Logf("%d branches, %d never taken; %d taken outside the conformance capture", len(dissecttest.Branches()), zero, real)
}

// TestWiresharkPluginLuaReassemblyBounds runs the plugin (Lua 5.4
// harness) on the scripted sessions of the reassembly anomalies (an
// incomplete message, more open messages than a flow may hold, a
// retransmission that differs) and checks it reassembles what bcdump
// reassembles, on the same frames, with the same fields: its bounds are
// bcdump's.
func TestWiresharkPluginLuaReassemblyBounds(t *testing.T) {
	lua, err := exec.LookPath("lua5.4")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("lua5.4 is missing; CI installs it")
		}
		t.Skip("lua5.4 not installed")
	}
	plugin := writePlugin(t)
	harness, err := filepath.Abs("../../testdata/wireshark/harness.lua")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, code := range dissecttest.AnomalyCodes() {
		name := code.String()
		if !strings.Contains(name, "fragment") && !strings.Contains(name, "reassembly") && !strings.Contains(name, "retransmit") {
			continue
		}
		s, _ := dissecttest.Anomaly(code)
		path := filepath.Join(tempDir(t), name+".pcap")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WritePcap(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		want := bcdumpValues(t, path)
		got, _ := luaValues(t, lua, harness, plugin, writeFramesTSV(t, path))
		total, agree, _ := compareCapture(t, path, want, got)
		if agree != total {
			t.Errorf("%s: the plugin agrees with bcdump on %d of %d datagrams", name, agree, total)
		}
		n++
	}
	if n < 2 {
		t.Errorf("only %d reassembly sessions", n)
	}
}
