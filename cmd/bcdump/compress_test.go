package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// xz and zstd captures are told by content, like gzip: read, stats and
// diff give what the plain capture gives.
func TestCompressedCaptures(t *testing.T) {
	plain, err := os.ReadFile(samplePcap)
	if err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	compress := func(name string, w func(io.Writer) (io.WriteCloser, error)) string {
		var b bytes.Buffer
		zw, err := w(&b)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(plain)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	files := []string{
		compress("sample.pcap.xz", func(w io.Writer) (io.WriteCloser, error) { return xz.NewWriter(w) }),
		compress("sample.pcap.zst", func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }),
		// No telling suffix: the content decides.
		compress("sample-zstd", func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) }),
		compress("sample-gz", func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil }),
	}
	_, want, _ := runCLI(t, nil, "read", "-F", "json", samplePcap)
	_, wantStats, _ := runCLI(t, nil, "stats", samplePcap)
	for _, f := range files {
		code, out, errs := runCLI(t, nil, "read", "-F", "json", f)
		if code != 0 || errs != "" || out != want {
			t.Errorf("read %s: code %d err %q, output differs", filepath.Base(f), code, errs)
		}
		data, _ := os.ReadFile(f)
		if code, out, _ := runCLI(t, data, "read", "-F", "json", "-"); code != 0 || out != want {
			t.Errorf("read - < %s: code %d, output differs", filepath.Base(f), code)
		}
		code, out, errs = runCLI(t, nil, "stats", f)
		if code != 0 || strings.ReplaceAll(out, f, samplePcap) != wantStats {
			t.Errorf("stats %s: code %d err %q, output differs", filepath.Base(f), code, errs)
		}
		if code, out, errs := runCLI(t, nil, "diff", samplePcap, f); code != 0 || !strings.Contains(out, "no differences") {
			t.Errorf("diff %s: code %d out %q err %q", filepath.Base(f), code, out, errs)
		}
	}
	// A broken stream is one error line naming the file.
	bad := filepath.Join(dir, "bad.xz")
	os.WriteFile(bad, append([]byte("\xfd7zXZ\x00"), bytes.Repeat([]byte{0x55}, 40)...), 0o644)
	if code, _, errs := runCLI(t, nil, "read", bad); code != exitTrouble || !strings.HasPrefix(errs, "bcdump: "+bad+": xz: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("bad xz: code %d err %q", code, errs)
	}
}
