package dissect

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir finds the reference material ../shared beside the repository
// root: skipped on a fresh clone, fatal with BCDUMP_REQUIRE_SHARED=1.
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
	if _, err := os.Stat(shared); err != nil {
		if os.Getenv("BCDUMP_REQUIRE_SHARED") == "1" {
			t.Fatalf("BCDUMP_REQUIRE_SHARED=1 but %s is missing: %v", shared, err)
		}
		t.Skipf("reference material %s is absent (fresh clone); skipping", shared)
	}
	return shared
}

// SharedDir is sharedDir for the external test package dissect_test.
var SharedDir = sharedDir
