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
// or NoOffset. Text is for people and may change; it is put into words
// only when asked for (Message).
type Finding struct {
	Code  anomaly.Code
	Text  anomaly.Text
	Round int
	Off   int
}

// Severity is the code's fixed severity.
func (f Finding) Severity() anomaly.Severity { return f.Code.Severity() }

// Message returns the finding's text.
func (f Finding) Message() string { return f.Text.String() }

func finding(code anomaly.Code, round, off int, format string, args ...any) Finding {
	return Finding{Code: code, Round: round, Off: off, Text: anomaly.New(code, 0, 0, format, args...).Text}
}

// findingf is finding with typed arguments, which record without allocating.
func findingf(code anomaly.Code, round, off int, format string, args ...anomaly.Arg) Finding {
	return Finding{Code: code, Round: round, Off: off, Text: anomaly.Textf(format, args...)}
}

// RoundName formats a round byte the way the spec writes it: 0..3, 0xFF.
func RoundName(r uint8) string {
	switch {
	case r <= 9:
		return "0123456789"[r : r+1]
	case r == 0xFF:
		return "0xFF"
	}
	return fmt.Sprintf("0x%02X", r)
}
