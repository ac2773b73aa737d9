package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Compression formats told apart by their magic bytes, like file(1).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// maxZstdWindow bounds the memory a zstd stream may ask for (its window);
// zstd -19 uses 8 MiB, --long up to 128 MiB.
const maxZstdWindow = 128 << 20

// Decompress looks at the first bytes of in and, for gzip, xz or zstd,
// returns a reader of the decompressed stream and the format's name;
// anything else is returned as it is, with name "". The closer releases
// the decompressor (zstd's decoder holds memory and goroutines); it is
// never nil.
func Decompress(in *bufio.Reader, name string) (out *bufio.Reader, format string, closer io.Closer, err error) {
	head, _ := in.Peek(len(xzMagic))
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		return bufio.NewReaderSize(zr, bufSize), "gzip", io.NopCloser(nil), nil
	case bytes.HasPrefix(head, xzMagic):
		zr, err := xz.NewReader(newXZGuard(in))
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: xz: %s", name, strings.TrimPrefix(err.Error(), "xz: "))
		}
		return bufio.NewReaderSize(errPrefix{zr, "xz"}, bufSize), "xz", io.NopCloser(nil), nil
	case bytes.HasPrefix(head, zstdMagic):
		window := zstdWindow(in)
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: zstd: %s", name, strings.TrimPrefix(err.Error(), "zstd: "))
		}
		return bufio.NewReaderSize(errPrefix{zstdErrors{zr, window}, "zstd"}, bufSize), "zstd", closeFunc(zr.Close), nil
	}
	return in, "", io.NopCloser(nil), nil
}

// zstdWindow is the window the stream's first frame asks for, from its
// header (0 when the header cannot be read yet or names none).
func zstdWindow(in *bufio.Reader) uint64 {
	b, _ := in.Peek(zstd.HeaderMaxSize)
	var h zstd.Header
	if h.Decode(b) != nil {
		return 0
	}
	return h.WindowSize
}

// zstdErrors names the window a refused stream asks for: the decoder's
// own "window size exceeded" says neither how much nor the limit.
type zstdErrors struct {
	r      io.Reader
	window uint64 // of the first frame
}

func (z zstdErrors) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && errors.Is(err, zstd.ErrWindowSizeExceeded) {
		if z.window > maxZstdWindow {
			err = fmt.Errorf("zstd: the stream's window is %s, more than the %s bcdump allows (zstd --long=27 is the most); recompress it with a smaller window", mib(z.window), mib(maxZstdWindow))
		} else {
			err = fmt.Errorf("zstd: a frame's window is more than the %s bcdump allows (zstd --long=27 is the most); recompress it with a smaller window", mib(maxZstdWindow))
		}
	}
	return n, err
}

// mib shows a window size: "256 MiB", or bytes below 1 MiB.
func mib(n uint64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

type closeFunc func()

func (f closeFunc) Close() error { f(); return nil }

// errPrefix names the decompressor in its errors other than EOF: their
// own text ("magic number mismatch") does not say where it came from.
type errPrefix struct {
	r    io.Reader
	what string
}

func (e errPrefix) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		err = fmt.Errorf("%s: %s", e.what, strings.TrimPrefix(err.Error(), e.what+": "))
	}
	return n, err
}
