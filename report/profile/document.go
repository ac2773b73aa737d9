package profile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/report/render"
	"github.com/bcdump/bcdump/transport"
)

// FormatVersion is the value of the "bcdump_profile" key that marks a saved
// profile (and tells it from a capture). Keys may be added within a
// version, none renamed.
const FormatVersion = 1

// Doc is the profile as `bcdump profile --format json` writes it and
// `bcdump diff --profile` reads it back. Durations are milliseconds, rates
// per second, sizes bytes. Percentiles are nearest-rank over log buckets
// (within about 3% of the exact value; below 32 exact).
type Doc struct {
	Version    int      `json:"bcdump_profile"`
	Sources    []string `json:"sources"`
	First      *string  `json:"first"`
	Last       *string  `json:"last"`
	DurationMs float64  `json:"duration_ms"`
	Flows      int      `json:"flows"`
	// InGameMs sums, over the flows, the time from the first
	// NewPlayerInGame or StateUpdate to the flow's last datagram: the
	// denominator of every rate.
	InGameMs float64   `json:"in_game_ms"`
	C2S      DirDoc    `json:"c2s"`
	S2C      DirDoc    `json:"s2c"`
	Pairs    []PairDoc `json:"pairs"`
	PerFlow  []FlowDoc `json:"per_flow,omitempty"`
}

// FlowDoc is one flow's profile (--per-flow).
type FlowDoc struct {
	Source     string    `json:"source,omitempty"`
	Client     string    `json:"client,omitempty"`
	Server     string    `json:"server,omitempty"`
	Other      bool      `json:"other,omitempty"` // flows beyond the limit, summed
	FlowsIn    int       `json:"flows_summed,omitempty"`
	First      string    `json:"first"`
	Last       string    `json:"last"`
	DurationMs float64   `json:"duration_ms"`
	InGameMs   float64   `json:"in_game_ms"`
	C2S        DirDoc    `json:"c2s"`
	S2C        DirDoc    `json:"s2c"`
	Pairs      []PairDoc `json:"pairs"`
}

// DirDoc is one direction.
type DirDoc struct {
	Datagrams    uint64         `json:"datagrams"`
	Bytes        uint64         `json:"bytes"`
	Opcodes      []OpcodeDoc    `json:"opcodes"`
	Shape        ShapeDoc       `json:"datagram_shape"`
	Acks         AckDoc         `json:"acks"`
	RTT          RTTDoc         `json:"rtt"`
	Retransmits  RetransmitDoc  `json:"retransmits"`
	StateUpdates StateUpdateDoc `json:"state_updates"`
	Duplicates   DuplicateDoc   `json:"duplicates"`
}

// OpcodeDoc is one opcode in one direction: first sends and reassembled
// messages (retransmitted copies and keepalive repeats left out).
type OpcodeDoc struct {
	Opcode        uint8   `json:"opcode"`
	Hex           string  `json:"opcode_hex"`
	Name          string  `json:"opcode_name"`
	Count         uint64  `json:"count"`
	InGameCount   uint64  `json:"in_game_count"`
	RatePerS      float64 `json:"rate_per_s"` // in_game_count / in_game time
	Bytes         uint64  `json:"bytes"`      // payload bytes, opcode included
	SizeP50       uint64  `json:"size_p50"`
	SizeMax       uint64  `json:"size_max"`
	ReliableShare float64 `json:"reliable_share"`
	Duplicates    uint64  `json:"duplicates"`
}

// ShapeDoc is how messages are bundled into datagrams.
type ShapeDoc struct {
	MessagesP50  uint64      `json:"messages_p50"`
	MessagesP95  uint64      `json:"messages_p95"`
	MessagesMax  uint64      `json:"messages_max"`
	MessagesMean float64     `json:"messages_mean"`
	BytesP50     uint64      `json:"bytes_p50"`
	BytesP95     uint64      `json:"bytes_p95"`
	BytesMax     uint64      `json:"bytes_max"`
	Distribution []BucketDoc `json:"messages_distribution"`
}

