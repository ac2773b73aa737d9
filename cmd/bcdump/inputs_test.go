package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyFiles writes good.pcap, cut.pcap (the sample cut mid-record) and
// zgood.pcap into a directory and returns their paths.
func manyFiles(t *testing.T) (dir string, good, cut, good2 string) {
	t.Helper()
	data, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	dir = tempDir(t)
	good, cut, good2 = filepath.Join(dir, "a-good.pcap"), filepath.Join(dir, "b-cut.pcap"), filepath.Join(dir, "sub", "c-good.pcap")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	for p, b := range map[string][]byte{good: data, cut: data[:len(data)-10], good2: data} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, good, cut, good2
}

// A truncated file between two good ones: each file gets a header, frame
// numbers restart per file, the cut one gets one error line, the last one
// is still read, and the exit status is 2.
func TestReadManyFiles(t *testing.T) {
	_, good, cut, good2 := manyFiles(t)
	code, out, errs := runCLI(t, nil, "read", good, cut, good2)
	if code != exitTrouble {
		t.Errorf("exit %d, want 2", code)
	}
	for _, h := range []string{"==> " + good + " <==\n", "\n==> " + cut + " <==\n", "\n==> " + good2 + " <==\n"} {
		if !strings.Contains(out, h) {
			t.Errorf("output lacks header %q", h)
		}
	}
	if !strings.HasPrefix(out, "==> "+good) {
		t.Errorf("output does not start with the first header: %.80q", out)
	}
	last := out[strings.Index(out, "==> "+good2):]
	if n := strings.Count(last, "\n"); n != 28 || !strings.Contains(last, "\n     1 ") {
		t.Errorf("last file: %d lines (want header + 27), frames numbered from 1: %v", n, strings.Contains(last, "\n     1 "))
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "b-cut.pcap: frame 27") || !strings.Contains(lines[1], "1 of 3 captures") {
		t.Errorf("stderr %q: want the cut file's error, then the count", errs)
	}

	// The same capture read alone keeps its output (no header, no file key).
	_, alone, _ := runCLI(t, nil, "read", good)
	if strings.Contains(alone, "==>") || alone != out[len("==> "+good+" <==\n"):strings.Index(out, "\n==> "+cut)] {
		t.Error("the first file's records differ from reading it alone")
	}
}

