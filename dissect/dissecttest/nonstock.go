package dissecttest

import (
	"net/netip"
	"time"
)

// NonStock is a join in the shapes OpenBC's client and host write where
// they differ from stock (protocol-facts 4.2, 7.2, 7.4, 12), one of each,
// each with its own frame (NonStockFrames): the Connect with a 1-byte
// length, the 2-byte keepalive, an ObjCreateTeam ship body without the
// class id, a 19-byte TorpedoFire with its target gated on flags bit 1,
// and the type 0x06 disconnect. The bytes are those of
// testdata/captures/openbc-session-2/3.
func NonStock() *Session {
	s := New(netip.MustParseAddrPort("127.0.0.1:41929"), netip.MustParseAddrPort("127.0.0.1:22101"), AnomalyStart)
	ms := time.Millisecond
	s.AddHex(0, true, "FF 01 03 08 01 00 00 00 7F 00")                                                                                 // Connect, 1-byte length
	s.AddHex(20*ms, false, "01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20") // stock reply + round 0
	s.AddHex(20*ms, true, "02 01 00 02")                                                                                               // keepalive `00 02`
	s.AddHex(20*ms, true, "02 01 32 11 80 01 00 03 00 00 FF FF FF 3F 0E E2 7A B9 42 00 00")                                            // ObjCreateTeam without class id
	s.AddHex(20*ms, true, "02 01 32 18 80 02 00 19 FF FF 03 40 08 02 6A 2E CD FF FF FF 3F 00 00 00 00 00")                             // TorpedoFire, 19 bytes
	s.AddHex(20*ms, true, "02 01 06 02")                                                                                               // disconnect, type 0x06
	return s
}

// NonStockFrames are the frames of NonStock's shapes, by anomaly code.
var NonStockFrames = map[string][]int{
	"non-stock-length":       {1, 3},
	"non-stock-obj-create":   {4},
	"non-stock-torpedo-fire": {5},
	"non-stock-disconnect":   {6},
}
