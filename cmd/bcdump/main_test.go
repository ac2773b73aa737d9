package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func runCLI(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &out, &errb)
	collectStderr(strings.Join(args, " "), errb.String())
	return code, out.String(), errb.String()
}

// Every stderr the CLI tests produce is kept, and TestMain checks them all
// for Go internals once the tests have run.
var stderrSeen struct {
	sync.Mutex
	runs []stderrRun
}

type stderrRun struct{ args, text string }

func collectStderr(args, text string) {
	if text == "" {
		return
	}
	stderrSeen.Lock()
	stderrSeen.runs = append(stderrSeen.runs, stderrRun{args, text})
	stderrSeen.Unlock()
}

// goLeak matches what a user should never read: Go package-qualified
// functions and types, decoder wording, Go syntax.
var goLeak = regexp.MustCompile(`\b(strconv|json|fmt|os|io|bufio|flate|gzip|reflect|runtime|time|net|syscall)\.[A-Z]\w*|Go (struct|value)|cannot unmarshal|(^|[^.\w])json: |\[\]\w+\.\w+|\*\w+\.[A-Z]\w*|^panic: |goroutine \d|invalid character .* looking for|bcdump/bcdump/|\b(encoding|compress|archive|crypto|unicode)/\w+`)

// leaks returns the lines of the collected stderr that leak Go internals.
func leaks() []string {
	stderrSeen.Lock()
	defer stderrSeen.Unlock()
	var out []string
	for _, r := range stderrSeen.runs {
		for _, line := range strings.Split(r.text, "\n") {
			if goLeak.MatchString(line) {
				out = append(out, fmt.Sprintf("bcdump %s: %s", r.args, line))
			}
		}
	}
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	stderrSeen.Lock()
	n := len(stderrSeen.runs)
	stderrSeen.Unlock()
	if l := leaks(); len(l) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d of the error lines the tests produced leak Go internals:\n  %s\n", len(l), strings.Join(l, "\n  "))
		code = 1
	} else if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "checked %d runs' stderr for Go internals\n", n)
	}
	os.Exit(code)
}

// The leak check catches the messages the issue reported.
func TestGoLeakPattern(t *testing.T) {
	for _, bad := range []string{
		`strconv.ParseUint: parsing "-1": invalid syntax`,
		`json: cannot unmarshal string into Go struct field Manifest.directories of type []checksum.ManifestRound`,
		`invalid character 'x' looking for beginning of value`,
		`--hex: encoding/hex: invalid byte: U+0067 'g'`,
	} {
		if !goLeak.MatchString(bad) {
			t.Errorf("%q not caught", bad)
		}
	}
	for _, fine := range []string{
		`bcdump: --manifest: m.json: bad manifest: line 1: unknown key "not"`,
		`bcdump: read: session.pcap: frame 27: truncated record`,
	} {
		if goLeak.MatchString(fine) {
			t.Errorf("%q caught", fine)
		}
	}
}

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

const samplePcap = testdata + "/sample.pcap"

// The cipher commands reproduce the spec's vectors (spec/cipher.md 6).
func TestCryptHex(t *testing.T) {
	tests := []struct {
		cmd, in, want string
	}{
		{"decrypt", "01 D7 31 78 DB 58", "010101020002"},
		{"encrypt", "010101020002", "01d73178db58"},
		{"encrypt", "FF 01 03 0F C0 00 00 0A 0A 0A EF 5F 0A 00 00 00 00", "ffd7336138b35b465435d14fc5e2557166"},
		{"decrypt", "ffd7336138b35b465435d14fc5e2557166", "ff01030fc000000a0a0aef5f0a00000000"},
		{"decrypt", "01", "01"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, nil, tt.cmd, "--hex", tt.in)
		if code != 0 || strings.TrimSpace(out) != tt.want {
			t.Errorf("%s --hex %q: code %d out %q err %q, want %q", tt.cmd, tt.in, code, out, errs, tt.want)
		}
	}
	if code, _, errs := runCLI(t, nil, "decrypt", "--hex", "zz"); code != exitTrouble || errs == "" {
		t.Errorf("bad hex: code %d err %q", code, errs)
	}
}

func TestReadFormats(t *testing.T) {
	for _, format := range []string{"table", "json", "hex"} {
		code, out, errs := runCLI(t, nil, "read", "--format", format, samplePcap)
		if code != 0 || errs != "" || !strings.Contains(out, "Settings") {
			t.Errorf("%s: code %d err %q, output lacks Settings", format, code, errs)
		}
	}
	if code, _, errs := runCLI(t, nil, "read", "--format", "xml", samplePcap); code != exitTrouble || !strings.Contains(errs, "--format") {
		t.Errorf("bad format: code %d err %q", code, errs)
	}
}

