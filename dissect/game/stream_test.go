package game

import (
	"errors"
	"math"
	"testing"
)

// TestCF16 checks the worked values of section 8.4.
func TestCF16(t *testing.T) {
	for _, tc := range []struct {
		u    uint16
		want float64
		tol  float64
	}{
		{0x50E3, 14.989, 0.0005},
		{0x6313, 272.967, 0.0005},
		{0x471B, 4.9978, 0.00005},
		{0xC0E3, -1.4989, 0.00005},
		{0x0000, 0, 0},
		{0x7FFF, 10000.0, 0.001},
		{0x571B, 49.98, 0.005}, // Explosion A
		{0x78E2, 5997.8, 0.05}, // Explosion B
		{0x6195, 189.0, 0.05},  // Explosion cv4 magnitude
		{0x8000, 0, 0},         // negative zero
		{0x0FFF, 0.001, 0.0000001},
	} {
		got := float64(CF16(tc.u))
		if math.Abs(got-tc.want) > tc.tol {
			t.Errorf("CF16(0x%04X) = %v, want %v ±%v", tc.u, got, tc.want, tc.tol)
		}
	}
}

// TestCF16Monotonic: the decades join up, so the positive codes decode to a
// non-decreasing sequence from 0 to 10000.
func TestCF16Monotonic(t *testing.T) {
	prev := float32(-1)
	for u := 0; u <= 0x7FFF; u++ {
		v := CF16(uint16(u))
		if v < prev {
			t.Fatalf("CF16(0x%04X) = %v < CF16(0x%04X) = %v", u, v, u-1, prev)
		}
		if n := CF16(uint16(u) | 0x8000); n != -v {
			t.Fatalf("CF16(0x%04X) = %v, want %v", u|0x8000, n, -v)
		}
		prev = v
	}
}

func TestCV3(t *testing.T) {
	for _, tc := range []struct {
		b    [3]int8
		want [3]float64
	}{
		{[3]int8{0x0B, 0x68, 0x46}, [3]float64{0.0866, 0.8189, 0.5512}},
		{[3]int8{0x30, -0x45, 0x5E}, [3]float64{0.378, -0.543, 0.740}},
		{[3]int8{127, -127, 0}, [3]float64{1, -1, 0}},
	} {
		got := CV3(tc.b[0], tc.b[1], tc.b[2])
		for i := range got {
			if math.Abs(float64(got[i])-tc.want[i]) > 0.0005 {
				t.Errorf("CV3(%v)[%d] = %v, want %v", tc.b, i, got[i], tc.want[i])
			}
		}
	}
}

func TestObjectNote(t *testing.T) {
	for _, tc := range []struct {
		id   uint32
		want string
		slot int
		ok   bool
	}{
		{0, "none", 0, false},
		{0xFFFFFFFF, "self", 0, false},
		{0x3FFFFFFF, "slot 0", 0, true},
		{0x4000000D, "slot 0", 0, true},
		{0x400003FF, "slot 0", 0, true}, // spec 12.5: not slot 1
		{0x4003FFFF, "slot 1", 1, true},
		{0x4007FFFF, "slot 2", 2, true},
		{0x40080068, "slot 2", 2, true},
		{0x400BFFFF, "slot 3", 3, true},
		{0x00000791, "", 0, false},
		{0x3FFFFFFE, "", 0, false},
		{0xFFFFFFFE, "", 12287, true}, // far past any real slot: no label
	} {
		if got := ObjectNote(tc.id); got != tc.want {
			t.Errorf("ObjectNote(0x%08X) = %q, want %q", tc.id, got, tc.want)
		}
		if s, ok := ObjectSlot(tc.id); s != tc.slot || ok != tc.ok {
			t.Errorf("ObjectSlot(0x%08X) = %d, %v; want %d, %v", tc.id, s, ok, tc.slot, tc.ok)
		}
	}
}

// bitRead is one expected Bit result.
type bitRead struct {
	v        bool
	off, bit int
}

