package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// statsDoc is the part of the stats JSON the command tests look at.
type statsDoc struct {
	Sources []string `json:"sources"`
	Skipped []struct {
		File   string `json:"file"`
		Reason string `json:"reason"`
		Partly bool   `json:"partly"`
	} `json:"skipped"`
	Totals struct {
		Flows         int `json:"flows"`
		Anomalies     int `json:"anomalies"`
		GameDatagrams struct {
			C2S int `json:"c2s"`
			S2C int `json:"s2c"`
		} `json:"game_datagrams"`
	} `json:"totals"`
	Flows []struct {
		Source     string `json:"source"`
		Flow       int    `json:"flow"`
		PlayerName string `json:"player_name"`
		C2S        struct {
			Retransmissions int `json:"retransmissions"`
			Reassembled     int `json:"reassembled"`
		} `json:"c2s"`
		Anomalies []statsAnomaly `json:"anomalies"`
	} `json:"flows"`
	Opcodes []struct {
		Hex  string `json:"opcode_hex"`
		Name string `json:"opcode_name"`
		C2S  int    `json:"c2s"`
		S2C  int    `json:"s2c"`
	} `json:"opcodes"`
	Anomalies []statsAnomaly `json:"anomalies"`
}

type statsAnomaly struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Count    int    `json:"count"`
}

func parseStats(t *testing.T, out string) *statsDoc {
	t.Helper()
	var d statsDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("stats JSON: %v\n%s", err, out)
	}
	return &d
}

func TestStatsFormats(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"stats", samplePcap}, []string{"Flow 1 (" + samplePcap + ")", "player \"Cady2\"", "| 0x21   | ChecksumResp", "reassembled messages"}},
		{[]string{"stats", "--format", "table", "--color", "never", samplePcap}, []string{"Opcodes", "Anomalies", "| none"}},
		{[]string{"stats", "-F", "json", samplePcap}, []string{`"sources": [`, `"player_name": "Cady2"`, `"opcode_name": "ChecksumResp"`}},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, tt.args...)
		if code != exitOK || errs != "" {
			t.Errorf("%v: code %d err %q", tt.args, code, errs)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
}

func TestStatsBadUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"stats", "--format", "hex", samplePcap}, "--format"},
		{[]string{"stats", "--color", "sometimes", samplePcap}, "--color"},
		{[]string{"stats", "--fail-on", "panic", samplePcap}, "--fail-on"},
		{[]string{"stats", "--port", "70000", samplePcap}, "--port"},
		{[]string{"stats"}, "arg"},
		{[]string{"stats", filepath.Join(tempDir(t), "missing.pcap")}, "missing.pcap"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, tt.args...)
		if code != exitTrouble || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: code %d out %q err %q, want exit 2 naming %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// Several files add up; every flow names its file; "-" is stdin.
func TestStatsSeveralFiles(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, data, "stats", "-F", "json", samplePcap, "-")
	if code != exitOK {
		t.Fatalf("code %d err %q", code, errs)
	}
	d := parseStats(t, out)
	_, one, _ := runCLI(t, nil, "stats", "-F", "json", samplePcap)
	d1 := parseStats(t, one)
	if len(d.Sources) != 2 || d.Sources[1] != "stdin" || len(d.Flows) != 2 || d.Flows[0].Source != samplePcap ||
		d.Flows[1].Source != "stdin" || d.Totals.Flows != 2 {
		t.Fatalf("sources %v flows %+v", d.Sources, d.Flows)
	}
	if d.Totals.GameDatagrams.C2S != 2*d1.Totals.GameDatagrams.C2S {
		t.Errorf("c2s datagrams %d, one file %d", d.Totals.GameDatagrams.C2S, d1.Totals.GameDatagrams.C2S)
	}
	for i, o := range d.Opcodes {
		if o.C2S != 2*d1.Opcodes[i].C2S || o.S2C != 2*d1.Opcodes[i].S2C {
			t.Errorf("%s: %d/%d, one file %d/%d", o.Hex, o.C2S, o.S2C, d1.Opcodes[i].C2S, d1.Opcodes[i].S2C)
		}
	}
}

// A capture cut mid-record is summarized up to the cut and the next one
// is read too; the error names the file, the summary lists it: exit 2.
func TestStatsTruncatedCapture(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempDir(t), "cut.pcap")
	if err := os.WriteFile(path, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	_, whole, _ := runCLI(t, nil, "stats", "-F", "json", samplePcap)
	w := parseStats(t, whole)
	code, out, errs := runCLI(t, nil, "stats", "-F", "json", path, samplePcap)
	if code != exitTrouble || !strings.Contains(errs, "cut.pcap: frame 27") {
		t.Fatalf("code %d err %q", code, errs)
	}
	d := parseStats(t, out)
	got := d.Totals.GameDatagrams.C2S + d.Totals.GameDatagrams.S2C
	want := 24 + w.Totals.GameDatagrams.C2S + w.Totals.GameDatagrams.S2C
	if len(d.Sources) != 2 || got != want {
		t.Errorf("summary: sources %v, %d game datagrams, want 2 sources and %d", d.Sources, got, want)
	}
	if len(d.Skipped) != 1 || d.Skipped[0].File != path || !d.Skipped[0].Partly {
		t.Errorf("skipped %+v, want the cut capture, read partly", d.Skipped)
	}
}

