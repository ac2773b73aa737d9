package stats

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/bcdump/bcdump/report/reporttest"
)

// testdata is the module's testdata directory, relative to this package.
const testdata = "../../testdata"

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	reporttest.Golden(t, filepath.Join(testdata, "golden", name), got, *update, "./report/stats")
}
