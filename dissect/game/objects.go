package game

// Object opcodes (section 7.2).

func init() {
	register(0x02, decodeObjCreate, summarizeObjCreate)
	register(0x03, decodeObjCreate, summarizeObjCreate)
	register(0x14, decodeObjectID, summarizeObjectID)
	register(0x1D, decodeObjectID, summarizeObjectID)
	register(0x1E, decodeObjectID, summarizeObjectID)
	register(0x1F, decodeEnterSet, summarizeEnterSet)
	register(0x18, decodeDeletePlayerAnim, summarizeDeletePlayerAnim)
}

// quaternionNote labels ObjCreate's orientation.
const quaternionNote = "quaternion, w x y z as documented; order unconfirmed"

// decodeObjCreate reads 0x02 ObjCreate and 0x03 ObjCreateTeam (V for the
// first 24 bytes, D for the rest). Only the ship class has a documented
// body; a torpedo keeps the bytes after its species raw.
func decodeObjCreate(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.u8("owner_slot")
	if p[0] == 0x03 {
		d.u8("team")
	}
	// The class id picks the layout; an unknown one leaves nothing to go by
	// (OpenBC's own ObjCreateTeam has no class id here, for one).
	off, was := d.r.Off(), d.r.Failed()
	class := d.r.U32()
	if d.check(was, "class_id") {
		name := className(class)
		if name == "" {
			d.r.fail(off, why{kind: whyClass, a: int(class)})
		}
		d.hex32At("class_id", off, class)
		d.note(name)
	}
	d.objid("object")
	species := d.u8("species")
	switch class {
	case classShip:
		d.note(speciesName(species))
		d.vec3("position")
		d.array("orientation")
		d.note(quaternionNote)
		for range 4 {
			d.f32("")
		}
		d.end()
		d.f32("speed")
		d.bytes("reserved", 3)
		d.str8("player_name")
		d.str8("set_name")
		// Per-subsystem state, ship-class specific, to the end.
		d.rest("subsystem_state")
		return d.err()
	case classTorpedo:
		d.note(torpedoName(species))
	}
	// Torpedo: nothing after the species is documented.
	d.rest("torpedo_data")
	return d.err()
}

func summarizeObjCreate(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "owner_slot", "slot")
	dst = kv(dst, start, f, "team", "team")
	dst = kv(dst, start, f, "object", "obj")
	dst = kv(dst, start, f, "species", "species")
	return kv(dst, start, f, "player_name", "name")
}

// decodeObjectID reads 0x14 DestroyObj (D), 0x1D ObjNotFound and 0x1E
// RequestObj (I): an object id alone.
func decodeObjectID(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.objid("object")
	return d.done()
}

func summarizeObjectID(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "object", "obj")
}

// decodeEnterSet reads 0x1F (D): object id, then the set name with both an
// i32 length and a trailing NUL.
func decodeEnterSet(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.objid("object")
	d.str32z("set_name")
	return d.done()
}

func summarizeEnterSet(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "object", "obj")
	return kv(dst, start, f, "set_name", "set")
}

// decodeDeletePlayerAnim reads 0x18 (I): the leaving player's name.
func decodeDeletePlayerAnim(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.str16("name")
	return d.done()
}

func summarizeDeletePlayerAnim(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "name", "name")
}
