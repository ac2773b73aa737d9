package game

// Session setup opcodes (section 7.1) and the opcode-only messages.

func init() {
	register(0x00, decodeSettings, summarizeSettings)
	register(0x01, decodeOpcodeOnlyStrict, summarizeNone)
	register(0x04, decodeBootPlayer, summarizeBootPlayer)
	register(0x13, decodeOpcodeOnly, summarizeNone)
	register(0x16, decodeUISettings, summarizeUISettings)
	register(0x2A, decodeNewPlayerInGame, summarizeNone)
	register(0x39, decodeOpcodeOnly, summarizeNone)
}

// decodeSettings reads 0x00 (V). The three flags share one bit-group byte;
// the third is written after the map name but stored in that same byte.
func decodeSettings(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.f32("game_time")
	d.bit("collision_damage")
	d.bit("friendly_fire")
	d.u8("player_slot")
	d.str16("map")
	if d.bit("checksum_correction") {
		// Layout unknown and never captured: everything after the name.
		d.rest("checksum_correction_data")
		return d.err()
	}
	return d.done()
}

func summarizeSettings(dst, _ []byte, f *Fields) []byte {
	start := len(dst)
	dst = kv(dst, start, f, "game_time", "t")
	dst = kv(dst, start, f, "player_slot", "slot")
	return kv(dst, start, f, "map", "map")
}

// decodeOpcodeOnlyStrict reads a message that is its opcode alone and whose
// size the captures confirm (0x01 GameInit, V): more bytes are malformed.
func decodeOpcodeOnlyStrict(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	return d.done()
}

// decodeOpcodeOnly reads a message documented as its opcode alone but never
// captured (0x13 HostMsg D, 0x39 RestartGame I). Extra bytes are shown as
// "extra" and are not an error: the layout is not certain enough to reject.
func decodeOpcodeOnly(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	if d.r.Len() > 0 {
		d.rest("extra")
	}
	return d.err()
}

// summarizeNone is for messages with nothing worth a summary.
func summarizeNone(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "extra", "extra")
}

// decodeBootPlayer reads 0x04 (I): the reason byte.
func decodeBootPlayer(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	v := d.u8("reason")
	d.note(lookup(bootReasons[:], uint64(v)))
	return d.done()
}

func summarizeBootPlayer(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "reason", "reason")
}

// decodeUISettings reads 0x16 (I): one bit, the collision toggle.
func decodeUISettings(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.bit("collision_damage")
	return d.done()
}

func summarizeUISettings(dst, _ []byte, f *Fields) []byte {
	return kv(dst, len(dst), f, "collision_damage", "collisions")
}

// decodeNewPlayerInGame reads 0x2A (V: `2A 20`): one bit of unknown meaning,
// so it gets the neutral name "flag".
func decodeNewPlayerInGame(p []byte, f *Fields) error {
	var d fieldReader
	d.start(p, f)
	d.bit("flag")
	return d.done()
}