// --fail-on gates on every anomaly, the end events included; the summary
// is printed either way.
func TestStatsFailOn(t *testing.T) {
	if code, out, errs := runCLI(t, nil, "stats", "--fail-on", "note", samplePcap); code != exitOK || errs != "" || out == "" {
		t.Errorf("sample: code %d err %q", code, errs)
	}
	path := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	tests := []struct {
		sev  string
		code int
	}{{"note", exitFinding}, {"warn", exitFinding}, {"error", exitFinding}}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, "stats", "-F", "json", "--fail-on", tt.sev, path)
		if code != tt.code || !strings.Contains(errs, "--fail-on "+tt.sev) {
			t.Errorf("--fail-on %s: code %d err %q", tt.sev, code, errs)
		}
		parseStats(t, out)
	}
}

// --color always paints the severities; never leaves plain text.
func TestStatsColor(t *testing.T) {
	path := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	_, always, _ := runCLI(t, nil, "stats", "--color", "always", path)
	_, never, _ := runCLI(t, nil, "stats", "--color", "never", path)
	if !strings.Contains(always, "\x1b[") || strings.Contains(never, "\x1b[") {
		t.Errorf("colour: always has escapes %v, never has escapes %v", strings.Contains(always, "\x1b["), strings.Contains(never, "\x1b["))
	}
}

// openbc-session-3: the host resends six messages to the third bot.
func TestStatsOpenBCSession3(t *testing.T) {
	path := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	code, out, errs := runCLI(t, nil, "stats", "-F", "json", path)
	if code != exitOK {
		t.Fatalf("code %d err %q", code, errs)
	}
	d := parseStats(t, out)
	if len(d.Flows) != 3 || d.Flows[2].PlayerName != "Bot2" {
		t.Fatalf("flows %+v", d.Flows)
	}
	found := false
	for _, a := range d.Flows[2].Anomalies {
		if a.Code == "retransmit" && a.Count == 6 && a.Severity == "note" {
			found = true
		}
	}
	if !found {
		t.Errorf("flow 3 anomalies %+v, want retransmit 6", d.Flows[2].Anomalies)
	}
}

// stats --brief prints one line per flow under a header, as the golden.
func TestStatsBrief(t *testing.T) {
	code, out, errs := runCLI(t, nil, "stats", "--brief", testdata+"/captures/openbc-session-3.pcap")
	want, err := os.ReadFile(testdata + "/golden/openbc-session-3.stats.brief")
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || errs != "" || out != string(want) {
		t.Errorf("code %d err %q\n%s\nwant\n%s", code, errs, out, want)
	}
	if code, _, errs := runCLI(t, nil, "stats", "-b", "-F", "json", samplePcap); code != exitTrouble || !strings.Contains(errs, "--brief") {
		t.Errorf("--brief -F json: code %d err %q", code, errs)
	}
}

// Many captures of many flows: the flow records kept stay within half of
// --flow-memory; the rest are summed per capture, the output says so, and
// the totals still count every flow (issue: 2,500 captures of 256 flows
// took 849 MB in stats -b; cmd/bcdump/helptopics/memory.md).
func TestStatsManyCapturesBounded(t *testing.T) {
	var buf bytes.Buffer
	if err := dissecttest.ManyFlows(&buf, 256, 10*time.Second, true); err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	const captures = 24
	for i := range captures {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("c%02d.pcap", i)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mem := []string{"--flow-memory", "4MiB"}
	_, out, errs := runCLI(t, nil, append([]string{"stats", "-F", "json", dir}, mem...)...)
	var doc struct {
		Summed *struct{ Flows, Captures, BoundBytes int } `json:"summed"`
		Totals struct{ Flows int }
		Flows  []struct {
			Source    string
			Other     bool
			Summed    int    `json:"flows_summed"`
			SummedFor string `json:"summed_for"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v %s", err, errs)
	}
	if doc.Summed == nil || doc.Totals.Flows != captures*256 {
		t.Fatalf("summed %+v, totals %d flows, want %d", doc.Summed, doc.Totals.Flows, captures*256)
	}
	kept, summed, records := 0, 0, 0
	for _, f := range doc.Flows {
		if f.SummedFor == "flow-memory" {
			summed += f.Summed
			records++
		} else if !f.Other {
			kept++
		}
	}
	if kept+summed != captures*256 || summed != doc.Summed.Flows || records != doc.Summed.Captures || kept == 0 {
		t.Errorf("kept %d + summed %d (in %d records), doc %+v", kept, summed, records, doc.Summed)
	}
	for _, args := range [][]string{{"stats", dir}, {"stats", "-b", dir}} {
		_, out, _ := runCLI(t, nil, append(args, mem...)...)
		want := fmt.Sprintf("%d flows of %d captures are summed, one record per capture: the flow records kept reached their bound (2 MiB, half of --flow-memory)", summed, records)
		if !strings.Contains(out, want) {
			t.Errorf("%v does not say %q", args, want)
		}
	}
}
