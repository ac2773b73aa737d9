package capture

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// maxXZDict bounds the dictionary an xz block may ask for: the decoder
// allocates it whole before the first byte, and the header alone sets it
// (up to 4 GiB). xz -9 and -9e use 64 MiB.
const maxXZDict = 64 << 20

// xzGuard passes an xz stream through unchanged while it follows the
// structure (stream header, block headers, LZMA2 chunk headers, index,
// footer, padding), so that a block header asking for a dictionary above
// maxXZDict fails here, before the decoder reads it. Chunk data is passed
// through by length, unread. Where the structure is broken the rest is
// passed through unchecked: the decoder fails on the same bytes.
type xzGuard struct {
	src   *bufio.Reader
	st    xzState
	pend  []byte // structure read and not yet handed on
	raw   int64  // bytes to hand on without looking (chunk data)
	err   error  // after pend: the error to return
	check int    // bytes of each block's check (stream flags)
	block uint64 // bytes of the current block so far, for its padding
	index uint64 // bytes of the index so far
	recs  uint64 // index records left
	buf   [1024]byte
}

type xzState uint8

const (
	xzStreamHeader xzState = iota
	xzBlockOrIndex
	xzChunk
	xzBlockEnd
	xzIndexRecords
	xzIndexEnd
	xzFooter
	xzStreamPadding
	xzUnchecked
)

func newXZGuard(src *bufio.Reader) *xzGuard { return &xzGuard{src: src} }

func (g *xzGuard) Read(p []byte) (int, error) {
	for len(g.pend) == 0 && g.raw == 0 {
		if g.err != nil {
			return 0, g.err
		}
		if g.st == xzUnchecked {
			return g.src.Read(p)
		}
		g.step()
	}
	if len(g.pend) > 0 {
		n := copy(p, g.pend)
		g.pend = g.pend[n:]
		return n, nil
	}
	n, err := g.src.Read(p[:min(int64(len(p)), g.raw)])
	g.raw -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// take reads n bytes of structure into pend; at the end of the input what
// there is goes on, then the error.
func (g *xzGuard) take(n int) ([]byte, bool) {
	start := len(g.pend)
	g.pend = append(g.pend, g.buf[:n]...)
	got, err := io.ReadFull(g.src, g.pend[start:])
	if err != nil {
		g.pend = g.pend[:start+got]
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		g.err = err
		return nil, false
	}
	return g.pend[start:], true
}

// varint reads an xz multibyte integer (7 bits a byte, at most 9 bytes).
func (g *xzGuard) varint() (uint64, bool) {
	var v uint64
	for i := 0; i < 9; i++ {
		b, ok := g.take(1)
		if !ok {
			return 0, false
		}
		v |= uint64(b[0]&0x7F) << (7 * i)
		if b[0]&0x80 == 0 {
			return v, true
		}
	}
	g.st = xzUnchecked
	return 0, false
}

// checkSizes is the size of a block's check by the stream's check type.
var checkSizes = [16]uint8{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// step reads the next piece of structure into pend.
func (g *xzGuard) step() {
	g.pend = g.pend[:0]
	switch g.st {
	case xzStreamHeader:
		h, ok := g.take(12)
		if !ok {
			return
		}
		g.check = int(checkSizes[h[7]&0x0F])
		g.st = xzBlockOrIndex
	case xzBlockOrIndex:
		b, ok := g.take(1)
		if !ok {
			return
		}
		if b[0] == 0 { // index indicator
			g.index = 1
			n, ok := g.varint()
			if !ok {
				return
			}
			g.index += uint64(len(g.pend) - 1)
			g.recs, g.st = n, xzIndexRecords
			return
		}
		size := (int(b[0]) + 1) * 4
		if _, ok := g.take(size - 1); !ok {
			return
		}
		if err := checkXZBlockHeader(g.pend[:size]); err != nil {
			g.pend, g.err = g.pend[:0], err
			return
		}
		g.block, g.st = uint64(size), xzChunk
	case xzChunk:
		c, ok := g.take(1)
		if !ok {
			return
		}
		switch ctl := c[0]; {
		case ctl == 0:
			g.block++
			g.st = xzBlockEnd
		case ctl == 1 || ctl == 2: // uncompressed chunk
			h, ok := g.take(2)
			if !ok {
				return
			}
			g.raw = int64(binary.BigEndian.Uint16(h)) + 1
			g.block += 3 + uint64(g.raw)
		case ctl >= 0x80: // LZMA chunk; properties from 0xC0 on
			n := 4
			if ctl >= 0xC0 {
				n++
			}
			h, ok := g.take(n)
			if !ok {
				return
			}
			g.raw = int64(binary.BigEndian.Uint16(h[2:4])) + 1
			g.block += 1 + uint64(n) + uint64(g.raw)
		default:
			g.st = xzUnchecked
		}
	case xzBlockEnd:
		if _, ok := g.take(int(-g.block&3) + g.check); !ok {
			return
		}
		g.st = xzBlockOrIndex
	case xzIndexRecords:
		if g.recs == 0 {
			g.st = xzIndexEnd
			return
		}
		for range 2 { // unpadded and uncompressed size
			if _, ok := g.varint(); !ok {
				return
			}
		}
		g.index += uint64(len(g.pend))
		g.recs--
	case xzIndexEnd:
		if _, ok := g.take(int(-g.index&3) + 4); !ok {
			return
		}
		g.st = xzFooter
	case xzFooter:
		if _, ok := g.take(12); !ok {
			return
		}
		g.st = xzStreamPadding
	case xzStreamPadding:
		b, err := g.src.Peek(1)
		if err != nil {
			g.err = err // io.EOF: the end, after a whole stream
			return
		}
		if b[0] != 0 {
			g.st = xzStreamHeader
			return
		}
		g.take(4)
	}
}

// checkXZBlockHeader refuses an LZMA2 filter whose dictionary exceeds
// maxXZDict; anything else is the decoder's to judge.
func checkXZBlockHeader(h []byte) error {
	if len(h) < 2 {
		return nil
	}
	flags := h[1]
	r := h[2:]
	varint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < 9 && i < len(r); i++ {
			v |= uint64(r[i]&0x7F) << (7 * i)
			if r[i]&0x80 == 0 {
				r = r[i+1:]
				return v, true
			}
		}
		return 0, false
	}
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} { // sizes
		if present {
			if _, ok := varint(); !ok {
				return nil
			}
		}
	}
	for range int(flags&3) + 1 {
		id, ok := varint()
		if !ok {
			return nil
		}
		n, ok := varint()
		if !ok || n > uint64(len(r)) {
			return nil
		}
		props := r[:n]
		r = r[n:]
		if id == 0x21 && n >= 1 && props[0] <= 40 {
			code := props[0]
			dict := uint64(2|code&1) << (code/2 + 11)
			if code == 40 {
				dict = 1<<32 - 1
			}
			if dict > maxXZDict {
				return fmt.Errorf("a block asks for a %d MiB dictionary; bcdump decodes at most %d MiB (xz -9 uses 64): recompress the file",
					(dict+1<<19)>>20, maxXZDict>>20)
			}
		}
	}
	return nil
}
