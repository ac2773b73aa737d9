package main

import (
	"encoding/json"
	"os"
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

// openError is what os.Open says of path, which does not exist: "open
// PATH: " and the system's words ("no such file or directory" on Unix,
// "The system cannot find the file specified." on Windows).
func openError(path string) string {
	f, err := os.Open(path)
	if err == nil {
		f.Close()
		return "open " + path + ": exists"
	}
	return err.Error()
}

// jsonText is s as it stands inside a JSON string: paths on Windows have
// their backslashes doubled there.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
