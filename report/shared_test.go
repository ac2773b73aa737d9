package report

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir finds ../shared beside the repository root. Tests that need it
// skip on a fresh clone and fail when BCDUMP_REQUIRE_SHARED=1 (CI).
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
