package main

import (
	"regexp"
	"strings"
	"testing"
)

// excerptBlock is an example the help topics shorten: a fenced block after
// "<!-- excerpt: bcdump ARGS -->", up to "<!-- /excerpt -->".
var excerptBlock = regexp.MustCompile("(?s)<!-- excerpt: bcdump ([^>]*?) -->\n```\n(.*?)```\n<!-- /excerpt -->")

// Every shortened example is cut from what bcdump prints: the parts
// between lines of "..." (or "…") are whole lines of the output, in its
// order.
func TestHelpExcerpts(t *testing.T) {
	found := 0
	for _, d := range docs(t) {
		for _, m := range excerptBlock.FindAllStringSubmatch(d.text, -1) {
			found++
			args := strings.Fields(m[1])
			t.Run(m[1], func(t *testing.T) {
				for i, a := range args {
					if strings.HasPrefix(a, "testdata/") {
						args[i] = testdata + a[len("testdata"):]
					}
				}
				_, out, errs := runCLI(t, nil, args...)
				if out == "" {
					t.Fatalf("no output: %s", errs)
				}
				out = "\n" + strings.ReplaceAll(out, testdata+"/", "testdata/")
				at := 0
				for _, part := range excerptParts(m[2]) {
					i := strings.Index(out[at:], "\n"+part)
					if i < 0 {
						t.Errorf("%s: not in the output of bcdump %s (after what came before):\n%s", d.path, m[1], part)
						return
					}
					at += i + len(part)
				}
			})
		}
	}
	if found < 3 {
		t.Errorf("%d excerpt blocks, want the session, profile and diff --profile ones", found)
	}
}

// excerptParts splits a block at its "..." lines.
func excerptParts(block string) []string {
	var parts []string
	var cur strings.Builder
	for _, l := range strings.SplitAfter(block, "\n") {
		if s := strings.TrimSpace(l); s == "..." || s == "…" {
			if cur.Len() > 0 {
				parts = append(parts, cur.String())
			}
			cur.Reset()
			continue
		}
		cur.WriteString(l)
	}
	if cur.Len() > 0 {
		parts = append(parts, cur.String())
	}
	return parts
}
