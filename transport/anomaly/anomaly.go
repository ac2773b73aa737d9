// Package anomaly is bcdump's one registry of anomaly codes: every code any
// layer can raise, with its fixed severity, its group and what it means. The
// layers raise codes from here (typed constants), and the table of bcdump help
// anomalies, `bcdump anomalies` and the coverage tests are generated from the
// same table, so adding a code is one row in registry.go plus its raise site.
//
// The package is a leaf: it imports nothing of bcdump, so the wire codec,
// the checksum analyzer, the capture reader and the dissector can all use it
// without pointing imports the wrong way.
package anomaly

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Severity ranks an anomaly the way Wireshark's expert info does: a note is
// worth knowing, a warning usually means lost or odd traffic, an error means
// the bytes break the protocol.
type Severity uint8

const (
	Note Severity = iota + 1
	Warn
	Error
)

var severityNames = [...]string{Note: "note", Warn: "warn", Error: "error"}

func (s Severity) String() string {
	if int(s) < len(severityNames) && severityNames[s] != "" {
		return severityNames[s]
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// ParseSeverity accepts the names String returns (and "warning").
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "note":
		return Note, nil
	case "warn", "warning":
		return Warn, nil
	case "error":
		return Error, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want note, warn or error)", s)
}

// Group says which part of the protocol (or of bcdump) a code concerns.
type Group uint8

const (
	Framing    Group = iota + 1 // the transport header and message framing
	Delivery                    // reliable delivery: seqs, retransmissions, ACKs, peers
	Reassembly                  // fragmented messages
	Checksum                    // the checksum handshake
	Payload                     // game opcode payloads
	Capture                     // what the capture itself holds or lacks
	Limit                       // state bcdump dropped to stay within its memory bounds
)

var groupNames = [...]string{Framing: "framing", Delivery: "delivery", Reassembly: "reassembly",
	Checksum: "checksum", Payload: "payload", Capture: "capture", Limit: "limit"}

func (g Group) String() string {
	if int(g) < len(groupNames) && groupNames[g] != "" {
		return groupNames[g]
	}
	return "group(" + strconv.Itoa(int(g)) + ")"
}

// Scope says where a code is reported.
type Scope uint8

const (
	// OnDatagram: in the datagram's anomalies, as it is decoded.
	OnDatagram Scope = 1 << iota
	// AsEvent: later, as an event about an earlier datagram (what only
	// hindsight, a timeout or the end of the capture reveals).
	AsEvent
)

func (s Scope) String() string {
	switch s {
	case OnDatagram:
		return "datagram"
	case AsEvent:
		return "event"
	case OnDatagram | AsEvent:
		return "datagram, event"
	}
	return "scope(" + strconv.Itoa(int(s)) + ")"
}

// Code is a stable anomaly code. Its name (String) is what users grep and
// gate CI on: it never changes once released.
type Code uint8

// Info is one row of the registry.
type Info struct {
	Code     Code
	Name     string
	Severity Severity
	Group    Group
	Scope    Scope
	// Meaning is one line: what the code says happened.
	Meaning string
	// Detail, when set, adds what a reader of the reference (bcdump help
	// anomalies) needs: causes, what bcdump does about it, limits.
	Detail string
}

// String returns the code's stable name.
func (c Code) String() string {
	if c.valid() {
		return registry[c].Name
	}
	return "code(" + strconv.Itoa(int(c)) + ")"
}

// Severity returns the code's fixed severity.
func (c Code) Severity() Severity {
	if c.valid() {
		return registry[c].Severity
	}
	return Error
}

// Group returns the code's group.
func (c Code) Group() Group {
	if c.valid() {
		return registry[c].Group
	}
	return 0
}

// Info returns the code's registry row.
func (c Code) Info() Info {
	if c.valid() {
		return registry[c]
	}
	return Info{Code: c, Name: c.String(), Severity: Error}
}

func (c Code) valid() bool { return c > 0 && int(c) < len(registry) && registry[c].Code == c }

// All returns every code's row, in registry order (grouped, as bcdump help
// anomalies lists them). The slice is the caller's.
func All() []Info {
	return append([]Info(nil), registry[1:]...)
}

// Parse returns the code with the given name.
func Parse(name string) (Code, bool) {
	c, ok := byName[name]
	return c, ok
}

var byName = func() map[string]Code {
	m := make(map[string]Code, len(registry))
	for c, in := range registry[1:] {
		m[in.Name] = Code(c + 1)
	}
	return m
}()

// NoOffset marks an anomaly that does not concern one byte position; NoMsg
// one that concerns the datagram as a whole rather than one message.
const (
	NoOffset = -1
	NoMsg    = -1
)

// Anomaly is one thing that went wrong, with a stable Code for machines and
// a message for people (which may change between releases). Offset is a
// byte position in the deciphered datagram, or NoOffset. Msg is the 0-based
// index of the transport message it concerns, or NoMsg.
//
// The message is kept as its parts (Text) and built only by Message or
// AppendMessage: most anomalies are counted, never printed.
type Anomaly struct {
	Code   Code
	Offset int
	Msg    int
	Text   Text
}

// Severity is the code's fixed severity.
func (a Anomaly) Severity() Severity { return a.Code.Severity() }

// Message returns the anomaly's text.
func (a Anomaly) Message() string { return a.Text.String() }

// AppendMessage appends the anomaly's text to b.
func (a *Anomaly) AppendMessage(b []byte) []byte { return a.Text.Append(b) }

// New returns an anomaly whose message is fmt.Sprintf(format, args...),
// built when asked for. Arguments of other types than strings, integers
// and time.Duration are formatted at once; boxing them in args may allocate
// anyway, so hot paths use Newf.
func New(code Code, msg, off int, format string, args ...any) Anomaly {
	return Anomaly{Code: code, Msg: msg, Offset: off, Text: textOf(format, args)}
}

// Newf returns an anomaly whose message is format with args, built when
// asked for; recording it does not allocate.
func Newf(code Code, msg, off int, format string, args ...Arg) Anomaly {
	return Anomaly{Code: code, Msg: msg, Offset: off, Text: Textf(format, args...)}
}

// NewText returns an anomaly with the text t.
func NewText(code Code, msg, off int, t Text) Anomaly {
	return Anomaly{Code: code, Msg: msg, Offset: off, Text: t}
}

// textOf keeps what it can of fmt.Sprintf(format, args...) for later.
func textOf(format string, args []any) Text {
	if len(args) == 0 && strings.IndexByte(format, '%') < 0 {
		return Literal(format)
	}
	var a [MaxArgs]Arg
	if len(args) > len(a) {
		return Literal(fmt.Sprintf(format, args...))
	}
	strs := 0
	for i, v := range args {
		switch v := v.(type) {
		case string:
			a[i] = S(v)
			strs++
		case int:
			a[i] = I(v)
		case int8:
			a[i] = I(v)
		case int16:
			a[i] = I(v)
		case int32:
			a[i] = I(v)
		case int64:
			a[i] = I(v)
		case uint8:
			a[i] = U(v)
		case uint16:
			a[i] = U(v)
		case uint32:
			a[i] = U(v)
		case uint64:
			a[i] = U(v)
		case uint:
			a[i] = U(v)
		case time.Duration:
			a[i] = D(v)
		default:
			return Literal(fmt.Sprintf(format, args...))
		}
	}
	if strs > MaxArgs/2 {
		return Literal(fmt.Sprintf(format, args...))
	}
	return Textf(format, a[:len(args)]...)
}
