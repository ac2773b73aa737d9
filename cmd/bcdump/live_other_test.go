//go:build !linux && !windows && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package main

import (
	"strings"
	"testing"
)

// Where there is no live capture, live says so in one line.
func TestLiveUnsupported(t *testing.T) {
	code, out, errs := runCLI(t, nil, "live", "-i", "lo")
	if code != exitTrouble || out != "" || strings.TrimSpace(errs) != "bcdump: live: live capture needs Linux, Windows (Npcap), macOS or a BSD" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
