package game

import "github.com/bcdump/bcdump/checksum"

//go:generate go run ./internal/decodergen/cmd/gendecoders -o decoders_gen.go
//go:generate go run ./internal/constgen/cmd/genconsts -o protocol_gen.go

// A Layout describes, as data, how an opcode's payload is read: a sequence
// of Steps (primitives with field names, conditions, loops). It is the one
// source of each opcode's fields: the decoders are generated from it
// (decoders_gen.go, by internal/decodergen), and so are the filter's field schema
// (dissect.Fields), the Wireshark plugin, which interprets it, and the
// field reference of the docs. TestLayoutsMatchDecoders runs an
// interpreter of it against the registered decoders on every payload of
// the test captures and on mutated payloads, which holds the decoders
// written by hand (decodedByCode) to it.
type Layout []Step

// Op is one Step's operation.
type Op string

// The operations. Reads append a field called Name (none when Name is "-")
// and, when Var is set, keep the value under that name for later tests.
const (
	OpU8     Op = "u8"     // uint, 1 byte
	OpHex8   Op = "hex8"   // hex, 1 byte
	OpHex16  Op = "hex16"  // hex, 2 bytes LE
	OpHex32  Op = "hex32"  // hex, 4 bytes LE
	OpObjID  Op = "objid"  // hex, 4 bytes LE (an object id)
	OpI32    Op = "i32"    // int, 4 bytes LE
	OpF32    Op = "f32"    // float, IEEE single LE
	OpCF16   Op = "cf16"   // float, 16-bit compressed (section 8.4)
	OpCV3    Op = "cv3"    // vec, 3 signed bytes / 127
	OpCV4    Op = "cv4"    // vec, cv3 scaled by a cf16
	OpVec3   Op = "vec3"   // vec, 3 x f32
	OpBit    Op = "bit"    // bool, bit-packed (section 8.2)
	OpFlag   Op = "flag"   // bool, bit N of the byte kept in Ref (no read)
	OpStr8   Op = "str8"   // string, u8 length
	OpStr16  Op = "str16"  // string, u16 length
	OpStr32Z Op = "str32z" // string, i32 length and a NUL
	OpBytes  Op = "bytes"  // bytes, N of them
	OpRest   Op = "rest"   // bytes, all unread (possibly none)
	OpObject Op = "object" // opens an object named Name; Body is its content
	OpArray  Op = "array"  // opens an array named Name; Body is its content

	// OpIf runs Body when the value kept in Ref, masked by Mask (all bits
	// when 0), compares to Value as Cmp says ("ne", "eq"); Else otherwise.
	// Ref "opcode" is the payload's first byte; "left" the unread count.
	OpIf Op = "if"
	// OpSwitch runs the Case whose Value equals Ref's value, Else when none.
	// With Peek set, Ref is ignored and the subject is the u32 at the read
	// position, not consumed; a failure to read it is named for the first
	// case's first field.
	OpSwitch Op = "switch"
	// OpRepeat runs Body Ref times (as an unnamed object per round).
	OpRepeat Op = "repeat"
	// OpPairs runs Body while bytes remain, failing with Why when fewer
	// than N are left (an unnamed object per round).
	OpPairs Op = "pairs"
	// OpDone fails on unread bytes and ends the layout; OpReturn ends it
	// as it stands; OpFail fails with Name as the reason (a format for the
	// value an OpSwitch peeked).
	OpDone   Op = "done"
	OpReturn Op = "return"
	OpFail   Op = "fail"
	// OpNote labels the field appended last with Name (a fixed label).
	OpNote Op = "note"

	// The checksum handshake's own parsers (package checksum), whose
	// layouts are recursive or version-dependent: the request's
	// round/directory/filter/recursive (plain byte or bit group) and the
	// response's hash tree.
	OpChecksumRequest  Op = "checksum_request"
	OpChecksumResponse Op = "checksum_response"

	// Reads that appear only in a Shape (below), never in a layout the
	// plugin runs: a 32-bit name or content hash, a u16 count.
	OpHash32 Op = "hash32" // hash, 4 bytes LE
	OpU16    Op = "u16"    // uint, 2 bytes LE
)

