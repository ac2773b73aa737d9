package checksum

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

// symlink is os.Symlink, failing also when no link was made although
// os.Symlink said so, as under Wine (see transporttest.Symlink).
func symlink(oldname, newname string) error {
	return transporttest.Symlink(oldname, newname)
}