// TestReaderBits covers the group-byte rule of section 8.2.
func TestReaderBits(t *testing.T) {
	t.Run("Settings interleaving", func(t *testing.T) {
		// 61 00 25 00: bit, bit, u8, u16, bit; all three bits in byte 0.
		r := NewReader([]byte{0x61, 0x00, 0x25, 0x00}, 0)
		expectBit(t, &r, bitRead{true, 0, 0})
		expectBit(t, &r, bitRead{false, 0, 1})
		if v := r.U8(); v != 0 {
			t.Errorf("u8 %d", v)
		}
		if v := r.U16(); v != 37 {
			t.Errorf("u16 %d", v)
		}
		expectBit(t, &r, bitRead{false, 0, 2})
		if r.Err() != nil || r.Len() != 0 {
			t.Errorf("err %v, %d left", r.Err(), r.Len())
		}
	})
	t.Run("count used up opens a new group", func(t *testing.T) {
		r := NewReader([]byte{0x21, 0x20}, 0)
		expectBit(t, &r, bitRead{true, 0, 0})
		expectBit(t, &r, bitRead{false, 1, 0})
	})
	t.Run("sixth bit", func(t *testing.T) {
		r := NewReader([]byte{0xB5, 0x21}, 0) // count 5, bits 10101
		for i, v := range []bool{true, false, true, false, true} {
			expectBit(t, &r, bitRead{v, 0, i})
		}
		expectBit(t, &r, bitRead{true, 1, 0})
	})
	for _, b := range []byte{0x00, 0x1F, 0xC0, 0xFF} {
		r := NewReader([]byte{b}, 0)
		r.Bit()
		var me *MalformedError
		if !errors.As(r.Err(), &me) || me.Off != 0 {
			t.Errorf("group byte 0x%02X: err %v, want malformed at 0", b, r.Err())
		}
	}
	r := NewReader(nil, 0)
	if v, off, _ := r.Bit(); v || off != 0 || r.Err() == nil {
		t.Errorf("bit from empty: %v at %d, err %v", v, off, r.Err())
	}
	g := NewReader([]byte{0x22}, 0)
	if _, _, ok := g.Group(); ok {
		t.Error("Group reports an open byte before any Bit")
	}
	g.Bit()
	if b, off, ok := g.Group(); !ok || b != 0x22 || off != 0 {
		t.Errorf("Group = %#x, %d, %v after a Bit", b, off, ok)
	}
}

func expectBit(t *testing.T, r *Reader, want bitRead) {
	t.Helper()
	v, off, bit := r.Bit()
	if got := (bitRead{v, off, bit}); got != want || r.Err() != nil {
		t.Errorf("Bit = %+v (err %v), want %+v", got, r.Err(), want)
	}
}

func TestReaderScalars(t *testing.T) {
	r := NewReader([]byte{0x00, 0x00, 0x05, 0x42, 0xFF, 0x34, 0x12, 0xFE, 0xFF, 0xFF, 0xFF, 0x81, 0xE3, 0x50}, 0)
	if v := r.F32(); v != 33.25 {
		t.Errorf("f32 %v", v)
	}
	if v := r.I8(); v != -1 {
		t.Errorf("i8 %v", v)
	}
	if v := r.U16(); v != 0x1234 {
		t.Errorf("u16 %#x", v)
	}
	if v := r.I32(); v != -2 {
		t.Errorf("i32 %v", v)
	}
	if v := r.U8(); v != 0x81 {
		t.Errorf("u8 %#x", v)
	}
	if v := r.CF16(); math.Abs(float64(v)-14.989) > 0.0005 {
		t.Errorf("cf16 %v", v)
	}
	r.End()
	if r.Err() != nil || r.Off() != 14 {
		t.Errorf("err %v off %d", r.Err(), r.Off())
	}
	r = NewReader([]byte{0x1D, 0x7A, 0x0C, 0x95, 0x61}, 0)
	v := r.CV4()
	for i, w := range [3]float64{43.2, 181.6, 17.9} {
		if math.Abs(float64(v[i])-w) > 0.05 {
			t.Errorf("cv4[%d] = %v, want %v", i, v[i], w)
		}
	}
}

