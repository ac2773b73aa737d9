package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// dirFiles lists dir's names: a test fails on a temporary file left over.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesInputs(t *testing.T) {
	dir := tempDir(t)
	in := filepath.Join(dir, "in.pcap")
	write(t, in, "capture")
	sym := filepath.Join(dir, "sym.pcap")
	hard := filepath.Join(dir, "hard.pcap")
	// Without symbolic links here, the cases with one skip.
	symErr := symlink("in.pcap", sym)
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	tests := []struct {
		name   string
		out    string
		inputs []string
	}{
		{"same name", in, []string{in}},
		{"among several", in, []string{filepath.Join(dir, "other"), in}},
		{"output is a link to the input", sym, []string{in}},
		{"input is a link to the output", in, []string{sym}},
		{"hard link", hard, []string{in}},
		{"relative name", filepath.Join(dir, ".", "in.pcap"), []string{in}},
		{"standard input", in, []string{"-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if symErr != nil && (tt.out == sym || tt.inputs[0] == sym) {
				t.Skip("no symbolic links here:", symErr)
			}
			o := Options{Inputs: tt.inputs, Stdin: stdin}
			var ie *InputError
			if err := Check(tt.out, o); !errors.As(err, &ie) {
				t.Fatalf("Check: %v, want an InputError", err)
			}
			if err := WriteFile(tt.out, []byte("report"), o); !errors.As(err, &ie) {
				t.Fatalf("WriteFile: %v, want an InputError", err)
			}
			if got := readString(t, in); got != "capture" {
				t.Fatalf("the input holds %q", got)
			}
		})
	}
	want := 3
	if symErr != nil {
		want = 2
	}
	if got := len(dirFiles(t, dir)); got != want {
		t.Errorf("%d files in the directory, want %d: %v", got, want, dirFiles(t, dir))
	}
	// A stdin that is not a file, an input that does not exist: fine.
	out := filepath.Join(dir, "out")
	if err := WriteFile(out, []byte("x"), Options{Inputs: []string{"-", filepath.Join(dir, "none")}}); err != nil {
		t.Fatal(err)
	}
}