// Step is one operation of a Layout.
type Step struct {
	Op    Op
	Name  string
	Var   string
	N     int
	Ref   string
	Mask  uint64
	Cmp   string
	Value uint64
	Peek  bool
	Body  []Step
	Else  []Step
	Cases []Case
	// Names, on a read, labels the field with the value's name in
	// NameTables()[Names], when it has one. (Object ids are always
	// labelled with their slot, as ObjectNote does.)
	Names string
	// Why is the reason an OpPairs fails with.
	Why string
	// Shape, on a step whose parser is code (the checksum steps), lists
	// the fields that parser appends, in wire order, as steps that are
	// read for the field list and the docs but never run.
	Shape []Step
}

// Case is one branch of an OpSwitch.
type Case struct {
	Value uint64
	Body  []Step
}

// decodedByCode are the opcodes whose registered decoder is written by
// hand, for the reason given; the generator still writes their layout's
// decoder (StateUpdate's fast path falls back on it).
var decodedByCode = map[uint8]string{
	0x1C: "StateUpdate: a fast path for well-formed payloads, twice as fast (BenchmarkStateUpdate)",
}

// DecodedByCode reports whether the registered decoder of opcode c is
// written by hand, and why; the generator still writes its layout's
// decoder.
func DecodedByCode(c uint8) (why string, ok bool) {
	why, ok = decodedByCode[c]
	return why, ok
}

// Layouts returns the layout of every opcode that has a decoder.
func Layouts() map[uint8]Layout { return layouts }

func rd(op Op, name string) Step      { return Step{Op: op, Name: name} }
func keep(op Op, name, v string) Step { return Step{Op: op, Name: name, Var: v} }
func flagStep(name, ref string, bit int) Step {
	return Step{Op: OpFlag, Name: name, Ref: ref, N: bit}
}
func ifNZ(ref string, mask uint64, body ...Step) Step {
	return Step{Op: OpIf, Ref: ref, Mask: mask, Cmp: "ne", Value: 0, Body: body}
}

// Holds reports whether an OpIf step's condition is true of v, the value
// of its Ref: v masked by Mask (when not 0), compared to Value as Cmp says.
func (s Step) Holds(v uint64) bool {
	if s.Mask != 0 {
		v &= s.Mask
	}
	return (v == s.Value) == (s.Cmp == "eq")
}

func ifCmp(ref, cmp string, v uint64, body ...Step) Step {
	return Step{Op: OpIf, Ref: ref, Cmp: cmp, Value: v, Body: body}
}
func obj(name string, body ...Step) Step { return Step{Op: OpObject, Name: name, Body: body} }

// named reads a field labelled from name table names.
func named(op Op, name, names string) Step { return Step{Op: op, Name: name, Names: names} }

// namedKeep is named, keeping the value as v.
func namedKeep(op Op, name, v, names string) Step {
	return Step{Op: op, Name: name, Var: v, Names: names}
}

func note(label string) Step { return Step{Op: OpNote, Name: label} }

var (
	done  = Step{Op: OpDone}
	ret   = Step{Op: OpReturn}
	extra = ifCmp("left", "ne", 0, rd(OpRest, "extra"))
)

