//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// wireshark install refuses a FIFO planted at the plugin's path without
// opening it (issue 38: it hung forever waiting for a reader).
func TestWiresharkInstallFIFO(t *testing.T) {
	dir := tempDir(t)
	fifo := filepath.Join(dir, pluginFile)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	code, _, errs := runCLI(t, nil, "wireshark", "install", "--dir", dir)
	if code != exitTrouble || !strings.Contains(errs, "not a regular file (a FIFO)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// The plugin folder: an absolute XDG_CONFIG_HOME is used, a relative one
// ignored as the XDG spec says (issue 38), a relative HOME refused.
func TestWiresharkPluginDirXDG(t *testing.T) {
	home := tempDir(t)
	for _, c := range []struct {
		xdg, home, want, err string
	}{
		{xdg: "/xdg", home: home, want: "/xdg/wireshark/plugins"},
		{xdg: "rel/xdg", home: home, want: filepath.Join(home, ".config/wireshark/plugins")},
		{xdg: "", home: home, want: filepath.Join(home, ".config/wireshark/plugins")},
		{xdg: "rel/xdg", home: "relhome", err: "not an absolute path"},
	} {
		t.Setenv("XDG_CONFIG_HOME", c.xdg)
		t.Setenv("HOME", c.home)
		got, err := pluginDir()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("XDG_CONFIG_HOME=%q HOME=%q: %q, %v; want error %q", c.xdg, c.home, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("XDG_CONFIG_HOME=%q HOME=%q: %q, %v; want %q", c.xdg, c.home, got, err, c.want)
		}
	}
}
