package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

const bufSize = 64 << 10

var (
	pcapngMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}
	pcapMagics  = [][]byte{
		{0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0xc3, 0xd4}, // µs, LE and BE
		{0x4d, 0x3c, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}, // ns, LE and BE
	}
)

// Open opens a capture file; "-" reads stdin. gzip, xz and zstd are undone
// transparently, told by content.
// The Reader owns the file and closes it in Close (stdin is left open).
func Open(path string, opt Options) (*Reader, error) {
	if path == "-" {
		return newReader(os.Stdin, "stdin", -1, nil, opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	r, err := newReader(f, path, size, f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// NewReader reads a capture from r; name is used in error messages. The
// caller keeps ownership of r.
func NewReader(r io.Reader, name string, opt Options) (*Reader, error) {
	return newReader(r, name, -1, nil, opt)
}

func newReader(src io.Reader, name string, size int64, closer io.Closer, opt Options) (_ *Reader, err error) {
	r := &Reader{name: name, size: size, closer: closer, opt: opt}
	r.raw = &countingReader{r: src}
	in := bufio.NewReaderSize(r.raw, bufSize)

	in, comp, zc, err := Decompress(in, name)
	if err != nil {
		return nil, err
	}
	r.compression, r.zcloser = comp, zc
	defer func() {
		if err != nil {
			zc.Close()
		}
	}()

	format, err := SniffReader(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch format {
	case FormatTraceLog, FormatOBCTrace:
		r.openTrace(in, format)
		r.setPorts(opt.Ports)
		return r, nil
	case FormatPcap, FormatPcapng:
		r.format = format
	default:
		if head, _ := in.Peek(1); len(head) == 0 {
			return nil, fmt.Errorf("%s: %w (empty file)", name, ErrNotCapture)
		}
		return nil, fmt.Errorf("%s: %w", name, ErrNotCapture)
	}

	r.fr = newFramer(in, r.format == FormatPcapng)
	if err := r.openContainer(); err != nil {
		return nil, err
	}
	r.setPorts(opt.Ports)
	r.dec.init()
	return r, nil
}

// openContainer hands the framed stream to pcapgo and reads the file header.
func (r *Reader) openContainer() error {
	var err error
	if r.fr.ng {
		r.ng, err = pcapgo.NewNgReader(r.fr, pcapgo.NgReaderOptions{
			WantMixedLinkType: true,
			// Interface indexes restart with each section; the writer
			// needs to know which section a packet came from.
			SectionEndCallback: func([]pcapgo.NgInterface, pcapgo.NgSectionInfo) { r.section++ },
		})
	} else {
		r.pcap, err = pcapgo.NewReader(r.fr)
	}
	if err == nil {
		if r.pcap != nil {
			r.pcapLT, r.nsFactor = r.pcap.LinkType(), 1000
			if r.pcap.Resolution() == gopacket.TimestampResolutionNanosecond {
				r.nsFactor = 1
			}
		} else {
			r.syncIfaces()
		}
		return nil
	}
	if ferr := r.fr.failed(); ferr != nil {
		err = ferr
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return fmt.Errorf("%s: truncated %s file header (unexpected EOF)", r.name, r.format)
	}
	return fmt.Errorf("%s: bad %s file header: %w", r.name, r.format, err)
}

func isPcapMagic(b []byte) bool {
	for _, m := range pcapMagics {
		if bytes.Equal(b, m) {
			return true
		}
	}
	return false
}

// countingReader counts the bytes read from the underlying file, for
// progress. The count is atomic: a progress display may read it while
// another goroutine (a parallel dissect.Session's reader) reads the file.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
