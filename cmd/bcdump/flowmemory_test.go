package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

func TestParseByteSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		err  string
	}{
		{"48MiB", 48 << 20, ""},
		{"2GiB", 2 << 30, ""},
		{"300MB", 300 << 20, ""},
		{"64m", 64 << 20, ""},
		{"512 KiB", 512 << 10, ""},
		{"1G", 1 << 30, ""},
		{"1000000", 1000000, ""},
		{"0", 0, "want a size"},
		{"", 0, "want a size"},
		{"-1MiB", 0, "want a size"},
		{"1.5GiB", 0, "want a size"},
		{"10TiB", 0, "unknown unit"},
		{"99999999999GiB", 0, "too large"},
	} {
		got, err := parseByteSize(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// --flow-memory reaches the tracker: under a small bound, flows are
// evicted with a note naming the flag; a bad size is one line, exit 2.
func TestFlowMemoryFlag(t *testing.T) {
	path := filepath.Join(tempDir(t), "flows.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dissecttest.ManyFlows(f, 300, 10*time.Second, true); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, errs := runCLI(t, nil, "read", "--flow-memory", "64KiB", "-F", "json", "-Y", `anomalies.code == "tracking-limit"`, path)
	if code != 0 || !strings.Contains(out, "reached the 64 KB bound (--flow-memory;") {
		t.Errorf("exit %d (%s), output %.300s", code, errs, out)
	}
	code, out, _ = runCLI(t, nil, "read", "-F", "json", "-Y", `anomalies.code == "tracking-limit"`, path)
	if code != 0 || strings.Contains(out, "--flow-memory") {
		t.Errorf("default bound: exit %d, output %.300s", code, out)
	}
	code, _, errs = runCLI(t, nil, "stats", "--flow-memory", "lots", path)
	if code != exitTrouble || errs != "bcdump: --flow-memory \"lots\": unknown unit \"lots\"; want a size like 512MiB or 2GiB\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// The soft memory limit follows --flow-memory: the bound plus the
// headroom for everything else.
func TestFlowMemoryLimit(t *testing.T) {
	var got []int64
	limitMemory = func(n int64) { got = append(got, n) }
	defer func() { limitMemory = nil }()
	runCLI(t, nil, "stats", samplePcap)
	runCLI(t, nil, "stats", "--flow-memory", "1GiB", samplePcap)
	want := []int64{144<<20 + memoryHeadroom, 1<<30 + memoryHeadroom}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("limits %v, want %v", got, want)
	}
}
