package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEAnomalyExamples keeps the README's anomaly examples equal to
// testdata/golden/anomalies.table, which TestReadAnomalies checks against
// bcdump's output: the README cannot drift from what bcdump prints.
func TestREADMEAnomalyExamples(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../../testdata/golden/anomalies.table")
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