func TestReplacesWhole(t *testing.T) {
	dir := tempDir(t)
	out := filepath.Join(dir, "out.html")
	if err := WriteFile(out, []byte("one"), Options{}); err != nil {
		t.Fatal(err)
	}
	// Windows keeps one permission bit, read-only: Go shows every
	// writable file there as 0666, and chmod 0600 leaves it so.
	wantNew, wantKept := os.FileMode(0o644), os.FileMode(0o600)
	if runtime.GOOS == "windows" {
		wantNew, wantKept = 0o666, 0o666
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != wantNew {
		t.Errorf("a new file has mode %v, want %v", fi.Mode().Perm(), wantNew)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(out, []byte("two"), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "two" {
		t.Errorf("got %q", got)
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != wantKept {
		t.Errorf("a replaced file has mode %v, want its own %v", fi.Mode().Perm(), wantKept)
	}
	if err := WriteFile(dir, []byte("x"), Options{}); err == nil {
		t.Error("a directory was accepted as an output")
	}
	if names := dirFiles(t, dir); len(names) != 1 {
		t.Errorf("left in the directory: %v", names)
	}
}

// A failure in the middle (Abort instead of Commit) leaves the old file as
// it was and no temporary file.
func TestAbortKeepsOldFile(t *testing.T) {
	dir := tempDir(t)
	out := filepath.Join(dir, "out.pcapng")
	write(t, out, "old")
	f, err := Create(out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half of the new")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "old" {
		t.Errorf("while writing, the output holds %q", got)
	}
	f.Abort()
	f.Abort()
	if got := readString(t, out); got != "old" {
		t.Errorf("after Abort the output holds %q", got)
	}
	if names := dirFiles(t, dir); len(names) != 1 {
		t.Errorf("left in the directory: %v", names)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	// A new name that failed leaves nothing.
	f, err = Create(filepath.Join(dir, "new"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if names := dirFiles(t, dir); len(names) != 1 {
		t.Errorf("left in the directory: %v", names)
	}
}

func TestLinks(t *testing.T) {
	dir := tempDir(t)
	target := filepath.Join(dir, "target.lua")
	link := filepath.Join(dir, "bcdump.lua")
	write(t, target, "theirs")
	if err := symlink("target.lua", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	// Named by the user: followed, the link stays.
	if err := WriteFile(link, []byte("ours"), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "ours" {
		t.Errorf("the link's target holds %q", got)
	}
	if li, _ := os.Lstat(link); li.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	// Chosen by bcdump: the link itself is replaced.
	write(t, target, "theirs")
	if err := WriteFile(link, []byte("ours"), Options{ReplaceLink: true}); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "theirs" {
		t.Errorf("written through the link: the target holds %q", got)
	}
	if li, _ := os.Lstat(link); !li.Mode().IsRegular() || readString(t, link) != "ours" {
		t.Errorf("the link was not replaced by the new file (%v)", li.Mode())
	}
	// A link to a device, chosen by bcdump, is replaced too.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := symlink(os.DevNull, link); err == nil {
		if err := WriteFile(link, []byte("ours"), Options{ReplaceLink: true}); err != nil {
			t.Fatal(err)
		}
		if li, _ := os.Lstat(link); !li.Mode().IsRegular() {
			t.Errorf("the link to %s was not replaced (%v)", os.DevNull, li.Mode())
		}
	}
}

func TestNoClobber(t *testing.T) {
	dir := tempDir(t)
	out := filepath.Join(dir, "report.html")
	o := Options{NoClobber: true}
	if err := WriteFile(out, []byte("one"), o); err != nil {
		t.Fatal(err)
	}
	var ee *ExistsError
	if err := WriteFile(out, []byte("two"), o); !errors.As(err, &ee) {
		t.Fatalf("got %v, want an ExistsError", err)
	}
	// The name appears while the file is written.
	other := filepath.Join(dir, "late.html")
	f, err := Create(other, o)
	if err != nil {
		t.Fatal(err)
	}
	write(t, other, "someone else's")
	if err := f.Commit(); !errors.As(err, &ee) {
		t.Fatalf("got %v, want an ExistsError", err)
	}
	if got := readString(t, out) + readString(t, other); got != "one"+"someone else's" {
		t.Errorf("got %q", got)
	}
	if names := dirFiles(t, dir); len(names) != 2 {
		t.Errorf("left in the directory: %v", names)
	}
}

// Standard output that is an input (bcdump read x.pcap >> x.pcap), also
// through a hard link or as the file on stdin, is refused; a file that is
// no input and a non-file writer are not.
func TestCheckStdout(t *testing.T) {
	dir := tempDir(t)
	in := filepath.Join(dir, "x.pcap")
	if err := os.WriteFile(in, []byte("capture"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(name string) *os.File {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var ie *InputError
	if err := CheckStdout(open(in), Options{Inputs: []string{other, in}}); !errors.As(err, &ie) || ie.In != in || ie.Out != StdoutName {
		t.Errorf("stdout is the input: %v", err)
	}
	if err := CheckStdout(open(in), Options{Inputs: []string{"-"}, Stdin: stdin}); !errors.As(err, &ie) || ie.In != "-" {
		t.Errorf("stdout is the file on stdin: %v", err)
	}
	if err := CheckStdout(open(other), Options{Inputs: []string{in}}); err != nil {
		t.Errorf("stdout is another file: %v", err)
	}
	if err := CheckStdout(nil, Options{Inputs: []string{in}}); err != nil {
		t.Errorf("no *os.File: %v", err)
	}
}

// Errors name the output the user gave, never the temporary file
// (issue 37): a missing directory, and on Windows a target another
// program holds open, tested with the error Windows gives.
func TestErrorsNameTheOutput(t *testing.T) {
	dir := tempDir(t)
	missing := filepath.Join(dir, "nonexistent", "x.pcapng")
	_, err := Create(missing, Options{})
	if err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), ".tmp") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing directory: %v", err)
	}

	target := filepath.Join(dir, "locked.html")
	tmp := filepath.Join(dir, ".locked.html.123.tmp")
	for _, no := range heldOpenErrnos {
		renameErr := &os.LinkError{Op: "rename", Old: tmp, New: target, Err: no}
		err = replaceError("windows", renameErr, target)
		var he *HeldOpenError
		if !errors.As(err, &he) || he.Path != target {
			t.Fatalf("windows errno %d: %v", uintptr(no), err)
		}
		msg := err.Error()
		if !strings.Contains(msg, target) || strings.Contains(msg, ".tmp") || !strings.Contains(msg, "open in another program") || !strings.Contains(msg, "unchanged") {
			t.Errorf("windows errno %d: %q", uintptr(no), msg)
		}
		// Elsewhere the same numbers mean something else: the error says
		// what the system said, of the target.
		err = replaceError("linux", renameErr, target)
		if errors.As(err, &he) || !strings.Contains(err.Error(), target) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("linux errno %d: %v", uintptr(no), err)
		}
	}
}
