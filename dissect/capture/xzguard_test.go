package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// Files made by xz(1) 5.4: several blocks with sizes in their headers and
// a SHA-256 check, -9e (a 64 MiB dictionary, the largest allowed), no
// check, two streams with stream padding between, and uncompressed
// chunks. Each decodes through the guard to what xz put in.
func TestXZGuardRealFiles(t *testing.T) {
	sample, err := os.ReadFile("../../testdata/sample.pcap")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/xz/*.xz")
	if len(files) < 5 {
		t.Fatalf("%d files in testdata/xz", len(files))
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			file, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			checkGuardPassesThrough(t, file)
			zr, err := xz.NewReader(newXZGuard(bufio.NewReader(bytes.NewReader(file))))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			want := sample
			switch {
			case strings.HasPrefix(filepath.Base(name), "two-streams"):
				want = append(bytes.Clone(sample), sample...)
			case strings.HasPrefix(filepath.Base(name), "random"):
				want = got // random bytes; the decoder checked them
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// checkGuardPassesThrough reads file through the guard alone: every byte
// comes out unchanged, then io.EOF.
func checkGuardPassesThrough(t *testing.T, file []byte) {
	t.Helper()
	got, err := io.ReadAll(newXZGuard(bufio.NewReader(bytes.NewReader(file))))
	if err != nil {
		t.Fatalf("guard: %v", err)
	}
	if !bytes.Equal(got, file) {
		t.Fatalf("guard passed %d bytes of %d, or changed them", len(got), len(file))
	}
}

// Streams from the Go writer: small blocks, every check type.
func TestXZGuardWriterConfigs(t *testing.T) {
	plain := bytes.Repeat([]byte("bcdump xz guard "), 5000)
	for _, c := range []xz.WriterConfig{
		{BlockSize: 1000, CheckSum: xz.None},
		{BlockSize: 4096, CheckSum: xz.CRC32},
		{CheckSum: xz.CRC64},
		{BlockSize: 20000, CheckSum: xz.SHA256, DictCap: 64 << 20},
	} {
		var b bytes.Buffer
		w, err := c.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(plain)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkGuardPassesThrough(t, b.Bytes())
	}
}

// withDictCode rewrites the LZMA2 dictionary code of the first block of an
// xz file (and the header's CRC32).
func withDictCode(t *testing.T, file []byte, code byte) []byte {
	t.Helper()
	f := bytes.Clone(file)
	size := (int(f[12]) + 1) * 4
	h := f[12 : 12+size]
	i := 2
	for _, bit := range []byte{0x40, 0x80} {
		if h[1]&bit != 0 {
			for h[i]&0x80 != 0 {
				i++
			}
			i++
		}
	}
	if h[i] != 0x21 || h[i+1] != 1 {
		t.Fatalf("filter %#x with %d bytes of properties, not LZMA2", h[i], h[i+1])
	}
	h[i+2] = code
	binary.LittleEndian.PutUint32(h[size-4:], crc32.ChecksumIEEE(h[:size-4]))
	return f
}

// A block header that asks for more than 64 MiB is refused before the
// decoder allocates it, with one line; 64 MiB itself is decoded.
func TestXZDictionaryBound(t *testing.T) {
	file, err := os.ReadFile("testdata/xz/multiblock-sha256.pcap.xz")
	if err != nil {
		t.Fatal(err)
	}
	// Code 2k is 2^(k+12) bytes, 2k+1 is 3 * 2^(k+11): 28 is 64 MiB, 29 is
	// 96 MiB, 39 is 3 GiB, 40 is 4 GiB - 1.
	for _, tc := range []struct {
		code byte
		want string
	}{
		{28, ""},
		{29, "a block asks for a 96 MiB dictionary; bcdump decodes at most 64 MiB"},
		{39, "a block asks for a 3072 MiB dictionary"},
		{40, "a block asks for a 4096 MiB dictionary"},
	} {
		crafted := withDictCode(t, file, tc.code)
		r, err := NewReader(bytes.NewReader(crafted), "crafted.pcap.xz", Options{})
		if err == nil {
			var p Packet
			for err == nil {
				err = r.Next(&p)
			}
			if err == io.EOF {
				err = nil
			}
			r.Close()
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("code %d: %v", tc.code, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("code %d: %v, want one line with %q", tc.code, err, tc.want)
		}
	}
}

// FuzzXZGuard: whatever the input, the guard passes on a prefix of it
// unchanged and never panics. (The decoder behind it is fuzzed by the
// capture fuzz targets; here it would allocate a dictionary per input.)
func FuzzXZGuard(f *testing.F) {
	files, _ := filepath.Glob("testdata/xz/*.xz")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 3000 {
			f.Add(b)
		}
	}
	f.Add(xzMagic)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _ := io.ReadAll(newXZGuard(bufio.NewReader(bytes.NewReader(data))))
		if !bytes.HasPrefix(data, got) {
			t.Fatalf("the guard changed the bytes")
		}
	})
}
