package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bcdump/bcdump/dissect/dissecttest"
)

// hostileText holds every C0 control, DEL, every C1 control (as UTF-8)
// and the bidi embeddings, overrides and isolates; NUL comes last, as
// NUL-terminated strings stop there.
func hostileText() string {
	var b strings.Builder
	for r := rune(0x202A); r <= 0x202E; r++ {
		b.WriteRune(r)
	}
	for r := rune(0x2066); r <= 0x2069; r++ {
		b.WriteRune(r)
	}
	for r := rune(0x80); r <= 0x9F; r++ {
		b.WriteRune(r)
	}
	b.WriteByte(0x7F)
	for c := byte(0x1F); c > 0; c-- {
		b.WriteByte(c)
	}
	b.WriteByte(0)
	return b.String()
}

// hostileName is hostileText as a file name can hold it (no NUL, no slash),
// with raw bytes 0x80-0x9F (C1 in 8-bit terminals) too. A Windows file
// name holds no C0 control, none of <>:"\|?* and only Unicode: there it
// keeps the bidi controls, DEL and C1 as characters.
func hostileName() string {
	s := strings.NewReplacer("\x00", "", "/", "").Replace(hostileText())
	if runtime.GOOS == "windows" {
		return strings.Map(func(r rune) rune {
			if r < 0x20 || strings.ContainsRune(`<>:"\|?*`, r) {
				return -1
			}
			return r
		}, s)
	}
	for c := byte(0x80); c <= 0x9F; c++ {
		s += string([]byte{c})
	}
	return s
}

// rawControl returns a description of the first control character,
// bidi control or byte that is not UTF-8 in out, or "". Newlines and tabs
// are the only controls output may hold.
func rawControl(out string) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return fmt.Sprintf("byte 0x%02X (not UTF-8) at %d: %q", out[i], i, around(out, i))
		case r == '\n' || r == '\t':
		case r < 0x20 || r >= 0x7F && r <= 0x9F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
			return fmt.Sprintf("U+%04X at %d: %q", r, i, around(out, i))
		}
		i += n
	}
	return ""
}

func around(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+40)]
}

