//go:build !linux

package main

import (
	"strings"
	"testing"
)

// Elsewhere than Linux, live says in one line that it needs Linux.
func TestLiveNeedsLinux(t *testing.T) {
	code, out, errs := runCLI(t, nil, "live", "-i", "lo")
	if code != exitTrouble || out != "" || strings.TrimSpace(errs) != "bcdump: live: live capture needs Linux (AF_PACKET)" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
