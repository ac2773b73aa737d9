package game

// Reader reads the stream primitives of protocol-facts section 8 from one
// payload. The first read that does not fit sets a sticky *MalformedError and
// every later read returns zero values, so decoders read a layout straight
// through and check Err once. Reads neither panic nor allocate; the first
// failure allocates its error only when the Reader has no slot for it (see
// fieldReader.start).
type Reader struct {
	p    []byte
	off  int
	err  *MalformedError
	slot *MalformedError // where the failure goes, reused; nil: allocate one

	// Bit-packed booleans (section 8.2): the open group byte, where it sits,
	// and the index of the next bit to hand out from it.
	grp     byte
	grpOff  int // -1 when no group byte is open
	grpNext uint8
}

// NewReader returns a Reader positioned at off in p.
func NewReader(p []byte, off int) Reader {
	var r Reader
	r.Reset(p, off)
	return r
}

// Reset points r at p, offset off, with no error and no open bit group.
func (r *Reader) Reset(p []byte, off int) {
	*r = Reader{p: p, off: off, grpOff: -1, slot: r.slot}
	if off < 0 || off > len(p) {
		r.off = 0
		r.fail(0, why{kind: whyStart, a: off, b: len(p)})
	}
}

// Off is the offset of the next unread byte.
func (r *Reader) Off() int { return r.off }

// Len is the number of unread bytes.
func (r *Reader) Len() int { return len(r.p) - r.off }

// Failed reports whether a read has failed.
func (r *Reader) Failed() bool { return r.err != nil }

// Err returns the first failure as a *MalformedError, or nil.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Fail records a failure at off unless one is already recorded; later reads
// then return zero values.
func (r *Reader) Fail(off int, reason string) {
	r.fail(off, why{kind: whyText, what: reason})
}

func (r *Reader) fail(off int, w why) {
	if r.err != nil {
		return
	}
	e := r.slot
	if e == nil {
		e = new(MalformedError)
	}
	*e = MalformedError{Off: off, why: w}
	r.err = e
}

// End fails if unread bytes remain; the error points at the first of them.
func (r *Reader) End() {
	if r.err == nil && r.off < len(r.p) {
		r.fail(r.off, why{kind: whyExtra, a: len(r.p) - r.off})
	}
}

// need reports whether n more bytes can be read, failing otherwise.
func (r *Reader) need(n int, what string) bool {
	if r.err != nil {
		return false
	}
	if n <= len(r.p)-r.off {
		return true
	}
	r.fail(r.off, why{kind: whyNeed, what: what, a: n, b: len(r.p) - r.off})
	return false
}

// U8 reads a byte.
func (r *Reader) U8() uint8 {
	if !r.need(1, "u8") {
		return 0
	}
	v := r.p[r.off]
	r.off++
	return v
}

// I8 reads a signed byte.
func (r *Reader) I8() int8 { return int8(r.U8()) }

// U16 reads a little-endian u16.
func (r *Reader) U16() uint16 {
	if !r.need(2, "u16") {
		return 0
	}
	v := uint16(r.p[r.off]) | uint16(r.p[r.off+1])<<8
	r.off += 2
	return v
}

// U32 reads a little-endian u32.
func (r *Reader) U32() uint32 { return r.u32("u32") }