// BucketDoc counts datagrams with Messages (up to MessagesTo) messages.
type BucketDoc struct {
	Messages   uint64 `json:"messages"`
	MessagesTo uint64 `json:"messages_to,omitempty"` // set for a range
	Datagrams  uint64 `json:"datagrams"`
}

// RTTDoc is the round-trip time of the reliable messages sent this way:
// first send to the first matching ACK (transport.RTT, the figures `bcdump
// stats` prints per flow; pooled over flows for the totals and the flows
// beyond the limit).
type RTTDoc struct {
	Count   uint64   `json:"count"`
	P50Ms   *float64 `json:"p50_ms"` // null without samples
	P95Ms   *float64 `json:"p95_ms"`
	MaxMs   *float64 `json:"max_ms"`
	Sampled bool     `json:"sampled"` // percentiles over the first samples only
}

func rttDoc(r transport.RTT) RTTDoc {
	d := RTTDoc{Count: r.Count, Sampled: r.Sampled}
	if r.Count > 0 {
		d.P50Ms, d.P95Ms, d.MaxMs = ptr(float64(r.P50)/1e6), ptr(float64(r.P95)/1e6), ptr(float64(r.Max)/1e6)
	}
	return d
}

// AckDoc is the ACKs sent this way, for reliable messages sent the other.
// The delay is the other direction's RTT (RTTDoc).
type AckDoc struct {
	Acks            uint64   `json:"acks"`
	Matched         uint64   `json:"matched"`           // first ACKs of a message (with a delay)
	ReliableOther   uint64   `json:"reliable_other"`    // reliable first sends the other way (each fragment)
	AcksPerReliable *float64 `json:"acks_per_reliable"` // acks / reliable_other
	DelayP50Ms      *float64 `json:"delay_p50_ms"`
	DelayP95Ms      *float64 `json:"delay_p95_ms"`
	DelayMaxMs      *float64 `json:"delay_max_ms"`
}

// RetransmitDoc is the resending of reliable messages sent this way.
type RetransmitDoc struct {
	Reliable        uint64   `json:"reliable"` // first sends, each fragment counted
	Retransmissions uint64   `json:"retransmissions"`
	Ratio           *float64 `json:"ratio"` // retransmissions / reliable
	IntervalP50Ms   *float64 `json:"interval_p50_ms"`
	IntervalP95Ms   *float64 `json:"interval_p95_ms"`
	IntervalMaxMs   *float64 `json:"interval_max_ms"`
}

// StateUpdateDoc is the cadence and flag families of StateUpdate 0x1C.
type StateUpdateDoc struct {
	Count   uint64 `json:"count"`
	Objects int    `json:"objects"`
	// Cadence over every followed object: the rate is 1/interval, so
	// hz_p95 is the rate at the 5th percentile of the intervals (the
	// fast end) and interval_p95_ms the slow end.
	HzP50         *float64    `json:"hz_p50"`
	HzP95         *float64    `json:"hz_p95"`
	IntervalP50Ms *float64    `json:"interval_p50_ms"`
	IntervalP95Ms *float64    `json:"interval_p95_ms"`
	Untracked     uint64      `json:"untracked,omitempty"`
	Flags         []FlagDoc   `json:"flags"`     // by flags byte value
	FlagBits      []FlagDoc   `json:"flag_bits"` // by single flag bit
	PerObject     []ObjectDoc `json:"per_object"`
}

// FlagDoc counts updates with a flags value (or carrying a flag bit).
type FlagDoc struct {
	Flags string  `json:"flags"`
	Count uint64  `json:"count"`
	Share float64 `json:"share"`
}

// ObjectDoc is one object's cadence.
type ObjectDoc struct {
	Object string   `json:"object"`
	Count  uint64   `json:"count"`
	HzP50  *float64 `json:"hz_p50"`
	HzP95  *float64 `json:"hz_p95"`
}

