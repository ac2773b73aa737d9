package transport

import "fmt"

// Severity ranks an anomaly the way Wireshark's expert info does: a note is
// worth knowing, a warning usually means lost or odd traffic, an error means
// the bytes break the protocol.
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

// ParseSeverity accepts the names String returns.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "note":
		return SevNote, nil
	case "warn", "warning":
		return SevWarn, nil
	case "error":
		return SevError, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want note, warn or error)", s)
}

// Stable anomaly codes of the wire codec. Users grep and gate CI on these
// strings, so they never change once released.
const (
	CodeShortDatagram        = "short-datagram"
	CodeBadLength            = "bad-length"
	CodeLengthOverrun        = "length-overrun"
	CodeUnknownTransportType = "unknown-transport-type"
	CodeMsgCountMismatch     = "msg-count-mismatch"
	CodeTrailingBytes        = "trailing-bytes"
)

// NoOffset marks an anomaly that does not concern one byte position.
const NoOffset = -1

// Anomaly is one thing that went wrong, with a stable Code for machines and a
// Message for people. Offset is a byte position in the decrypted datagram, or
// NoOffset. Msg is the 1-based index of the message it concerns, or 0 when it
// concerns the datagram as a whole.
type Anomaly struct {
	Code     string
	Severity Severity
	Message  string
	Offset   int
	Msg      int
}

func anomalyAt(code string, sev Severity, off int, format string, args ...any) Anomaly {
	return Anomaly{Code: code, Severity: sev, Offset: off, Message: fmt.Sprintf(format, args...)}
}
