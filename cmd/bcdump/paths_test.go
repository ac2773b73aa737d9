package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// winPath is a Windows-style path under dir: on Windows a real one (drive
// letter, backslashes); elsewhere a file name holding the same characters,
// which no command may split at ':' or '\'.
func winPath(t *testing.T, dir string, parts ...string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		p := filepath.Join(append([]string{dir}, parts...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return filepath.Join(dir, `C:\`+strings.Join(parts, `\`))
}

// Every command that takes a file, as input or output, takes a path with
// a drive letter, backslashes and a space; "-" reads binary stdin.
func TestWindowsPaths(t *testing.T) {
	sample, err := os.ReadFile("../../testdata/sample.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	in := winPath(t, dir, "caps", "bc sample.pcap")
	if err := os.WriteFile(in, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	out := func(name string) string { return winPath(t, dir, "out dir", name) }
	tests := []struct {
		args    []string
		written string
	}{
		{[]string{"read", in}, ""},
		{[]string{"stats", in}, ""},
		{[]string{"session", in}, ""},
		{[]string{"profile", in}, ""},
		{[]string{"diff", in, in}, ""},
		{[]string{"read", "-w", out("w.pcapng"), in}, out("w.pcapng")},
		{[]string{"report", "-o", out("r.html"), in}, out("r.html")},
		{[]string{"decrypt", "-w", out("d.pcap"), in}, out("d.pcap")},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			code, stdout, errs := runCLI(t, nil, tt.args...)
			if code != 0 {
				t.Fatalf("%q: exit %d, stderr %q", tt.args, code, errs)
			}
			if tt.written == "" && stdout == "" {
				t.Errorf("%q: no output", tt.args)
			}
			if tt.written != "" {
				if fi, err := os.Stat(tt.written); err != nil || fi.Size() == 0 {
					t.Errorf("%q: %s not written (%v)", tt.args, tt.written, err)
				}
			}
		})
	}
	// "-" reads the capture from stdin, byte for byte: pcap data holds CR,
	// LF and ^Z bytes that a text-mode reader would change.
	if !bytes.ContainsAny(sample, "\r\n\x1a") {
		t.Fatal("sample.pcap has none of the bytes text mode changes")
	}
	_, fromFile, _ := runCLI(t, nil, "read", "-F", "json", in)
	code, fromStdin, errs := runCLI(t, sample, "read", "-F", "json", "-")
	if code != 0 || fromStdin != fromFile {
		t.Errorf("read - : exit %d, stderr %q; output differs from the file's:\n%s", code, errs, lineDiff(fromStdin, fromFile))
	}
}
