package transport

import (
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// AckResult says what an ACK message matched.
type AckResult uint8

const (
	AckNone     AckResult = iota // not an ACK
	AckMatched                   // first ACK that clears a sent message (RTT measured)
	AckRepeat                    // matches a message an earlier ACK already cleared
	AckMismatch                  // the seq was sent, but with another fragment status or index
	AckUnknown                   // matches nothing sent in the capture
	AckCut                       // matches nothing captured, but a message the capture cut may have had its seq
)

func (a AckResult) String() string {
	switch a {
	case AckMatched:
		return "matched"
	case AckRepeat:
		return "repeat"
	case AckMismatch:
		return "mismatch"
	case AckUnknown:
		return "unknown"
	case AckCut:
		return "cut"
	}
	return "none"
}

// MsgInfo is what the tracker learned about one message of a datagram. Track
// fills one per message, index for index with Datagram.Messages.
type MsgInfo struct {
	// Reliable messages (and every fragment).
	FirstFrame      int  // frame of the first send of this seq/fragment (this frame on a first send)
	FirstMsg        int  // message index in FirstFrame
	Retransmit      bool // this copy repeats an earlier send (same channel, seq, fragment)
	RetransmitCount int  // resends of this message so far, this one included (1 = first resend)
	Differs         bool // a retransmit whose bytes differ from the first send
	// Keepalive marks a byte-identical repeat of a type 0x00 (PeerInfo)
	// message: a periodic keepalive, not counted as a retransmission.
	Keepalive bool

	// ACKs.
	Ack        AckResult
	AckedFrame int // frame of the first send of the message the ACK clears (0 if none)
	AckedMsg   int // message index in AckedFrame
	RTT        time.Duration
	HasRTT     bool // RTT is set: this is the first matching ACK

	// Fragments.
	Dup              bool   // fragment already held, or its message already reassembled
	Reassembled      []byte // whole payload completed by this fragment; valid until the next Track
	ReassembledFrags int    // number of fragments joined into Reassembled
}

// Event is an anomaly the tracker reports after the fact: message summaries
// (when a message's tracking ends), timeouts and evictions. Frame, Msg and
// Offset point at the datagram the anomaly is about: the first send of the
// message, the first fragment of a reassembly, the last datagram of a silent
// peer. The embedded Anomaly's Msg is NoMsg when no single message is
// meant. Time is in UTC.
type Event struct {
	Flow           FlowID
	Client, Server netip.AddrPort
	Frame          int
	Time           time.Time
	anomaly.Anomaly
}
