package transporttest

import (
	"fmt"
	"os"
)

// Symlink is os.Symlink for tests that need the link to exist: it also
// fails when os.Symlink reports success but no link is there afterwards,
// which is what Wine 8 does (CI runs the Windows test binaries under
// Wine). Tests skip their link cases when it fails.
func Symlink(oldname, newname string) error {
	if err := os.Symlink(oldname, newname); err != nil {
		return err
	}
	fi, err := os.Lstat(newname)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("os.Symlink(%q, %q) reported success but made no link (as under Wine 8): %v", oldname, newname, err)
	}
	return nil
}