// DuplicateDoc counts payloads identical to one sent the same way within
// the window, as a new message (not a transport retransmission).
type DuplicateDoc struct {
	Count         uint64   `json:"count"`
	WindowMs      float64  `json:"window_ms"`
	IntervalP50Ms *float64 `json:"interval_p50_ms"`
	IntervalMaxMs *float64 `json:"interval_max_ms"`
}

// PairDoc is one request/response pair.
type PairDoc struct {
	Pair       string   `json:"pair"`
	Request    string   `json:"request"`
	Response   string   `json:"response"`
	Requests   uint64   `json:"requests"`
	Answered   uint64   `json:"answered"`
	Unanswered uint64   `json:"unanswered"`
	Extra      uint64   `json:"extra_responses"`
	P50Ms      *float64 `json:"p50_ms"`
	MaxMs      *float64 `json:"max_ms"`
}

// round3 keeps three decimals, so documents are stable and readable.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func ptr(v float64) *float64 { v = round3(v); return &v }

func usMs(us uint64) float64 { return float64(us) / 1000 }

func nsMs(ns int64) float64 { return round3(float64(ns) / 1e6) }

// stamp writes times as read's JSON does: nine fractional digits, so they
// sort as text.
func stamp(ns int64) string { return time.Unix(0, ns).UTC().Format(render.TimeLayout) }

// Doc builds the profile document; perFlow adds a section per flow.
func (p *Profiler) Doc(perFlow bool) *Doc {
	d := &Doc{Version: FormatVersion, Sources: slices.Clone(p.sources), Pairs: []PairDoc{}}
	if d.Sources == nil {
		d.Sources = []string{}
	}
	if p.seen {
		f, l := stamp(p.first), stamp(p.end)
		d.First, d.Last, d.DurationMs = &f, &l, nsMs(p.end-p.first)
	}
	all := &flow{}
	flows := slices.Clone(p.flows)
	if p.other != nil {
		flows = append(flows, p.other)
	}
	for _, f := range flows {
		if f.game {
			d.Flows += f.flows
		}
		all.merge(f)
	}
	d.InGameMs = nsMs(all.inGameTotal())
	d.C2S, d.S2C, d.Pairs = all.dirDoc(0, p), all.dirDoc(1, p), all.pairDocs()
	if perFlow {
		d.PerFlow = []FlowDoc{}
		for _, f := range flows {
			if !f.game {
				continue
			}
			fd := FlowDoc{Source: f.source, Other: f.other, First: stamp(f.first), Last: stamp(f.last),
				DurationMs: nsMs(f.last - f.first), InGameMs: nsMs(f.inGameTotal()),
				C2S: f.dirDoc(0, p), S2C: f.dirDoc(1, p), Pairs: f.pairDocs()}
			if f.other {
				fd.FlowsIn = f.flows
			} else {
				fd.Client, fd.Server = f.client.String(), f.server.String()
			}
			d.PerFlow = append(d.PerFlow, fd)
		}
	}
	return d
}

// inGameTotal is the closed in-game time plus the open stretch, if any.
func (f *flow) inGameTotal() int64 {
	t := f.inGameNs
	if f.inGame {
		t += max(f.last-f.inGameFrom, 0)
	}
	return t
}

