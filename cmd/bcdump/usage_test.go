package main

import (
	"strings"
	"testing"
)

// Wrong arguments end with the command's usage line, exit 2; completion
// for a shell without a script is such an error too.
func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"read"}, "bcdump: read: requires at least 1 arg(s), only received 0\nusage: bcdump read FILE... [flags]\n"},
		{[]string{"diff", "a"}, "bcdump: diff: accepts 2 arg(s), received 1\nusage: bcdump diff OLD NEW [flags]\n"},
		{[]string{"manifest", "verify", "m"}, "bcdump: verify: accepts 2 arg(s), received 1\nusage: bcdump manifest verify MANIFEST GAMEDIR [flags]\n"},
		{[]string{"completion", "tcsh"}, "bcdump: completion: no completion for \"tcsh\"; the shells are bash, fish, powershell, zsh\nusage: bcdump completion SHELL [flags]\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, nil, tt.args...)
			if code != exitTrouble || out != "" || errs != tt.err {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant %q", code, out, errs, tt.err)
			}
		})
	}
	for _, shell := range []string{"bash", "fish", "powershell", "zsh"} {
		if code, out, _ := runCLI(t, nil, "completion", shell); code != 0 || len(out) < 100 {
			t.Errorf("completion %s: exit %d, %d bytes", shell, code, len(out))
		}
	}
	if code, out, _ := runCLI(t, nil, "completion"); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("completion without a shell: exit %d, %q", code, out)
	}
}
