package main

import (
	"slices"
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command and returns the
// completions (the last line, the directive, dropped).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errs := runCLI(t, nil, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: code %d err %q", args, code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[:len(lines)-1]
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"read", "--format", ""}, []string{"table", "json", "hex", "parquet"}},
		{[]string{"read", "-F", ""}, []string{"table", "json", "hex", "parquet"}},
		{[]string{"diff", "--format", ""}, []string{"text", "json"}},
		{[]string{"stats", "--format", ""}, []string{"table", "json"}},
		{[]string{"anomalies", "--format", ""}, []string{"table", "json", "markdown"}},
		{[]string{"read", "--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"stats", "--fail-on", ""}, []string{"note", "warn", "error"}},
		{[]string{"read", "-t", ""}, timeFormats},
	}
	for _, tt := range tests {
		if got := complete(t, tt.args...); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
	if got := complete(t, "read", "-Y", "messages.opcode_n"); !slices.Equal(got, []string{"messages.opcode_name"}) {
		t.Errorf("-Y field: %q", got)
	}
	if got := complete(t, "read", "-Y", "frame > 3 and messages.reassembled.fr"); !slices.Equal(got, []string{"frame > 3 and messages.reassembled.frags"}) {
		t.Errorf("-Y second field: %q", got)
	}
	// session.* fields only where they work: bcdump session -Y.
	if got := complete(t, "session", "-Y", "session.verd"); !slices.Equal(got, []string{"session.verdict"}) {
		t.Errorf("session -Y session field: %q", got)
	}
	if got := complete(t, "session", "-Y", "messages.opcode_n"); !slices.Equal(got, []string{"messages.opcode_name"}) {
		t.Errorf("session -Y datagram field: %q", got)
	}
	if got := complete(t, "read", "-Y", "session."); len(got) != 0 {
		t.Errorf("read -Y offers session fields: %q", got)
	}
	if got := complete(t, "read", "-Y", `anomalies.code == "checksum-`); len(got) == 0 || !strings.HasPrefix(got[0], `anomalies.code == "checksum-`) || !strings.HasSuffix(got[0], `"`) {
		t.Errorf("-Y anomaly code: %q", got)
	}
	if got := complete(t, "diff", "--ignore", "fields.game_t"); !slices.Equal(got, []string{"fields.game_time"}) {
		t.Errorf("diff --ignore: %q", got)
	}
	if got := complete(t, "diff", "--ignore", "re"); !slices.Equal(got, []string{"reliable", "retransmits"}) {
		t.Errorf("diff --ignore: %q", got)
	}
	if got := complete(t, "live", "-i", ""); len(got) < 2 || got[0] != "any" || !slices.Contains(got, "lo") {
		t.Errorf("-i: %q", got)
	}
	if got := complete(t, "anomalies", "check"); !slices.Contains(got, "checksum") {
		t.Errorf("anomalies args: %q", got)
	}
	// The completion scripts are there for every shell.
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, _ := runCLI(t, nil, "completion", sh)
		if code != 0 || !strings.Contains(out, "bcdump") {
			t.Errorf("completion %s: code %d, %d bytes", sh, code, len(out))
		}
	}
}
