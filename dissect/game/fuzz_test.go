package game

import (
	"errors"
	"testing"
)

// capturedExamples are the payloads section 7 quotes from stock captures (V)
// plus OpenBC-captured shapes; they seed the fuzzers and the benchmarks.
var capturedExamples = []string{
	"00 00 00 05 42 61 00 25 00 4D756C7469706C617965722E457069736F64652E4D697373696F6E312E4D697373696F6E31",
	"01",
	"2A 20",
	"08 01 01 00 00 DA 00 80 00 00 00 00 00 05 00 00 40",
	"17 66 08 00 00 F1 00 80 00 00 00 00 00 91 07 00 00 02",
	"15 24 81 00 00 50 00 80 00 00 00 00 00 FF FF FF 3F 01 0D 7E 00 D9 BB 20 A0 44",
	"19 0D 00 00 40 02 01 DF 87 11 FF FF 03 40 00 88 D8 5C",
	"1A 77 00 00 40 02 75 0E D2 03 68 00 08 40",
	"29 FF FF FF 3F 1D 7A 0C 95 61 1B 57 E2 78",
	"1C FF FF FF 3F 00 80 E1 41 9D 00 00 B0 42 00 00 84 C2 00 00 92 C2 21 37 FB 0B 68 46 30 BB 5E 00 00 01 CC 02 CC 04 CC",
	"35 08 01 FF FF",
	"36 00 00 00 00 02 00 00 00 01 00 00 00 00",
	"2C 02 00 00 00 05 00 68 65 6C 6C 6F",
	"03 00 02 08 80 00 00 FF FF FF 3F 01 00 00 B0 42 00 00 84 C2 00 00 92 C2",
	// OpenBC captures.
	"1C FF FF 03 40 00 00 10 41 41 A4 B3 5F 42 71 16 A5 42 15 CE 3D 42 42",
	"1C FF FF FF 3F CD CC CC 3F 4D B5 CD BB 42 EA CB 9E 42 96 E1 2B 42 40 FB 67 B8 23 FE 7A",
	"1C FF FF FF 3F 00 00 00 00 5C 31 5A B7 02 00 7E F9 44 20",
	"17 66 08 00 00 05 00 06 00 00 00 00 00 FF FF 03 40 03",
	"18 07 00 50 6C 61 79 65 72 32",
	"37 02 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
	"19 FF FF 03 40 08 02 6A 2E CD FF FF FF 3F 00 00 00 00 00",
	"0A FF FF FF 3F 00 00 80 D9 45",
}

// checkDecode runs one payload through Decode and its summarizer and checks
// the invariants every decoder keeps: errors are *MalformedError inside the
// payload, fields lie inside it, markers balance.
func checkDecode(t testing.TB, p []byte, f *Fields, dst []byte) []byte {
	op, err := Decode(p, f)
	if err != nil {
		var me *MalformedError
		if !errors.As(err, &me) {
			t.Fatalf("% X: error %T %v is not *MalformedError", p, err, err)
		}
		if me.Off < 1 || me.Off > len(p) {
			t.Fatalf("% X: error offset %d outside 1..%d", p, me.Off, len(p))
		}
	}
	depth := 0
	for _, fl := range f.List {
		switch fl.Kind {
		case KindObject, KindArray:
			depth++
			continue
		case KindEnd:
			if depth--; depth < 0 {
				t.Fatalf("% X: unbalanced End", p)
			}
			continue
		}
		if fl.Off < 1 || fl.Len < 0 || fl.Off+fl.Len > len(p) {
			t.Fatalf("% X: field %q at %d+%d outside the payload", p, fl.Name, fl.Off, fl.Len)
		}
		if fl.Kind == KindBool && (fl.Bit < -1 || fl.Bit > 7) {
			t.Fatalf("% X: field %q bit %d", p, fl.Name, fl.Bit)
		}
	}
	if depth != 0 {
		t.Fatalf("% X: %d unclosed markers", p, depth)
	}
	if op != nil && op.Summary != nil {
		dst = op.Summary(dst[:0], p, f)
	}
	return dst
}