// eventLayout is the serialized events' (section 7.3): a 17-byte prefix,
// then an extension the factory (event class) id picks, not the opcode.
// An unknown factory keeps its extension raw without an error: the factory
// table is D-grade, and other event classes may exist.
var eventLayout = Layout{
	namedKeep(OpHex32, "factory", "factory", "factory"),
	namedKeep(OpHex32, "event_code", "code", "event"),
	rd(OpObjID, "source"),
	rd(OpObjID, "dest"),
	{Op: OpSwitch, Ref: "factory", Cases: []Case{
		{factoryBase, nil},
		{factorySubsystem, nil},
		{factorySubsysControl, []Step{rd(OpU8, "value")}},
		{factoryPlayerList, []Step{rd(OpU8, "value")}}, // peer id per one source, team per another: a neutral name
		{factoryChar, []Step{{Op: OpSwitch, Ref: "code", Cases: []Case{
			{eventPhaserLevel, []Step{named(OpU8, "value", "phaser")}},
			{eventTorpedoType, []Step{named(OpU8, "value", "torpedo")}},
		}, Else: []Step{rd(OpU8, "value")}}}},
		{factoryObjectPointer, []Step{rd(OpObjID, "object")}},
		{factoryStartFiring, []Step{{Op: OpBytes, Name: "data", N: 8}}},
		{factoryExploding, []Step{rd(OpI32, "killer"), rd(OpF32, "lifetime")}},
		{factoryStartWarp, []Step{rd(OpStr8, "set_name"), rd(OpVec3, "destination"), rd(OpF32, "warp_speed")}},
	}, Else: []Step{ifCmp("left", "ne", 0, rd(OpRest, "extension")), ret}},
	done,
}

// objCreateLayout is 0x02 ObjCreate's and 0x03 ObjCreateTeam's (V for the
// first 24 bytes, D for the rest). The class id picks the layout; an
// unknown one leaves nothing to go by (OpenBC's own ObjCreateTeam has no
// class id here, for one). A torpedo's bytes after its species are
// undocumented.
var objCreateLayout = Layout{
	rd(OpU8, "owner_slot"),
	ifCmp("opcode", "eq", 0x03, rd(OpU8, "team")),
	{Op: OpSwitch, Peek: true, Cases: []Case{
		{classShip, []Step{
			named(OpHex32, "class_id", "class"), rd(OpObjID, "object"), named(OpU8, "species", "species"),
			rd(OpVec3, "position"),
			{Op: OpArray, Name: "orientation", Body: []Step{note(quaternionNote), rd(OpF32, ""), rd(OpF32, ""), rd(OpF32, ""), rd(OpF32, "")}},
			rd(OpF32, "speed"),
			{Op: OpBytes, Name: "reserved", N: 3},
			rd(OpStr8, "player_name"), rd(OpStr8, "set_name"),
			rd(OpRest, "subsystem_state"),
		}},
		{classTorpedo, []Step{
			named(OpHex32, "class_id", "class"), rd(OpObjID, "object"), named(OpU8, "species", "torpedo"),
			rd(OpRest, "torpedo_data"),
		}},
	}, Else: []Step{{Op: OpFail, Name: "class_id 0x%08X is not a known object class (ship 0x00008008, torpedo 0x00008009)"}}},
	ret,
}

// objectIDLayout is 0x14 DestroyObj's (D), 0x1D ObjNotFound's and 0x1E
// RequestObj's (I): an object id alone.
var objectIDLayout = Layout{rd(OpObjID, "object"), done}

// chatLayout is 0x2C Chat's and 0x2D TeamChat's (D). Player ids in the
// script messages are network ids (transport peer ids), not object ids.
var chatLayout = Layout{rd(OpI32, "sender"), rd(OpStr16, "text"), done}

var scoreLayout = Layout{rd(OpI32, "player"), rd(OpI32, "kills"), rd(OpI32, "deaths"), rd(OpI32, "score"), done}

// checksumFailLayout is 0x22's (a file or the version differs) and 0x23's
// (the system checksum failed), documented from the stock client's
// handlers but never captured (D, section 7.6): the failing file's name,
// which the client shows.
var checksumFailLayout = Layout{rd(OpStr16, "file_name"), done}

// fileTransferLayout is 0x25 FileTransfer's (D, never captured): the
// file's name, then its data to the end of the message. The client
// answers each with 0x27.
var fileTransferLayout = Layout{rd(OpStr16, "file_name"), rd(OpRest, "file_data"), ret}

// opcodeOnlyLayout is a message documented as its opcode alone but never
// captured (0x13 HostMsg D, 0x27 FileTransferAck D, 0x39 RestartGame I):
// extra bytes are shown,
// not an error, as the layout is not certain enough to reject them.
var opcodeOnlyLayout = Layout{extra, ret}

