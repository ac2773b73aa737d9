package game

// Kind says how a Field's value is stored and shown.
type Kind uint8

const (
	KindUint   Kind = iota + 1 // U; shown in decimal
	KindInt                    // I
	KindFloat                  // F
	KindBool                   // U is 0 or 1
	KindString                 // B holds the raw bytes (8-bit text, shown as a string)
	KindHash                   // U; a 32-bit name or content hash, shown "0x%08X"; Note may carry the resolved name
	KindHex                    // U; an id or flag word best shown "0x%0*X" with Len*2 digits (object ids, class ids)
	KindBytes                  // B; opaque bytes shown as hex
	KindVec                    // V; a 3-component vector (cv3, cv4, 3 x f32)
	KindObject                 // opens a nested object; closed by KindEnd
	KindArray                  // opens a nested array; closed by KindEnd
	KindEnd                    // closes the innermost KindObject or KindArray
)

// Field is one decoded value of a payload, or a marker that opens or closes a
// nesting level. Fields form a flat token stream (like a JSON tokenizer's),
// so decoding fills one reused slice instead of building a tree.
//
// Off and Len locate the field's bytes in the payload (the opcode is at
// offset 0). Bit-packed booleans share their group byte with other fields:
// Bit is the bit index in that byte, or -1.
type Field struct {
	// What every reporter reads of every field comes first, in the
	// struct's first 64 bytes: a field is 128 bytes, two cache lines.
	Name string // JSON key; empty for array elements
	Note string // a label for people: enum name, resolved hash name, unit
	Kind Kind
	Bit  int8
	U    uint64
	F    float64
	I    int64

	V   [3]float64
	B   []byte // aliases the payload; copy before keeping it past the datagram
	Off int
	Len int
}

// Fields collects the fields of one payload. Its methods append and return
// nothing, so decoders read like the layout tables in the spec.
type Fields struct {
	List []Field

	malformed *MalformedError // the decoders' failure slot (see fieldReader.start)
	text      []byte          // what StringCopy fields point into

	respVisitor *checksumRespFields // decodeChecksumResp's, reused

	// drop makes the appenders keep nothing (see Drop); the in-place
	// setters then write into List's first slot, past its length.
	drop bool
}

// Reset empties the list, keeping its capacity.
func (f *Fields) Reset() { f.List, f.text = f.List[:0], f.text[:0] }

// Drop(true) makes f keep nothing a decoder appends until Drop(false):
// the decoder still reads and checks every field, so a malformed payload
// fails exactly as it would otherwise, but no field is stored. For callers
// that only want to know whether a payload is well formed.
func (f *Fields) Drop(on bool) { f.drop = on }

// StringCopy appends a string field holding a copy of text (built by the
// caller in a scratch buffer), kept in storage f reuses after Reset.
func (f *Fields) StringCopy(name string, off, n int, text []byte) {
	if f.drop {
		return
	}
	start := len(f.text)
	f.text = append(f.text, text...)
	f.String(name, off, n, f.text[start:len(f.text):len(f.text)])
}

func (f *Fields) add(fl Field) {
	if f.drop {
		return
	}
	if fl.Bit == 0 && fl.Kind != KindBool {
		fl.Bit = -1
	}
	f.List = append(f.List, fl)
}

// next appends a zero Field and returns it, for the hot setters: filling
// the slot in place saves building a 128-byte Field and copying it.
func (f *Fields) next() *Field {
	if f.drop {
		// A scratch slot that is not a field: List stays empty. (A Field
		// in Fields itself would make every message slot 128 bytes bigger.)
		if cap(f.List) == 0 {
			f.List = make([]Field, 0, 1)
		}
		return &f.List[:1][0]
	}
	n := len(f.List)
	if n < cap(f.List) {
		f.List = f.List[:n+1]
		f.List[n] = Field{}
	} else {
		f.List = append(f.List, Field{})
	}
	return &f.List[n]
}

// Uint appends an unsigned value.
func (f *Fields) Uint(name string, off, n int, v uint64) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Len, p.Bit, p.U = name, KindUint, off, n, -1, v
}

// Int appends a signed value.
func (f *Fields) Int(name string, off, n int, v int64) {
	f.add(Field{Name: name, Kind: KindInt, Off: off, Len: n, I: v})
}

// Float appends a float value.
func (f *Fields) Float(name string, off, n int, v float64) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Len, p.Bit, p.F = name, KindFloat, off, n, -1, v
}

// Bool appends a boolean stored as a whole byte (bit < 0) or as bit `bit`
// of a bit-group byte at off.
func (f *Fields) Bool(name string, off, n int, bit int, v bool) {
	var u uint64
	if v {
		u = 1
	}
	p := f.next()
	p.Name, p.Kind, p.Off, p.Len, p.Bit, p.U = name, KindBool, off, n, int8(bit), u
}

// String appends 8-bit text; b aliases the payload.
func (f *Fields) String(name string, off, n int, b []byte) {
	f.add(Field{Name: name, Kind: KindString, Off: off, Len: n, B: b})
}

// Hash appends a 32-bit hash.
func (f *Fields) Hash(name string, off int, v uint32) {
	f.add(Field{Name: name, Kind: KindHash, Off: off, Len: 4, U: uint64(v)})
}

// Hex appends an id or flag word shown in hex with n*2 digits.
func (f *Fields) Hex(name string, off, n int, v uint64) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Len, p.Bit, p.U = name, KindHex, off, n, -1, v
}

// Bytes appends opaque bytes.
func (f *Fields) Bytes(name string, off int, b []byte) {
	f.add(Field{Name: name, Kind: KindBytes, Off: off, Len: len(b), B: b})
}

// Vec appends a 3-component vector.
func (f *Fields) Vec(name string, off, n int, v [3]float64) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Len, p.Bit, p.V = name, KindVec, off, n, -1, v
}

// Object opens a nested object; End closes it.
func (f *Fields) Object(name string, off int) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Bit = name, KindObject, off, -1
}

// Array opens a nested array; End closes it.
func (f *Fields) Array(name string, off int) {
	p := f.next()
	p.Name, p.Kind, p.Off, p.Bit = name, KindArray, off, -1
}

// End closes the innermost Object or Array.
func (f *Fields) End() {
	p := f.next()
	p.Kind, p.Bit = KindEnd, -1
}

// Note sets the people-facing label of the last field.
func (f *Fields) Note(s string) {
	if n := len(f.List); n > 0 {
		f.List[n-1].Note = s
	}
}

// Get returns the first top-level field called name.
func (f *Fields) Get(name string) (*Field, bool) {
	depth := 0
	for i := range f.List {
		fl := &f.List[i]
		switch fl.Kind {
		case KindEnd:
			depth--
			continue
		}
		if depth == 0 && fl.Name == name {
			return fl, true
		}
		if fl.Kind == KindObject || fl.Kind == KindArray {
			depth++
		}
	}
	return nil, false
}
