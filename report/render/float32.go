package render

import (
	"math"
	"slices"
	"strconv"
)

// appendFloat32 appends f as strconv.AppendFloat(b, float64(f), 'g', -1,
// 32) does, which is what it calls, but for the cv3 values k/127 (the
// compressed directions of nearly every state update, over half of all
// floats in a record), whose texts are looked up.
func appendFloat32(b []byte, f float32) []byte {
	if e := cv3Lookup(f); e != nil {
		return appendShort(b, &e.s, e.n)
	}
	return strconv.AppendFloat(b, float64(f), 'g', -1, 32)
}

// cv3Lookup returns the text of f if f is a cv3 value k/127, else nil.
func cv3Lookup(f float32) *cv3Entry {
	// A cv3 value times 127 rounds to k: look it up there, and take it
	// only if it is that value to the bit.
	if k := f * 127; k >= -127.5 && k < 127.5 {
		i := int(k + 127.5)
		if i < len(cv3Bits) && cv3Bits[i] == math.Float32bits(f) {
			return &cv3Text[i]
		}
	}
	return nil
}

// cv3Bits[k+127] is the float32 k/127 (dissect/game.CV3, the compressed
// directions of nearly every state update: over half of all floats) and
// cv3Text[k+127] its text. Indexed directly (1 KB of bits to test, in
// cache), not hashed: a hash table's probes missed the cache. Built once,
// then only read, so any goroutine may use them.
var cv3Bits, cv3Text = func() (bits [255]uint32, text [255]cv3Entry) {
	for k := -127; k <= 127; k++ {
		u := math.Float32bits(float32(k) / 127)
		bits[k+127] = u
		e := &text[k+127]
		e.n = uint8(copy(e.s[:], strconv.AppendFloat(nil, float64(float32(k)/127), 'g', -1, 32)))
	}
	return bits, text
}()

type cv3Entry struct {
	n uint8
	s [16]byte // "-0.015748031" is the longest
}

// appendShort appends s[:n] by copying all 16 bytes of s, a fixed-size
// move instead of a memmove call, and keeping n of them.
func appendShort(b []byte, s *[16]byte, n uint8) []byte {
	if cap(b)-len(b) < len(s) {
		b = slices.Grow(b, len(s))
	}
	l := len(b)
	*(*[16]byte)(b[l : l+16]) = *s
	return b[:l+int(n)]
}
