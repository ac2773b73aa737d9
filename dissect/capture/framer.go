package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// pcapng block types the framer knows (pcapng spec, section 4 and appendix).
const (
	blockSHB = 0x0A0D0D0A
	blockIDB = 1
	blockPB  = 2 // obsolete Packet Block
	blockSPB = 3
	blockEPB = 6
)

// IDB options kept for pcapgo: name and description (the writer copies
// them), timestamp resolution and offset (needed for correct times).
const (
	optEnd         = 0
	optIfName      = 2
	optIfDesc      = 3
	optIfTSResol   = 9
	optIfTSOffset  = 14
	maxKeptOptLen  = 256
	ngByteOrderMag = 0x1A2B3C4D
)

// framer sits between the (decompressed) input and pcapgo. It reads one
// record or block at a time, checks its lengths before buffering it, and
// serves it to pcapgo through Read. For pcapng it also normalises the stream:
// section headers lose their options, interface blocks keep only the options
// listed above, packet blocks lose their options, and all other block types
// are dropped. pcapgo therefore never sees a length it could overrun, never
// accumulates name records or secrets, and never allocates packet options.
//
// Errors are sticky and are returned only after every byte before them was
// served, so pcapgo hits them exactly at the damaged record.
type framer struct {
	src     *bufio.Reader
	ng      bool
	order   binary.ByteOrder
	big     bool   // order is big-endian (u32, without the interface call)
	buf     []byte // current record as served to pcapgo
	trailer [4]byte
	off     int
	err     error

	started  bool   // pcap: file header served; pcapng: a section header seen
	nIfaces  int    // interfaces in the current pcapng section
	snap0    uint32 // snap length of interface 0 (simple packet blocks)
	linkType uint16 // link type of the first interface, for Reader.LinkType
	haveLink bool
	// plainMark: the pcap file header carries PlainMarkPcap (sigfigs).
	plainMark bool

	// pcap records whose captured length exceeded their original length:
	// served with the original length raised (pcapgo rejects them), noted
	// here in record order until the Reader takes them (takeLenFix).
	// pcapgo's read-ahead buffer holds a few hundred records at most, so
	// the queue stays small; maxLenFixes bounds it regardless.
	nanos   bool // pcap: nanosecond fractions (else microseconds)
	records int
	lenFix  []lenFix

	// peeked is the length of the record peek handed out: it stays in
	// src's buffer until the reader moves on (consume).
	peeked int
}

// lenFix is a pcap record served with its original length raised, or
// with its fraction of a second set to 0.
type lenFix struct {
	record  int    // 1-based packet record number
	orig    uint32 // the original length the record claimed (0: not raised)
	frac    uint32 // the fraction field the record held
	badFrac bool   // frac was out of range and is served as 0
}

const maxLenFixes = 1024

func newFramer(src *bufio.Reader, ng bool) *framer {
	return &framer{src: src, ng: ng, order: binary.LittleEndian}
}

// Read implements io.Reader for pcapgo.
func (f *framer) Read(p []byte) (int, error) {
	for f.off == len(f.buf) {
		if f.err != nil {
			return 0, f.err
		}
		f.buf, f.off = f.buf[:0], 0
		if f.ng {
			f.err = f.nextBlock()
		} else {
			f.err = f.nextRecord()
		}
		if f.err != nil && len(f.buf) > 0 {
			f.buf = f.buf[:0] // never serve half a record
		}
	}
	n := copy(p, f.buf[f.off:])
	f.off += n
	return n, nil
}

// failed returns the framer's own error, if it has one other than a clean end.
func (f *framer) failed() error {
	if f.err == nil || f.err == io.EOF {
		return nil
	}
	return f.err
}

// fill appends n bytes from the source to buf. A short read is ErrTruncated,
// except that no byte at all where a record may start (atStart) is io.EOF.
func (f *framer) fill(n int, atStart bool) error {
	start := len(f.buf)
	f.buf = slices.Grow(f.buf, n)[:start+n]
	m, err := io.ReadFull(f.src, f.buf[start:])
	if err == nil {
		return nil
	}
	f.buf = f.buf[:start+m]
	if err == io.EOF && atStart {
		return io.EOF
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return ErrTruncated
	}
	return err
}

// skip discards n bytes of the source.
func (f *framer) skip(n int) error {
	if _, err := f.src.Discard(n); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return ErrTruncated
		}
		return err
	}
	return nil
}