// FuzzDecode feeds arbitrary payloads to every opcode's decoder (the first
// byte picks the opcode): no panic, errors and fields within bounds.
func FuzzDecode(f *testing.F) {
	for _, h := range capturedExamples {
		p := mustHex(f, h)
		f.Add(p)
		f.Add(p[:len(p)/2])
	}
	for c := 0; c < 256; c++ {
		if Lookup(uint8(c)).Decode != nil {
			f.Add([]byte{uint8(c)})
			f.Add([]byte{uint8(c), 0xFF, 0xFF, 0xFF, 0xFF, 0x21, 0x00, 0x80})
		}
	}
	var fs Fields
	var dst []byte
	f.Fuzz(func(t *testing.T, p []byte) {
		dst = checkDecode(t, p, &fs, dst)
	})
}

// TestDecodeEdits runs the fuzz invariants deterministically over every
// prefix and every one-byte extension of the captured examples, under every
// decoder (the opcode byte swapped).
func TestDecodeEdits(t *testing.T) {
	var fs Fields
	var dst []byte
	buf := make([]byte, 0, 512)
	for _, h := range capturedExamples {
		p := mustHex(t, h)
		for c := 0; c < 256; c++ {
			if Lookup(uint8(c)).Decode == nil {
				continue
			}
			for n := 1; n <= len(p)+1; n++ {
				buf = append(buf[:0], p...)
				buf = append(buf, 0xA5)
				buf[0] = uint8(c)
				dst = checkDecode(t, buf[:n], &fs, dst)
			}
		}
	}
}

// FuzzStream drives the Reader with a script of reads (one op byte each)
// over arbitrary data: no panic, the offset never leaves the data, and the
// first error sticks.
func FuzzStream(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, mustHex(f, "61 00 25 00 41 42"))
	f.Add([]byte{9, 9, 9, 9, 9, 9, 1, 9}, []byte{0xBF, 0x21, 0x00})
	f.Add([]byte{12, 13, 14}, []byte{2, 0, 0, 0, 'A', 'B', 0, 'x', 0, 0, 0})
	f.Fuzz(func(t *testing.T, ops, data []byte) {
		if len(ops) > 256 {
			ops = ops[:256]
		}
		r := NewReader(data, 0)
		var first error
		for _, op := range ops {
			before := r.Off()
			switch op % 17 {
			case 0:
				r.U8()
			case 1:
				r.U16()
			case 2:
				r.U32()
			case 3:
				r.I32()
			case 4:
				r.F32()
			case 5:
				r.CF16()
			case 6:
				r.CV3()
			case 7:
				r.CV4()
			case 8:
				r.Vec3()
			case 9:
				_, off, bit := r.Bit()
				if r.Err() == nil && (off < 0 || off >= len(data) || bit < 0 || bit > 4) {
					t.Fatalf("bit at %d.%d outside %d bytes", off, bit, len(data))
				}
			case 10:
				r.String16()
			case 11:
				r.String8()
			case 12:
				r.String32Z()
			case 13:
				r.UTF16Z()
			case 14:
				r.Bytes(int(op >> 4))
			case 15:
				r.ObjID()
			case 16:
				r.End()
			}
			if r.Off() < 0 || r.Off() > len(data) {
				t.Fatalf("offset %d outside %d bytes", r.Off(), len(data))
			}
			if first != nil {
				if r.Err() != first || r.Off() != before {
					t.Fatalf("read after failure moved or changed the error")
				}
			} else if err := r.Err(); err != nil {
				first = err
				if me := err.(*MalformedError); me.Off < 0 || me.Off > len(data) {
					t.Fatalf("error offset %d outside %d bytes", me.Off, len(data))
				}
			}
		}
	})
}
