package transport

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// FlowStats summarises one flow. Arrays indexed by Dir count what the side
// sent: [C2S] the client, [S2C] the server.
type FlowStats struct {
	ID             FlowID
	Client, Server netip.AddrPort
	PeerID         uint8
	HasPeerID      bool
	PeerIDFrom     string // "connect" (the host's Connect reply) or "byte0" (first datagram under an id)
	PlayerName     string // from a PeerInfo (type 0x00) about the client; "" if none seen
	First, Last    time.Time

	Datagrams [2]uint64
	Bytes     [2]uint64 // UDP payload bytes (Packet.Size)
	Acks      [2]uint64 // ACK messages
	// Reliable messages by first send; a fragmented message counts once.
	Reliable [2]uint64
	// Retransmitted copies (each resent fragment counts) and distinct
	// messages (by seq) resent at least once.
	Retransmissions   [2]uint64
	RetransmittedMsgs [2]uint64
	Keepalives        [2]uint64 // identical repeats of a type 0x00 message (MsgInfo.Keepalive)
	Fragments         [2]uint64 // distinct fragments (first sends)
	Reassembled       [2]uint64 // messages completed by reassembly
	PeerIDMismatches  [2]uint64 // datagrams whose byte 0 was not the sender's id

	// Round-trip times by direction of the acknowledged message: [C2S]
	// the client's messages the server acknowledged, [S2C] the server's
	// the client acknowledged (see RTT for the definition).
	RTT [2]RTT

	// Anomalies by code: the tracker's, the codec's (Datagram.Anomalies) and
	// any a layer above added with Flow.Count.
	Anomalies map[anomaly.Code]int

	Finished bool // the flow ended (idle, evicted, or Finish)
	// Other marks the record that sums finished flows beyond
	// MaxFinishedFlows; Flows is how many flows a record covers.
	Other bool
	Flows int
}

// flowCounters is the live counting part of a flow.
type flowCounters struct {
	// Every datagram updates the first two and sizeKey reads the next
	// two: one cache line.
	datagrams, bytes [2]uint64
	grown            uint64 // reliable and fragments, both directions summed
	rttKept          uint64 // RTT samples kept, both directions summed

	reliable, fragments [2]uint64
	anoms               map[anomaly.Code]int
	rtt                 [2]RTTSamples // by direction of the acknowledged message

	acks, retrans, retransMsgs, keepalives, reassembled, badIDs [2]uint64
}

// recycle returns zeroed counters that keep c's buffers.
func (c *flowCounters) recycle() flowCounters {
	clear(c.anoms)
	n := flowCounters{rtt: c.rtt, anoms: c.anoms}
	n.rtt[C2S].Reset()
	n.rtt[S2C].Reset()
	return n
}

func (f *flow) count(code anomaly.Code) {
	if f.st.anoms == nil {
		f.st.anoms = make(map[anomaly.Code]int)
	}
	f.st.anoms[code]++
	f.nAnoms = uint16(len(f.st.anoms))
}

// addRTT adds a sample to direction d, that of the acknowledged message.
func (f *flow) addRTT(d Dir, rtt time.Duration, limit int) {
	if f.st.rtt[d].Add(rtt, limit) {
		f.st.rttKept++
	}
}

// snapshot builds f's stats record (allocates; not on the per-datagram path).
func (f *flow) snapshot(finished bool) FlowStats {
	c := &f.st
	s := FlowStats{
		ID: f.id, Client: f.key.Client, Server: f.key.Server,
		PeerID: f.peerID, HasPeerID: f.hasPeer, PeerIDFrom: f.peerFrom, PlayerName: f.name,
		First: time.Unix(0, f.first).UTC(), Last: time.Unix(0, f.last).UTC(),
		Datagrams: c.datagrams, Bytes: c.bytes, Acks: c.acks, Reliable: c.reliable,
		Retransmissions: c.retrans, RetransmittedMsgs: c.retransMsgs, Keepalives: c.keepalives,
		Fragments: c.fragments, Reassembled: c.reassembled, PeerIDMismatches: c.badIDs,
		RTT:       [2]RTT{c.rtt[C2S].Summary(), c.rtt[S2C].Summary()},
		Anomalies: maps.Clone(c.anoms),
		Finished:  finished, Flows: 1,
	}
	if s.Anomalies == nil {
		s.Anomalies = map[anomaly.Code]int{}
	}
	return s
}

// storeStats keeps a finished flow's record, or folds it into "other".
func (t *Tracker) storeStats(f *flow) {
	s := f.snapshot(true)
	if len(t.done) < t.cfg.MaxFinishedFlows {
		t.done = append(t.done, s)
		return
	}
	if !t.hasOther {
		t.hasOther = true
		t.other = FlowStats{Other: true, Finished: true, First: s.First, Last: s.Last, Anomalies: map[anomaly.Code]int{}}
	}
	t.other.Sum(&s)
}

// Sum adds s to o, a record that sums flows (Other): the flow count, the
// time span, every counter, each direction's RTT count and max (no
// percentiles: o's RTT Sampled is set) and the anomalies. o.Anomalies must not be nil.
func (o *FlowStats) Sum(s *FlowStats) {
	o.Flows += max(s.Flows, 1)
	if s.First.Before(o.First) {
		o.First = s.First
	}
	if s.Last.After(o.Last) {
		o.Last = s.Last
	}
	for d := range 2 {
		o.Datagrams[d] += s.Datagrams[d]
		o.Bytes[d] += s.Bytes[d]
		o.Acks[d] += s.Acks[d]
		o.Reliable[d] += s.Reliable[d]
		o.Retransmissions[d] += s.Retransmissions[d]
		o.RetransmittedMsgs[d] += s.RetransmittedMsgs[d]
		o.Keepalives[d] += s.Keepalives[d]
		o.Fragments[d] += s.Fragments[d]
		o.Reassembled[d] += s.Reassembled[d]
		o.PeerIDMismatches[d] += s.PeerIDMismatches[d]
		r := &o.RTT[d]
		r.Count += s.RTT[d].Count
		r.Max = max(r.Max, s.RTT[d].Max)
		r.P50, r.P95, r.Sampled = 0, 0, true // no percentiles for the sum
	}
	for k, v := range s.Anomalies {
		o.Anomalies[k] += v
	}
}

// Flows lists every flow seen: finished ones (up to MaxFinishedFlows), the
// active ones as they stand, by ID, then the "other" record if any.
func (t *Tracker) Flows() []FlowStats {
	out := make([]FlowStats, 0, len(t.done)+len(t.flows)+1)
	for _, s := range t.done {
		s.Anomalies = maps.Clone(s.Anomalies)
		out = append(out, s)
	}
	for f := t.lru.head; f != nil; f = f.next {
		out = append(out, f.snapshot(false))
	}
	slices.SortFunc(out, func(a, b FlowStats) int { return cmp.Compare(a.ID, b.ID) })
	if t.hasOther {
		o := t.other
		o.Anomalies = maps.Clone(o.Anomalies)
		out = append(out, o)
	}
	return out
}
