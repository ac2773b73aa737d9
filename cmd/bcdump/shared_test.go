package main

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir finds the reference material ../shared beside the repository
// root. It skips on a fresh clone and fails when BCDUMP_REQUIRE_SHARED=1
// (CI), so a missing tree cannot pass silently there.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if fi, err := os.Stat(shared); err != nil || !fi.IsDir() {
		if os.Getenv("BCDUMP_REQUIRE_SHARED") == "1" {
			t.Fatalf("BCDUMP_REQUIRE_SHARED=1 but the reference material %s is missing", shared)
		}
		t.Skipf("reference material %s is absent (fresh clone); skipping", shared)
	}
	return shared
}

// sharedCapture is the path of a capture in ../shared/captures.
func sharedCapture(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(sharedDir(t), "captures", name)
}
