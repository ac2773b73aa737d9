package game

import "fmt"

// Decoder appends the fields of payload p (p[0] is the opcode) to f. It
// returns a *MalformedError when p does not fit the layout; fields decoded
// before the fault stay in f.
type Decoder func(p []byte, f *Fields) error

// Summarizer appends a brief one-line description of the decoded payload for
// the table reporter, without the opcode name (e.g. `round=3 "scripts/mainmenu"`).
// f holds what the Decoder produced (possibly cut short by a malformed payload).
type Summarizer func(dst []byte, p []byte, f *Fields) []byte

// Opcode describes one game opcode: the first byte of a delivered 0x32
// payload (protocol-facts section 6).
type Opcode struct {
	Code     uint8
	Name     string // display name, e.g. "ChecksumReq"
	Dir      string // who sends it, e.g. "S->C" or "C->S->others"
	Reliable bool   // stock always sends it reliably
	Known    bool   // false for the free and mod ranges
	Decode   Decoder
	Summary  Summarizer
}

// table holds every opcode value; entries for unassigned values are filled
// in so Lookup never returns nil. It is built by a variable initializer, not
// an init function: Go runs all variable initializers before any init, so the
// decoder files' init functions (which call register) find the table ready
// whatever their file names sort as.
var table = buildTable()

// names is the stock opcode table of protocol-facts section 6.
var names = []struct {
	code     uint8
	name     string
	dir      string
	reliable bool
}{
	{0x00, "Settings", "S->C", true},
	{0x01, "GameInit", "S->C", true},
	{0x02, "ObjCreate", "S->C", true},
	{0x03, "ObjCreateTeam", "C->S->others", true},
	{0x04, "BootPlayer", "S->C", true},
	{0x06, "PythonEvent", "S->C", true},
	{0x07, "StartFiring", "C->S->others", true},
	{0x08, "StopFiring", "C->S->others", true},
	{0x09, "StopFiringAtTarget", "C->S->others", true},
	{0x0A, "SubsysStatus", "C->S->others", true},
	{0x0B, "AddToRepairList", "C->S->others", true},
	{0x0C, "ClientEvent", "C->S->others", true},
	{0x0D, "PythonEvent2", "C->S", true},
	{0x0E, "StartCloak", "C->S->others", true},
	{0x0F, "StopCloak", "C->S->others", true},
	{0x10, "StartWarp", "C->S->others", true},
	{0x11, "RepairPriority", "C->S->others", true},
	{0x12, "SetPhaserLevel", "C->S->others", true},
	{0x13, "HostMsg", "C->S", true},
	{0x14, "DestroyObj", "S->C", true},
	{0x15, "CollisionEffect", "C->S", true},
	{0x16, "UISettings", "S->C", true},
	{0x17, "DeletePlayerUI", "S->C", true},
	{0x18, "DeletePlayerAnim", "S->C", true},
	{0x19, "TorpedoFire", "C->S->others", true},
	{0x1A, "BeamFire", "C->S->others", true},
	{0x1B, "TorpTypeChange", "C->S->others", true},
	{0x1C, "StateUpdate", "C->S, S->C", false},
	{0x1D, "ObjNotFound", "C->S", true},
	{0x1E, "RequestObj", "C->S", true},
	{0x1F, "EnterSet", "S->C", true},
	{0x20, "ChecksumReq", "S->C", true},
	{0x21, "ChecksumResp", "C->S", true},
	{0x22, "ChecksumFailA", "S->C", true},
	{0x23, "ChecksumFailB", "S->C", true},
	{0x24, "NetFile24?", "", true},
	{0x25, "FileTransfer", "S->C", true},
	{0x26, "NetFile26?", "", true},
	{0x27, "FileTransferAck", "C->S", true},
	{0x28, "ChecksumComplete", "S->C", true},
	{0x29, "Explosion", "S->C", true},
	{0x2A, "NewPlayerInGame", "C->S", true},
	{0x2C, "Chat", "C->S->clients", true},
	{0x2D, "TeamChat", "C->S->team", true},
	{0x35, "MissionInit", "S->C", true},
	{0x36, "ScoreChange", "S->C", true},
	{0x37, "Score", "S->C", true},
	{0x38, "EndGame", "S->C", true},
	{0x39, "RestartGame", "S->C", true},
	{0x3F, "ScoreInit", "S->C", true},
	{0x40, "TeamScore", "S->C", true},
	{0x41, "TeamMessage", "C->S->others", true},
}

func buildTable() (t [256]Opcode) {
	for i := range t {
		// Free and mod ranges: labelled, shown raw, never an error (mods use them).
		t[i] = Opcode{Code: uint8(i), Name: fmt.Sprintf("Mod%02X", i)}
	}
	t[0x05].Name = "Unused05"
	t[0x2B].Name = "MaxMessageTypes?"
	for _, n := range names {
		t[n.code] = Opcode{Code: n.code, Name: n.name, Dir: n.dir, Reliable: n.reliable, Known: true}
	}
	return t
}

// register attaches a decoder and a summarizer to an opcode, either nil
// to leave it as it is; the generated decoders_gen.go and the files of
// the decoders written by hand call it from their init functions.
func register(code uint8, d Decoder, s Summarizer) {
	if d != nil {
		table[code].Decode = d
	}
	if s != nil {
		table[code].Summary = s
	}
}

// Lookup returns the opcode's description; never nil.
func Lookup(code uint8) *Opcode { return &table[code] }

// Decode resets f and decodes payload p with its opcode's decoder. An empty
// payload yields a nil opcode. Opcodes without a decoder yield no fields.
func Decode(p []byte, f *Fields) (*Opcode, error) {
	f.Reset()
	if len(p) == 0 {
		return nil, nil
	}
	op := &table[p[0]]
	if op.Decode == nil {
		return op, nil
	}
	return op, op.Decode(p, f)
}
