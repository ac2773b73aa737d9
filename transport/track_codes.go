package transport

import (
	"net/netip"
	"time"
)

// Stable anomaly codes of the flow tracker (see Tracker for when each fires).
// Like the codec's codes they never change once released.
const (
	// On the datagram that carries the message (MsgAnomaly).
	CodeRetransmit         = "retransmit"          // note: a reliable message sent again
	CodeRetransmitDiffers  = "retransmit-differs"  // error: ... with other bytes than the first send
	CodeSeqReuse           = "seq-reuse"           // warn: another message type under a seq in use
	CodeAckUnknown         = "ack-unknown"         // note: ACK for nothing sent in the capture
	CodeReassemblyOverflow = "reassembly-overflow" // warn: a reassembly dropped to stay within limits
	CodeFragmentBadTotal   = "fragment-bad-total"  // error: total 0, or an index at or past the total
	CodeFragmentUnreliable = "fragment-unreliable" // warn: fragment bit without the reliable bit
	CodePeerIDMismatch     = "peer-id-mismatch"    // warn: byte 0 is not the id of that address
	CodeTrackingLimit      = "tracking-limit"      // note: state dropped to stay within limits

	// Per message or flow, reported later as an Event.
	CodeUnackedFragmentRetransmit = "unacked-fragment-retransmit" // warn: seed 001 stock client bug
	CodeRetransmitUnacked         = "retransmit-unacked"          // warn: resent, never ACKed
	CodeAckMismatch               = "ack-mismatch"                // warn: ACKs with wrong fragment status/index
	CodeFragmentIncomplete        = "fragment-incomplete"         // warn: reassembly never completed
	CodePeerTimeout               = "peer-timeout"                // warn: connected peer silent too long
)

// AckResult says what an ACK message matched.
type AckResult uint8

const (
	AckNone     AckResult = iota // not an ACK
	AckMatched                   // first ACK that clears a sent message (RTT measured)
	AckRepeat                    // matches a message an earlier ACK already cleared
	AckMismatch                  // the seq was sent, but with another fragment status or index
	AckUnknown                   // matches nothing sent in the capture
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

// MsgAnomaly is an anomaly about one message of the datagram just tracked.
// Msg indexes Datagram.Messages (-1: the datagram as a whole); the embedded
// Anomaly carries the same index the codec's way (Anomaly.Msg = Msg+1, 0 for
// the datagram) and the message's offset in the datagram.
type MsgAnomaly struct {
	Msg int
	Anomaly
}

// Event is an anomaly the tracker reports after the fact: message summaries
// (when a message's tracking ends), timeouts and evictions. Frame, Msg and
// Offset point at the datagram the anomaly is about: the first send of the
// message, the first fragment of a reassembly, the last datagram of a silent
// peer. Msg is -1 when no single message is meant (the embedded Anomaly.Msg
// is Msg+1, as for the codec's anomalies). Time is in UTC.
type Event struct {
	Flow           FlowID
	Client, Server netip.AddrPort
	Frame          int
	Msg            int
	Time           time.Time
	Anomaly
}