// checksumRequestShape is what decodeChecksumReq appends: the recursive
// flag is a bit of a group, or a plain byte with a note.
var checksumRequestShape = []Step{
	rd(OpU8, "round"), rd(OpStr16, "directory"), rd(OpStr16, "filter"),
	rd(OpBit, "recursive"),
}

// checksumResponseShape is what decodeChecksumResp appends. A subdirectory
// holds the same fields as the top directory, at every depth.
var checksumResponseShape = []Step{
	keep(OpU8, "round", "round"),
	ifCmp("round", "eq", 0, rd(OpHash32, "ref_hash")),
	rd(OpHash32, "dir_hash"),
	keep(OpU16, "file_count", "file_count"),
	{Op: OpArray, Name: "files", Body: []Step{{Op: OpRepeat, Ref: "file_count", Body: []Step{
		rd(OpHash32, "name_hash"), rd(OpHash32, "content_hash"),
	}}}},
	keep(OpU8, "subdir_count", "subdir_count"),
	{Op: OpArray, Name: "subdirs", Body: []Step{{Op: OpRepeat, Ref: "subdir_count", Body: []Step{
		rd(OpHash32, "name_hash"), note("the directory's fields: file_count, files, subdir_count, subdirs"),
	}}}},
}

// layouts holds every decoded opcode's layout, with the spec's confidence
// (V verified on captures, D documented, I inferred).
var layouts = map[uint8]Layout{
	// Settings (V). The three flags share one bit-group byte; the third is
	// written after the map name but stored in that same byte. The
	// checksum-correction data's layout is unknown and never captured.
	0x00: {
		rd(OpF32, "game_time"),
		rd(OpBit, "collision_damage"),
		rd(OpBit, "friendly_fire"),
		rd(OpU8, "player_slot"),
		rd(OpStr16, "map"),
		keep(OpBit, "checksum_correction", "cc"),
		ifNZ("cc", 0, rd(OpRest, "checksum_correction_data"), ret),
		done,
	},
	0x01: {done}, // GameInit (V): its size is confirmed, so more bytes are malformed
	0x02: objCreateLayout,
	0x03: objCreateLayout,
	0x04: {named(OpU8, "reason", "boot"), done},
	0x06: eventLayout, 0x07: eventLayout, 0x08: eventLayout, 0x09: eventLayout,
	0x0A: eventLayout, 0x0B: eventLayout, 0x0C: eventLayout, 0x0D: eventLayout,
	0x0E: eventLayout, 0x0F: eventLayout, 0x10: eventLayout, 0x11: eventLayout,
	0x12: eventLayout, 0x17: eventLayout, 0x1B: eventLayout,
	0x13: opcodeOnlyLayout,
	0x14: objectIDLayout,
	0x15: {
		named(OpHex32, "factory", "factory"),
		named(OpHex32, "event_code", "event"),
		rd(OpObjID, "other"),
		rd(OpObjID, "ship"),
		keep(OpU8, "contact_count", "n"),
		{Op: OpArray, Name: "contacts", Body: []Step{
			{Op: OpRepeat, Ref: "n", Body: []Step{rd(OpCV3, "direction"), rd(OpU8, "distance")}},
		}},
		rd(OpF32, "force"),
		done,
	},
	0x16: {rd(OpBit, "collision_damage"), done}, // UISettings (I)
	0x18: {rd(OpStr16, "name"), done},           // DeletePlayerAnim (I): the leaving player's name
	// TorpedoFire as the stock capture has it (V): flags bit 2 set means
	// no target, and the target offset is 4 bytes. OpenBC's own codec
	// (bit 1, 5-byte cv4, 19 bytes) disagrees with the capture.
	0x19: {
		rd(OpObjID, "tube"),
		named(OpU8, "torpedo_type", "torpedo"),
		keep(OpHex8, "flags", "flags"),
		flagStep("reloading", "flags", 0),
		flagStep("no_target", "flags", 2),
		rd(OpCV3, "direction"),
		Step{Op: OpIf, Ref: "flags", Mask: 0x04, Cmp: "eq", Value: 0, Body: []Step{rd(OpObjID, "target"), obj("target_offset", rd(OpCV3, "direction"), rd(OpU8, "distance"))}},
		done,
	},
	// BeamFire (V). Byte 5 is "beam type / flags" in the sources: the
	// neutral name "kind".
	0x1A: {
		rd(OpObjID, "emitter"),
		rd(OpHex8, "kind"),
		rd(OpCV3, "direction"),
		keep(OpHex8, "flags", "flags"),
		flagStep("shield_glow", "flags", 0),
		flagStep("has_target", "flags", 1),
		ifNZ("flags", 0x02, rd(OpObjID, "target")),
		done,
	},
	// StateUpdate (section 7.5). The fields follow in the order the stock
	// receiver reads them, which is not the bit order: 0x01, 0x02, 0x04,
	// 0x08, 0x10, then the cloak bit (0x40), then the subsystem data
	// (0x20), then the weapon pairs (0x80). The cloak bit shares a group
	// byte still open (the hash bit's), else opens its own. Subsystem
	// records run to the end with no count; their sizes depend on the
	// ship's subsystem list, so the bytes stay raw, and with 0x80 also set
	// the weapon pairs are somewhere in there too: a limit of what the
	// wire tells, not a malformed payload. Flags 0x60 and 0xC0 decode
	// whole (the cloak bit comes first).
	0x1C: {
		rd(OpObjID, "object"),
		rd(OpF32, "game_time"),
		keep(OpHex8, "flags", "flags"),
		ifNZ("flags", suPosition, rd(OpVec3, "position"), keep(OpBit, "hash_present", "hp"), ifNZ("hp", 0, rd(OpHex16, "hash"))),
		ifNZ("flags", suDelta, rd(OpCV4, "position_delta")),
		ifNZ("flags", suForward, rd(OpCV3, "forward")),
		ifNZ("flags", suUp, rd(OpCV3, "up")),
		ifNZ("flags", suSpeed, rd(OpCF16, "speed")),
		ifNZ("flags", suCloak, rd(OpBit, "cloak")),
		ifNZ("flags", suSubsystem, rd(OpU8, "subsystem_start"), rd(OpRest, "subsystem_data"),
			ifNZ("flags", suWeapons, note(noteUnsplit)), ret),
		ifNZ("flags", suWeapons, Step{Op: OpArray, Name: "weapons", Body: []Step{
			{Op: OpPairs, N: 2, Why: "weapons: one byte left; weapon entries are [index][health] pairs", Body: []Step{rd(OpU8, "index"), rd(OpU8, "health")}},
		}}, ret),
		done,
	},
	0x1D:                objectIDLayout,
	0x1E:                objectIDLayout,
	0x1F:                {rd(OpObjID, "object"), rd(OpStr32Z, "set_name"), done}, // EnterSet (D): the name has an i32 length and a NUL
	checksum.OpRequest:  {{Op: OpChecksumRequest, Shape: checksumRequestShape}},
	checksum.OpResponse: {{Op: OpChecksumResponse, Shape: checksumResponseShape}},
	0x22:                checksumFailLayout,
	0x23:                checksumFailLayout,
	0x25:                fileTransferLayout,
	0x27:                opcodeOnlyLayout, // FileTransferAck (D, never captured): the opcode alone
	checksum.OpComplete: {ifCmp("left", "ne", 0, rd(OpRest, "extra")), ret},
	// Explosion (V). Which cf16 is the radius and which the damage is
	// disputed (section 7.4), hence value_a and value_b.
	0x29: {
		rd(OpObjID, "object"),
		rd(OpCV4, "position"),
		rd(OpCF16, "value_a"),
		rd(OpCF16, "value_b"),
		done,
	},
	0x2A: {rd(OpBit, "flag"), done}, // NewPlayerInGame (V: `2A 20`): one bit of unknown meaning
	0x2C: chatLayout,
	0x2D: chatLayout,
	// MissionInit (V: `35 08 01 FF FF`): the end time is there only with
	// a time limit.
	0x35: {
		rd(OpU8, "player_limit"),
		rd(OpU8, "system"),
		namedKeep(OpU8, "time_limit", "tl", "none_ff"),
		ifCmp("tl", "ne", 0xFF, rd(OpI32, "end_time")),
		named(OpU8, "frag_limit", "none_ff"),
		done,
	},
	// ScoreChange (V): the killer's totals only for a killer (id != 0).
	0x36: {
		keep(OpI32, "killer", "killer"),
		ifNZ("killer", 0, rd(OpI32, "killer_kills"), rd(OpI32, "killer_score")),
		rd(OpI32, "victim"),
		rd(OpI32, "victim_deaths"),
		keep(OpU8, "score_count", "n"),
		{Op: OpArray, Name: "scores", Body: []Step{
			{Op: OpRepeat, Ref: "n", Body: []Step{rd(OpI32, "player"), rd(OpI32, "score")}},
		}},
		done,
	},
	0x37: scoreLayout,
	0x38: {named(OpI32, "reason", "endgame"), done},
	0x39: opcodeOnlyLayout,
	0x3F: {rd(OpI32, "player"), rd(OpI32, "kills"), rd(OpI32, "deaths"), rd(OpI32, "score"), named(OpU8, "team", "none_ff"), done},
	0x40: {rd(OpU8, "team"), rd(OpI32, "kills"), rd(OpI32, "score"), done},
	0x41: {rd(OpI32, "player"), named(OpU8, "team", "none_ff"), done},
}