// u32 reads 4 bytes LE; what names the type in an error.
func (r *Reader) u32(what string) uint32 {
	if !r.need(4, what) {
		return 0
	}
	b := r.p[r.off : r.off+4]
	r.off += 4
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// I32 reads a little-endian two's-complement i32.
func (r *Reader) I32() int32 { return int32(r.u32("i32")) }

// F32 reads a little-endian IEEE-754 single.
func (r *Reader) F32() float32 { return f32frombits(r.u32("f32")) }

// ObjID reads an i32 object id (section 8.5) as its unsigned bit pattern,
// which is how ids are shown (0x3FFFFFFF, 0xFFFFFFFF).
func (r *Reader) ObjID() uint32 { return r.u32("object id") }

// Bit reads one bit-packed boolean (section 8.2). The first Bit consumes the
// next byte as the group byte; later Bits take bits 1, 2, ... from that byte
// without advancing, even across other fields, until the count in its top
// three bits is used up; the next Bit then opens a new group byte. off and
// bit locate the value: the group byte's offset and the bit index in it.
func (r *Reader) Bit() (v bool, off, bit int) {
	if r.err != nil {
		return false, r.off, 0
	}
	if r.grpOff < 0 || r.grpNext >= r.grp>>5 {
		if !r.need(1, "bit group byte") {
			return false, r.off, 0
		}
		b := r.p[r.off]
		if n := b >> 5; n == 0 || n > 5 {
			r.fail(r.off, why{kind: whyGroup, a: int(b), b: int(n)})
			return false, r.off, 0
		}
		r.grp, r.grpOff, r.grpNext = b, r.off, 0
		r.off++
	}
	i := r.grpNext
	r.grpNext++
	return r.grp>>i&1 != 0, r.grpOff, int(i)
}

// Group returns the open bit-group byte and its offset; ok is false when no
// group byte has been read yet.
func (r *Reader) Group() (b byte, off int, ok bool) {
	return r.grp, r.grpOff, r.grpOff >= 0
}

// Bytes reads n raw bytes; the slice aliases the payload.
func (r *Reader) Bytes(n int) []byte {
	if n < 0 {
		r.fail(r.off, why{kind: whyNegLen, a: n})
		return nil
	}
	if !r.need(n, "field") {
		return nil
	}
	b := r.p[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// Rest reads every unread byte (a layout that runs "to the end of the
// message"); it is empty, not nil, when nothing is left.
func (r *Reader) Rest() []byte {
	if r.err != nil {
		return nil
	}
	b := r.p[r.off:len(r.p):len(r.p)]
	r.off = len(r.p)
	return b
}

// String16 reads a u16 length and that many bytes of 8-bit text, no NUL.
func (r *Reader) String16() []byte {
	start := r.off
	n := r.U16()
	return r.text(start, int(n))
}

// String8 reads a u8 length and that many bytes of 8-bit text, no NUL.
func (r *Reader) String8() []byte {
	start := r.off
	n := r.U8()
	return r.text(start, int(n))
}

// String32Z reads an i32 length, that many bytes of 8-bit text and a NUL
// (EnterSet's set name). The NUL is not part of the result.
func (r *Reader) String32Z() []byte {
	start := r.off
	n := r.I32()
	if r.err != nil {
		return nil
	}
	if n < 0 || int64(n) >= int64(len(r.p)-r.off) {
		r.fail(start, why{kind: whyStrNul, a: int(n), b: len(r.p) - r.off})
		return nil
	}
	b := r.p[r.off : r.off+int(n) : r.off+int(n)]
	if z := r.p[r.off+int(n)]; z != 0 {
		r.fail(r.off+int(n), why{kind: whyStrEnd, a: int(n), b: int(z)})
		return nil
	}
	r.off += int(n) + 1
	return b
}

func (r *Reader) text(start, n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.p)-r.off {
		r.fail(start, why{kind: whyStrLen, a: n, b: len(r.p) - r.off})
		return nil
	}
	b := r.p[r.off : r.off+n : r.off+n]
	r.off += n
	return b
}

// UTF16Z reads UTF-16LE code units up to a 00 00 terminator and returns their
// raw bytes without it (decode them with transport.AppendUTF16LE).
func (r *Reader) UTF16Z() []byte {
	if r.err != nil {
		return nil
	}
	for i := r.off; i+1 < len(r.p); i += 2 {
		if r.p[i] == 0 && r.p[i+1] == 0 {
			b := r.p[r.off:i:i]
			r.off = i + 2
			return b
		}
	}
	r.Fail(r.off, "UTF-16 string has no 00 00 terminator")
	return nil
}

// CF16 reads a 16-bit compressed float (section 8.4).
func (r *Reader) CF16() float32 {
	if !r.need(2, "cf16") {
		return 0
	}
	return CF16(r.U16())
}

// CV3 reads a 3-byte compressed direction (section 8.4).
func (r *Reader) CV3() [3]float32 {
	if !r.need(3, "cv3") {
		return [3]float32{}
	}
	b := r.p[r.off : r.off+3]
	r.off += 3
	return CV3(int8(b[0]), int8(b[1]), int8(b[2]))
}

// CV4 reads a 5-byte compressed vector: a cv3 direction scaled by a cf16
// magnitude (section 8.4).
func (r *Reader) CV4() [3]float32 {
	if !r.need(5, "cv4") {
		return [3]float32{}
	}
	d := r.CV3()
	m := r.CF16()
	return [3]float32{d[0] * m, d[1] * m, d[2] * m}
}

// Vec3 reads three f32 (an absolute position).
func (r *Reader) Vec3() [3]float32 {
	if !r.need(12, "3 x f32") {
		return [3]float32{}
	}
	return [3]float32{r.F32(), r.F32(), r.F32()}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
