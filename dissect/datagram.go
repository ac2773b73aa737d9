package dissect

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/dissect/capture"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
	"github.com/bcdump/bcdump/transport/anomaly"
)

// Kind separates the two protocols sharing the game socket.
type Kind uint8

const (
	KindGame Kind = iota + 1
	KindGameSpy
)

func (k Kind) String() string {
	if k == KindGameSpy {
		return "gamespy"
	}
	return "game"
}

// Dir is the direction of a datagram relative to the game server.
type Dir uint8

const (
	C2S Dir = iota + 1 // to the game port
	S2C                // from the game port
)

func (d Dir) String() string {
	if d == S2C {
		return "s2c"
	}
	return "c2s"
}

// Datagram is one decoded UDP payload. The Dissector reuses it for the next
// packet: reporters must finish with it (or copy) before asking for another.
type Datagram struct {
	Frame     int // 1-based among all frames of the capture
	Time      time.Time
	RelTime   time.Duration // since the first frame of the capture
	Src, Dst  netip.AddrPort
	Dir       Dir
	Kind      Kind
	Truncated bool // the capture cut the UDP payload short
	// Missing is how many bytes of the UDP payload the capture lacks (when
	// Truncated; 0 if unknown). A game datagram's messages then end with
	// Transport.Cut, the message the cut runs through, when there is one.
	Missing int

	// IPFrames are the frames of the IP fragments the datagram was
	// reassembled (or given up cut) from, in capture order, Frame among
	// them; empty when it came whole. A copy of the datagram (read -w)
	// writes them all.
	IPFrames []int

	Raw   []byte // the UDP payload as captured (enciphered)
	Plain []byte // deciphered (game) or the text itself (GameSpy)

	// Game datagrams.
	Transport transport.Datagram
	Msgs      []Message // parallel to Transport.Messages
	// Cut is what the decoders made of Transport.Cut, the message the
	// capture cut (when Transport.HasCut): its opcode when captured, no
	// fields, no tracking.
	Cut Message

	// GameSpy datagrams.
	GameSpy []KV

	// Anomalies of every layer, in the order found.
	Anomalies []anomaly.Anomaly

	// reasmBuf holds the reassembled payloads of Msgs: the tracker's are
	// valid only until it tracks the next datagram, and a datagram may be
	// rendered later (Renderer).
	reasmBuf []byte

	// lost is what the reader lost before this datagram
	// (capture.Packet.Lost), for Advance.
	lost []capture.Note

	// fieldCaps is the field-list capacity of each message slot, for the
	// Parallel mode's slot budget (trim).
	fieldCaps [keepMsgs]int32
	fieldsCap int // their sum

	// dropFields: the payload decoders keep no fields (Dissector.DropFields).
	dropFields bool
	// flowHash is transport.KeyHash of the flow (game datagrams).
	flowHash uint64
}

// Payload is what the decoders made of one payload: a message's own, or a
// fragmented message's once reassembled (the same value, so reporters and
// analyses treat both alike).
type Payload struct {
	// Bytes is the payload: a view of the datagram for a message's own, the
	// reassembled bytes otherwise (valid until the Datagram is reused).
	Bytes []byte
	// Opcode is set when the payload starts with a game opcode: an
	// unfragmented 0x32 payload, fragment 0, or a reassembled payload.
	Opcode *game.Opcode
	// Fields are the decoded payload fields (game opcode or control payload).
	Fields game.Fields
	// Malformed is set when the payload does not fit its layout; fields
	// before the fault are still in Fields.
	Malformed *game.MalformedError
	// Decoded says Fields describe the payload (a decoder ran).
	Decoded bool
}

// reset empties p for bytes, keeping the field list's capacity.
func (p *Payload) reset(bytes []byte) {
	p.Bytes, p.Opcode, p.Malformed, p.Decoded = bytes, nil, nil, false
	p.Fields.Reset()
}

// Message is what the layers above the wire codec learned about one
// transport message.
type Message struct {
	// Payload is the message's own payload (for a fragment: its slice).
	Payload

	// Track is the per-flow delivery state of the message.
	Track transport.MsgInfo

	// Reassembled is set on the fragment that completed a message.
	Reassembled *Reassembled
	reasm       Reassembled // storage behind Reassembled, reused
}

// Reassembled is a fragmented message delivered whole.
type Reassembled struct {
	Frags int // fragments joined
	Payload
}

func (d *Datagram) reset() {
	d.Truncated, d.Missing = false, 0
	d.lost = nil
	d.Transport.Reset()
	d.GameSpy = d.GameSpy[:0]
	d.Msgs = d.Msgs[:0] // a GameSpy datagram has none (decodeMessages regrows it in place)
	d.Anomalies = d.Anomalies[:0]
	d.Raw = d.Raw[:0]
	d.Plain = d.Plain[:0]
	d.reasmBuf = d.reasmBuf[:0]
}
