package game

// Serialized-event opcodes (section 7.3): a 17-byte prefix, then an
// extension chosen by the factory (event class) id. One decoder serves them
// all, since the factory id, not the opcode, decides the layout.

func init() {
	for _, op := range [...]uint8{0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
		0x0E, 0x0F, 0x10, 0x11, 0x12, 0x17, 0x1B} {
		register(op, decodeEvent, summarizeEvent)
	}
	register(0x15, decodeCollision, summarizeCollision)
}

// decodeEvent reads the common prefix and the factory's extension. An
// unknown factory id keeps its extension raw without an error: the factory
// table is D-grade, and other event classes may exist.
func decodeEvent(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	fac := d.hex32("factory")
	d.note(factoryName(fac))
	code := d.hex32("event_code")
	d.note(eventName(code))
	d.objid("source")
	d.objid("dest")
	switch fac {
	case factoryBase, factorySubsystem:
	case factorySubsysControl:
		d.u8("value")
	case factoryPlayerList:
		// Peer id per one source, team per another: neutral name.
		d.u8("value")
	case factoryChar:
		v := d.u8("value")
		switch code {
		case eventPhaserLevel:
			d.note(lookup(phaserLevels[:], uint64(v)))
		case eventTorpedoType:
			d.note(torpedoName(v))
		}
	case factoryObjectPointer:
		d.objid("object")
	case factoryStartFiring:
		d.bytes("data", 8)
	case factoryExploding:
		d.i32("killer")
		d.f32("lifetime")
	case factoryStartWarp:
		d.str8("set_name")
		d.vec3("destination")
		d.f32("warp_speed")
	default:
		if d.r.Len() > 0 {
			d.rest("extension")
		}
		return d.err()
	}
	return d.done()
}

// summarizeEvent shows the event by name (or code), the objects that are
// set, and the extension's main value.
func summarizeEvent(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	if fl, ok := f.Get("event_code"); ok {
		if fl.Note != "" {
			dst = append(dst, fl.Note...)
		} else {
			dst = append(dst, "event="...)
			dst = appendHex(dst, fl.U, 4)
		}
	}
	for _, k := range [...][2]string{{"source", "src"}, {"dest", "dst"}, {"object", "obj"}} {
		if fl, ok := f.Get(k[0]); ok && fl.U != 0 {
			dst = kv(dst, start, f, k[0], k[1])
		}
	}
	dst = kv(dst, start, f, "value", "value")
	dst = kv(dst, start, f, "killer", "killer")
	return kv(dst, start, f, "set_name", "set")
}

// decodeCollision reads 0x15 CollisionEffect (V).
func decodeCollision(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	fac := d.hex32("factory")
	d.note(factoryName(fac))
	code := d.hex32("event_code")
	d.note(eventName(code))
	d.objid("other")
	d.objid("ship")
	n := d.u8("contact_count")
	d.array("contacts")
	for i := 0; i < int(n) && d.ok(); i++ {
		d.object("")
		d.cv3("direction")
		d.u8("distance")
		d.end()
	}
	d.end()
	d.f32("force")
	return d.done()
}

func summarizeCollision(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "ship", "ship")
	dst = kv(dst, start, f, "other", "other")
	dst = kv(dst, start, f, "contact_count", "contacts")
	return kv(dst, start, f, "force", "force")
}
