package main

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the generated blocks of the help topics and the README (filter examples, anomaly table)")

// doc is a Markdown file whose examples the tests check: the README or a
// help topic.
type doc struct{ path, text string }

// docs returns the README and every help topic, as on disk.
func docs(t *testing.T) []doc {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(wdBefore, "helptopics", "*.md"))
	paths = append([]string{filepath.Join(wdBefore, "..", "..", "README.md")}, paths...)
	var out []doc
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, doc{p, string(b)})
	}
	return out
}

// readTopic is the Markdown of topic name.
func readTopic(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(wdBefore, "helptopics", name+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkDocBlocks compares the text between begin and end, in every doc
// that holds such a block (one at least), with want; with update it
// rewrites the block instead of failing.
func checkDocBlocks(t *testing.T, begin, end, want string, update bool, hint string) {
	t.Helper()
	found := 0
	for _, d := range docs(t) {
		i := strings.Index(d.text, begin)
		if i < 0 {
			continue
		}
		j := strings.Index(d.text[i:], end)
		if j < 0 {
			t.Fatalf("%s: %q without %q", d.path, begin, end)
		}
		j += i
		found++
		if d.text[i+len(begin):j] == want {
			continue
		}
		if !update {
			t.Errorf("%s: the block after %q differs from bcdump's output (%s)", filepath.Base(d.path), strings.TrimSpace(begin), hint)
			continue
		}
		if err := os.WriteFile(d.path, []byte(d.text[:i+len(begin)]+want+d.text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if found == 0 {
		t.Fatalf("no help topic or README has the %q ... %q block", begin, end)
	}
}

// Every topic has a title, renders for a terminal and as a manual page,
// and the help command lists and prints it.
func TestHelpTopics(t *testing.T) {
	topics := helpTopics()
	if len(topics) < 10 {
		t.Fatalf("%d topics", len(topics))
	}
	_, list, _ := runCLI(t, nil, "help")
	for _, tp := range topics {
		t.Run(tp.Name, func(t *testing.T) {
			if !strings.HasPrefix(tp.Body, "# ") || tp.Title == "" {
				t.Errorf("the first line is not a \"# Title\" line")
			}
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(tp.Name) + ` +` + regexp.QuoteMeta(tp.Title) + `$`).MatchString(list) {
				t.Errorf("the list of topics lacks %q (%s)", tp.Name, tp.Title)
			}
			text := renderTopicText(tp.Body)
			if regexp.MustCompile("(?m)^(```|<!--)").MatchString(text) || !strings.HasPrefix(text, tp.Title+"\n===") {
				t.Errorf("rendered text:\n%s", text)
			}
			if strings.Count(tp.Body, "```")%2 != 0 {
				t.Errorf("a code block is not closed")
			}
			code, out, errs := runCLI(t, nil, "help", tp.Name)
			if code != exitOK || errs != "" || !strings.Contains(out, text) {
				t.Errorf("bcdump help %s: exit %d, %s", tp.Name, code, errs)
			}
			page := string(topicManPage(tp, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)))
			if !strings.HasPrefix(page, `.TH "BCDUMP-`+strings.ToUpper(tp.Name)+`" 7 "2026-01-02"`) || !strings.Contains(page, ".SH DESCRIPTION\n") ||
				strings.Count(page, "\n.nf\n") != strings.Count(page, "\n.fi\n") {
				t.Errorf("man page:\n%s", page)
			}
			for l := range strings.Lines(page) {
				if strings.HasPrefix(l, "'") || strings.HasPrefix(l, ".") && !regexp.MustCompile(`^\.(TH|nh|ad|SH|SS|PP|RS|RE|nf|fi|IP|BR) ?`).MatchString(l) {
					t.Errorf("man page line starts a request: %q", l)
				}
			}
		})
	}
}

// help: commands and topics, a command with its topic, and an unknown
// name is a usage error that names the topics.
func TestHelpCommand(t *testing.T) {
	code, out, _ := runCLI(t, nil, "help")
	if code != exitOK || !strings.Contains(out, "Available Commands:") || !strings.Contains(out, "Help topics") {
		t.Errorf("bcdump help: exit %d\n%s", code, out)
	}
	_, root, _ := runCLI(t, nil, "--help")
	if root != out {
		t.Error("bcdump --help differs from bcdump help")
	}
	_, readHelp, _ := runCLI(t, nil, "read", "--help")
	if code, out, _ := runCLI(t, nil, "help", "read"); code != exitOK || out != readHelp {
		t.Errorf("bcdump help read is not bcdump read --help: exit %d\n%s", code, out)
	}
	_, diffHelp, _ := runCLI(t, nil, "diff", "--help")
	if !strings.HasSuffix(diffHelp, "\nReference: bcdump help diff\n") {
		t.Errorf("bcdump diff --help does not name its topic:\n%s", diffHelp)
	}
	code, out, _ = runCLI(t, nil, "help", "diff")
	if code != exitOK || !strings.Contains(out, "Usage:") || !strings.Contains(out, renderTopicText(readTopic(t, "diff"))) || strings.Contains(out, "Reference:") {
		t.Errorf("bcdump help diff: exit %d\n%s", code, out)
	}
	code, out, errs := runCLI(t, nil, "help", "no-such-topic")
	if code != exitTrouble || out != "" || !strings.Contains(errs, `"no-such-topic"`) || !strings.Contains(errs, "filters") {
		t.Errorf("unknown topic: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, comp, _ := runCLI(t, nil, "__complete", "help", "fi")
	if !strings.Contains(comp, "fields\t") || !strings.Contains(comp, "filters\t") {
		t.Errorf("completion of help fi:\n%s", comp)
	}
}

// pendingTopics are named by references but written by another change;
// remove a name here once its file exists.
var pendingTopics []string

// Every "bcdump help X" in the topics, the README and the Go sources, and
// every topic the README's reference table lists, is a topic or command.
func TestHelpReferences(t *testing.T) {
	known := func(name string) bool {
		if _, ok := findTopic(name); ok || slices.Contains(pendingTopics, name) {
			return true
		}
		c, rest, err := newRoot(&streams{}).Find(strings.Fields(name))
		return err == nil && len(rest) == 0 && c.Name() != "bcdump"
	}
	ref := regexp.MustCompile("bcdump help ([a-z][a-z0-9-]*)")
	check := func(path, text string) {
		for _, m := range ref.FindAllStringSubmatch(text, -1) {
			if !known(m[1]) {
				t.Errorf("%s: \"bcdump help %s\" names no topic or command", path, m[1])
			}
		}
	}
	for _, d := range docs(t) {
		check(d.path, d.text)
	}
	err := filepath.WalkDir(filepath.Join(wdBefore, "..", ".."), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	readme := docs(t)[0].text
	_, table, ok := strings.Cut(readme, "| topic | what it covers |")
	if !ok {
		t.Fatal("the README lacks its table of topics")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	n := 0
	for l := range strings.Lines(table) {
		first, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " |")
		for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(first, -1) {
			n++
			if !known(m[1]) {
				t.Errorf("the README lists topic %q, which does not exist", m[1])
			}
		}
	}
	if n < 10 {
		t.Errorf("the README's table of topics names %d topics", n)
	}
}

// The README's quick start is the first thing in it, as .ci/run runs it.
func TestREADMEQuickStart(t *testing.T) {
	readme := docs(t)[0].text
	const start = "# bcdump\n\n```sh\ngo run ./cmd/bcdump read testdata/sample.pcap"
	if !strings.HasPrefix(readme, start) {
		t.Errorf("the README does not start with the quick start %q", start)
	}
	if n := strings.Count(readme, "\n"); n > 400 {
		t.Errorf("the README has %d lines; the reference belongs in help topics", n)
	}
	if !bytes.Contains([]byte(readme), []byte("go test -short ./...")) {
		t.Error("the README does not say which tests to run")
	}
}