func TestReaderStrings(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		read func(*Reader) []byte
		want string
		off  int // error offset, -1 for success
	}{
		{"u16", []byte{5, 0, 'h', 'e', 'l', 'l', 'o'}, (*Reader).String16, "hello", -1},
		{"u16 empty", []byte{0, 0}, (*Reader).String16, "", -1},
		{"u16 overrun", []byte{6, 0, 'h', 'e', 'l', 'l', 'o'}, (*Reader).String16, "", 0},
		{"u16 cut length", []byte{6}, (*Reader).String16, "", 0},
		{"u8", []byte{6, 'M', 'u', 'l', 't', 'i', '1'}, (*Reader).String8, "Multi1", -1},
		{"u8 overrun", []byte{7, 'M'}, (*Reader).String8, "", 0},
		{"i32+NUL", []byte{2, 0, 0, 0, 'A', 'B', 0}, (*Reader).String32Z, "AB", -1},
		{"i32+NUL empty", []byte{0, 0, 0, 0, 0}, (*Reader).String32Z, "", -1},
		{"i32+NUL no room for NUL", []byte{2, 0, 0, 0, 'A', 'B'}, (*Reader).String32Z, "", 0},
		{"i32+NUL not NUL", []byte{2, 0, 0, 0, 'A', 'B', 'C'}, (*Reader).String32Z, "", 6},
		{"i32+NUL negative", []byte{0xFF, 0xFF, 0xFF, 0xFF, 0}, (*Reader).String32Z, "", 0},
		{"i32+NUL huge", []byte{0xFF, 0xFF, 0xFF, 0x7F, 0}, (*Reader).String32Z, "", 0},
		{"utf16", []byte{'B', 0, 'o', 0, 't', 0, 0, 0}, (*Reader).UTF16Z, "B\x00o\x00t\x00", -1},
		{"utf16 unterminated", []byte{'B', 0, 'o'}, (*Reader).UTF16Z, "", 0},
		{"utf16 odd zero", []byte{'B', 0, 0, 'o', 0, 0}, (*Reader).UTF16Z, "B\x00\x00o", -1},
		{"bytes", []byte{1, 2, 3}, func(r *Reader) []byte { return r.Bytes(2) }, "\x01\x02", -1},
		{"bytes negative", []byte{1}, func(r *Reader) []byte { return r.Bytes(-1) }, "", 0},
		{"rest", []byte{1, 2}, (*Reader).Rest, "\x01\x02", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.in, 0)
			got := tc.read(&r)
			if string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			var me *MalformedError
			switch {
			case tc.off < 0 && r.Err() != nil:
				t.Errorf("unexpected error %v", r.Err())
			case tc.off >= 0 && (!errors.As(r.Err(), &me) || me.Off != tc.off):
				t.Errorf("err %v, want malformed at %d", r.Err(), tc.off)
			}
		})
	}
}

// TestReaderSticky: after the first failure every read returns zero, the
// offset stays, and the error keeps the first failure's offset.
func TestReaderSticky(t *testing.T) {
	r := NewReader([]byte{1, 2, 3}, 1)
	if v := r.U32(); v != 0 {
		t.Errorf("u32 %d", v)
	}
	first := r.Err()
	if v := r.U8(); v != 0 || r.Off() != 1 {
		t.Errorf("after failure: u8 %d off %d", v, r.Off())
	}
	if b := r.Rest(); b != nil {
		t.Errorf("rest after failure %v", b)
	}
	r.End()
	r.Fail(2, "later")
	if r.Err() != first || first.(*MalformedError).Off != 1 {
		t.Errorf("error changed: %v", r.Err())
	}
	bad := NewReader([]byte{1}, 5)
	if bad.Err() == nil || bad.Off() != 0 {
		t.Errorf("start past end: err %v off %d", bad.Err(), bad.Off())
	}
	end := NewReader([]byte{1, 2}, 1)
	end.End()
	if me, ok := end.Err().(*MalformedError); !ok || me.Off != 1 || me.Reason() != "1 extra byte after the layout" {
		t.Errorf("End: %v", end.Err())
	}
}

// TestReaderNoAllocs: reads that succeed allocate nothing.
func TestReaderNoAllocs(t *testing.T) {
	p := mustHex(t, "1C FF FF FF 3F 00 80 E1 41 9D 00 00 B0 42 00 00 84 C2 00 00 92 C2 21 37 FB 0B 68 46 30 BB 5E 00 00 01 CC 02 CC 04 CC")
	n := testing.AllocsPerRun(100, func() {
		r := NewReader(p, 1)
		r.ObjID()
		r.F32()
		r.U8()
		r.Vec3()
		r.Bit()
		r.U16()
		r.CV3()
		r.CV3()
		r.CF16()
		r.Rest()
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per read sequence, want 0", n)
	}
}
