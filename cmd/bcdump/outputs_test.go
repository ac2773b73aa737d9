package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writerCase is one command that writes a file: args runs it reading in
// and writing out.
type writerCase struct {
	name string
	args func(in, out string) []string
	// input is the file the command reads, copied from testdata.
	input string
}

func writerCases(t *testing.T) []writerCase {
	profileDoc := filepath.Join(tempDir(t), "old.json")
	code, doc, errs := runCLI(t, nil, "profile", "--format", "json", samplePcap)
	if code != 0 {
		t.Fatalf("profile: %d %s", code, errs)
	}
	if err := os.WriteFile(profileDoc, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	baseline := filepath.Join(tempDir(t), "baseline.json")
	if code, _, errs := runCLI(t, nil, "diff", "--profile", profileDoc, samplePcap, "--write-baseline", baseline); code == exitTrouble {
		t.Fatalf("diff --write-baseline: %s", errs)
	}
	return []writerCase{
		{"decrypt -w", func(in, out string) []string { return []string{"decrypt", in, "-w", out} }, samplePcap},
		{"read -w", func(in, out string) []string { return []string{"read", in, "-w", out} }, samplePcap},
		{"read -Y -w", func(in, out string) []string { return []string{"read", "-Y", "anomalies", in, "-w", out} }, samplePcap},
		{"report -o", func(in, out string) []string { return []string{"report", in, "-o", out} }, samplePcap},
		{"diff --write-baseline NEW", func(in, out string) []string {
			return []string{"diff", "--profile", profileDoc, in, "--write-baseline", out}
		}, samplePcap},
		{"diff --write-baseline OLD", func(in, out string) []string {
			return []string{"diff", "--profile", in, samplePcap, "--write-baseline", out}
		}, profileDoc},
		{"diff --baseline B --write-baseline B", func(in, out string) []string {
			return []string{"diff", "--profile", profileDoc, samplePcap, "--baseline", in, "--write-baseline", out}
		}, baseline},
		{"wireshark lua -o", func(in, out string) []string {
			return []string{"wireshark", "lua", "--manifest", in, "-o", out}
		}, filepath.Join(testdata, "vanilla-1.1.json")},
		{"wireshark install", func(in, out string) []string {
			return []string{"wireshark", "install", "--manifest", in, "--dir", filepath.Dir(out)}
		}, filepath.Join(testdata, "vanilla-1.1.json")},
	}
}

// copyInput copies a test input into dir.
func copyInput(t *testing.T, src, dir string) (path string, data []byte) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "in"+filepath.Ext(src))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// Every writer refuses an output that is one of its inputs, by name,
// through a symbolic link or a hard link: exit 2, the input untouched.
func TestWritersRefuseTheirInput(t *testing.T) {
	for _, wc := range writerCases(t) {
		for _, how := range []string{"same name", "symbolic link", "hard link"} {
			t.Run(wc.name+"/"+how, func(t *testing.T) {
				dir := tempDir(t)
				in, data := copyInput(t, wc.input, dir)
				out := in
				if wc.name == "wireshark install" {
					out = filepath.Join(dir, pluginFile)
				}
				switch {
				case how == "symbolic link" || how == "same name" && out != in:
					if err := symlink(in, out+".link"); err != nil {
						t.Skip("no symbolic links:", err)
					}
					if out != in {
						os.Rename(out+".link", out)
					} else {
						out += ".link"
					}
				case how == "hard link":
					if out == in {
						out += ".hard"
					}
					if err := os.Link(in, out); err != nil {
						t.Skip("no hard links:", err)
					}
				}
				code, _, errs := runCLI(t, nil, wc.args(in, out)...)
				if code != exitTrouble || !strings.Contains(errs, "does not write over its input") {
					t.Errorf("exit %d, stderr %q; want 2 and the refusal", code, errs)
				}
				if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
					t.Errorf("the input changed: %d bytes, was %d", len(got), len(data))
				}
				if names := dirNames(t, dir); len(names) != 1+btoi(out != in) {
					t.Errorf("in the directory: %v", names)
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func dirNames(t *testing.T, dir string) []string {
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

// The capture on stdin counts as an input too.
func TestWriterRefusesStdinFile(t *testing.T) {
	in, data := copyInput(t, samplePcap, tempDir(t))
	for _, args := range [][]string{{"decrypt", "-", "-w", in}, {"read", "-", "-w", in}, {"report", "-", "-o", in}} {
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := run(args, f, &out, &errb)
		f.Close()
		if code != exitTrouble || !strings.Contains(errb.String(), "standard input") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
			t.Errorf("%v: the input changed", args)
		}
	}
}

// An existing output is replaced whole; a symbolic link named by -o or -w
// is followed (the link stays, its target is replaced).
func TestWritersReplaceWhole(t *testing.T) {
	for _, wc := range writerCases(t) {
		t.Run(wc.name, func(t *testing.T) {
			dir := tempDir(t)
			in, _ := copyInput(t, wc.input, dir)
			target := filepath.Join(dir, "target")
			out := filepath.Join(dir, "out")
			if wc.name == "wireshark install" {
				out = filepath.Join(dir, pluginFile)
			}
			os.WriteFile(target, []byte("old"), 0o644)
			if err := symlink(target, out); err != nil {
				t.Skip("no symbolic links:", err)
			}
			code, _, errs := runCLI(t, nil, wc.args(in, out)...)
			if code == exitTrouble {
				t.Fatalf("exit 2: %s", errs)
			}
			li, err := os.Lstat(out)
			if err != nil {
				t.Fatal(err)
			}
			old, _ := os.ReadFile(target)
			if wc.name == "wireshark install" {
				// bcdump chose the name: the link is replaced, its target kept.
				if !li.Mode().IsRegular() || string(old) != "old" {
					t.Errorf("%v; the link's target holds %q", li.Mode(), old)
				}
			} else if li.Mode()&os.ModeSymlink == 0 || string(old) == "old" || len(old) == 0 {
				t.Errorf("%v; the link's target holds %q", li.Mode(), old)
			}
			if names := dirNames(t, dir); len(names) != 3 {
				t.Errorf("in the directory: %v", names)
			}
		})
	}
}

// A capture that cannot be read to its end leaves the old output as it was
// (report writes the page of what it read, as read prints it).
func TestWriterFailureKeepsOldFile(t *testing.T) {
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.pcap")
	for _, args := range [][]string{{"decrypt", cut, "-w", out}, {"read", cut, "-w", out}} {
		os.WriteFile(out, []byte("old"), 0o644)
		code, _, errs := runCLI(t, nil, args...)
		if got, _ := os.ReadFile(out); code != exitTrouble || string(got) != "old" {
			t.Errorf("%v: exit %d (%q), the output holds %d bytes", args, code, errs, len(got))
		}
		if names := dirNames(t, dir); len(names) != 2 {
			t.Errorf("%v: in the directory: %v", args, names)
		}
	}
	// A folder that does not exist: one line, exit 2.
	code, _, errs := runCLI(t, nil, "decrypt", samplePcap, "-w", filepath.Join(dir, "none", "out.pcap"))
	if code != exitTrouble || strings.Count(errs, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// report without -o writes report.html but never over an existing one.
func TestReportDefaultKeepsExisting(t *testing.T) {
	dir := tempDir(t)
	in, _ := copyInput(t, samplePcap, dir)
	t.Chdir(dir)
	if code, _, errs := runCLI(t, nil, "report", in); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := os.WriteFile("report.html", []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, nil, "report", in)
	if got, _ := os.ReadFile("report.html"); code != exitTrouble || string(got) != "mine" ||
		errs != "bcdump: report.html exists; give -o report.html to replace it, or another name\n" {
		t.Errorf("exit %d, stderr %q, report.html holds %d bytes", code, errs, len(got))
	}
	if code, _, errs := runCLI(t, nil, "report", in, "-o", "report.html"); code != 0 {
		t.Errorf("-o report.html: exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile("report.html"); string(got) == "mine" {
		t.Error("-o report.html did not replace it")
	}
}

// bcdump man chose the page names: a link planted there is replaced, the
// file it pointed to kept.
func TestManReplacesLinks(t *testing.T) {
	dir := tempDir(t)
	victim := filepath.Join(tempDir(t), "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	page := filepath.Join(dir, "bcdump-read.1")
	if err := symlink(victim, page); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if code, _, errs := runCLI(t, nil, "man", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Errorf("written through the link: %q", got)
	}
	if li, err := os.Lstat(page); err != nil || !li.Mode().IsRegular() {
		t.Errorf("%s: %v %v", page, li.Mode(), err)
	}
}