// nextRecord loads the pcap file header or the next packet record.
func (f *framer) nextRecord() error {
	if !f.started {
		if err := f.fill(24, false); err != nil {
			return err
		}
		if f.buf[0] == 0xd4 || f.buf[0] == 0x4d { // magic written little-endian
			f.order, f.big = binary.LittleEndian, false
		} else {
			f.order, f.big = binary.BigEndian, true
		}
		f.linkType, f.haveLink = uint16(f.order.Uint32(f.buf[20:24])), true
		f.plainMark = string(f.buf[12:16]) == PlainMarkPcap
		f.nanos = f.order.Uint32(f.buf[0:4]) == 0xa1b23c4d
		f.started = true
		return nil
	}
	if err := f.fill(16, true); err != nil {
		return err
	}
	caplen := f.order.Uint32(f.buf[8:12])
	if caplen > MaxFrameLen {
		return fmt.Errorf("record length %d exceeds the %d byte limit", caplen, MaxFrameLen)
	}
	f.records++
	var fix lenFix
	if orig := f.order.Uint32(f.buf[12:16]); caplen > orig {
		// A broken writer's record: Wireshark keeps and decodes the
		// captured bytes, pcapgo would end the file here.
		f.order.PutUint32(f.buf[12:16], caplen)
		fix = lenFix{record: f.records, orig: orig}
	}
	if f.badFraction(f.buf) {
		frac := f.order.Uint32(f.buf[4:8])
		// Read as written, 0xFFFFFFFF microseconds would add 71
		// minutes (or, multiplied in 32 bits, 4.29 s): the record's
		// second is all that is known.
		f.order.PutUint32(f.buf[4:8], 0)
		fix.record, fix.frac, fix.badFrac = f.records, frac, true
	}
	if fix.record != 0 {
		if len(f.lenFix) == maxLenFixes {
			f.lenFix = f.lenFix[:copy(f.lenFix, f.lenFix[1:])]
		}
		f.lenFix = append(f.lenFix, fix)
	}
	return f.fill(int(caplen), false)
}

// badFraction reports whether the pcap record header h holds a fraction
// of a second of one second or more.
func (f *framer) badFraction(h []byte) bool {
	limit := uint32(1e6)
	if f.nanos {
		limit = 1e9
	}
	return f.u32(h[4:8]) >= limit
}

