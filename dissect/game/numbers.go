package game

import (
	"math"
	"strconv"
)

func f32frombits(u uint32) float32 { return math.Float32frombits(u) }

// CF16 decodes a 16-bit compressed float (section 8.4): bit 15 sign, bits
// 14..12 decade s, bits 11..0 mantissa m; the value lies in decade s's range
// [lo, hi) at m/4095 of the way. The arithmetic is float32 step by step, as
// in the game, so results match its rounding (0x50E3 -> 14.989).
func CF16(u uint16) float32 {
	s := int(u>>12) & 7
	m := float32(u & 0x0FFF)
	lo, hi := float32(0), float32(0.001)
	for ; s > 0; s-- {
		lo = hi
		hi = hi * 10
	}
	// The explicit conversions keep the compiler from fusing into an FMA,
	// which would round differently on arm64.
	v := lo + float32(float32(m/4095)*float32(hi-lo))
	if u&0x8000 != 0 {
		v = -v
	}
	return v
}

// CV3 decodes a compressed direction: each component is s8/127.
func CV3(x, y, z int8) [3]float32 {
	return [3]float32{float32(x) / 127, float32(y) / 127, float32(z) / 127}
}

// Player object ranges (section 8.5): slot k's ids start at
// PlayerIDBase + k*PlayerIDStride.
const (
	PlayerIDBase   = 0x3FFFFFFF
	PlayerIDStride = 0x40000
)

// ObjectSlot returns the player slot whose id range holds id. ok is false for
// ids below the player ranges and for the 0 and -1 sentinels.
func ObjectSlot(id uint32) (slot int, ok bool) {
	if id < PlayerIDBase || id == 0xFFFFFFFF {
		return 0, false
	}
	return int((id - PlayerIDBase) >> 18), true
}

// slotNotes holds prebuilt labels so labelling an id does not allocate.
var slotNotes = func() (s [32]string) {
	for i := range s {
		s[i] = "slot " + strconv.Itoa(i)
	}
	return s
}()

// ObjectNote labels an object id for people: "none" (0), "self" (-1, the
// sentinel), "slot N" (in player slot N's range, N < 32), or "".
func ObjectNote(id uint32) string {
	switch id {
	case 0:
		return "none"
	case 0xFFFFFFFF:
		return "self"
	}
	if slot, ok := ObjectSlot(id); ok && slot < len(slotNotes) {
		return slotNotes[slot]
	}
	return ""
}
