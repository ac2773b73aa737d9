package game

import (
	"strconv"
	"strings"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// MalformedError says a payload does not fit its opcode's layout. The fields
// decoded before Off stay valid; the reporters show the rest as raw bytes.
//
// The reason is kept as what the reader saw (a template, the field, a few
// numbers) and put into words only by Reason, Error or Text: a malformed
// payload costs no allocation unless something prints it.
type MalformedError struct {
	Off int
	why why
}

// NewMalformed returns a MalformedError at off with a reason in words.
func NewMalformed(off int, reason string) *MalformedError {
	return &MalformedError{Off: off, why: why{kind: whyText, what: reason}}
}

func (e *MalformedError) Error() string {
	b := make([]byte, 0, 96)
	b = append(b, "payload malformed at offset "...)
	b = strconv.AppendInt(b, int64(e.Off), 10)
	b = append(b, ": "...)
	return string(e.why.append(b))
}

// Reason says what does not fit, in words.
func (e *MalformedError) Reason() string { return string(e.why.append(nil)) }

// AppendReason appends Reason to b.
func (e *MalformedError) AppendReason(b []byte) []byte { return e.why.append(b) }

// Text is the payload-malformed anomaly's message for e in a payload of
// opcode op: "op: reason", and where the reassembled payload broke when it
// has no place in the datagram. Building it does not allocate.
func (e *MalformedError) Text(op string, reassembled bool) anomaly.Text {
	w := &e.why
	flags := int64(w.kind) | int64(w.path)<<8
	if reassembled {
		flags |= 1 << 16
	}
	return anomaly.Custom(malformedText{}, []string{op, w.what, w.field, w.in},
		[]int64{int64(e.Off), int64(w.a), int64(w.b), flags})
}

// malformedText reads back the parts Text stored.
type malformedText struct{}

func (malformedText) AppendText(b []byte, t *anomaly.Text) []byte {
	flags := t.Num(3)
	w := why{kind: whyKind(flags & 0xFF), path: pathKind(flags >> 8 & 0xFF),
		what: t.Str(1), field: t.Str(2), in: t.Str(3), a: int(t.Num(1)), b: int(t.Num(2))}
	b = append(b, t.Str(0)...)
	b = append(b, ": "...)
	b = w.append(b)
	if flags&(1<<16) != 0 {
		b = append(b, " (in the reassembled payload at offset "...)
		b = strconv.AppendInt(b, t.Num(0), 10)
		b = append(b, ')')
	}
	return b
}

type whyKind uint8

const (
	whyText   whyKind = iota // what is the reason
	whyNeed                  // what needs a bytes, b left
	whyExtra                 // a extra bytes after the layout
	whyGroup                 // bit group byte a claims b bits
	whyNegLen                // negative length a
	whyStrNul                // string length a plus NUL exceeds the b bytes left
	whyStrEnd                // string of length a ends in b, not NUL
	whyStrLen                // string length a exceeds the b bytes left
	whyStart                 // start offset a outside the b-byte payload
	whyPeeked                // what, a layout's format, with its 0x%08X showing a (a peeked value)
)

// pathKind says how the field that failed is named before the reason (see
// fieldReader.path).
type pathKind uint8

const (
	pathNone      pathKind = iota
	pathField              // "field: "
	pathIn                 // "in.field: "
	pathInElement          // "in element: "
	pathElement            // "element: "
)

// why is a reason kept as its parts. what and the names are static strings
// of the decoders, so keeping them allocates nothing.
type why struct {
	kind      whyKind
	path      pathKind
	what      string
	field, in string
	a, b      int
}

func (w *why) append(b []byte) []byte {
	switch w.path {
	case pathField:
		b = append(append(b, w.field...), ": "...)
	case pathIn:
		b = append(append(append(append(b, w.in...), '.'), w.field...), ": "...)
	case pathInElement:
		b = append(append(b, w.in...), " element: "...)
	case pathElement:
		b = append(b, "element: "...)
	}
	n := func(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) }
	switch w.kind {
	case whyText:
		b = append(b, w.what...)
	case whyNeed:
		b = append(b, w.what...)
		b = append(b, " needs "...)
		b = n(b, w.a)
		b = append(append(append(b, ' '), plural(w.a, "byte", "bytes")...), ", "...)
		b = n(b, w.b)
		b = append(b, " left"...)
	case whyExtra:
		b = n(b, w.a)
		b = append(append(append(b, " extra "...), plural(w.a, "byte", "bytes")...), " after the layout"...)
	case whyGroup:
		b = appendHex(append(b, "bit group byte "...), uint64(w.a), 1)
		b = n(append(b, " claims "...), w.b)
		b = append(b, " bits (1 to 5 are possible)"...)
	case whyNegLen:
		b = n(append(b, "negative length "...), w.a)
	case whyStrNul:
		b = n(append(b, "string length "...), w.a)
		b = n(append(b, " plus NUL exceeds the "...), w.b)
		b = append(b, " bytes left"...)
	case whyStrEnd:
		b = n(append(b, "string of length "...), w.a)
		b = appendHex(append(b, " ends in "...), uint64(w.b), 1)
		b = append(b, ", not NUL"...)
	case whyStrLen:
		b = n(append(b, "string length "...), w.a)
		b = n(append(b, " exceeds the "...), w.b)
		b = append(b, " bytes left"...)
	case whyStart:
		b = n(append(b, "start offset "...), w.a)
		b = n(append(b, " outside the "...), w.b)
		b = append(b, "-byte payload"...)
	case whyPeeked:
		before, after, ok := strings.Cut(w.what, "0x%08X")
		b = append(b, before...)
		if ok {
			b = append(appendHex(b, uint64(uint32(w.a)), 4), after...)
		}
	}
	return b
}
