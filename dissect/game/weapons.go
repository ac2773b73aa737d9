package game

// Weapon opcodes (section 7.4).

func init() {
	register(0x19, decodeTorpedoFire, summarizeTorpedoFire)
	register(0x1A, decodeBeamFire, summarizeBeamFire)
	register(0x29, decodeExplosion, summarizeExplosion)
}

// decodeTorpedoFire reads 0x19 as the stock capture has it (V): flags bit 2
// set means no target, and the target offset is 4 bytes. OpenBC's own codec
// (bit 1, 5-byte cv4, 19 bytes) disagrees with the capture.
func decodeTorpedoFire(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.objid("tube")
	t := d.u8("torpedo_type")
	d.note(torpedoName(t))
	off := d.r.Off()
	flags := d.hex8("flags")
	d.flag("reloading", off, flags, 0)
	noTarget := d.flag("no_target", off, flags, 2)
	d.cv3("direction")
	if !noTarget {
		d.objid("target")
		d.object("target_offset")
		d.cv3("direction")
		d.u8("distance")
		d.end()
	}
	return d.done()
}

func summarizeTorpedoFire(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "tube", "tube")
	dst = kv(dst, start, f, "torpedo_type", "type")
	return kv(dst, start, f, "target", "target")
}

// decodeBeamFire reads 0x1A (V). Byte 5 is "beam type / flags" in the
// sources, so it gets the neutral name "kind".
func decodeBeamFire(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.objid("emitter")
	d.hex8("kind")
	d.cv3("direction")
	off := d.r.Off()
	flags := d.hex8("flags")
	d.flag("shield_glow", off, flags, 0)
	if d.flag("has_target", off, flags, 1) {
		d.objid("target")
	}
	return d.done()
}

func summarizeBeamFire(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "emitter", "emitter")
	return kv(dst, start, f, "target", "target")
}

// decodeExplosion reads 0x29 (V). Which cf16 is the radius and which the
// damage is disputed (section 7.4), hence value_a and value_b.
func decodeExplosion(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.objid("object")
	d.cv4("position")
	d.cf16("value_a")
	d.cf16("value_b")
	return d.done()
}

func summarizeExplosion(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "object", "obj")
	dst = kv(dst, start, f, "position", "pos")
	dst = kv(dst, start, f, "value_a", "a")
	return kv(dst, start, f, "value_b", "b")
}
