package checksum

import (
	"fmt"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// NoRound and NoOffset mark a finding not tied to a round or byte position.
const (
	NoRound  = -1
	NoOffset = anomaly.NoOffset
)

// Finding is one thing the analyzer noticed, with a code of the checksum
// group of the anomaly registry. Round is the round byte (0..3, 255) or
// NoRound; Off is a byte offset in the payload that raised it (opcode at 0)
// or NoOffset. Message is for people and may change.
type Finding struct {
	Code    anomaly.Code
	Message string
	Round   int
	Off     int
}

// Severity is the code's fixed severity.
func (f Finding) Severity() anomaly.Severity { return f.Code.Severity() }

func finding(code anomaly.Code, round, off int, format string, args ...any) Finding {
	return Finding{Code: code, Round: round, Off: off, Message: fmt.Sprintf(format, args...)}
}

// RoundName formats a round byte the way the spec writes it: 0..3, 0xFF.
func RoundName(r uint8) string {
	if r > 9 {
		return fmt.Sprintf("0x%02X", r)
	}
	return fmt.Sprintf("%d", r)
}
