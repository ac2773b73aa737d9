package capture

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir locates the read-only reference tree ../shared next to the repo
// root. Tests skip without it unless BCDUMP_REQUIRE_SHARED=1.
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
			dir = ""
			break
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if fi, err := os.Stat(shared); dir == "" || err != nil || !fi.IsDir() {
		if os.Getenv("BCDUMP_REQUIRE_SHARED") == "1" {
			t.Fatalf("shared reference tree not found (looked for %s); BCDUMP_REQUIRE_SHARED=1", shared)
		}
		t.Skipf("shared reference tree not found at %s; skipping tests on shared captures", shared)
	}
	return shared
}