// u32 is f.order.Uint32, inlined: peek reads every record's header with it.
func (f *framer) u32(b []byte) uint32 {
	if f.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// takeLenFix returns the fix of pcap record n if the framer made one,
// forgetting the fixes of records up to n.
func (f *framer) takeLenFix(n int) (lenFix, bool) {
	i := 0
	for i < len(f.lenFix) && f.lenFix[i].record < n {
		i++
	}
	var fix lenFix
	ok := i < len(f.lenFix) && f.lenFix[i].record == n
	if ok {
		fix = f.lenFix[i]
		i++
	}
	if i > 0 {
		f.lenFix = f.lenFix[:copy(f.lenFix, f.lenFix[i:])]
	}
	return fix, ok
}

// nextBlock loads the next pcapng block that pcapgo needs, normalised.
func (f *framer) nextBlock() error {
	for {
		f.buf = f.buf[:0]
		if err := f.fill(8, true); err != nil {
			return err
		}
		typ := f.order.Uint32(f.buf[0:4])
		if typ == blockSHB { // same bytes in both orders
			if err := f.fill(4, false); err != nil {
				return err
			}
			switch {
			case binary.LittleEndian.Uint32(f.buf[8:12]) == ngByteOrderMag:
				f.order, f.big = binary.LittleEndian, false
			case binary.BigEndian.Uint32(f.buf[8:12]) == ngByteOrderMag:
				f.order, f.big = binary.BigEndian, true
			default:
				return errors.New("pcapng section header with bad byte-order magic")
			}
		} else if !f.started {
			return errors.New("pcapng file does not start with a section header")
		}
		length := f.order.Uint32(f.buf[4:8])
		if err := f.checkLength(typ, length); err != nil {
			return err
		}
		keep, err := f.readBody(typ, int(length))
		if err != nil || keep {
			return err
		}
	}
}

// checkLength rejects block lengths that cannot be right before any body
// byte is read.
func (f *framer) checkLength(typ, length uint32) error {
	minLen := uint32(12)
	switch typ {
	case blockSHB:
		minLen = 28
	case blockIDB:
		minLen = 20
	case blockEPB, blockPB:
		minLen = 32
	case blockSPB:
		minLen = 16
	}
	maxLen := uint32(maxBlockLen)
	if typ == blockIDB {
		maxLen = maxIDBLen
	}
	switch {
	case length < minLen:
		return fmt.Errorf("pcapng block type %#x: length %d below the minimum %d", typ, length, minLen)
	case length%4 != 0:
		return fmt.Errorf("pcapng block type %#x: length %d not a multiple of 4", typ, length)
	case length > maxLen:
		return fmt.Errorf("pcapng block type %#x: length %d exceeds the %d byte limit", typ, length, maxLen)
	}
	return nil
}

// readBody reads the rest of a block whose header is in buf and reports
// whether it is to be served (true) or was dropped.
func (f *framer) readBody(typ uint32, length int) (bool, error) {
	switch typ {
	case blockSHB:
		if err := f.fill(12, false); err != nil { // version, section length
			return false, err
		}
		if err := f.sectionOptions(length); err != nil {
			return false, err
		}
		f.started, f.nIfaces = true, 0
		f.seal()
		return true, nil
	case blockIDB:
		if f.nIfaces >= maxInterfaces {
			return false, fmt.Errorf("more than %d interfaces in one pcapng section: bcdump reads at most %d per section, to bound the memory a file can make it hold (bcdump help memory)", maxInterfaces, maxInterfaces)
		}
		if err := f.fill(length-8, false); err != nil {
			return false, err
		}
		if err := f.checkTrailer(length); err != nil {
			return false, err
		}
		if err := f.keepIDBOptions(); err != nil {
			return false, err
		}
		if f.nIfaces == 0 {
			f.snap0 = f.order.Uint32(f.buf[12:16])
		}
		if !f.haveLink {
			f.linkType, f.haveLink = f.order.Uint16(f.buf[8:10]), true
		}
		f.nIfaces++
		return true, nil
	case blockEPB, blockPB:
		if err := f.fill(20, false); err != nil {
			return false, err
		}
		caplen := f.order.Uint32(f.buf[20:24])
		if err := checkCaplen(typ, caplen, length, 32); err != nil {
			return false, err
		}
		if err := f.fill(pad4(int(caplen)), false); err != nil {
			return false, err
		}
		if err := f.skipTo(length); err != nil { // drop the options
			return false, err
		}
		f.seal()
		return true, nil
	case blockSPB:
		if f.nIfaces == 0 {
			return false, errors.New("pcapng simple packet block before any interface")
		}
		if err := f.fill(4, false); err != nil {
			return false, err
		}
		caplen := f.order.Uint32(f.buf[8:12])
		if f.snap0 != 0 && caplen > f.snap0 {
			caplen = f.snap0
		}
		if err := checkCaplen(typ, caplen, length, 16); err != nil {
			return false, err
		}
		if err := f.fill(length-12, false); err != nil {
			return false, err
		}
		return true, f.checkTrailer(length)
	default:
		return false, f.skipTo(length)
	}
}

// checkCaplen makes sure a packet's captured bytes fit in its block.
func checkCaplen(typ, caplen uint32, length, overhead int) error {
	if caplen > MaxFrameLen {
		return fmt.Errorf("pcapng block type %#x: packet length %d exceeds the %d byte limit", typ, caplen, MaxFrameLen)
	}
	if pad4(int(caplen)) > length-overhead {
		return fmt.Errorf("pcapng block type %#x: packet length %d does not fit in block length %d", typ, caplen, length)
	}
	return nil
}

// skipTo discards the block up to its trailer, reads the trailer and checks it.
func (f *framer) skipTo(length int) error {
	// The bytes consumed so far are buf; the trailer is the last 4.
	if err := f.skip(length - 4 - len(f.buf)); err != nil {
		return err
	}
	if _, err := io.ReadFull(f.src, f.trailer[:]); err != nil {
		return ErrTruncated
	}
	if got := f.order.Uint32(f.trailer[:]); got != uint32(length) {
		return fmt.Errorf("pcapng block type %#x: length %d does not match trailing length %d", f.order.Uint32(f.buf[0:4]), length, got)
	}
	return nil
}

// maxSHBOptions bounds the section header options read for the plaintext
// mark; a larger section header's options are skipped unread.
const maxSHBOptions = 64 << 10

// sectionOptions reads the rest of a section header block up to and with
// its trailer, noting whether a comment carries PlainMarkPcapng, and leaves
// the block without options in buf.
func (f *framer) sectionOptions(length int) error {
	head := len(f.buf)
	if length-head > maxSHBOptions {
		return f.skipTo(length)
	}
	if err := f.fill(length-head, false); err != nil {
		return err
	}
	if err := f.checkTrailer(length); err != nil {
		return err
	}
	end := length - 4
	for r := head; r+4 <= end; {
		code, n := f.order.Uint16(f.buf[r:]), int(f.order.Uint16(f.buf[r+2:]))
		if code == 0 || r+4+n > end {
			break
		}
		if code == 1 && strings.Contains(string(f.buf[r+4:r+4+n]), PlainMarkPcapng) {
			f.plainMark = true
		}
		r += 4 + pad4(n)
	}
	f.buf = f.buf[:head]
	return nil
}

// checkTrailer checks the trailing length of a fully buffered block.
func (f *framer) checkTrailer(length int) error {
	if got := f.order.Uint32(f.buf[length-4:]); got != uint32(length) {
		return fmt.Errorf("pcapng block type %#x: length %d does not match trailing length %d", f.order.Uint32(f.buf[0:4]), length, got)
	}
	return nil
}

// seal ends a block whose body (without options) is in buf: it appends an
// trailer and rewrites both length fields.
func (f *framer) seal() {
	f.buf = append(f.buf, 0, 0, 0, 0)
	n := len(f.buf)
	f.order.PutUint32(f.buf[n-4:], uint32(n))
	f.order.PutUint32(f.buf[4:8], uint32(n))
}

// keepIDBOptions rewrites the buffered interface block with only the kept
// options, after checking that every option lies inside the block.
func (f *framer) keepIDBOptions() error {
	end := len(f.buf) - 4
	w := 16
	for r := 16; r+4 <= end; {
		code := f.order.Uint16(f.buf[r:])
		olen := int(f.order.Uint16(f.buf[r+2:]))
		if code == optEnd {
			break
		}
		next := r + 4 + pad4(olen)
		if next > end {
			return fmt.Errorf("pcapng interface block: option %d of length %d overruns the block", code, olen)
		}
		switch code {
		case optIfName, optIfDesc, optIfTSResol, optIfTSOffset:
			if olen <= maxKeptOptLen {
				if code == optIfTSResol && olen >= 1 && f.buf[r+4] == 0 {
					// 10^-0, whole seconds; pcapgo takes 0 for "absent"
					// (microseconds), so it gets the same unit as 2^-0.
					f.buf[r+4] = 0x80
				}
				w += copy(f.buf[w:], f.buf[r:next])
			}
		}
		r = next
	}
	if w > 16 {
		f.buf = append(f.buf[:w], 0, 0, 0, 0) // end of options
	} else {
		f.buf = f.buf[:w]
	}
	f.seal()
	return nil
}

func pad4(n int) int { return (n + 3) &^ 3 }

// peek returns the next pcap record or enhanced packet block, options and
// trailer included, without copying it: straight from src's buffer, when
// it is all there already and passes the checks nextRecord and nextBlock
// make. Otherwise it returns nil, having read nothing, and the record is
// for nextRecord or nextBlock. Only what is buffered is looked at, so no
// read error is met here (and none swallowed: bufio hands one out once).
func (f *framer) peek() []byte {
	hdr := 16
	if f.ng {
		hdr = 8
	}
	if f.src.Buffered() < hdr || !f.started {
		return nil
	}
	h, _ := f.src.Peek(hdr)
	n := 0
	if f.ng {
		length := f.u32(h[4:8])
		if f.u32(h[0:4]) != blockEPB || f.checkLength(blockEPB, length) != nil {
			return nil
		}
		n = int(length)
	} else {
		caplen, orig := f.u32(h[8:12]), f.u32(h[12:16])
		if caplen > MaxFrameLen || caplen > orig || f.badFraction(h) { // an error, or a length or time to fix
			return nil
		}
		n = 16 + int(caplen)
	}
	if f.src.Buffered() < n {
		return nil
	}
	b, _ := f.src.Peek(n)
	if f.ng {
		if checkCaplen(blockEPB, f.u32(b[20:24]), n, 32) != nil || f.u32(b[n-4:]) != uint32(n) {
			return nil
		}
	} else {
		f.records++
	}
	f.peeked = n
	return b
}

// unpeek leaves the record peek returned in src's buffer for pcapgo.
func (f *framer) unpeek() {
	if f.peeked > 0 && !f.ng {
		f.records--
	}
	f.peeked = 0
}

// consume drops the record peek handed out from src's buffer.
func (f *framer) consume() {
	if f.peeked > 0 {
		f.src.Discard(f.peeked) // buffered: cannot fail
		f.peeked = 0
	}
}
