package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Tests of issue 37's "habits": what people who come from tcpdump and
// tshark type first.

// A mistyped command gets cobra's suggestion laid out as cobra means it,
// on lines of their own; the name typed stays quoted and escaped.
func TestUnknownCommandLines(t *testing.T) {
	code, out, errs := runCLI(t, nil, "rea", "x.pcap")
	want := "bcdump: unknown command \"rea\" for \"bcdump\"\n\nDid you mean this?\n\tread\n"
	if code != exitTrouble || out != "" || errs != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errs, want)
	}
	_, _, errs = runCLI(t, nil, "re\x1b[2Jad\nx")
	if strings.ContainsAny(errs, "\x1b") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a command name with control characters: %q", errs)
	}
}

// bcdump version is --version.
func TestVersionCommand(t *testing.T) {
	code, out, errs := runCLI(t, nil, "version")
	_, flag, _ := runCLI(t, nil, "--version")
	if code != exitOK || errs != "" || out != flag || !strings.Contains(out, "built with "+runtime.Version()) {
		t.Errorf("exit %d, out %q, err %q; --version %q", code, out, errs, flag)
	}
}

// The README's first install line works from a clone (the module is not
// published, so "go install ...@latest" cannot be first): it is
// "go install ./cmd/bcdump", and that installs a bcdump that runs. .ci/run
// runs the line in a fresh clone too.
func TestREADMEInstallLine(t *testing.T) {
	readme := docs(t)[0].text
	_, install, ok := strings.Cut(readme, "\n## Install\n")
	if !ok {
		t.Fatal("the README has no Install section")
	}
	_, block, _ := strings.Cut(install, "```sh\n")
	first, _, _ := strings.Cut(block, "\n")
	cmd, _, _ := strings.Cut(first, "#")
	if cmd = strings.TrimSpace(cmd); cmd != "go install ./cmd/bcdump" {
		t.Fatalf("the README's first install line is %q, not one that works from a clone", cmd)
	}
	if i, j := strings.Index(install, cmd), strings.Index(install, "@latest"); j < 0 || j < i {
		t.Errorf("the published form (go install ...@latest) does not come after %q", cmd)
	}
	if testing.Short() {
		t.Skip("-short: not building")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := tempDir(t)
	c := exec.Command(goBin, "install", "./cmd/bcdump")
	c.Dir = filepath.Join("..", "..")
	c.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "bcdump"+exeSuffix()), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "bcdump ") {
		t.Errorf("the installed bcdump version: %q %v", out, err)
	}
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// Errors say everything: the output the user named (not bcdump's
// temporary file), and no repository path in place of a picture.
func TestErrorsSayEverything(t *testing.T) {
	missing := filepath.Join(tempDir(t), "nonexistent", "x.pcapng")
	code, _, errs := runCLI(t, nil, "read", "-Y", "anomalies", "-w", missing, samplePcap)
	if code != exitTrouble || !strings.Contains(errs, missing) || strings.Contains(errs, ".tmp") {
		t.Errorf("-w into a missing directory: exit %d, %q", code, errs)
	}
	_, out, _ := runCLI(t, nil, "help", "verdicts")
	if strings.Contains(out, "[image:") || strings.Contains(out, "../") || !strings.Contains(out, "[picture, not shown here: the report page of the sample capture") {
		t.Errorf("help verdicts shows its pictures as paths:\n%s", out)
	}
}

