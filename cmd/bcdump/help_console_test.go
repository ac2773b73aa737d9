package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The examples of time formats, the terminal form, stats --brief, the
// validation messages and completion in the help topics (and the README)
// are bcdump's output: each "$ bcdump ..." line below is run (in a
// directory holding sample.pcap and not.json) and what follows it in the
// topic compared.
func TestHelpConsoleExamples(t *testing.T) {
	all := docs(t)
	dir := tempDir(t)
	sample, _ := os.ReadFile(samplePcap)
	os.WriteFile(filepath.Join(dir, "sample.pcap"), sample, 0o644)
	os.WriteFile(filepath.Join(dir, "not.json"), []byte(`{"not":"a manifest"}`+"\n"), 0o644)
	t.Chdir(dir)
	commands := []string{
		"bcdump read -t abs -c 3 sample.pcap",
		"bcdump read -t delta -c 3 sample.pcap | cut -c1-18",
		"bcdump read -t epoch -c 3 sample.pcap | cut -c1-24",
		"bcdump read --width 80 -c 6 sample.pcap",
		"bcdump stats --brief testdata/captures/openbc-session-2.pcap",
		"bcdump read --cipher sample.pcap",
		"bcdump read -p -1 sample.pcap",
		"bcdump read --manifest not.json sample.pcap",
		"bcdump read -r sample.pcap -T fields -e frame -e dir -e messages.opcode_name -e messages.fields.text -Y 'messages.opcode_name == Chat'",
		"bcdump __complete read -F '' 2>/dev/null",
		"bcdump __complete read -Y 'messages.opcode_n' 2>/dev/null",
	}
	cut := regexp.MustCompile(` \| cut -c1-(\d+)$`)
	for _, c := range commands {
		var shown, where string
		for _, d := range all {
			if s, ok := docOutput(d.text, c); ok {
				shown, where = s, filepath.Base(d.path)
				break
			}
		}
		if where == "" {
			t.Errorf("no help topic shows %q", "$ "+c)
			continue
		}
		line, width := c, 0
		line, quiet := strings.CutSuffix(line, " 2>/dev/null")
		if m := cut.FindStringSubmatch(c); m != nil {
			width, _ = strconv.Atoi(m[1])
			line = c[:len(c)-len(m[0])]
		}
		args := shellWords(strings.TrimPrefix(line, "bcdump "))
		for i, a := range args {
			if strings.HasPrefix(a, "testdata/") {
				args[i] = filepath.Join(wdBefore, "..", "..", a)
			}
		}
		_, out, errs := runCLI(t, nil, args...)
		got := out + errs
		if quiet {
			got = out
		}
		if width > 0 {
			var b strings.Builder
			for _, l := range strings.SplitAfter(got, "\n") {
				nl := strings.HasSuffix(l, "\n")
				l = strings.TrimSuffix(l, "\n")
				if utf8.RuneCountInString(l) > width {
					l = string([]rune(l)[:width])
				}
				b.WriteString(l)
				if nl {
					b.WriteString("\n")
				}
			}
			got = b.String()
		}
		if got != shown {
			t.Errorf("%s: the output of %q differs:\nshown:\n%s\nbcdump:\n%s", where, c, shown, got)
		}
	}
}

// wdBefore is the package directory (the tests' working directory before
// any t.Chdir).
var wdBefore, _ = os.Getwd()

// docOutput is the text after "$ cmd" up to the next prompt or the end
// of the block.
func docOutput(text, cmd string) (string, bool) {
	i := strings.Index(text, "\n$ "+cmd+"\n")
	if i < 0 {
		return "", false
	}
	rest := text[i+len(cmd)+4:]
	var b strings.Builder
	for _, l := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(l, "$ ") || strings.HasPrefix(l, "```") {
			break
		}
		b.WriteString(l)
	}
	return b.String(), true
}

// shellWords splits a command line at spaces, honouring single quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote, have = !inQuote, true
		case r == ' ' && !inQuote:
			if have {
				out = append(out, cur.String())
			}
			cur.Reset()
			have = false
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