// TestNoRawControls feeds every command a capture whose strings (player
// names in peer info and ship objects, ship class, mission, chat, GameSpy
// hostname and mapname) and whose file name hold every control character
// and bidi control, and checks that no output stream holds one raw (HTML
// escapes differently and has its own tests); JSON stays valid JSON.
func TestNoRawControls(t *testing.T) {
	dir := tempDir(t)
	name := hostileName()
	capA := filepath.Join(dir, "a"+name+".pcap")
	capB := filepath.Join(dir, "b"+name+".pcap")
	writeMerged(t, capA, dissecttest.Hostile(hostileText()))
	writeMerged(t, capB, dissecttest.Hostile(strings.ReplaceAll(hostileText(), "\u202E", "x")))
	notCap := filepath.Join(dir, "n"+name+".pcap")
	if err := os.WriteFile(notCap, []byte("not a capture at all, just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "m"+name+".pcap")

	profA := filepath.Join(dir, "pa"+name+".json")
	profB := filepath.Join(dir, "pb"+name+".json")
	for _, p := range [][2]string{{capA, profA}, {capB, profB}} {
		code, out, errs := runCLI(t, nil, "profile", "-F", "json", p[0])
		if code != 0 {
			t.Fatalf("profile: exit %d: %s", code, errs)
		}
		if err := os.WriteFile(p[1], []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	game := fakeGame(t)
	writeGameFile(t, game, "scripts/ships/x"+strings.ReplaceAll(name, "\\", "")+".pyc", "ship")
	manifest := filepath.Join(dir, "game"+name+".json")
	if code, _, errs := runCLI(t, nil, "manifest", "generate", game, "-o", manifest); code != 0 {
		t.Fatalf("manifest generate: exit %d: %s", code, errs)
	}
	writeGameFile(t, game, "scripts/ships/x"+strings.ReplaceAll(name, "\\", "")+".pyc", "changed")
	// A name that forges a line of the report where file names may hold a
	// newline (not on Windows).
	forged := "\nscripts/App.pyc: forged.pyc"
	if runtime.GOOS == "windows" {
		forged = ""
	}
	writeGameFile(t, game, "scripts/ships/y"+strings.ReplaceAll(name, "\\", "")+forged, "new")

	jsonOut := map[string]bool{}
	cases := [][]string{
		{"read", capA},
		{"read", "--width", "60", capA},
		{"read", "-F", "hex", capA},
		{"read", "-F", "json", capA},
		{"read", capA, capB},
		{"read", "-F", "json", capA, capB},
		{"read", missing},
		{"read", notCap},
		{"read", dir},
		{"stats", capA, capB},
		{"stats", "-b", capA, capB},
		{"stats", "-F", "json", capA},
		{"session", capA},
		{"session", "--width", "60", capA},
		{"stats", "--width", "60", capA, capB},
		{"diff", "--width", "60", capA, capB},
		{"session", "-F", "json", capA},
		{"session", notCap},
		{"profile", capA},
		{"profile", "--per-flow", capA, capB},
		{"profile", "-F", "json", capA},
		{"profile", missing},
		{"report", capA, "-o", filepath.Join(dir, "r.html")},
		{"report", notCap, "-o", filepath.Join(dir, "r2.html")},
		{"diff", capA, capB},
		{"diff", "-F", "json", capA, capB},
		{"diff", capA, notCap},
		{"diff", "--profile", profA, profB},
		{"diff", "--profile", "-F", "json", profA, profB},
		{"diff", "--profile", profA, notCap},
		{"hash", "file", capA, missing},
		{"manifest", "verify", manifest, game},
		{"manifest", "verify", notCap, game},
		{"manifest", "generate", game},
		{"manifest", "generate", game, "-o", manifest + "2"},
		{"manifest", "verify", manifest + "2", game},
		{"decrypt", capA, "-w", filepath.Join(dir, "d.pcap")},
		{"decrypt", missing, "-w", filepath.Join(dir, "d2.pcap")},
	}
	for _, c := range cases {
		for i, a := range c {
			if a == "json" && i > 0 && c[i-1] == "-F" {
				jsonOut[strings.Join(c, " ")] = true
			}
		}
	}
	for _, args := range cases {
		label := strings.ReplaceAll(strings.Join(args, " "), name, "NAME")
		t.Run(label, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, args...)
			if strings.Contains(errs, "unknown flag") || strings.Contains(errs, "usage:") {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if args[0] == "decrypt" {
				out = "" // a capture
			}
			if where := rawControl(out); where != "" {
				t.Errorf("stdout holds %s", where)
			}
			if where := rawControl(errs); where != "" {
				t.Errorf("stderr holds %s", where)
			}
			if jsonOut[strings.Join(args, " ")] {
				checkJSONLines(t, out)
			}
		})
	}
	// The report's page holds no raw control either (issue 38: ESC, CR,
	// bidi and invalid bytes stayed in its text and title): newlines and
	// tabs are its only controls, in text, attributes and embedded JSON.
	for _, page := range []string{"r.html"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if where := rawControl(string(b)); where != "" {
			t.Errorf("%s holds %s", page, where)
		}
		if !strings.Contains(string(b), `\u202e`) {
			t.Errorf("%s does not show the bidi override as an escape", page)
		}
	}
}

// convert writes a trace's tags into pcapng packet comments as valid UTF-8
// with every control, bidi control and invalid byte escaped (issue 38:
// ESC, C1, bidi and invalid UTF-8 were copied raw; tshark prints them);
// so does read -w with bcdump's own comments and the file's name.
func TestConvertCommentsEscaped(t *testing.T) {
	src, err := os.ReadFile("../../dissect/capture/testdata/trace/seed003.log")
	if err != nil {
		t.Fatal(err)
	}
	raw := "[Evil\x1b]0;title\x07 \xc2\x9b[2J \u202e \xff]"
	log := strings.Replace(string(src), "[ConnectAck + ChecksumReq Round 0]", raw, 1)
	if log == string(src) {
		t.Fatal("the tags to replace are not in seed003.log")
	}
	dir := tempDir(t)
	name, shown := "packet_trace\x1b[1m.log", `packet_trace\x1b[1m.log`
	if runtime.GOOS == "windows" { // no C0 control in a Windows file name
		name, shown = "packet_trace\u202e[1m.log", `packet_trace\u202e[1m.log`
	}
	in := filepath.Join(dir, name)
	if err := os.WriteFile(in, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "c.pcapng")
	if code, _, errs := runCLI(t, nil, "convert", in, "-w", out); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	comments := pcapngComments(t, b)
	if len(comments) < 2 {
		t.Fatalf("comments: %q", comments)
	}
	want := `trace #2 [Evil\x1b]0;title\a \u009b[2J \u202e \xff]`
	found := false
	for _, c := range comments {
		if !utf8.ValidString(c) {
			t.Errorf("comment %q is not UTF-8", c)
		}
		if where := rawControl(c); where != "" && !strings.HasPrefix(c, "bcdump convert of") {
			t.Errorf("comment holds %s", where)
		}
		found = found || c == want
	}
	if !found {
		t.Errorf("no comment reads %q: %q", want, comments)
	}
	// The section comment names the file, escaped too (it keeps its own
	// line breaks).
	if shb := comments[0]; rawControl(shb) != "" || !strings.Contains(shb, shown) {
		t.Errorf("section comment %q", shb)
	}
}

// pcapngComments returns the comments of a little-endian pcapng file: the
// section header's first, then every packet's, in order.
func pcapngComments(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	le := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 | int(p[3])<<24 }
	for len(b) >= 12 {
		typ, n := le(b), le(b[4:])
		if n < 12 || n > len(b) {
			t.Fatalf("bad block length %d", n)
		}
		body := b[8 : n-4]
		var opts []byte
		switch typ {
		case 0x0A0D0D0A: // section header: BOM, version, section length
			opts = body[16:]
		case 6: // enhanced packet
			caplen := le(body[12:])
			opts = body[20+(caplen+3)&^3:]
		}
		for len(opts) >= 4 {
			code, l := int(opts[0])|int(opts[1])<<8, int(opts[2])|int(opts[3])<<8
			if code == 0 || 4+l > len(opts) {
				break
			}
			if code == 1 {
				out = append(out, string(opts[4:4+l]))
			}
			opts = opts[4+(l+3)&^3:]
		}
		b = b[n:]
	}
	return out
}

// checkJSONLines checks that out is JSON: one document or one per line.
func checkJSONLines(t *testing.T, out string) {
	t.Helper()
	if json.Valid([]byte(out)) {
		return
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d is not JSON: %.200q", i+1, line)
			return
		}
	}
}

// writeMerged writes sessions as one pcap at path.
func writeMerged(t *testing.T, path string, sessions []*dissecttest.Session) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := dissecttest.WriteMerged(f, sessions...); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
