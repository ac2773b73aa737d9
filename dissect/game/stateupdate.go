package game

// StateUpdate 0x1C (section 7.5): the unreliable movement and health delta,
// about 97% of all traffic. It must decode without allocating.

func init() { register(0x1C, decodeStateUpdate, summarizeStateUpdate) }

// StateUpdate dirty flags; the fields follow in this order.
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

// noteUnsplit flags subsystem data that also holds later fields.
const noteUnsplit = "also holds the cloak bit and/or weapon pairs; the split needs the ship's subsystem list"

func decodeStateUpdate(p []byte, f *Fields) error {
	if f.drop && stateUpdateWellFormed(p) {
		// Nothing is kept and nothing fails: the decoder below would only
		// read the values to drop them (a sixth of a bcdump stats run).
		return nil
	}
	var d fieldReader
	d.start(p, f)
	d.objid("object")
	d.f32("game_time")
	flags := d.hex8("flags")
	if flags&suPosition != 0 {
		d.vec3("position")
		if d.bit("hash_present") {
			d.hex16("hash")
		}
	}
	if flags&suDelta != 0 {
		d.cv4("position_delta")
	}
	if flags&suForward != 0 {
		d.cv3("forward")
	}
	if flags&suUp != 0 {
		d.cv3("up")
	}
	if flags&suSpeed != 0 {
		d.cf16("speed")
	}
	if flags&suSubsystem != 0 {
		// Records run to the end with no count; their sizes (and the power
		// bits they add to bit groups) depend on the ship's subsystem list,
		// so the bytes stay raw. With 0x40 or 0x80 also set, the cloak bit
		// and weapon pairs are somewhere in there too: that is a limit of
		// what the wire tells, not a malformed payload.
		d.u8("subsystem_start")
		d.rest("subsystem_data")
		if flags&(suCloak|suWeapons) != 0 {
			d.note(noteUnsplit)
		}
		return d.err()
	}
	if flags&suCloak != 0 {
		// Shares a group byte that is still open (the hash bit's), adding
		// no byte; otherwise it opens its own.
		d.bit("cloak")
	}
	if flags&suWeapons != 0 {
		d.array("weapons")
		for d.ok() && d.r.Len() > 0 {
			if d.r.Len() == 1 {
				d.r.Fail(d.r.Off(), "weapons: one byte left; weapon entries are [index][health] pairs")
				break
			}
			d.object("")
			d.u8("index")
			d.u8("health")
			d.end()
		}
		d.end()
		return d.err()
	}
	return d.done()
}

// stateUpdateWellFormed reports that decodeStateUpdate succeeds on p,
// adding no note, judging from the lengths and bit-group bytes alone (the
// values themselves cannot fail). false also for what it leaves to the
// decoder: subsystem data with the cloak or weapon flag (which adds a note).
// TestStateUpdateWellFormed and FuzzStateUpdateWellFormed hold it to the
// decoder.
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
	switch {
	case flags&suSubsystem != 0:
		return off < len(p) && flags&(suCloak|suWeapons) == 0
	case flags&suCloak != 0:
		if _, ok := bit(); !ok {
			return false
		}
	}
	if flags&suWeapons != 0 {
		return (len(p)-off)%2 == 0 // [index][health] pairs to the end
	}
	return off == len(p)
}

func summarizeStateUpdate(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "object", "obj")
	dst = kv(dst, start, f, "game_time", "t")
	return kv(dst, start, f, "flags", "flags")
}
