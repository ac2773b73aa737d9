package record

import "net/netip"

// The record's struct types (Datagram, KV, Message, Track, Payload,
// Reasm, Cut, Anomaly) are in record_gen.go, generated from the key
// table; this file has the types and methods written by hand.

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

// IsACK says the message is an ACK (type 0x01).
func (m *Message) IsACK() bool { return m.Type == 1 }

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
