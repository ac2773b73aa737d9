package render

import (
	"strconv"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/transport"
)

// appendTrackJSON appends the per-flow delivery keys of a message: resends
// and the frame of the first send; for ACKs what they matched and the RTT.
func appendTrackJSON(b []byte, first *bool, dm *dissect.Message) []byte {
	t := &dm.Track
	if t.Retransmit {
		b = appendKey(b, first, "retransmit")
		b = append(b, "true"...)
		b = appendKey(b, first, "retransmit_count")
		b = appendInt(b, int64(t.RetransmitCount))
		b = appendKey(b, first, "first_frame")
		b = appendInt(b, int64(t.FirstFrame))
	}
	if t.Keepalive {
		b = appendKey(b, first, "keepalive")
		b = append(b, "true"...)
	}
	if t.Dup {
		b = appendKey(b, first, "duplicate")
		b = append(b, "true"...)
	}
	if t.Ack != transport.AckNone {
		b = appendKey(b, first, "ack")
		b = appendName(b, t.Ack.String())
		if t.AckedFrame > 0 {
			b = appendKey(b, first, "acked_frame")
			b = appendInt(b, int64(t.AckedFrame))
		}
		if t.HasRTT {
			b = appendKey(b, first, "rtt_ms")
			b = strconv.AppendFloat(b, float64(t.RTT.Microseconds())/1000, 'f', 3, 64)
		}
	}
	return b
}

// appendTrackBrief appends the per-flow delivery marks of a message for the
// table: ` [retransmit #2]`, ` [dup]`, ` [acks f12 rtt 12.5ms]`.
func appendTrackBrief(b []byte, dm *dissect.Message) []byte {
	t := &dm.Track
	switch t.Ack {
	case transport.AckMatched:
		b = append(b, " [acks f"...)
		b = appendInt(b, int64(t.AckedFrame))
		if t.HasRTT {
			b = append(b, " rtt "...)
			b = appendMillis(b, t.RTT.Microseconds())
			b = append(b, "ms"...)
		}
		b = append(b, ']')
	case transport.AckRepeat:
		b = append(b, " [stale ack]"...)
	case transport.AckMismatch:
		b = append(b, " [ack mismatch]"...)
	case transport.AckCut:
		b = append(b, " [acks cut msg]"...)
	}
	if t.Retransmit {
		b = append(b, " [retransmit #"...)
		b = appendInt(b, int64(t.RetransmitCount))
		b = append(b, ']')
	}
	if t.Keepalive {
		b = append(b, " [keepalive]"...)
	}
	if t.Dup {
		b = append(b, " [dup]"...)
	}
	return b
}

// appendMillis appends us microseconds in milliseconds as
// strconv.AppendFloat(b, float64(us)/1000, 'f', -1, 64) does: the whole
// milliseconds, then the microseconds without trailing zeros. The shortest
// decimal of that double is us/1000 itself while doubles there are far
// closer together than 0.001 (below 2^40 us); larger values go to strconv.
func appendMillis(b []byte, us int64) []byte {
	if us <= -1<<40 || us >= 1<<40 {
		return strconv.AppendFloat(b, float64(us)/1000, 'f', -1, 64)
	}
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = appendInt(b, us/1000)
	f := us % 1000
	if f == 0 {
		return b
	}
	b = append(b, '.', byte('0'+f/100))
	if f%100 != 0 {
		b = append(b, byte('0'+f/10%10))
		if f%10 != 0 {
			b = append(b, byte('0'+f%10))
		}
	}
	return b
}
