package transport

import (
	"slices"
	"time"
)

// RTT summarises the round-trip samples of one direction. It is the one
// definition of round-trip time every bcdump command uses (stats,
// session, report, profile and diff; `bcdump help flows` says it for
// users).
//
// A sample is the time from the first send of a reliable message (of each
// fragment, for a fragmented one) to the first ACK that matches it
// (MsgInfo.Ack == AckMatched; MsgInfo.RTT), and it belongs to the direction
// of the acknowledged message: C2S samples time the client's messages the
// server acknowledged, S2C samples the server's messages the client
// acknowledged. So:
//   - a retransmission does not restart the clock: the sample runs from
//     the first copy, and an ACK after a resend counts once, from the first
//     send (the tracker cannot tell which copy the ACK answers);
//   - a repeated ACK (AckRepeat: one that matches a message an earlier ACK
//     already cleared) is no sample;
//   - a fragment ACK clears one fragment: every fragment of a fragmented
//     message gives its own sample, from that fragment's first send;
//   - ACKs that match nothing sent in the capture (AckUnknown, AckCut) or
//     match a seq sent with another fragment status (AckMismatch) are no
//     sample.
//
// A set of samples (one direction of one flow, or of one player, or of
// flows pooled) is summarised by RTTSamples: the count and the maximum are
// exact; the median and 95th percentile are nearest-rank over the first
// MaxRTTSamples samples kept (in microseconds), and Sampled says when
// there were more.
type RTT struct {
	Count    uint64
	P50, P95 time.Duration // nearest-rank over the samples kept (0 without any)
	Max      time.Duration
	// Sampled: there were more samples than kept, so the percentiles
	// cover the first ones only; also set on sums of flows (FlowStats.Sum),
	// which have no percentiles.
	Sampled bool
}

// RTTSamples collects the round-trip samples of one direction. The zero
// value is empty and ready; Add keeps at most limit samples.
type RTTSamples struct {
	us    []uint32 // microseconds, rounded; at most the limit given to Add
	count uint64
	max   time.Duration
}

// Add adds sample d (negative counts as 0) and keeps it if fewer than limit
// are kept. It reports whether it kept it.
func (r *RTTSamples) Add(d time.Duration, limit int) bool {
	d = max(d, 0)
	r.count++
	r.max = max(r.max, d)
	if len(r.us) >= limit {
		return false
	}
	us := (d + time.Microsecond/2) / time.Microsecond
	r.us = append(r.us, uint32(min(us, 1<<32-1)))
	return true
}

// Merge adds the samples of o, keeping at most limit in all.
func (r *RTTSamples) Merge(o *RTTSamples, limit int) {
	r.count += o.count
	r.max = max(r.max, o.max)
	if n := min(len(o.us), limit-len(r.us)); n > 0 {
		r.us = append(r.us, o.us[:n]...)
	}
}

// Reserve makes room for n samples kept, so that Add allocates nothing
// until then (for a consumer that must not allocate per datagram).
func (r *RTTSamples) Reserve(n int) {
	if cap(r.us) < n {
		r.us = append(make([]uint32, 0, n), r.us...)
	}
}

// Count is the number of samples added.
func (r *RTTSamples) Count() uint64 { return r.count }

// Kept is the number of samples kept for the percentiles.
func (r *RTTSamples) Kept() int { return len(r.us) }

// Cap is the capacity of the samples' buffer (for memory estimates).
func (r *RTTSamples) Cap() int { return cap(r.us) }

// Reset empties r, keeping its buffer.
func (r *RTTSamples) Reset() { *r = RTTSamples{us: r.us[:0]} }

// Summary computes the count, the nearest-rank median and 95th percentile
// of the samples kept, and the maximum (allocates).
func (r *RTTSamples) Summary() RTT {
	s := RTT{Count: r.count, Max: r.max, Sampled: r.count > uint64(len(r.us))}
	if n := len(r.us); n > 0 {
		sorted := slices.Clone(r.us)
		slices.Sort(sorted)
		s.P50 = time.Duration(sorted[nearestRank(n, 50)]) * time.Microsecond
		s.P95 = time.Duration(sorted[nearestRank(n, 95)]) * time.Microsecond
	}
	return s
}

// nearestRank is the index of the p-th percentile in n sorted samples.
func nearestRank(n, p int) int {
	return max((n*p+99)/100-1, 0)
}
