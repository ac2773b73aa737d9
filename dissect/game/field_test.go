package game

import (
	"testing"
	"unsafe"
)

// What a reporter reads of every field (name, note, kind and the scalar
// values) stays in a Field's first cache line, and a Field fills exactly
// two: the JSON writer walks millions of them.
func TestFieldStructLayout(t *testing.T) {
	var f Field
	if n := unsafe.Sizeof(f); n != 128 {
		t.Errorf("a Field is %d bytes, want 128", n)
	}
	for _, m := range []struct {
		name     string
		off, len uintptr
	}{
		{"Name", unsafe.Offsetof(f.Name), unsafe.Sizeof(f.Name)},
		{"Note", unsafe.Offsetof(f.Note), unsafe.Sizeof(f.Note)},
		{"Kind", unsafe.Offsetof(f.Kind), unsafe.Sizeof(f.Kind)},
		{"U", unsafe.Offsetof(f.U), unsafe.Sizeof(f.U)},
		{"F", unsafe.Offsetof(f.F), unsafe.Sizeof(f.F)},
		{"I", unsafe.Offsetof(f.I), unsafe.Sizeof(f.I)},
	} {
		if m.off+m.len > 64 {
			t.Errorf("%s: bytes %d-%d, want them in the first 64", m.name, m.off, m.off+m.len)
		}
	}
}