// A missing file between two good ones; JSON records carry "file".
func TestReadManyFilesJSON(t *testing.T) {
	_, good, _, good2 := manyFiles(t)
	missing := filepath.Join(filepath.Dir(good), "missing.pcap")
	code, out, errs := runCLI(t, nil, "read", "-F", "json", good, missing, good2)
	if code != exitTrouble || strings.Count(errs, "\n") != 2 || !strings.Contains(errs, "missing.pcap") {
		t.Errorf("exit %d stderr %q", code, errs)
	}
	files := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			File  string `json:"file"`
			Frame int    `json:"frame"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		files[rec.File]++
	}
	if len(files) != 2 || files[good] != 27 || files[good2] != 27 {
		t.Errorf("records per file %v", files)
	}
	_, alone, _ := runCLI(t, nil, "read", "-F", "json", good)
	if strings.Contains(alone, `"file"`) {
		t.Error("one capture: records carry a file key")
	}
}

// A directory is read recursively in name order.
func TestReadDirectory(t *testing.T) {
	dir, good, cut, good2 := manyFiles(t)
	code, out, errs := runCLI(t, nil, "read", "-F", "json", dir)
	if code != exitTrouble || !strings.Contains(errs, "b-cut.pcap") {
		t.Errorf("exit %d stderr %q", code, errs)
	}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			File string `json:"file"`
		}
		json.Unmarshal([]byte(line), &rec)
		if len(order) == 0 || order[len(order)-1] != rec.File {
			order = append(order, rec.File)
		}
	}
	if strings.Join(order, " ") != strings.Join([]string{good, cut, good2}, " ") {
		t.Errorf("files in order %v", order)
	}
}

// stats with a missing and a cut capture among good ones summarizes the
// good ones and lists the others with the reason.
func TestStatsManyFiles(t *testing.T) {
	_, good, cut, good2 := manyFiles(t)
	missing := filepath.Join(filepath.Dir(good), "missing.pcap")
	code, out, errs := runCLI(t, nil, "stats", good, missing, cut, good2)
	if code != exitTrouble || !strings.Contains(errs, "missing.pcap") || !strings.Contains(errs, "2 of 4 captures") {
		t.Errorf("exit %d stderr %q", code, errs)
	}
	want := []string{
		"Captures: " + good + ", " + cut + ", " + good2 + "\n",
		"Skipped:  " + openError(missing) + "\n",
		"Cut off:  " + cut + ": frame 27: truncated record (unexpected EOF)\n",
		"| game datagrams",
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("stats output lacks %q:\n%s", w, out[:min(len(out), 600)])
		}
	}
	// Nothing readable: no summary, the errors only.
	code, out, _ = runCLI(t, nil, "stats", missing, missing+"2")
	if code != exitTrouble || out != "" {
		t.Errorf("nothing readable: exit %d, output %q", code, out)
	}
}

// session and profile go on past a file they cannot read too.
func TestSessionProfileManyFiles(t *testing.T) {
	_, good, _, good2 := manyFiles(t)
	missing := filepath.Join(filepath.Dir(good), "missing.pcap")
	for _, cmd := range []string{"session", "profile"} {
		code, out, errs := runCLI(t, nil, cmd, good, missing, good2)
		if code != exitTrouble || out == "" || !strings.Contains(errs, "missing.pcap") || !strings.Contains(errs, "1 of 3 captures") {
			t.Errorf("%s: exit %d stderr %q, %d bytes out", cmd, code, errs, len(out))
		}
	}
}

// -c ends the run: the captures after the one that reached it are not
// read, missing ones not reported (30 lines, 2 headers, 1 blank line).
func TestReadManyFilesCount(t *testing.T) {
	_, good, _, good2 := manyFiles(t)
	code, out, errs := runCLI(t, nil, "read", "-c", "30", good, good2, "missing.pcap")
	if code != 0 || errs != "" || strings.Count(out, "\n") != 30+3 || strings.Count(out, "==>") != 2 {
		t.Errorf("exit %d err %q, %d lines:\n%s", code, errs, strings.Count(out, "\n"), out)
	}
}

// Under a directory, hidden entries and files that are no capture by
// their first bytes are skipped and counted in one line; compressed
// captures are kept; a non-capture named on the command line is still
// read (and its error reported).
func TestReadDirectorySkips(t *testing.T) {
	dir, good, cut, good2 := manyFiles(t)
	write := func(rel string, b []byte) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, _ := os.ReadFile(samplePcap)
	write(".git/objects/ab/cdef", []byte("blob"))
	write(".git/HEAD", []byte("ref: refs/heads/main\n"))
	write(".hidden.pcap", data)
	notes := write("notes.txt", []byte("not a capture\n"))
	write("sub/main.go", []byte("package main\n"))
	write("empty", nil)
	gz := write("sub/d.pcap.gz", gzipBytes(t, data))

	code, out, errs := runCLI(t, nil, "read", "-F", "json", dir)
	want := "bcdump: " + dir + ": skipped 2 hidden entries and 3 files not captures\n"
	if code != exitTrouble || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 3 { // the cut file and the count follow
		t.Errorf("exit %d stderr %q, want it to start with %q", code, errs, want)
	}
	files := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct {
			File string `json:"file"`
		}
		json.Unmarshal([]byte(line), &rec)
		files[rec.File] = true
	}
	if len(files) != 4 || !files[good] || !files[cut] || !files[good2] || !files[gz] {
		t.Errorf("files read %v", files)
	}
	if code, _, errs := runCLI(t, nil, "read", notes); code != exitTrouble || !strings.Contains(errs, "notes.txt: not a pcap") {
		t.Errorf("a named non-capture: exit %d, %q", code, errs)
	}
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
