package dissecttest

import (
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// checksumScripts are the checksum handshake codes (protocol-facts 9) no
// real capture shows. The prefix ends with the host's stock round 0
// request (trace #2) unanswered.
var checksumScripts = []anomalyScript{
	{anomaly.ChecksumRoundOrder, func(s *Session) {
		// Trace #8's round 1 request (without its ACK) before the client
		// answered round 0.
		s.AddHex(100*time.Millisecond, false, "01 01 32 20 80 01 00 20 01 08 00 73 63 72 69 70 74 73 2F 0C 00 41 75 74 6F 65 78 65 63 2E 70 79 63 20")
	}},
	{anomaly.ChecksumBitBytePlain, func(s *Session) {
		// Trace #7 (round 0 answer), then trace #8 with the recursive flag
		// written as the plain byte 0x00 instead of the bit group 0x20.
		s.AddHex(100*time.Millisecond, true, "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00")
		s.AddHex(30*time.Millisecond, false, "01 02 01 00 00 00 32 20 80 01 00 20 01 08 00 73 63 72 69 70 74 73 2F 0C 00 41 75 74 6F 65 78 65 63 2E 70 79 63 00")
	}},
	{anomaly.ChecksumTreeMalformed, func(s *Session) {
		// Trace #7 without its last byte (the subdirectory count).
		s.AddHex(100*time.Millisecond, true, "02 01 32 19 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8")
	}},
	{anomaly.ChecksumMissingComplete, func(s *Session) {
		// Trace #7, then trace #25's Settings (high seq 1 here) with no
		// ChecksumComplete 0x28 before it.
		s.AddHex(100*time.Millisecond, true, "02 01 32 1A 80 00 00 21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00")
		s.AddHex(30*time.Millisecond, false, "01 02 01 00 00 00 32 33 80 01 00 00 00 00 05 42 61 00 25 00 4D 75 6C 74 69 70 6C 61 79 65 72 2E 45 70 69 73 6F 64 65 2E 4D 69 73 73 69 6F 6E 31 2E 4D 69 73 73 69 6F 6E 31")
	}},
}
