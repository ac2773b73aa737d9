package game

// fieldReader pairs a Reader with the Fields it fills. Each method reads one
// primitive and appends it as a named field only when the read succeeded, so
// a malformed payload keeps exactly the fields before the fault and the
// decoders read like the layout tables of section 7.
type fieldReader struct {
	r     Reader
	f     *Fields
	depth int       // open Objects and Arrays, so a fault still leaves them closed
	names [4]string // their names by depth, to name fields in errors ("contacts.direction")
}

// start starts d after the opcode byte.
// A failure goes to f's slot, so a malformed payload allocates nothing once
// f has held one; the error stays valid until f decodes again.
//
// It fills d in place (var d fieldReader; d.start(p, f)): returning the
// reader by value copied it, a measurable share of decoding a StateUpdate.
func (d *fieldReader) start(p []byte, f *Fields) {
	if f.malformed == nil {
		f.malformed = new(MalformedError)
	}
	d.f = f
	d.r.slot = f.malformed
	d.r.Reset(p, 1)
}

// ok reports whether every read so far succeeded.
func (d *fieldReader) ok() bool { return d.r.err == nil }

// check reports whether the last read succeeded; a failure it caused (was
// false: no failure before it) gets the field's path in its reason.
func (d *fieldReader) check(was bool, name string) bool {
	if d.r.err == nil {
		return true
	}
	if !was {
		d.path(&d.r.err.why, name)
	}
	return false
}

// path names the field in w, the failure it caused: prefixed by the
// innermost named container, "element" for an unnamed array element.
func (d *fieldReader) path(w *why, name string) {
	if w.path != pathNone {
		// Named already (never by the decoders): keep both names, in words.
		r := MalformedError{why: *w}
		*w = why{kind: whyText, what: r.Reason()}
	}
	w.field, w.in, w.path = name, "", pathField
	for i := min(d.depth, len(d.names)) - 1; i >= 0; i-- {
		if c := d.names[i]; c != "" {
			w.in, w.path = c, pathIn
			if name == "" {
				w.path = pathInElement
			}
			return
		}
	}
	if name == "" {
		w.path = pathElement
	}
}

// note labels the field appended last, if the reads so far succeeded.
func (d *fieldReader) note(s string) {
	if d.r.err == nil && s != "" {
		d.f.Note(s)
	}
}

// done fails on unread bytes and returns the first failure or nil.
func (d *fieldReader) done() error {
	d.r.End()
	return d.r.Err()
}

// err returns the first failure or nil, for layouts that end "to the end of
// the message".
func (d *fieldReader) err() error { return d.r.Err() }

func (d *fieldReader) u8(name string) uint8 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.U8()
	if d.check(was, name) {
		d.f.Uint(name, off, 1, uint64(v))
	}
	return v
}

func (d *fieldReader) hex8(name string) uint8 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.U8()
	if d.check(was, name) {
		d.f.Hex(name, off, 1, uint64(v))
	}
	return v
}

func (d *fieldReader) hex16(name string) uint16 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.U16()
	if d.check(was, name) {
		d.f.Hex(name, off, 2, uint64(v))
	}
	return v
}

func (d *fieldReader) hex32(name string) uint32 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.U32()
	if d.check(was, name) {
		d.f.Hex(name, off, 4, uint64(v))
	}
	return v
}

func (d *fieldReader) i32(name string) int32 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.I32()
	if d.check(was, name) {
		d.f.Int(name, off, 4, int64(v))
	}
	return v
}

func (d *fieldReader) f32(name string) float32 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.F32()
	if d.check(was, name) {
		d.f.Float(name, off, 4, float64(v))
	}
	return v
}

func (d *fieldReader) cf16(name string) float32 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.CF16()
	if d.check(was, name) {
		d.f.Float(name, off, 2, float64(v))
	}
	return v
}

