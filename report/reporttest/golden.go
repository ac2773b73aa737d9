// Package reporttest holds what the reporters' tests share: golden-file
// comparison. It imports nothing of bcdump, so report's own tests can use it.
package reporttest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the file at path, or rewrites the file when
// update is set (each package's -update flag). pkg names the package for
// the "run go test PKG -update" hint. A difference is reported at its first
// line and byte, with some context, since JSON lines are long.
func Golden(t testing.TB, path string, got []byte, update bool, pkg string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update)", err, pkg)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if bytes.Equal(gl[i], wl[i]) {
			continue
		}
		j := 0
		for j < len(gl[i]) && j < len(wl[i]) && gl[i][j] == wl[i][j] {
			j++
		}
		from := max(j-60, 0)
		t.Fatalf("%s differs at line %d, byte %d:\n got: …%s\nwant: …%s\n(run go test %s -update and review the diff)",
			path, i+1, j+1, clip(gl[i][from:]), clip(wl[i][from:]), pkg)
	}
	t.Fatalf("%s differs in length: %d lines, want %d (run go test %s -update and review the diff)", path, len(gl), len(wl), pkg)
}

func clip(b []byte) []byte {
	if len(b) > 160 {
		return append(b[:160:160], "…"...)
	}
	return b
}
