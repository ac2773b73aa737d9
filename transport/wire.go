// Package transport decodes and encodes the transport layer of Bridge
// Commander 1.1 game datagrams (after deciphering) and tracks reliable
// delivery per flow.
//
// A decrypted datagram is: sender peer id (u8), msg_count (u8), then
// msg_count transport messages back to back. Each message starts with its
// type byte; all multi-byte fields are little-endian (protocol-facts 3-4).
//
// A flow (FlowStats) is one client endpoint talking to one game server
// endpoint; the round-trip time of its reliable messages is measured per
// direction of the acknowledged message, first send to first matching ACK
// (RTT has the rules: retransmissions, repeated and fragment ACKs). Every
// command above reports flows and RTT from these, so their figures agree.
//
// It imports transport/anomaly and nothing else of bcdump.
package transport

import (
	"encoding/binary"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Type is a transport message type byte.
type Type uint8

// Transport types as real stock traffic uses them (protocol-facts 4.1). The
// seeds number them differently; the captured bytes win.
const (
	TypePeerInfo   Type = 0x00 // peer id, IPv4 and UTF-16 name; also the keepalive
	TypeACK        Type = 0x01
	Type02         Type = 0x02 // "connect" class per RE notes; never captured
	TypeConnect    Type = 0x03 // request from 0xFF, id assignment from the host
	Type04         Type = 0x04 // "boot" class per RE notes; never captured
	TypeDisconnect Type = 0x05
	TypeData       Type = 0x32 // every game opcode travels in this type
)

// Name gives the type's display name. 0x02 and 0x04 carry a question mark:
// their role is a guess from reverse-engineering notes, never seen on the wire.
func (t Type) Name() string {
	switch t {
	case TypePeerInfo:
		return "PeerInfo"
	case TypeACK:
		return "ACK"
	case Type02:
		return "Connect2?"
	case TypeConnect:
		return "Connect"
	case Type04:
		return "Boot?"
	case TypeDisconnect:
		return "Disconnect"
	case TypeData:
		return "Data"
	}
	return "Unknown"
}

// Known reports whether the type is registered by the stock engine.
func (t Type) Known() bool {
	return t <= TypeDisconnect || t == TypeData
}

// Low reports whether the type uses the low (connection-management)
// sequence counter and the 14-bit length header.
func (t Type) Low() bool { return t != TypeACK && t <= TypeDisconnect }

// Channel is one of the two independent per-peer reliable sequence spaces.
type Channel uint8

const (
	ChanHigh Channel = iota // type 0x32
	ChanLow                 // types 0x00-0x05
)

func (c Channel) String() string {
	if c == ChanLow {
		return "low"
	}
	return "high"
}

// flags_len bits.
const (
	flagReliable = 0x8000
	flagOrdered  = 0x4000
	flagFragment = 0x2000 // type 0x32 only
	lowLenMask   = 0x3FFF // 14-bit length of the low types
	dataLenMask  = 0x1FFF // 13-bit length of type 0x32
)

// ACK flag bits.
const (
	ackFlagFrag = 0x01 // a fragment is acknowledged; frag_idx follows
	ackFlagLow  = 0x02 // acknowledges a low-type message
)

// Limits of the length fields.
const (
	MaxLowLen  = lowLenMask
	MaxDataLen = dataLenMask
)

// Message is one decoded transport message. Payload aliases the datagram
// buffer handed to Decode.
type Message struct {
	Offset int // offset of the type byte in the datagram
	Len    int // total length including the type byte
	Type   Type

	// Low types and 0x32.
	FlagsLen     uint16
	Reliable     bool
	Ordered      bool
	Fragment     bool // 0x32 only
	Seq          uint16
	FragIdx      uint8
	FragTotal    uint8
	HasFragTotal bool // fragment 0 carries the total
	PayloadOff   int  // offset of the payload in the datagram
	Payload      []byte

	// ACK (type 0x01); Seq and FragIdx are shared with the fields above.
	AckFlags uint8
	AckFrag  bool
	AckLow   bool
}

// Channel reports the sequence space the message (or, for an ACK, the
// acknowledged message) belongs to.
func (m *Message) Channel() Channel {
	if m.Type == TypeACK {
		if m.AckLow {
			return ChanLow
		}
		return ChanHigh
	}
	if m.Type.Low() {
		return ChanLow
	}
	return ChanHigh
}

// HeaderLen is the number of bytes before the payload.
func (m *Message) HeaderLen() int { return m.PayloadOff - m.Offset }

// Datagram is one decoded game datagram. Decode resets it and reuses its
// slices, so a caller that decodes in a loop allocates nothing per datagram.
type Datagram struct {
	PeerID    uint8
	MsgCount  uint8
	Messages  []Message
	Anomalies []anomaly.Anomaly

	// Set by DecodeCut for a datagram the capture cut short.
	Missing int // bytes of the datagram the capture lacks
	// HasCut says Cut is the message the capture ends inside, decoded as
	// far as the capture goes: Len is its declared length (0 when its
	// length field was not captured), Payload its captured part.
	HasCut bool
	Cut    Message
	// CutInHeader says the capture ends inside Cut's header: only its type
	// (and its length, when set) are known.
	CutInHeader bool
	// Uncaptured is how many messages msg_count announces after Cut (or
	// after the last message) that the capture does not hold at all.
	Uncaptured int
}

// Reset empties d, keeping its capacity.
func (d *Datagram) Reset() {
	d.PeerID, d.MsgCount = 0, 0
	d.Messages = d.Messages[:0]
	d.Anomalies = d.Anomalies[:0]
	d.Missing, d.HasCut, d.Cut, d.CutInHeader, d.Uncaptured = 0, false, Message{}, false, 0
}

// Decode parses the decrypted datagram b into d. It never fails: what could be
// decoded is kept and every problem becomes an anomaly with its offset. After
// an anomaly that loses message boundaries, decoding stops (the stock engine
// drops such a datagram; we keep what came before).
func Decode(b []byte, d *Datagram) { DecodeCut(b, 0, d) }

// DecodeCut is Decode for a datagram of which the capture holds only the
// first bytes, b, and lacks missing more (the snap length cut it). Bytes the
// capture lacks are no error: the messages that fit in b are decoded, the
// one the cut runs through becomes d.Cut, the ones after it are counted in
// d.Uncaptured. What b shows to be wrong (a length past the end of the
// datagram as sent, an unknown type) is still an anomaly.
func DecodeCut(b []byte, missing int, d *Datagram) {
	d.Reset()
	d.Missing = max(missing, 0)
	end := len(b) + d.Missing // the datagram as sent
	if end < 2 {
		d.Anomalies = append(d.Anomalies, codecAnomaly(anomaly.ShortDatagram, 0,
			"a %d-byte datagram is shorter than the 2-byte header", len(b)))
		if len(b) == 1 {
			d.PeerID = b[0]
		}
		return
	}
	if len(b) < 2 {
		if len(b) == 1 {
			d.PeerID = b[0]
		}
		return // msg_count not captured: nothing is known of the messages
	}
	d.PeerID, d.MsgCount = b[0], b[1]
	off := 2
	var bad anomaly.Anomaly // what breaks the framing, if anything does
	for i := 0; i < int(d.MsgCount); i++ {
		if off >= len(b) && off < end {
			d.Uncaptured = int(d.MsgCount) - i
			return
		}
		if off >= len(b) {
			d.Anomalies = append(d.Anomalies, codecAnomaly(anomaly.MsgCountMismatch, off,
				"msg_count says %d messages but the datagram ends after %d", d.MsgCount, i))
			return
		}
		// Decoded in place, and given back unless it is a whole message:
		// a Message and an Anomaly are too big to copy per message.
		n := len(d.Messages)
		d.Messages = append(d.Messages, Message{})
		m := &d.Messages[n]
		switch decodeMessage(b, off, end, m, &bad) {
		case msgBad:
			d.Messages = d.Messages[:n]
			d.Anomalies = append(d.Anomalies, bad)
			return
		case msgCut:
			d.Cut, d.HasCut, d.CutInHeader = *m, true, m.PayloadOff == 0
			d.Messages = d.Messages[:n]
			d.Uncaptured = int(d.MsgCount) - i - 1
			return
		}
		off += m.Len
	}
	if off < end {
		d.Anomalies = append(d.Anomalies, codecAnomaly(anomaly.TrailingBytes, off,
			"%d trailing bytes after the messages msg_count announced (%d)", end-off, d.MsgCount))
	}
}

// What decodeMessage made of a message.
const (
	msgOK  = iota
	msgCut // the capture ends inside it; the datagram as sent holds it
	msgBad // it breaks the framing: the anomaly says how
)

// decodeMessage decodes the message starting at b[off] of a datagram that,
// as sent, ends at end (len(b) unless the capture cut it). A message the
// capture cut is decoded as far as b goes; its PayloadOff stays 0 when the
// cut is inside its header.
func decodeMessage(b []byte, off, end int, m *Message, bad *anomaly.Anomaly) int {
	t := Type(b[off])
	m.Offset, m.Type = off, t
	rest, sent := len(b)-off, end-off // captured, as sent
	switch {
	case t == TypeACK:
		if rest < 4 {
			return needBytes(bad, off, 4, sent, "ACK needs 4 bytes, %d left", sent)
		}
		m.Seq = binary.LittleEndian.Uint16(b[off+1:])
		m.AckFlags = b[off+3]
		m.AckFrag = m.AckFlags&ackFlagFrag != 0
		m.AckLow = m.AckFlags&ackFlagLow != 0
		m.Len = 4
		if m.AckFrag {
			if rest < 5 {
				m.Len = 5
				return needBytes(bad, off, 5, sent, "fragment ACK needs 5 bytes, %d left", sent)
			}
			m.FragIdx = b[off+4]
			m.Len = 5
		}
		m.PayloadOff = off + m.Len
		return msgOK
	case t.Low(), t == TypeData:
		if t.Low() && shortForm(b, off, rest, sent) {
			*bad = codecAnomaly(anomaly.NonStockLength, off,
				"%s with a 1-byte length %d and no flags_len (`%02X %02X`...), as some reimplementations write it; stock writes a u16 flags_len (reliable, ordered, 14-bit length) and a seq when reliable",
				t.Name(), sent, uint8(t), b[off+1])
			return msgBad
		}
		if rest < 3 {
			return needBytes(bad, off, 3, sent, "%s header needs 3 bytes, %d left", t.Name(), sent)
		}
		fl := binary.LittleEndian.Uint16(b[off+1:])
		m.FlagsLen = fl
		m.Reliable = fl&flagReliable != 0
		m.Ordered = fl&flagOrdered != 0
		hdr := 3
		if t == TypeData {
			m.Len = int(fl & dataLenMask)
			m.Fragment = fl&flagFragment != 0
		} else {
			m.Len = int(fl & lowLenMask)
		}
		if m.Reliable {
			hdr += 2
		}
		if m.Fragment {
			hdr++
		}
		// The header must fit in the declared length before we read it.
		if m.Len < hdr {
			*bad = codecAnomaly(anomaly.BadLength, off,
				"%s length %d is shorter than its %d-byte header", t.Name(), m.Len, hdr)
			return msgBad
		}
		if m.Len > sent {
			*bad = codecAnomaly(anomaly.LengthOverrun, off,
				"%s length %d runs past the end of the datagram (%d bytes left)", t.Name(), m.Len, sent)
			return msgBad
		}
		if hdr > rest {
			return msgCut
		}
		p := off + 3
		if m.Reliable {
			m.Seq = binary.LittleEndian.Uint16(b[p:])
			p += 2
		}
		if m.Fragment {
			m.FragIdx = b[p]
			p++
			if m.FragIdx == 0 {
				if m.Len < hdr+1 {
					*bad = codecAnomaly(anomaly.BadLength, off,
						"fragment 0 length %d leaves no room for the fragment total", m.Len)
					return msgBad
				}
				if hdr+1 > rest {
					return msgCut
				}
				m.FragTotal = b[p]
				m.HasFragTotal = true
				p++
			}
		}
		m.PayloadOff = p
		if m.Len > rest {
			m.Payload = b[p:len(b):len(b)]
			return msgCut
		}
		m.Payload = b[p : off+m.Len : off+m.Len]
		return msgOK
	}
	if t == typeNonStockDisconnect && rest == 2 && sent == 2 {
		*bad = codecAnomaly(anomaly.NonStockDisconnect, off,
			"type 0x06 `06 %02X` used as a disconnect of peer %d, as some reimplementations send it; stock sends type 0x05 Disconnect (flags_len, seq, peer id, IPv4: 10 bytes)",
			b[off+1], b[off+1])
		return msgBad
	}
	*bad = codecAnomaly(anomaly.UnknownTransportType, off,
		"unknown transport type 0x%02X; the rest of the datagram cannot be framed", uint8(t))
	return msgBad
}

// typeNonStockDisconnect is the type byte some reimplementations send as a
// 2-byte disconnect (`06 <peer id>`); stock registers no type 0x06.
const typeNonStockDisconnect Type = 0x06

// shortForm reports whether the control message at b[off] ends the
// datagram and its second byte alone is its length (and the stock
// flags_len does not fit): the non-stock short form.
func shortForm(b []byte, off, rest, sent int) bool {
	if rest != sent || sent < 2 || int(b[off+1]) != sent {
		return false
	}
	if sent < 3 {
		return true
	}
	n := int(binary.LittleEndian.Uint16(b[off+1:]) & lowLenMask)
	hdr := 3
	if b[off+2]&0x80 != 0 {
		hdr += 2
	}
	return n > sent || n < hdr
}

// needBytes reports a message needing n bytes where the capture holds
// fewer: cut when the datagram as sent (sent bytes from the message on)
// holds them, a length overrun otherwise.
func needBytes(bad *anomaly.Anomaly, off, n, sent int, format string, args ...any) int {
	if n <= sent {
		return msgCut
	}
	*bad = codecAnomaly(anomaly.LengthOverrun, off, format, args...)
	return msgBad
}

// codecAnomaly is an anomaly of the codec: about the datagram as a whole,
// at byte off.
func codecAnomaly(code anomaly.Code, off int, format string, args ...any) anomaly.Anomaly {
	return anomaly.New(code, anomaly.NoMsg, off, format, args...)
}
