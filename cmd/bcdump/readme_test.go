package main

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// TestREADMEAnomalyExamples keeps the README's anomaly examples equal to
// testdata/golden/anomalies.table, which TestReadAnomalies checks against
// bcdump's output: the README cannot drift from what bcdump prints.
func TestREADMEAnomalyExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(anomaliesGolden)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- anomalies.table -->\n```\n", "```\n<!-- /anomalies.table -->"
	s := string(readme)
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README lacks the %q ... %q block", begin, end)
	}
	if got := s[i+len(begin) : j]; got != string(golden) {
		t.Errorf("README anomaly examples differ from testdata/golden/anomalies.table; paste the file between the markers")
	}
}

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's generated blocks (the anomaly table)")

// TestREADMEAnomalyTable keeps the README's anomaly table equal to
// `bcdump anomalies -F markdown`, the registry the binary raises from.
func TestREADMEAnomalyTable(t *testing.T) {
	code, table, errs := runCLI(t, nil, "anomalies", "-F", "markdown")
	if code != exitOK || errs != "" {
		t.Fatalf("anomalies -F markdown: code %d, %s", code, errs)
	}
	const path = "../../README.md"
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- bcdump anomalies -F markdown -->\n", "<!-- /bcdump anomalies -F markdown -->"
	s := string(readme)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README lacks the %q ... %q block", begin, end)
	}
	if got := s[i+len(begin) : j]; got != table {
		if !*updateReadme {
			t.Fatalf("README anomaly table differs from `bcdump anomalies -F markdown` (go test ./cmd/bcdump -run READMEAnomalyTable -update-readme)")
		}
		if err := os.WriteFile(path, []byte(s[:i+len(begin)]+table+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bcdump anomalies: every format lists every code; arguments select codes
// and groups; unknown names and formats are usage errors.
func TestAnomaliesCommand(t *testing.T) {
	n := len(anomaly.All())
	tests := []struct {
		args  []string
		code  int
		lines int // output lines holding a code name; -1 skips
		want  string
	}{
		{[]string{"anomalies"}, exitOK, n, "unacked-fragment-retransmit  warn"},
		{[]string{"anomalies", "-F", "markdown"}, exitOK, n, "| `checksum-version` | error | checksum | datagram |"},
		{[]string{"anomalies", "checksum", "retransmit"}, exitOK, 9, "checksum-file-unknown"},
		{[]string{"anomalies", "-F", "json", "peer-timeout"}, exitOK, 1,
			`{"code":"peer-timeout","severity":"warn","group":"delivery","datagram":false,"event":true,"meaning":`},
		{[]string{"anomalies", "no-such-code"}, exitTrouble, -1, ""},
		{[]string{"anomalies", "-F", "xml"}, exitTrouble, -1, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) || (code != exitOK) != (errs != "") {
				t.Fatalf("code %d (want %d), stderr %q, output:\n%s", code, tt.code, errs, out)
			}
			if tt.lines < 0 {
				return
			}
			got := 0
			for l := range strings.Lines(out) {
				for _, in := range anomaly.All() {
					if strings.Contains(l, in.Name+" ") || strings.Contains(l, "`"+in.Name+"`") || strings.Contains(l, `"`+in.Name+`"`) {
						got++
						break
					}
				}
			}
			if got != tt.lines {
				t.Errorf("%d lines name a code, want %d:\n%s", got, tt.lines, out)
			}
		})
	}
	var rows []map[string]any
	_, out, _ := runCLI(t, nil, "anomalies", "-F", "json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != n {
		t.Fatalf("JSON: %v, %d rows", err, len(rows))
	}
}
