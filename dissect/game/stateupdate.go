package game

import "encoding/binary"

// StateUpdate 0x1C (section 7.5): the unreliable movement and health delta,
// about 97% of all traffic. It must decode without allocating.

func init() { register(0x1C, decodeStateUpdate, nil) }

// StateUpdate dirty flags. The fields follow in this order except the
// cloak bit (0x40), which the stock receiver reads after the speed and
// before the subsystem data (section 7.5).
const (
	suPosition  = 0x01
	suDelta     = 0x02
	suForward   = 0x04
	suUp        = 0x08
	suSpeed     = 0x10
	suSubsystem = 0x20
	suCloak     = 0x40
	suWeapons   = 0x80
)

// noteUnsplit flags subsystem data that also holds the weapon pairs.
const noteUnsplit = "also holds the weapon pairs; the split needs the ship's subsystem list"

func decodeStateUpdate(p []byte, f *Fields) error {
	// Most payloads are well formed, which the lengths and bit-group bytes
	// alone decide (values cannot fail): then the fields are emitted
	// straight from the layout, or none when they are dropped. The field
	// reader, which tracks every read for exact errors and costs about
	// twice as much, runs only on what the check does not pass.
	if stateUpdateWellFormed(p) {
		if !f.drop {
			emitStateUpdate(p, f)
		}
		return nil
	}
	return decodeLayout1C(p, f)
}

// stateUpdateWellFormed reports whether decodeLayout1C succeeds
// on p without a note, judging from the lengths and bit-group bytes alone.
// false also for what it leaves to the decoder: subsystem data with the
// weapon flag (which gets a note). TestStateUpdateFast and
// FuzzStateUpdateFast hold it, and emitStateUpdate, to the decoder.
func stateUpdateWellFormed(p []byte) bool {
	const head = 1 + 4 + 4 + 1 // opcode, object, game_time, flags
	if len(p) < head {
		return false
	}
	flags, off := p[head-1], head
	var grp, next byte // the open bit group (Reader.Bit); grp 0: none
	bit := func() (v, ok bool) {
		if grp == 0 || next >= grp>>5 {
			if off >= len(p) {
				return false, false
			}
			if n := p[off] >> 5; n == 0 || n > 5 {
				return false, false
			}
			grp, next = p[off], 0
			off++
		}
		v = grp>>next&1 != 0
		next++
		return v, true
	}
	if flags&suPosition != 0 {
		off += 12
		if off > len(p) {
			return false
		}
		hash, ok := bit()
		if !ok {
			return false
		}
		if hash {
			off += 2
		}
	}
	if flags&suDelta != 0 {
		off += 5
	}
	if flags&suForward != 0 {
		off += 3
	}
	if flags&suUp != 0 {
		off += 3
	}
	if flags&suSpeed != 0 {
		off += 2
	}
	if off > len(p) {
		return false
	}
	if flags&suCloak != 0 {
		if _, ok := bit(); !ok {
			return false
		}
	}
	if flags&suSubsystem != 0 {
		return off < len(p) && flags&suWeapons == 0
	}
	if flags&suWeapons != 0 {
		return (len(p)-off)%2 == 0 // [index][health] pairs to the end
	}
	return off == len(p)
}

// emitStateUpdate appends the fields decodeLayout1C would, in the
// same order, for a payload stateUpdateWellFormed passed: it reads without
// checking.
func emitStateUpdate(p []byte, f *Fields) {
	obj := binary.LittleEndian.Uint32(p[1:])
	f.Hex("object", 1, 4, uint64(obj))
	f.Note(ObjectNote(obj))
	f.Float("game_time", 5, 4, float64(f32frombits(binary.LittleEndian.Uint32(p[5:]))))
	flags, off := p[9], 10
	f.Hex("flags", 9, 1, uint64(flags))
	grpOff, next := -1, byte(0) // the open group byte (Reader.Bit): offset, next bit
	// bit returns the next bit-packed boolean: its group byte's offset, its
	// index there and its value.
	bit := func() (int, int, bool) {
		if grpOff < 0 || next >= p[grpOff]>>5 {
			grpOff, next = off, 0
			off++
		}
		next++
		return grpOff, int(next - 1), p[grpOff]>>(next-1)&1 != 0
	}
	if flags&suPosition != 0 {
		f.Vec("position", off, 12, [3]float64{
			float64(f32frombits(binary.LittleEndian.Uint32(p[off:]))),
			float64(f32frombits(binary.LittleEndian.Uint32(p[off+4:]))),
			float64(f32frombits(binary.LittleEndian.Uint32(p[off+8:]))),
		})
		off += 12
		at, i, hash := bit()
		f.Bool("hash_present", at, 1, i, hash)
		if hash {
			f.Hex("hash", off, 2, uint64(binary.LittleEndian.Uint16(p[off:])))
			off += 2
		}
	}
	if flags&suDelta != 0 {
		d, m := cv3At(p[off:]), CF16(binary.LittleEndian.Uint16(p[off+3:]))
		f.Vec("position_delta", off, 5, [3]float64{float64(d[0] * m), float64(d[1] * m), float64(d[2] * m)})
		off += 5
	}
	if flags&suForward != 0 {
		d := cv3At(p[off:])
		f.Vec("forward", off, 3, [3]float64{float64(d[0]), float64(d[1]), float64(d[2])})
		off += 3
	}
	if flags&suUp != 0 {
		d := cv3At(p[off:])
		f.Vec("up", off, 3, [3]float64{float64(d[0]), float64(d[1]), float64(d[2])})
		off += 3
	}
	if flags&suSpeed != 0 {
		f.Float("speed", off, 2, float64(CF16(binary.LittleEndian.Uint16(p[off:]))))
		off += 2
	}
	if flags&suCloak != 0 {
		at, i, cloak := bit()
		f.Bool("cloak", at, 1, i, cloak)
	}
	if flags&suSubsystem != 0 {
		f.Uint("subsystem_start", off, 1, uint64(p[off]))
		f.Bytes("subsystem_data", off+1, p[off+1:len(p):len(p)])
		return
	}
	if flags&suWeapons != 0 {
		f.Array("weapons", off)
		for ; off < len(p); off += 2 {
			f.Object("", off)
			f.Uint("index", off, 1, uint64(p[off]))
			f.Uint("health", off+1, 1, uint64(p[off+1]))
			f.End()
		}
		f.End()
	}
}

// cv3At is Reader.CV3 of the 3 bytes at b.
func cv3At(b []byte) [3]float32 { return CV3(int8(b[0]), int8(b[1]), int8(b[2])) }
