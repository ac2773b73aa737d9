package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bcdump/bcdump/checksum"
)

// readVectors decodes one JSON object per line of a testdata/vectors file.
func readVectors[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata, "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s has no vectors", name)
	}
	return out
}

// Every StringHash vector, given as a command-line argument (the exact
// bytes, Latin-1 and UTF-8 rows included), prints its hash.
func TestHashStringVectors(t *testing.T) {
	type vec struct {
		S        string `json:"s"`
		BytesHex string `json:"bytes_hex"`
		Hash     string `json:"hash"`
	}
	vs := readVectors[vec](t, "stringhash.jsonl")
	args := []string{"hash", "string"}
	for _, v := range vs {
		b, err := hex.DecodeString(v.BytesHex)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, string(b))
	}
	code, out, errs := runCLI(t, nil, args...)
	if code != 0 || errs != "" {
		t.Fatalf("code %d err %q", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(vs) {
		t.Fatalf("%d lines for %d strings", len(lines), len(vs))
	}
	for i, v := range vs {
		if want := v.Hash + "  " + args[2+i]; lines[i] != want {
			t.Errorf("%q: got %q, want %q", v.S, lines[i], want)
		}
	}
}

// Every FileHash vector, written to a file named App.pyc: the content hash,
// then StringHash("App.pyc") = 0x373EB677 (the name a manifest stores).
func TestHashFileVectors(t *testing.T) {
	type vec struct {
		Hex  string `json:"hex"`
		Hash string `json:"hash"`
	}
	for i, v := range readVectors[vec](t, "filehash.jsonl") {
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tempDir(t), "App.pyc")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runCLI(t, nil, "hash", "file", path)
		if want := fmt.Sprintf("%s  0x373EB677  %s\n", v.Hash, path); code != 0 || out != want {
			t.Errorf("vector %d (%s): code %d out %q err %q, want %q", i, v.Hex, code, out, errs, want)
		}
	}
}

func TestHashErrors(t *testing.T) {
	dir := tempDir(t)
	good := filepath.Join(dir, "Autoexec.pyc")
	if err := os.WriteFile(good, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string // substrings
	}{
		{"no strings", []string{"hash", "string"}, exitTrouble, "", "requires at least 1 arg"},
		{"no files", []string{"hash", "file"}, exitTrouble, "", "requires at least 1 arg"},
		{"missing file, others hashed", []string{"hash", "file", filepath.Join(dir, "nope.pyc"), good}, exitTrouble,
			"0x00000000  0x8501E6A1  " + good, "nope.pyc"},
		{"directory", []string{"hash", "file", dir}, exitTrouble, "", "is a directory"},
		{"case is kept", []string{"hash", "string", "app.pyc"}, 0, "0x20277067  app.pyc", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, nil, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errs, tt.err) {
				t.Errorf("code %d out %q err %q; want code %d, out with %q, err with %q", code, out, errs, tt.code, tt.out, tt.err)
			}
		})
	}
}

// A file larger than io.Copy's buffer, of odd length, hashes as FileHash of
// its whole contents (the streaming hasher keeps word alignment).
func TestHashFileLarge(t *testing.T) {
	b := make([]byte, 100003)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	path := filepath.Join(tempDir(t), "Big.pyc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, nil, "hash", "file", path)
	want := fmt.Sprintf("0x%08X  0x%08X  %s\n", checksum.FileHash(b), checksum.StringHash("Big.pyc"), path)
	if code != 0 || out != want {
		t.Errorf("code %d out %q, want %q", code, out, want)
	}
}