// merge adds o's measurements to f (for the totals). Only counters and
// histograms are merged; f must be a scratch flow.
func (f *flow) merge(o *flow) {
	f.inGameNs += o.inGameTotal()
	for di := range f.dir {
		a, b := &f.dir[di], &o.dir[di]
		a.datagrams += b.datagrams
		a.bytes += b.bytes
		a.msgs.merge(&b.msgs)
		a.dgBytes.merge(&b.dgBytes)
		for op, bo := range b.ops {
			if bo == nil {
				continue
			}
			ao := a.ops[op]
			if ao == nil {
				ao = &opStats{}
				a.ops[op] = ao
			}
			ao.count += bo.count
			ao.inGame += bo.inGame
			ao.bytes += bo.bytes
			ao.reliable += bo.reliable
			ao.dups += bo.dups
			ao.size.merge(&bo.size)
		}
		a.acks += b.acks
		a.acksMatched += b.acksMatched
		a.rtt.Merge(&b.rtt, transport.DefaultMaxRTTSamples)
		a.reliable += b.reliable
		a.retrans += b.retrans
		a.retransIv.merge(&b.retransIv)
		a.dupIv.merge(&b.dupIv)
		a.su.merge(&b.su)
	}
	for k := range f.pairs {
		a, b := &f.pairs[k], &o.pairs[k]
		a.requests += b.requests
		a.answered += b.answered
		a.unanswered += b.unanswered
		a.extra += b.extra
		a.lat.merge(&b.lat)
	}
	// Requests still waiting (a flow not yet finished) are unanswered so far.
	for k, on := range o.pend.on {
		if on {
			f.pairs[k].unanswered++
		}
	}
}

func (s *suStats) merge(o *suStats) {
	s.count += o.count
	s.untracked += o.untracked
	for i, n := range o.flags {
		s.flags[i] += n
	}
	for id, oc := range o.objs {
		if s.objs == nil {
			s.objs = make(map[uint32]*objCadence)
		}
		c := s.objs[id]
		if c == nil {
			c = &objCadence{}
			s.objs[id] = c
		}
		c.count += oc.count
		c.iv.merge(&oc.iv)
	}
}

func ratio(a, b uint64) *float64 {
	if b == 0 {
		return nil
	}
	return ptr(float64(a) / float64(b))
}

func share(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return round3(float64(a) / float64(b))
}

// msStats returns p50, p95 and max of a µs histogram in ms (nil without samples).
func msStats(h *hist) (p50, p95, mx *float64) {
	if h.n == 0 {
		return nil, nil, nil
	}
	return ptr(usMs(h.quantile(0.5))), ptr(usMs(h.quantile(0.95))), ptr(usMs(h.max))
}

// hz turns an interval in µs into a rate (nil for no interval).
func hz(us uint64) *float64 { return ptr(1e6 / float64(max(us, 1))) }

func (f *flow) dirDoc(di int, p *Profiler) DirDoc {
	s := &f.dir[di]
	d := DirDoc{Datagrams: s.datagrams, Bytes: s.bytes, Opcodes: []OpcodeDoc{}}
	inGame := float64(f.inGameTotal()) / 1e9
	for op, o := range s.ops {
		if o == nil {
			continue
		}
		info := game.Lookup(uint8(op))
		od := OpcodeDoc{Opcode: uint8(op), Hex: fmt.Sprintf("0x%02X", op), Name: info.Name,
			Count: o.count, InGameCount: o.inGame, Bytes: o.bytes,
			SizeP50: o.size.quantile(0.5), SizeMax: o.size.max,
			ReliableShare: share(o.reliable, o.count), Duplicates: o.dups}
		if inGame > 0 {
			od.RatePerS = round3(float64(o.inGame) / inGame)
		}
		d.Opcodes = append(d.Opcodes, od)
	}
	sh := &d.Shape
	sh.MessagesP50, sh.MessagesP95, sh.MessagesMax = s.msgs.quantile(0.5), s.msgs.quantile(0.95), s.msgs.max
	sh.MessagesMean = round3(s.msgs.mean())
	sh.BytesP50, sh.BytesP95, sh.BytesMax = s.dgBytes.quantile(0.5), s.dgBytes.quantile(0.95), s.dgBytes.max
	sh.Distribution = []BucketDoc{}
	s.msgs.each(func(lo, hi, n uint64) {
		b := BucketDoc{Messages: lo, Datagrams: n}
		if hi != lo {
			b.MessagesTo = hi
		}
		sh.Distribution = append(sh.Distribution, b)
	})

	a := &d.Acks
	a.Acks, a.Matched, a.ReliableOther = s.acks, s.acksMatched, f.dir[1-di].reliable
	a.AcksPerReliable = ratio(s.acks, a.ReliableOther)
	// The delay of the ACKs sent this way is the RTT of the other way's
	// messages: one figure (transport.RTT), two places in the document.
	d.RTT = rttDoc(s.rtt.Summary())
	other := rttDoc(f.dir[1-di].rtt.Summary())
	a.DelayP50Ms, a.DelayP95Ms, a.DelayMaxMs = other.P50Ms, other.P95Ms, other.MaxMs

	r := &d.Retransmits
	r.Reliable, r.Retransmissions, r.Ratio = s.reliable, s.retrans, ratio(s.retrans, s.reliable)
	r.IntervalP50Ms, r.IntervalP95Ms, r.IntervalMaxMs = msStats(&s.retransIv)

	d.StateUpdates = s.su.doc()

	du := &d.Duplicates
	du.WindowMs = nsMs(p.dupWindow)
	for _, o := range s.ops {
		if o != nil {
			du.Count += o.dups
		}
	}
	if s.dupIv.n > 0 {
		du.IntervalP50Ms, _, du.IntervalMaxMs = msStats(&s.dupIv)
	}
	return d
}

