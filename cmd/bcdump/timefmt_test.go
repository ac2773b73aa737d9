package main

import (
	"strings"
	"testing"
)

// -t switches the time column like tcpdump's and tshark's -t; rel is the
// default, so the table's bytes are unchanged without it.
func TestReadTimeFormats(t *testing.T) {
	_, def, _ := runCLI(t, nil, "read", "-c", "4", samplePcap)
	want := map[string][]string{
		"rel":   {"0.000000", "0.002000", "0.502000", "0.522000"},
		"abs":   {"2026-01-02 20:00:00.000000", "2026-01-02 20:00:00.002000", "2026-01-02 20:00:00.502000", "2026-01-02 20:00:00.522000"},
		"delta": {"0.000000", "0.002000", "0.500000", "0.020000"},
		"epoch": {"1767384000.000000", "1767384000.002000", "1767384000.502000", "1767384000.522000"},
	}
	for tf, times := range want {
		code, out, errs := runCLI(t, nil, "read", "-t", tf, "-c", "4", samplePcap)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || errs != "" || len(lines) != 4 {
			t.Fatalf("-t %s: code %d err %q, %d lines", tf, code, errs, len(lines))
		}
		defLines := strings.Split(def, "\n")
		for i, l := range lines {
			f := strings.Fields(l)
			got := f[1]
			if tf == "abs" {
				got += " " + f[2]
			}
			if got != times[i] {
				t.Errorf("-t %s line %d: time %q, want %q", tf, i+1, got, times[i])
			}
			// Everything after the time is as without -t.
			if rest, defRest := l[strings.Index(l, "192."):], defLines[i][strings.Index(defLines[i], "192."):]; rest != defRest {
				t.Errorf("-t %s line %d: %q, want %q", tf, i+1, rest, defRest)
			}
		}
		if tf == "rel" && out != def {
			t.Error("-t rel differs from the default")
		}
	}
	// delta is since the datagram shown before, so it follows -Y.
	_, out, _ := runCLI(t, nil, "read", "-t", "delta", "-Y", "frame == 1 or frame == 3", samplePcap)
	if f := strings.Fields(strings.Split(out, "\n")[1]); f[0] != "3" || f[1] != "0.502000" {
		t.Errorf("delta after a filter: %q", out)
	}
	code, out, _ := runCLI(t, nil, "read", "-t", "epoch", "-F", "hex", "-c", "1", samplePcap)
	if code != 0 || !strings.Contains(out, "t=1767384000.000000 ") {
		t.Errorf("hex -t epoch: %q", out)
	}
	for _, args := range [][]string{
		{"read", "-t", "abs", "-F", "json", samplePcap},
		{"read", "-t", "when", samplePcap},
		// live shares read's shaping flags, checked before the socket opens
		{"live", "-i", "lo", "-t", "abs", "-F", "json"},
		{"live", "-i", "lo", "-t", "when"},
		{"live", "-i", "lo", "--wide", "--width", "80"},
	} {
		if code, out, errs := runCLI(t, nil, args...); code != exitTrouble || out != "" || !strings.Contains(errs, "-t") && !strings.Contains(errs, "--wide") {
			t.Errorf("%q: code %d err %q", args, code, errs)
		}
	}
}
