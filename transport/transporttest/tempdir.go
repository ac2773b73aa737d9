package transporttest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TempDir is testing.T.TempDir for the module's tests, which CI also runs
// as Windows binaries under Wine 8: there t.TempDir's cleanup fails the
// test ("unlinkat ...: Invalid function."), because os.RemoveAll deletes
// through a file-information class Wine 8 does not have. TempDir makes a
// new directory under os.TempDir and removes it when tb ends; when
// os.RemoveAll fails it removes the entries one by one with os.Remove
// (DeleteFile and RemoveDirectory, which Wine has), and reports an error
// only if something is still left. Each package's tests call it through
// a one-line tempDir(tb) of their own.
func TempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", tempPattern(tb.Name()))
	if err != nil {
		tb.Fatalf("TempDir: %v", err)
	}
	tb.Cleanup(func() {
		all := os.RemoveAll(dir)
		if all == nil {
			return
		}
		if err := removeEach(dir); err != nil {
			tb.Errorf("TempDir cleanup: %v (os.RemoveAll said %v)", err, all)
		}
	})
	return dir
}

// tempPattern is a directory-name pattern from a test's name: t.TempDir's
// names, without the characters a file name may not hold.
func tempPattern(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	return b.String() + "-*"
}

// removeEach removes dir and everything under it, deepest first.
func removeEach(dir string) error {
	var paths []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, path)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil {
			return err
		}
	}
	return nil
}
