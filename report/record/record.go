package record

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Kind is a record's kind, the value of "kind".
type Kind uint8

const (
	KindNone    Kind = iota
	KindGame         // "game": a game datagram
	KindGameSpy      // "gamespy": a GameSpy datagram
	KindEvent        // "event": found mid-capture (live)
	KindSummary      // "summary": the end-of-capture findings
)

var kindNames = [...]string{"", "game", "gamespy", "event", "summary"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// IsDatagram says the record is a datagram (game or GameSpy).
func (k Kind) IsDatagram() bool { return k == KindGame || k == KindGameSpy }

// Datagram is one record. Datagram records (game, GameSpy) fill most of
// it; event and summary records only Kind, File, Frame (events) and
// Anomalies. Optional keys have a Has flag or are zero when absent, as
// the table's Read column says.
type Datagram struct {
	Kind           Kind           `key:"kind"`
	Frame          int            `key:"frame"`
	Time           time.Time      `key:"time"` // UTC; "ts" is the same instant
	Src            netip.AddrPort `key:"src"`
	Dst            netip.AddrPort `key:"dst"`
	Dir            Dir            `key:"dir"`
	Len            int            `key:"len"`
	Context        bool           `key:"context"`
	File           string         `key:"file"`
	Truncated      bool           `key:"truncated"`
	TruncatedBytes int            `key:"truncated_bytes"` // 0: not known

	// GameSpy records.
	Text    []byte `key:"text"` // UTF-8 (stray bytes of the wire text as Latin-1)
	GameSpy []KV   `key:"gamespy"`

	// Game records.
	PeerID   int `key:"peer_id"`
	MsgCount int `key:"msg_count"`
	// HasMsgCount: the datagram has a message-count byte (a 1-byte
	// datagram has none, and its JSON has no msg_count).
	HasMsgCount    bool
	Messages       []Message `key:"messages"`
	HasCut         bool
	Cut            Cut `key:"cut"`
	UncapturedMsgs int `key:"uncaptured_msgs"`
	HasPlain       bool
	Plain          []byte `key:"plain_hex"` // the bytes plain_hex shows

	Anomalies []Anomaly `key:"anomalies"`

	arena []byte   // what the byte slices above point into
	pool  []*Reasm // Reassembled storage, reused
}

// Dir is a datagram's direction.
type Dir uint8

const (
	DirNone Dir = iota
	C2S         // "c2s": to the game port
	S2C         // "s2c"
)

func (d Dir) String() string {
	switch d {
	case C2S:
		return "c2s"
	case S2C:
		return "s2c"
	}
	return ""
}

// Client and Server are a datagram's endpoints by role.
func (d *Datagram) Client() netip.AddrPort {
	if d.Dir == S2C {
		return d.Dst
	}
	return d.Src
}

func (d *Datagram) Server() netip.AddrPort {
	if d.Dir == S2C {
		return d.Src
	}
	return d.Dst
}

// KV is one GameSpy key/value pair, as sent.
type KV struct {
	Key   []byte `key:"<key>"`
	Value []byte
}

// Message is one transport message.
type Message struct {
	Type     uint8  `key:"type"`
	TypeName string `key:"type_name"`
	Offset   int    `key:"offset"`
	Len      int    `key:"len"` // declared length (on a cut message's header: 0 when not captured)

	HasSeq     bool
	Seq        uint16 `key:"seq"`
	AckFrag    bool   `key:"ack_frag"`
	AckLow     bool   `key:"ack_low"`
	HasFragIdx bool
	FragIdx    uint8 `key:"frag_idx"`

	Reliable     bool `key:"reliable"`
	Ordered      bool `key:"ordered"`
	Fragment     bool `key:"fragment"`
	HasFragTotal bool
	FragTotal    uint8 `key:"frag_total"`
	PayloadLen   int   `key:"payload_len"`

	Payload

	Track

	// Reassembled is set on the fragment that completed a message.
	Reassembled *Reasm `key:"reassembled"`
}

// IsACK says the message is an ACK (type 0x01).
func (m *Message) IsACK() bool { return m.Type == 1 }

// Track is a message's per-flow delivery state.
type Track struct {
	Retransmit      bool `key:"retransmit"`
	RetransmitCount int  `key:"retransmit_count"`
	FirstFrame      int  `key:"first_frame"`
	Keepalive       bool `key:"keepalive"`
	Duplicate       bool `key:"duplicate"`
	// Ack is what an ACK matched: "matched", "repeat", "mismatch", "cut",
	// "unknown"; "" on other messages.
	Ack        string `key:"ack"`
	AckedFrame int    `key:"acked_frame"` // 0: not seen
	HasRTT     bool
	RTT        time.Duration `key:"rtt_ms"` // whole microseconds, as the JSON's three decimals of ms
}

// Payload is what was decoded of a payload: a message's own or a
// reassembled one.
type Payload struct {
	HasOpcode  bool
	Opcode     uint8  `key:"opcode"`
	OpcodeName string `key:"opcode_name"`
	// Decoded says Fields describe the payload ("fields" is there, maybe
	// empty).
	Decoded bool
	Fields  []Field `key:"fields"`
	// HasHex says "payload_hex" is there: Bytes are its bytes.
	HasHex bool
	Bytes  []byte `key:"payload_hex"`
}

// Reasm is a fragmented message delivered whole.
type Reasm struct {
	Len   int `key:"len"`
	Frags int `key:"frags"`
	Payload
}

// Cut is the message the capture's snap length cut: its header as far as
// captured.
type Cut struct {
	// HeaderOnly: the cut ran through the header: only type, type_name,
	// offset and (when captured, > 0) len are known.
	HeaderOnly bool
	Message
	Captured int `key:"captured"`
}

// Anomaly is one finding: on a datagram, or an event (then with where it
// points).
type Anomaly struct {
	Code     anomaly.Code // 0 when the name is not a code this bcdump knows
	CodeName string       `key:"code"`
	Severity string       `key:"severity"` // "note", "warn", "error"
	Message  []byte       `key:"message"`
	Offset   int          `key:"offset"` // anomaly.NoOffset: none
	Msg      int          `key:"msg"`    // anomaly.NoMsg: none

	// Events (summary and event records).
	Frame  int            `key:"frame"`
	Client netip.AddrPort `key:"client"`
	Server netip.AddrPort `key:"server"`
}

// IsError says the anomaly is of error severity.
func (a *Anomaly) IsError() bool { return a.Severity == "error" }

// FieldKind is the JSON kind of a Field token.
type FieldKind uint8

const (
	Null   FieldKind = iota + 1
	Bool             // Value is "true" or "false"
	Number           // Value is the number's JSON text
	String           // Value is the string (UTF-8, unescaped)
	Object           // opens an object; its members follow until End
	Array            // opens an array; its elements (Name "") follow until End
	End              // closes the innermost Object or Array
)

// Field is one token of a payload's decoded fields, as the JSON shows
// them: a member (Name set) or an array element (Name "").
type Field struct {
	Name  string
	Kind  FieldKind
	Value []byte
}

// Str returns a String token's value as a string (allocating).
func (f *Field) Str() string { return string(f.Value) }

// Reset empties d for reuse, keeping its storage.
func (d *Datagram) Reset() {
	msgs, gs, an, arena, pool := d.Messages[:0], d.GameSpy[:0], d.Anomalies[:0], d.arena[:0], d.pool
	cutFields := d.Cut.Fields[:0]
	*d = Datagram{Messages: msgs, GameSpy: gs, Anomalies: an, arena: arena, pool: pool}
	d.Cut.Fields = cutFields
}

// bytes copies b into the arena and returns the copy.
func (d *Datagram) bytes(b []byte) []byte {
	n := len(d.arena)
	d.arena = append(d.arena, b...)
	return d.arena[n:len(d.arena):len(d.arena)]
}

// newMessage appends a zero message, reusing the storage of the one that
// was there (its field tokens).
func (d *Datagram) newMessage() *Message {
	n := len(d.Messages)
	if n < cap(d.Messages) {
		d.Messages = d.Messages[:n+1]
		m := &d.Messages[n]
		fs := m.Fields[:0]
		*m = Message{}
		m.Fields = fs
		return m
	}
	d.Messages = append(d.Messages, Message{})
	return &d.Messages[n]
}

// newReasm returns a zeroed Reasm for message i, reusing storage.
func (d *Datagram) newReasm(i int) *Reasm {
	for len(d.pool) <= i {
		d.pool = append(d.pool, &Reasm{})
	}
	r := d.pool[i]
	fs := r.Fields[:0]
	*r = Reasm{}
	r.Fields = fs
	return r
}
