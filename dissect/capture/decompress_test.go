package capture

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

func xzed(t testing.TB, b []byte) []byte {
	return compressed(t, b, func(w io.Writer) (io.WriteCloser, error) { return xz.NewWriter(w) })
}

func zstded(t testing.TB, b []byte) []byte {
	return compressed(t, b, func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) })
}

// compressed is b written through the compressor mk makes.
func compressed(t testing.TB, b []byte, mk func(io.Writer) (io.WriteCloser, error)) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, err := mk(&out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Compressed captures are told by content; a stream that breaks off or is
// corrupt is an error naming the file, never a crash.
func TestDecompressFormats(t *testing.T) {
	plain := pcapFile(t, 1, false, false, frames(eth(0x0800, ipUDP(t, cli4, srv4, bcPl))))
	for _, tc := range []struct {
		name string
		file []byte
	}{{"gzip", gzipped(t, plain)}, {"xz", xzed(t, plain)}, {"zstd", zstded(t, plain)}} {
		r, err := NewReader(bytes.NewReader(tc.file), tc.name+".pcap", Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Compression() != tc.name || r.Format() != "pcap" {
			t.Errorf("%s: compression %q format %q", tc.name, r.Compression(), r.Format())
		}
		got, err := readAll(t, r)
		r.Close()
		if err != io.EOF || len(got) != 1 {
			t.Errorf("%s: %d packets, %v", tc.name, len(got), err)
		}
		// Cut in the middle of the compressed stream.
		r, err = NewReader(bytes.NewReader(tc.file[:len(tc.file)*2/3]), "cut.pcap", Options{})
		if err == nil {
			_, err = readAll(t, r)
			r.Close()
		}
		if err == nil || err == io.EOF {
			t.Errorf("%s cut: err %v", tc.name, err)
		}
		// Garbage after the magic bytes.
		bad := append(bytes.Clone(tc.file[:6]), bytes.Repeat([]byte{0x55}, 64)...)
		r, err = NewReader(bytes.NewReader(bad), "bad.pcap", Options{})
		if err == nil {
			_, err = readAll(t, r)
			r.Close()
		}
		if err == nil || err == io.EOF || errors.Is(err, ErrNotCapture) && !strings.Contains(err.Error(), "bad.pcap") {
			t.Errorf("%s garbage: err %v", tc.name, err)
		}
	}
}

// A zstd stream whose window is over the limit is refused with its size
// and the limit named (issue 38: the refusal did not say how large).
func TestZstdWindowNamed(t *testing.T) {
	plain := pcapFile(t, 1, false, false, frames(eth(0x0800, ipUDP(t, cli4, srv4, bcPl))))
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out, zstd.WithWindowSize(1<<20), zstd.WithSingleSegment(false))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(plain)
	zw.Close()
	file := out.Bytes()
	if file[4]&0x20 != 0 {
		t.Fatal("the encoder wrote a single-segment frame: no window descriptor")
	}
	file[5] = 18 << 3 // window log 10+18: 256 MiB
	r, err := NewReader(bytes.NewReader(file), "big.pcap.zst", Options{})
	if err == nil {
		_, err = readAll(t, r)
		r.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "256 MiB") || !strings.Contains(err.Error(), "128 MiB") {
		t.Errorf("err %v; want the window (256 MiB) and the limit (128 MiB) named", err)
	}
}