// Windows shells pass wildcards on: bcdump expands them there, with
// Windows' rules (either separator, letter case ignored, dot names only
// by a dot pattern), tested here on every system; elsewhere an argument
// is left as the shell gave it.
func TestWildcardsWindows(t *testing.T) {
	dir := tempDir(t)
	for _, name := range []string{"a.pcap", "b.PCAP", "c.pcapng", ".hidden.pcap", "x[1].pcap", "sub/d.pcap", "sub/e.txt", "sub2/f.pcap"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w := dir + `\`
	tests := []struct {
		arg  string
		want []string
	}{
		{w + `*.pcap`, []string{w + "a.pcap", w + "b.PCAP", w + "x[1].pcap"}},
		{w + `?.pcap*`, []string{w + "a.pcap", w + "b.PCAP", w + "c.pcapng"}},
		{w + `[ab].pcap`, []string{w + "a.pcap", w + "b.PCAP"}},
		{w + `[^a].pcap`, []string{w + "b.PCAP"}},
		{w + `.*`, []string{w + ".hidden.pcap"}},
		{w + `sub*\*.pcap`, []string{w + `sub\d.pcap`, w + `sub2\f.pcap`}},
		{dir + `/sub*/*.pcap`, []string{dir + "/sub/d.pcap", dir + "/sub2/f.pcap"}},
		{w + `x[1].pcap`, []string{w + "x[1].pcap"}},                                 // an existing name is itself, not the pattern x[1]
		{filepath.Join(dir, "x[1].pcap"), []string{filepath.Join(dir, "x[1].pcap")}}, // an existing name is itself
		{"-", []string{"-"}},
	}
	for _, tt := range tests {
		got := expandWildcards("windows", []string{tt.arg})
		if len(got) != 1 || got[0].err != nil || !slices.Equal(got[0].names, tt.want) {
			t.Errorf("%s: %+v, want %q", tt.arg, got, tt.want)
		}
	}
	if got := expandWildcards("windows", []string{w + "*.cap"}); got[0].err == nil || !strings.Contains(got[0].err.Error(), "no file matches") {
		t.Errorf("no match: %+v", got)
	}
	// Not on other systems: the shell expanded what it meant to.
	if got := expandWildcards("linux", []string{w + "*.pcap"}); !slices.Equal(got[0].names, []string{w + "*.pcap"}) || got[0].err != nil {
		t.Errorf("linux: %+v", got)
	}
	if runtime.GOOS == "windows" {
		code, out, errs := runCLI(t, nil, "stats", "--brief", filepath.Join("..", "..", "testdata", "*.pcap"))
		if code != exitOK || !strings.Contains(out, "sample.pcap") {
			t.Errorf("stats testdata\\*.pcap: exit %d %s", code, errs)
		}
	}
}

// At 80 columns session leaves columns out: it names them and says that
// --wide shows them; the footnote explains only the columns shown.
func TestSessionNarrowNamesLeftOut(t *testing.T) {
	code, out, errs := runCLI(t, nil, "session", "--width", "80", samplePcap)
	if code != exitOK {
		t.Fatalf("exit %d %s", code, errs)
	}
	want := "(left out to fit 80 columns: TEAM, SHIP, K/D/SCORE, RTT P50/P95 ms, RETX\n  C2S/S2C; --wide shows them)"
	if !strings.Contains(out, want) || strings.Contains(out, "(RTT:") {
		t.Errorf("session at 80 columns:\n%s", out)
	}
	if _, out, _ = runCLI(t, nil, "session", "--wide", samplePcap); strings.Contains(out, "left out") || !strings.Contains(out, "(RTT: ") {
		t.Errorf("session --wide:\n%s", out)
	}
}

// A filter value a field with known values never has is an error with the
// nearest value, not a silent empty result.
func TestFilterValueNeverMatches(t *testing.T) {
	code, out, errs := runCLI(t, nil, "read", "-Y", "messages.opcode_name == Chta", samplePcap)
	if code != exitTrouble || out != "" || !strings.Contains(errs, "did you mean Chat?") {
		t.Errorf("exit %d, out %q, err %q", code, out, errs)
	}
	for _, expr := range []string{`anomalies.code == "checksum-mismatchh"`, `dir == "c2"`, `messages.type_name == Dat`} {
		if code, _, errs := runCLI(t, nil, "stats", "-Y", expr, samplePcap); code != exitTrouble || !strings.Contains(errs, "never has the value") {
			t.Errorf("%s: exit %d, %q", expr, code, errs)
		}
	}
	if code, _, errs := runCLI(t, nil, "session", "-Y", "messages.opcode_name == Chta", samplePcap); code != exitTrouble || !strings.Contains(errs, "did you mean Chat?") {
		t.Errorf("session: exit %d, %q", code, errs)
	}
}

// When -Y matches messages, a table line cut to the terminal shows the
// matching messages first, marked *, so the cut never hides what matched;
// --only-matching prints only them. Frame 21 of session 3 carries Score
// fifth, after ChecksumComplete, Settings and GameInit.
func TestMatchesYouCanSee(t *testing.T) {
	session3 := filepath.Join(testdata, "captures", "openbc-session-3.pcap")
	expr := "messages.opcode_name == Score"
	_, out, errs := runCLI(t, nil, "read", "-Y", expr, "--width", "120", session3)
	if !strings.Contains(out, "    21    0.220004 s -> c1 peer=1 *DATA rel seq=8 Score player=2 kills=0 deaths=0 score=0 | DATA rel seq=5 Checksum") {
		t.Errorf("--width 120: %s\n%s", errs, out)
	}
	_, out, _ = runCLI(t, nil, "read", "-Y", expr, "--wide", session3)
	if strings.Contains(out, "*DATA") || !strings.Contains(out, "ChecksumComplete | DATA rel seq=6 Settings") {
		t.Errorf("whole lines keep the order:\n%s", out)
	}
	_, out, _ = runCLI(t, nil, "read", "-Y", expr, "--only-matching", session3)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 || lines[0] != "    21    0.220004 127.0.0.1:22101 -> 127.0.0.1:38561 peer=1 DATA rel seq=8 Score player=2 kills=0 deaths=0 score=0 | +4 not matching" {
		t.Errorf("--only-matching:\n%s", out)
	}
	for _, args := range [][]string{
		{"read", "--only-matching", session3},
		{"read", "-Y", expr, "--only-matching", "-F", "json", session3},
	} {
		if code, _, errs := runCLI(t, nil, args...); code != exitTrouble || !strings.Contains(errs, "--only-matching") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// tcpdump's and tshark's flags: -r, -V, -x, -T json|fields|text with -e,
// and a one-line hint for the letters read does not take.
func TestTsharkHabits(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, nil, args...)
		if code != exitOK {
			t.Fatalf("%q: exit %d, %s", args, code, errs)
		}
		return out
	}
	if a, b := run("read", "-r", samplePcap), run("read", samplePcap); a != b {
		t.Error("read -r FILE differs from read FILE")
	}
	hex := run("read", "-F", "hex", "-Y", "frame == 24", samplePcap)
	tree := run("read", "-V", "-Y", "frame == 24", samplePcap)
	dump := run("read", "-x", "-Y", "frame == 24", samplePcap)
	if !strings.Contains(tree, `      0010 text: "hello"`) || strings.Contains(tree, "68 65 6c 6c") {
		t.Errorf("-V:\n%s", tree)
	}
	if !strings.Contains(dump, "68 65 6c 6c") || strings.Contains(dump, "text:") {
		t.Errorf("-x:\n%s", dump)
	}
	if both := run("read", "-V", "-x", "-Y", "frame == 24", samplePcap); both != hex {
		t.Errorf("-V -x is not -F hex:\n%s", both)
	}
	if a, b := run("read", "-T", "json", samplePcap), run("read", "-F", "json", samplePcap); a != b {
		t.Error("-T json differs from -F json")
	}
	fields := run("read", "-T", "fields", "-e", "frame", "-e", "messages.opcode_name", "-e", "bc.messages.fields.text", "-e", "dir", samplePcap)
	for _, want := range []string{"20\tChecksumComplete,Settings,GameInit\t\ts2c\n", "24\tChat\thello\tc2s\n"} {
		if !strings.Contains(fields, want) {
			t.Errorf("-T fields lacks %q:\n%s", want, fields)
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"read", "-nn", samplePcap}, "unknown shorthand flag: 'n' in -nn: addresses are always shown as numbers"},
		{[]string{"read", "-i", "eth0"}, "bcdump live -i IFACE"},
		{[]string{"read", "-R", "frame", samplePcap}, "use -Y"},
		{[]string{"read", "-T", "fields", samplePcap}, "give -e NAME"},
		{[]string{"read", "-e", "frame", samplePcap}, "give -T fields"},
		{[]string{"read", "-T", "fields", "-e", "messages.opcod", samplePcap}, "did you mean messages.opcode?"},
		{[]string{"read", "-T", "pdml", samplePcap}, "-T, --output-format must be text, json or fields"},
		{[]string{"read", "-V", "-F", "json", samplePcap}, "give one"},
	} {
		if code, _, errs := runCLI(t, nil, tc.args...); code != exitTrouble || !strings.Contains(errs, tc.err) {
			t.Errorf("%q: exit %d, %q, want %q", tc.args, code, errs, tc.err)
		}
	}
}