func (s *suStats) doc() StateUpdateDoc {
	d := StateUpdateDoc{Count: s.count, Objects: len(s.objs), Untracked: s.untracked,
		Flags: []FlagDoc{}, FlagBits: []FlagDoc{}, PerObject: []ObjectDoc{}}
	var all hist
	ids := make([]uint32, 0, len(s.objs))
	for id, c := range s.objs {
		all.merge(&c.iv)
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := s.objs[id]
		od := ObjectDoc{Object: fmt.Sprintf("0x%08X", id), Count: c.count}
		if c.iv.n > 0 {
			od.HzP50, od.HzP95 = hz(c.iv.quantile(0.5)), hz(c.iv.quantile(0.05))
		}
		d.PerObject = append(d.PerObject, od)
	}
	if all.n > 0 {
		d.HzP50, d.HzP95 = hz(all.quantile(0.5)), hz(all.quantile(0.05))
		d.IntervalP50Ms, d.IntervalP95Ms = ptr(usMs(all.quantile(0.5))), ptr(usMs(all.quantile(0.95)))
	}
	for v, n := range s.flags {
		if n > 0 {
			d.Flags = append(d.Flags, FlagDoc{Flags: fmt.Sprintf("0x%02X", v), Count: n, Share: share(n, s.count)})
		}
	}
	slices.SortStableFunc(d.Flags, func(a, b FlagDoc) int { return cmp.Compare(b.Count, a.Count) })
	for bit := 0; bit < 8; bit++ {
		var n uint64
		for v, c := range s.flags {
			if v&(1<<bit) != 0 {
				n += c
			}
		}
		if n > 0 {
			d.FlagBits = append(d.FlagBits, FlagDoc{Flags: fmt.Sprintf("0x%02X", 1<<bit), Count: n, Share: share(n, s.count)})
		}
	}
	return d
}

func (f *flow) pairDocs() []PairDoc {
	out := make([]PairDoc, 0, numPairs)
	for k := range f.pairs {
		ps, def := &f.pairs[k], &pairDefs[k]
		pd := PairDoc{Pair: def.key, Request: def.request, Response: def.response, Requests: ps.requests,
			Answered: ps.answered, Unanswered: ps.unanswered, Extra: ps.extra}
		if f.pend.waiting(k) {
			pd.Unanswered++ // still waiting: unanswered so far
		}
		if ps.lat.n > 0 {
			pd.P50Ms, pd.MaxMs = ptr(usMs(ps.lat.quantile(0.5))), ptr(usMs(ps.lat.max))
		}
		out = append(out, pd)
	}
	return out
}
