//go:build linux

package main

import (
	"strings"
	"testing"
)

// --list-interfaces numbers the interfaces as tshark -D does; lo and any
// are always there on Linux, and -i takes the numbers.
func TestLiveListInterfaces(t *testing.T) {
	code, out, errs := runCLI(t, nil, "live", "--list-interfaces")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var lo, any bool
	for i, l := range lines {
		num, rest, ok := strings.Cut(l, ". ")
		if !ok || num != itoa(i+1) {
			t.Errorf("line %d: %q", i+1, l)
		}
		lo = lo || rest == "lo (Loopback)"
		any = any || rest == "any (all interfaces)"
	}
	if !lo || !any {
		t.Errorf("lo or any missing:\n%s", out)
	}
	code, _, errs = runCLI(t, nil, "live", "-D", "-i", "lo")
	if code != exitTrouble || !strings.Contains(errs, "--list-interfaces takes no -i") {
		t.Errorf("-D -i: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, nil, "live", "-i", itoa(len(lines)+1))
	if code != exitTrouble || !strings.Contains(errs, "no interface") || !strings.Contains(errs, "lo, ") {
		t.Errorf("-i past the list: exit %d, stderr %q", code, errs)
	}
}
