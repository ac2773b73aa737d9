package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every enumerated flag of every command is declared once with its
// values: its usage names them all, shell completion offers exactly them,
// and a value that is none of them is refused before anything runs, with
// the whole list (and the nearest one).
func TestEnumeratedFlags(t *testing.T) {
	root := newRoot(&streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}})
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			cs := flagChoices(f)
			if cs == nil {
				return
			}
			path := strings.Fields(c.CommandPath())[1:]
			seen[f.Name] = true
			if !strings.Contains(f.Usage, cs.list(false)) {
				t.Errorf("%s --%s: usage %q does not list %q", c.CommandPath(), f.Name, f.Usage, cs.list(false))
			}
			if got := complete(t, append(path, "--"+f.Name, "")...); !slices.Equal(got, cs.names()) {
				t.Errorf("%s --%s completes %q, want %q", c.CommandPath(), f.Name, got, cs.names())
			}
			bad := cs[len(cs)-1].name + "s"
			code, out, errs := runCLI(t, nil, append(path, "--"+f.Name, bad, "no-such-file")...)
			want := "--" + f.Name + " must be " + cs.list(true) + `, not "` + bad + `"; did you mean ` + cs[len(cs)-1].name + "?"
			if code != exitTrouble || out != "" || !strings.Contains(errs, want) {
				t.Errorf("%s --%s %s: exit %d, stderr %q, want %q", c.CommandPath(), f.Name, bad, code, errs, want)
			}
		})
		for _, sc := range c.Commands() {
			walk(sc)
		}
	}
	walk(root)
	for _, name := range []string{"format", "color", "time-format", "fail-on"} {
		if !seen[name] {
			t.Errorf("--%s is not an enumerated flag anywhere", name)
		}
	}
	// Other spellings and case are accepted and stored as the name.
	for _, tc := range [][]string{{"stats", "--fail-on", "WARNING", samplePcap}, {"stats", "-F", "JSON", samplePcap}} {
		if code, _, errs := runCLI(t, nil, tc...); code != exitOK {
			t.Errorf("%q: exit %d %s", tc, code, errs)
		}
	}
	// session --fail-on lists join with the severities (issue 37).
	_, _, errs := runCLI(t, nil, "session", "--fail-on", "joins", samplePcap)
	if !strings.Contains(errs, `--fail-on must be note, warn, error or join, not "joins"; did you mean join?`) {
		t.Errorf("session --fail-on joins: %q", errs)
	}
	_, _, errs = runCLI(t, nil, "read", "-F", "bogus", samplePcap)
	if !strings.Contains(errs, `must be table, json, hex or parquet, not "bogus"`) {
		t.Errorf("read -F bogus: %q", errs)
	}
}
