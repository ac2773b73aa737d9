package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// TestHelpAnomalyExamples keeps the anomaly examples of bcdump help
// anomalies equal to testdata/golden/anomalies.table, which
// TestReadAnomalies checks against bcdump's output: the topic cannot drift
// from what bcdump prints.
func TestHelpAnomalyExamples(t *testing.T) {
	golden, err := os.ReadFile(anomaliesGolden)
	if err != nil {
		t.Fatal(err)
	}
	checkDocBlocks(t, "<!-- anomalies.table -->\n```\n", "```\n<!-- /anomalies.table -->", string(golden), false,
		"paste testdata/golden/anomalies.table between the markers")
}

// TestHelpAnomalyTable keeps the anomaly table of bcdump help anomalies
// equal to `bcdump anomalies -F markdown`, the registry the binary raises
// from.
func TestHelpAnomalyTable(t *testing.T) {
	code, table, errs := runCLI(t, nil, "anomalies", "-F", "markdown")
	if code != exitOK || errs != "" {
		t.Fatalf("anomalies -F markdown: code %d, %s", code, errs)
	}
	checkDocBlocks(t, "<!-- bcdump anomalies -F markdown -->\n", "<!-- /bcdump anomalies -F markdown -->", table, *updateDocs,
		"go test ./cmd/bcdump -run HelpAnomalyTable -update-docs")
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
