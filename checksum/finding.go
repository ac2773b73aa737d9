package checksum

import "fmt"

// Severity ranks a finding like Wireshark's expert info. The values and
// names equal transport.Severity's, so the dissector converts by value.
type Severity uint8

const (
	SevNote Severity = iota + 1
	SevWarn
	SevError
)

func (s Severity) String() string {
	switch s {
	case SevNote:
		return "note"
	case SevWarn:
		return "warn"
	case SevError:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// Stable finding codes of the checksum handshake. Users grep and gate CI on
// them, so they never change once released.
const (
	CodeRoundOrder      = "checksum-round-order"
	CodeBitBytePlain    = "checksum-bitbyte-plain"
	CodeMissingComplete = "checksum-missing-complete"
	CodeVersion         = "checksum-version"
	CodeDirHash         = "checksum-dir-hash"
	CodeTreeMalformed   = "checksum-tree-malformed"
	CodeFileMismatch    = "checksum-file-mismatch"
	CodeFileUnknown     = "checksum-file-unknown"
)

// CodeInfo documents one finding code for the dissector's anomaly registry.
type CodeInfo struct {
	Code     string
	Severity Severity
	Summary  string
}

// Codes lists every code this package raises, with its fixed severity.
var Codes = []CodeInfo{
	{CodeRoundOrder, SevWarn, "checksum rounds out of the stock order 0, 1, 2, 3, 0xFF (sent early, skipped, repeated, or unanswered)"},
	{CodeBitBytePlain, SevWarn, "ChecksumReq recursive flag written as a plain 0x00/0x01 byte instead of a bit group 0x20/0x21"},
	{CodeMissingComplete, SevWarn, "Settings or GameInit sent without a preceding ChecksumComplete 0x28"},
	{CodeVersion, SevError, "round 0 reference hash is not StringHash(\"60\") = 0x7E0CE243 (not a BC 1.1 client)"},
	{CodeDirHash, SevError, "response dir_hash is not StringHash of the requested directory without its trailing '/'"},
	{CodeTreeMalformed, SevError, "ChecksumResp hash tree does not parse (short, counts too large, too deep, or trailing bytes)"},
	{CodeFileMismatch, SevNote, "a file's content hash differs from the manifest"},
	{CodeFileUnknown, SevNote, "a file or directory name hash is not in the manifest"},
}

// severityOf returns the fixed severity of a code.
func severityOf(code string) Severity {
	for _, c := range Codes {
		if c.Code == code {
			return c.Severity
		}
	}
	return SevWarn
}

// NoRound and NoOffset mark a finding not tied to a round or byte position.
const (
	NoRound  = -1
	NoOffset = -1
)

// Finding is one thing the analyzer noticed. Round is the round byte
// (0..3, 255) or NoRound; Off is a byte offset in the payload that raised
// it (opcode at 0) or NoOffset. Message is for people and may change.
type Finding struct {
	Code     string
	Severity Severity
	Message  string
	Round    int
	Off      int
}

func finding(code string, round, off int, format string, args ...any) Finding {
	return Finding{Code: code, Severity: severityOf(code), Round: round, Off: off, Message: fmt.Sprintf(format, args...)}
}

// RoundName formats a round byte the way the spec writes it: 0..3, 0xFF.
func RoundName(r uint8) string {
	if r > 9 {
		return fmt.Sprintf("0x%02X", r)
	}
	return fmt.Sprintf("%d", r)
}
