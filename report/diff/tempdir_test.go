package diff

import (
	"testing"

	"github.com/bcdump/bcdump/transport/transporttest"
)

// tempDir is t.TempDir with a cleanup that also works under Wine (see
// transporttest.TempDir).
func tempDir(tb testing.TB) string {
	tb.Helper()
	return transporttest.TempDir(tb)
}