// objid reads an object id, shown in hex and labelled with its slot.
func (d *fieldReader) objid(name string) uint32 {
	off, was := d.r.off, d.r.Failed()
	v := d.r.ObjID()
	if d.check(was, name) {
		d.f.Hex(name, off, 4, uint64(v))
		d.f.Note(ObjectNote(v))
	}
	return v
}

// bit reads a bit-packed boolean; the field points at its group byte.
func (d *fieldReader) bit(name string) bool {
	was := d.r.Failed()
	v, off, i := d.r.Bit()
	if d.check(was, name) {
		d.f.Bool(name, off, 1, i, v)
	}
	return v
}

// b2u is a boolean as a kept value (generated decoders).
func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// flag appends bit i of a flags byte already read at off, without reading.
func (d *fieldReader) flag(name string, off int, b uint8, i int) bool {
	v := b>>i&1 != 0
	if d.r.err == nil {
		d.f.Bool(name, off, 1, i, v)
	}
	return v
}

func (d *fieldReader) vec(name string, off int, v [3]float32) {
	d.f.Vec(name, off, d.r.off-off, [3]float64{float64(v[0]), float64(v[1]), float64(v[2])})
}

func (d *fieldReader) cv3(name string) {
	off, was := d.r.off, d.r.Failed()
	v := d.r.CV3()
	if d.check(was, name) {
		d.vec(name, off, v)
	}
}

func (d *fieldReader) cv4(name string) {
	off, was := d.r.off, d.r.Failed()
	v := d.r.CV4()
	if d.check(was, name) {
		d.vec(name, off, v)
	}
}

func (d *fieldReader) vec3(name string) {
	off, was := d.r.off, d.r.Failed()
	v := d.r.Vec3()
	if d.check(was, name) {
		d.vec(name, off, v)
	}
}

func (d *fieldReader) str16(name string) []byte {
	off, was := d.r.off, d.r.Failed()
	b := d.r.String16()
	if d.check(was, name) {
		d.f.String(name, off, d.r.off-off, b)
	}
	return b
}

func (d *fieldReader) str8(name string) []byte {
	off, was := d.r.off, d.r.Failed()
	b := d.r.String8()
	if d.check(was, name) {
		d.f.String(name, off, d.r.off-off, b)
	}
	return b
}

func (d *fieldReader) str32z(name string) []byte {
	off, was := d.r.off, d.r.Failed()
	b := d.r.String32Z()
	if d.check(was, name) {
		d.f.String(name, off, d.r.off-off, b)
	}
	return b
}

func (d *fieldReader) bytes(name string, n int) []byte {
	off, was := d.r.off, d.r.Failed()
	b := d.r.Bytes(n)
	if d.check(was, name) {
		d.f.Bytes(name, off, b)
	}
	return b
}

// rest appends every unread byte (possibly none) as one raw field.
func (d *fieldReader) rest(name string) []byte {
	off := d.r.off
	b := d.r.Rest()
	if d.r.err == nil {
		d.f.Bytes(name, off, b)
	}
	return b
}

func (d *fieldReader) object(name string) {
	if d.r.err == nil {
		d.f.Object(name, d.r.off)
		d.open(name)
	}
}

func (d *fieldReader) array(name string) {
	if d.r.err == nil {
		d.f.Array(name, d.r.off)
		d.open(name)
	}
}

func (d *fieldReader) open(name string) {
	if d.depth < len(d.names) {
		d.names[d.depth] = name
	}
	d.depth++
}

// end closes the innermost open Object or Array. Opens skipped after a fault
// have nothing to close, so the token stream stays balanced whatever point
// the payload broke at; a container the fault left empty is dropped rather
// than shown as an empty {} or [].
func (d *fieldReader) end() {
	if d.depth == 0 {
		return
	}
	d.depth--
	if n := len(d.f.List); d.r.err != nil && n > 0 {
		if k := d.f.List[n-1].Kind; k == KindObject || k == KindArray {
			d.f.List = d.f.List[:n-1]
			return
		}
	}
	d.f.End()
}
