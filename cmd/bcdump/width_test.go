package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// --width N fits every table and line in N columns; --wide, and output
// that is not a terminal, keep the whole lines.
func TestWidth(t *testing.T) {
	session2 := filepath.Join(testdata, "captures", "openbc-session-2.pcap")
	session3 := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	battle := filepath.Join(tempDir(t), "battle.pcap")
	writeMerged(t, battle, dissecttest.Battle())
	for _, args := range [][]string{
		{"read", samplePcap},
		{"read", session2},
		{"session", samplePcap},
		{"session", battle},
		{"stats", "-b", samplePcap, session2},
		{"stats", samplePcap, session2},
		{"fields"},
		{"anomalies"},
		{"diff", samplePcap, session2},
		{"profile", samplePcap},
		{"profile", "--per-flow", session3},
		{"diff", "--profile", samplePcap, session2},
	} {
		for _, width := range []int{80, 60} {
			name := strings.Join(args, " ")
			t.Run(name+" "+itoa(width), func(t *testing.T) {
				_, whole, _ := runCLI(t, nil, args...)
				_, wide, _ := runCLI(t, nil, append(args, "--wide")...)
				if wide != whole {
					t.Errorf("--wide differs from the piped output")
				}
				_, out, errs := runCLI(t, nil, append(args, "--width", itoa(width))...)
				if out == "" {
					t.Fatalf("no output: %s", errs)
				}
				for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if n := utf8.RuneCountInString(line); n > width {
						t.Errorf("%d columns: %q", n, line)
					}
				}
			})
		}
	}
	// read keeps the opcode a datagram carries after its ACKs.
	_, out, _ := runCLI(t, nil, "read", "--width", "80", samplePcap)
	if !strings.Contains(out, "ChecksumReq round=3") {
		t.Errorf("read --width 80 lost frame 16's opcode:\n%s", out)
	}
	if code, _, errs := runCLI(t, nil, "session", "--wide", "--width", "80", samplePcap); code != exitTrouble || !strings.Contains(errs, "contradict") {
		t.Errorf("--wide --width: exit %d, %q", code, errs)
	}
	// profile keeps the columns that matter most: opcode, name, count.
	_, out, _ = runCLI(t, nil, "profile", "--width", "60", samplePcap)
	if !strings.Contains(out, "| 0x21   | ChecksumResp    |     5 |") {
		t.Errorf("profile --width 60 lost the opcode counts:\n%s", out)
	}
	// JSON is never fitted: the flags are refused rather than ignored.
	for _, args := range [][]string{
		{"session", "-F", "json", "--width", "80", samplePcap},
		{"stats", "-F", "json", "--wide", samplePcap},
		{"fields", "-F", "json", "--width", "80"},
		{"anomalies", "-F", "markdown", "--wide"},
		{"diff", "-F", "json", "--width", "80", samplePcap, session2},
		{"profile", "-F", "json", "--wide", samplePcap},
		{"diff", "--profile", "-F", "json", "--width", "80", samplePcap, session2},
	} {
		if code, out, errs := runCLI(t, nil, args...); code != exitTrouble || out != "" || !strings.Contains(errs, "shape the text tables") {
			t.Errorf("%q: exit %d, out %q, err %q", args, code, out, errs)
		}
	}
}
