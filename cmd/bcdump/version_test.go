package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFlag(t *testing.T) {
	code, out, errs := runCLI(t, nil, "--version")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "bcdump ") || !strings.Contains(out, "built with "+runtime.Version()) {
		t.Errorf("code %d out %q err %q", code, out, errs)
	}
}

func TestFormatVersion(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.25.0",
		Main:      debug.Module{Path: "github.com/bcdump/bcdump", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "4f681a1c0ffee"},
			{Key: "vcs.time", Value: "2026-11-24T00:58:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	want := "v1.2.0\nrevision 4f681a1c0ffee (2026-11-24T00:58:00Z, modified)\nbuilt with go1.25.0"
	if got := formatVersion(bi, stamp{}); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := formatVersion(&debug.BuildInfo{}, stamp{}); got != "(devel)" {
		t.Errorf("empty: %q", got)
	}
}

// A release stamp wins over the build information, and stands alone where
// there is none.
func TestFormatVersionStamped(t *testing.T) {
	st := stamp{"v1.3.0", "0123456789abcdef0123456789abcdef01234567", "2026-11-25T20:00:00Z"}
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Version: "(devel)"},
		Settings:  []debug.BuildSetting{{Key: "vcs.revision", Value: "ffff"}, {Key: "vcs.modified", Value: "true"}},
	}
	want := "v1.3.0\nrevision 0123456789abcdef0123456789abcdef01234567 (2026-11-25T20:00:00Z)\nbuilt with go1.26.0"
	if got := formatVersion(bi, st); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := formatVersion(&debug.BuildInfo{}, st); got != "v1.3.0\nrevision 0123456789abcdef0123456789abcdef01234567 (2026-11-25T20:00:00Z)" {
		t.Errorf("no build info: %q", got)
	}
}
