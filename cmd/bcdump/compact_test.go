package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// --width N gives the terminal form: lines within N columns, addresses as
// labels; without it (piped) and with --wide, lines are whole, unchanged.
func TestReadWidth(t *testing.T) {
	_, piped, _ := runCLI(t, nil, "read", samplePcap)
	_, wide, _ := runCLI(t, nil, "read", "--wide", samplePcap)
	if wide != piped || !strings.Contains(piped, "192.168.1.20:2655 -> 192.168.1.10:22101") {
		t.Error("--wide or piped output is not the full table")
	}
	long := 0
	for _, l := range strings.Split(piped, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			long++
		}
	}
	if long == 0 {
		t.Fatal("the sample has no line longer than 80 columns; the test shows nothing")
	}
	code, out, errs := runCLI(t, nil, "read", "--width", "80", samplePcap)
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	cut := 0
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
		if strings.HasSuffix(l, "…") {
			cut++
		}
	}
	if cut == 0 || lines[0] != "       c1 = 192.168.1.20:2655" || !strings.Contains(out, "c1 -> s ") {
		t.Errorf("%d lines cut; output starts %q", cut, lines[:3])
	}
	for _, args := range [][]string{
		{"read", "--wide", "-F", "json", samplePcap},
		{"read", "--width", "80", "-F", "hex", samplePcap},
		{"read", "--wide", "--width", "80", samplePcap},
		{"read", "--width", "-1", samplePcap},
	} {
		if code, out, errs := runCLI(t, nil, args...); code != exitTrouble || out != "" || errs == "" {
			t.Errorf("%q: code %d err %q", args, code, errs)
		}
	}
}

// On a terminal (a pseudo-terminal here) the table takes its width.
func TestReadTerminalWidth(t *testing.T) {
	master, slave := openPTY(t, 72)
	defer master.Close()
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.Write(buf[:n])
			if err != nil || bytes.Contains(b.Bytes(), []byte("   end")) || bytes.Count(b.Bytes(), []byte("\n")) >= 27 {
				done <- b.Bytes()
				return
			}
		}
	}()
	t.Setenv("COLUMNS", "")
	var errb bytes.Buffer
	code := run([]string{"read", "--color", "never", samplePcap}, nil, slave, &errb)
	slave.Close()
	out := <-done
	if code != 0 {
		t.Fatalf("code %d err %q", code, errb.String())
	}
	text := strings.ReplaceAll(string(out), "\r\n", "\n")
	if !strings.HasPrefix(text, "       c1 = 192.168.1.20:2655\n") {
		t.Errorf("no labels on a terminal: %q", text[:min(len(text), 200)])
	}
	for _, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > 72 {
			t.Errorf("%d columns on a 72-column terminal: %q", n, l)
		}
	}
}