func TestReadStdin(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	_, fromFile, _ := runCLI(t, nil, "read", "--format", "json", samplePcap)
	code, fromStdin, errs := runCLI(t, data, "read", "--format", "json", "-")
	if code != 0 || fromStdin != fromFile {
		t.Errorf("stdin: code %d err %q; output differs from file", code, errs)
	}
}

// A capture cut mid-record is reported up to the cut, then one line names
// the file and the frame, exit 2.
func TestReadTruncatedCapture(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tempDir(t), "cut.pcap")
	if err := os.WriteFile(path, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, nil, "read", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitTrouble || len(lines) != 26 {
		t.Errorf("code %d, %d lines of output, want 2 and 26", code, len(lines))
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "cut.pcap") || !strings.Contains(errs, "frame 27") {
		t.Errorf("error %q should be one line naming the file and frame 27", errs)
	}
	notCapture := filepath.Join(tempDir(t), "notes.txt")
	os.WriteFile(notCapture, []byte("hello, this is not a capture\n"), 0o644)
	if code, _, errs := runCLI(t, nil, "read", notCapture); code != exitTrouble || !strings.Contains(errs, "notes.txt") {
		t.Errorf("not a capture: code %d err %q", code, errs)
	}
}

// decrypt -w writes a capture whose game payloads are plaintext.
func TestDecryptCapture(t *testing.T) {
	out := filepath.Join(tempDir(t), "plain.pcap")
	code, _, errs := runCLI(t, nil, "decrypt", samplePcap, "-w", out)
	if code != 0 {
		t.Fatalf("code %d err %q", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The Settings map name is visible in clear text only after deciphering.
	if !bytes.Contains(data, []byte("Multiplayer.Episode.Mission1.Mission1\x32")) {
		t.Error("deciphered capture does not contain the plaintext Settings message")
	}
}

// --cipher does something only in the hex format; elsewhere it is an error.
func TestCipherNeedsHex(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		code, out, errs := runCLI(t, nil, "read", "--cipher", "-F", format, samplePcap)
		if code != exitTrouble || out != "" || !strings.Contains(errs, "--cipher") || !strings.Contains(errs, "-F hex") {
			t.Errorf("%s: code %d err %q", format, code, errs)
		}
	}
	if code, out, errs := runCLI(t, nil, "read", "--cipher", "-F", "hex", samplePcap); code != 0 || out == "" {
		t.Errorf("hex: code %d err %q", code, errs)
	}
	for _, cmd := range []string{"read", "stats"} {
		if code, out, errs := runCLI(t, nil, cmd, "--color", "always", "-F", "json", samplePcap); code != exitTrouble || out != "" || !strings.Contains(errs, "--color") {
			t.Errorf("%s --color with json: code %d err %q", cmd, code, errs)
		}
	}
}

// Bad flag values are told in words, not with the Go parser's message.
func TestFlagValueErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"read", "-p", "-1", samplePcap}, `--port -1 is not a UDP port (1-65535) or auto`},
		{[]string{"read", "-c", "x", samplePcap}, `-c, --count "x": want a whole number`},
		{[]string{"read", "-c", "99999999999999999999", samplePcap}, `"99999999999999999999": too large`},
		{[]string{"diff", "--addresses=maybe", samplePcap, samplePcap}, `--addresses "maybe": want true or false`},
		{[]string{"live", "-i", "lo", "--duration", "5x"}, `--duration "5x": unknown unit "x"`},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, nil, tt.args...)
		if code != exitTrouble || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d err %q, want %q", tt.args, code, errs, tt.want)
		}
	}
}

// JSON and hex the user gave that does not parse is described in words.
func TestBadInputMessages(t *testing.T) {
	dir := tempDir(t)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"diff", write("typed.jsonl", `{"frame":"x"}`+"\n"), samplePcap}, `typed.jsonl: line 1: frame: not a number`},
		{[]string{"diff", write("cut.jsonl", `{"frame":1,`+"\n"), samplePcap}, `cut.jsonl: line 1: malformed JSON`},
		{[]string{"diff", "--profile", "--baseline", write("base.json", "[1]"), samplePcap, samplePcap}, "not a bcdump profile baseline (want an object, not a list)"},
		{[]string{"decrypt", "--hex", "0g"}, `--hex: 'g' is not a hex digit`},
		{[]string{"decrypt", "--hex", "012"}, `--hex: an odd number of hex digits (3)`},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(t, nil, tt.args...)
		if code != exitTrouble || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: code %d err %q, want %q", tt.args, code, errs, tt.want)
		}
	}
}
