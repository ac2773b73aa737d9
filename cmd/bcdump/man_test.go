package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var updateMan = flag.Bool("update-man", false, "rewrite the committed manual pages under testdata/man")

// The manual pages are generated from the commands (bcdump man DIR); a
// copy is committed under testdata/man so that a change to any help text
// shows in review as the page it changes, and this test keeps that copy
// current: it fails when a command's help changed and the pages were not
// regenerated (go test ./cmd/bcdump -run ManPages -update-man).
func TestManPagesCurrent(t *testing.T) {
	committed := filepath.Join(testdata, "man")
	// A fixed date: the committed pages must not change every day.
	date := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	dir := tempDir(t)
	if *updateMan {
		dir = committed
		os.RemoveAll(dir)
	}
	if err := writeManPages(newRoot(&streams{}), dir, date); err != nil {
		t.Fatal(err)
	}
	if *updateMan {
		return
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.[17]"))
	want, _ := filepath.Glob(filepath.Join(committed, "*.[17]"))
	names := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if !slices.Equal(names(got), names(want)) {
		t.Fatalf("pages %q, committed %q (go test ./cmd/bcdump -run ManPages -update-man)", names(got), names(want))
	}
	for _, p := range got {
		g, _ := os.ReadFile(p)
		w, _ := os.ReadFile(filepath.Join(committed, filepath.Base(p)))
		if !bytes.Equal(g, w) {
			t.Errorf("%s is not current (go test ./cmd/bcdump -run ManPages -update-man)", filepath.Base(p))
		}
	}
}

// bcdump man DIR writes a page per command, with the sections a page has.
func TestManCommand(t *testing.T) {
	dir := filepath.Join(tempDir(t), "man1")
	t.Setenv("SOURCE_DATE_EPOCH", "1767384000")
	code, _, errs := runCLI(t, nil, "man", dir)
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	for _, page := range []string{"bcdump.1", "bcdump-read.1", "bcdump-stats.1", "bcdump-manifest-verify.1", "bcdump-completion-bash.1", "bcdump-man.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Error(err)
			continue
		}
		s := string(b)
		for _, want := range []string{`.TH "` + strings.ToUpper(strings.TrimSuffix(page, ".1")) + `" 1 "2026-01-02"`, ".SH NAME\n", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", page, want)
			}
		}
	}
	read, _ := os.ReadFile(filepath.Join(dir, "bcdump-read.1"))
	if !strings.Contains(string(read), `.B \-t, \-\-time\-format string`) {
		t.Errorf("bcdump-read.1 does not list -t")
	}
	t.Setenv("SOURCE_DATE_EPOCH", "soon")
	if code, _, errs := runCLI(t, nil, "man", dir); code != exitTrouble || !strings.Contains(errs, "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: code %d err %q", code, errs)
	}
}