// SummaryItem is one "label=value" of a table summary (the label left out
// when empty): the first top-level field called Key, shown as the table
// shows it.
type SummaryItem struct{ Key, Label string }

// Summaries returns, for the opcodes whose table summary is a plain list of
// fields, that list (TestSummariesMatchSummarizers checks it against the
// Summarizers). The others (events, the checksum handshake and its
// completion) are summarized by code.
func Summaries() map[uint8][]SummaryItem { return summaries }

func items(kv ...string) []SummaryItem {
	out := make([]SummaryItem, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, SummaryItem{kv[i], kv[i+1]})
	}
	return out
}

var (
	sumObjCreate = items("owner_slot", "slot", "team", "team", "object", "obj", "species", "species", "player_name", "name")
	sumObjectID  = items("object", "obj")
	sumChat      = items("sender", "peer", "text", "")
	sumScore     = items("player", "player", "kills", "kills", "deaths", "deaths", "score", "score", "team", "team")
	sumNone      = items("extra", "extra")
)

var summaries = map[uint8][]SummaryItem{
	0x00: items("game_time", "t", "player_slot", "slot", "map", "map"),
	0x01: sumNone,
	0x02: sumObjCreate,
	0x03: sumObjCreate,
	0x04: items("reason", "reason"),
	0x13: sumNone,
	0x14: sumObjectID,
	0x15: items("ship", "ship", "other", "other", "contact_count", "contacts", "force", "force"),
	0x16: items("collision_damage", "collisions"),
	0x18: items("name", "name"),
	0x19: items("tube", "tube", "torpedo_type", "type", "target", "target"),
	0x1A: items("emitter", "emitter", "target", "target"),
	0x1C: items("object", "obj", "game_time", "t", "flags", "flags"),
	0x1D: sumObjectID,
	0x1E: sumObjectID,
	0x1F: items("object", "obj", "set_name", "set"),
	0x22: items("file_name", "file"),
	0x23: items("file_name", "file"),
	0x25: items("file_name", "file", "file_data", "data"),
	0x27: sumNone,
	0x29: items("object", "obj", "position", "pos", "value_a", "a", "value_b", "b"),
	0x2A: sumNone,
	0x2C: sumChat,
	0x2D: sumChat,
	0x35: items("player_limit", "players", "system", "system", "time_limit", "time", "frag_limit", "frags"),
	0x36: items("killer", "killer", "victim", "victim", "victim_deaths", "deaths"),
	0x37: sumScore,
	0x38: items("reason", "reason"),
	0x39: sumNone,
	0x3F: sumScore,
	0x40: items("team", "team", "kills", "kills", "score", "score"),
	0x41: items("player", "player", "team", "team"),
}
