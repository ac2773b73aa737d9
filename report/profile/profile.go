// Package profile measures the behaviour of BC traffic, the way server
// reimplementers compare theirs with stock: per direction the opcode counts
// and rates, message bundling, ACK and retransmit behaviour, the latency of
// every request/response pair the protocol defines, StateUpdate cadence
// and flag families, and duplicate payloads; and it compares two such
// profiles with tolerances (Compare), the CI gate behind
// `bcdump diff --profile`.
//
// A Profiler has the shape of report.Stats: feed it every datagram of a
// capture (Datagram), then the end events (Finish), capture after capture.
// Its memory does not grow with capture length: counters live in fixed
// arrays, percentiles in bounded log histograms (hist.go), RTT samples in
// transport.RTTSamples of at most transport.DefaultMaxRTTSamples per flow
// and direction (16 KiB, reserved on the first), and the flows, objects
// and payloads it remembers are capped.
//
// It imports report/stats and report/render, and dissect below them
// (dissect/game for the opcodes' constants).
package profile

import (
	"encoding/binary"
	"net/netip"
	"time"

	"github.com/bcdump/bcdump/dissect"
	"github.com/bcdump/bcdump/dissect/game"
	"github.com/bcdump/bcdump/transport"
)

// Limits that bound a Profiler's memory.
const (
	// MaxFlows is how many flows are profiled one by one; traffic of later
	// flows is summed into one "other flows" record.
	MaxFlows = 256
	// MaxObjects is how many objects' StateUpdate cadence is followed per
	// flow and direction; later objects count in the flag families only.
	MaxObjects = 64
	// dupSlots is the size of the table of recent payload hashes per flow
	// and direction that finds duplicates.
	dupSlots = 256
	dupProbe = 8 // slots searched per payload
	// sentSlots is the size of the table of last send times of reliable
	// messages per flow and direction (retransmit intervals).
	sentSlots = 256
	// maxIndexed bounds the address index of one capture.
	maxIndexed = 16 * MaxFlows
)

// DefaultDupWindow is how far apart two identical payloads may be to count
// as a duplicate.
const DefaultDupWindow = 10 * time.Second

// Options configure a Profiler.
type Options struct {
	// DupWindow is the largest gap between identical payloads that counts
	// as a duplicate; 0 means DefaultDupWindow.
	DupWindow time.Duration
}

// Profiler collects a profile. The zero value is not ready; use New.
type Profiler struct {
	dupWindow int64

	source  string
	sources []string
	flows   []*flow           // in order of first appearance, at most MaxFlows
	index   map[flowKey]*flow // the current capture's flows
	other   *flow             // traffic of flows beyond MaxFlows
	recent  [4]recentFlow     // the flows looked up last
	next    int               // the entry of recent replaced next

	first, end int64 // ns since the epoch, over all captures
	seen       bool
}

type flowKey struct{ client, server netip.AddrPort }

type recentFlow struct {
	key flowKey
	f   *flow
}

// New returns an empty Profiler.
func New(opt Options) *Profiler {
	w := opt.DupWindow
	if w <= 0 {
		w = DefaultDupWindow
	}
	return &Profiler{dupWindow: int64(w), index: make(map[flowKey]*flow)}
}

// SetSource names the capture the next datagrams come from (shown per flow
// and in the list of sources). Call it before each capture.
func (p *Profiler) SetSource(name string) {
	p.source = name
	p.sources = append(p.sources, name)
}

// flow is everything measured about one client talking to one server.
type flow struct {
	source         string
	client, server netip.AddrPort
	other          bool // sums the flows beyond MaxFlows
	flows          int  // flows summed (1 unless other)
	game           bool // carried game datagrams (not only GameSpy)

	first, last int64
	inGame      bool
	inGameFrom  int64
	inGameNs    int64 // closed in-game time (set when the flow ends)

	dir   [2]dirState
	pairs [numPairs]pairStats
	pend  pending
}

// dirState is one direction of a flow (0 c2s, 1 s2c).
type dirState struct {
	datagrams, bytes uint64
	msgs             hist // transport messages per game datagram
	dgBytes          hist // UDP payload bytes per game datagram

	ops [256]*opStats // by opcode, allocated when first seen

	acks, acksMatched uint64
	// rtt times this direction's reliable messages, first send to the
	// first matching ACK the other way (transport.RTT).
	rtt transport.RTTSamples

	reliable, retrans uint64 // reliable first sends (each fragment), resent copies
	retransIv         hist   // µs since the previous send of the same message
	sent              *[sentSlots]sentSlot

	dups  *[dupSlots]dupSlot
	dupIv hist // µs between identical payloads

	su suStats
}

type opStats struct {
	count, inGame, bytes, reliable, dups uint64
	size                                 hist
}

type sentSlot struct {
	key  uint32 // channel, fragment, index and seq; 0 = empty
	time int64
}

type dupSlot struct {
	hash uint64
	time int64
}

// suStats is StateUpdate 0x1C cadence and flags.
type suStats struct {
	count     uint64
	flags     [256]uint64
	objs      map[uint32]*objCadence
	untracked uint64 // updates of objects beyond MaxObjects
}

type objCadence struct {
	last  int64
	count uint64
	iv    hist // µs between updates of the object
}

func dirIndex(d dissect.Dir) int {
	if d == dissect.S2C {
		return 1
	}
	return 0
}

// Datagram measures one datagram. It does not allocate once its flow,
// opcodes and objects have been seen.
func (p *Profiler) Datagram(d *dissect.Datagram) error {
	now := d.Time.UnixNano()
	if !p.seen || now < p.first {
		p.first = now
	}
	if !p.seen || now > p.end {
		p.end = now
	}
	p.seen = true
	f := p.flowOf(d, now)
	if now > f.last {
		f.last = now
	}
	di := dirIndex(d.Dir)
	if d.Kind == dissect.KindGameSpy {
		if di == 0 {
			f.request(pairGameSpy, now, 0)
		} else {
			f.response(pairGameSpy, now, 0)
		}
		return nil
	}
	f.game = true
	if di == 0 && d.Transport.PeerID == 0xFF && !f.pend.waiting(pairConnect) {
		// A client without an id sends its connect request (and the
		// retries, which are not new requests) from 0xFF; read the byte
		// rather than the message, which a nonstock client may garble.
		f.request(pairConnect, now, 0)
	}
	ds := &f.dir[di]
	ds.datagrams++
	ds.bytes += uint64(len(d.Raw))
	ds.dgBytes.add(uint64(len(d.Raw)))
	ds.msgs.add(uint64(len(d.Transport.Messages)))
	for i := range d.Transport.Messages {
		if i >= len(d.Msgs) {
			break
		}
		p.message(f, di, now, &d.Transport.Messages[i], &d.Msgs[i])
	}
	return nil
}

func (p *Profiler) flowOf(d *dissect.Datagram, now int64) *flow {
	k := flowKey{d.Src, d.Dst}
	if d.Dir == dissect.S2C {
		k = flowKey{d.Dst, d.Src}
	}
	for i := range p.recent {
		if r := &p.recent[i]; r.f != nil && r.key == k {
			return r.f
		}
	}
	f := p.index[k]
	if f == nil {
		if len(p.flows) < MaxFlows {
			f = &flow{source: p.source, client: k.client, server: k.server, flows: 1, first: now, last: now}
			p.flows = append(p.flows, f)
			p.index[k] = f
		} else {
			if p.other == nil {
				p.other = &flow{other: true, first: now, last: now}
			}
			f = p.other
			if len(p.index) < maxIndexed {
				p.index[k] = f // counted once; past maxIndexed flows are not told apart
				f.flows++
			}
		}
	}
	p.recent[p.next] = recentFlow{k, f}
	p.next = (p.next + 1) % len(p.recent)
	return f
}

// message measures transport message m (dm what the dissector made of it).
func (p *Profiler) message(f *flow, di int, now int64, m *transport.Message, dm *dissect.Message) {
	ds := &f.dir[di]
	t := &dm.Track
	if m.Type == transport.TypeACK {
		ds.acks++
		if t.HasRTT {
			ds.acksMatched++
			// The ACK times a message of the other direction. Its
			// samples take their whole room at once (16 KiB), so the
			// hot path stays free of allocations once a flow is known.
			r := &f.dir[1-di].rtt
			if r.Cap() == 0 {
				r.Reserve(transport.DefaultMaxRTTSamples)
			}
			r.Add(t.RTT, transport.DefaultMaxRTTSamples)
		}
		return
	}
	if m.Reliable && !t.Keepalive {
		key := uint32(m.Seq) | uint32(m.FragIdx)<<16 | 1<<24
		if m.Fragment {
			key |= 1 << 25
		}
		if m.Type != transport.TypeData {
			key |= 1 << 26
		}
		if ds.sent == nil {
			ds.sent = new([sentSlots]sentSlot)
		}
		s := &ds.sent[(uint32(m.Seq)^uint32(m.FragIdx)*31^key>>26)%sentSlots]
		if t.Retransmit {
			ds.retrans++
			if s.key == key {
				ds.retransIv.add(uint64(max(now-s.time, 0) / 1000))
			}
		} else {
			ds.reliable++
		}
		s.key, s.time = key, now
	}
	if t.Retransmit || t.Keepalive {
		return
	}
	if m.Type != transport.TypeData {
		p.control(f, di, now, m)
		return
	}
	if !m.Fragment && dm.Opcode != nil {
		p.payload(f, di, now, dm.Bytes, m.Reliable)
	}
	if r := dm.Reassembled; r != nil && r.Opcode != nil {
		p.payload(f, di, now, r.Bytes, true)
	}
}

// control handles the first send of a low-type message.
func (p *Profiler) control(f *flow, di int, now int64, m *transport.Message) {
	switch m.Type {
	case transport.TypeConnect:
		if di == 1 {
			f.response(pairConnect, now, 0)
		}
	case transport.TypePeerInfo:
		if di == 0 {
			f.request(pairPeerInfo, now, 0)
		} else {
			f.response(pairPeerInfo, now, 0)
		}
	}
}

// payload measures one game message: an unfragmented first send or a
// reassembled payload.
func (p *Profiler) payload(f *flow, di int, now int64, b []byte, reliable bool) {
	if len(b) == 0 {
		return
	}
	ds := &f.dir[di]
	op := b[0]
	if !f.inGame && (op == game.CodeNewPlayerInGame && di == 0 || op == game.CodeStateUpdate) {
		f.inGame, f.inGameFrom = true, now
	}
	o := ds.ops[op]
	if o == nil {
		o = &opStats{}
		ds.ops[op] = o
	}
	o.count++
	if f.inGame {
		o.inGame++
	}
	o.bytes += uint64(len(b))
	o.size.add(uint64(len(b)))
	if reliable {
		o.reliable++
	}
	if reliable {
		if iv, dup := p.dup(ds, now, b); dup {
			o.dups++
			ds.dupIv.add(uint64(iv / 1000))
		}
	}
	if op == game.CodeStateUpdate {
		ds.su.update(now, b)
	}
	f.gameMessage(di, now, b)
}

// dup remembers b's hash and reports whether an identical payload went the
// same way within the window, and how long ago.
func (p *Profiler) dup(ds *dirState, now int64, b []byte) (int64, bool) {
	if ds.dups == nil {
		ds.dups = new([dupSlots]dupSlot)
	}
	h := hashBytes(b) | 1 // 0 marks an empty slot
	base := h % dupSlots
	victim := &ds.dups[base]
	for k := uint64(0); k < dupProbe; k++ {
		s := &ds.dups[(base+k)%dupSlots]
		if s.hash == h {
			iv := now - s.time
			s.time = now
			return iv, iv <= p.dupWindow && iv >= 0
		}
		if s.time < victim.time || s.hash == 0 {
			victim = s // the empty or least recently seen slot is replaced
		}
	}
	victim.hash, victim.time = h, now
	return 0, false
}

// hashBytes is a fast deterministic 64-bit hash (8 bytes per multiply),
// so duplicate counts do not depend on a random seed.
func hashBytes(b []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(b)) * m
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * m
		h ^= h >> 29
		b = b[8:]
	}
	var tail uint64
	for i, c := range b {
		tail |= uint64(c) << (8 * i)
	}
	h = (h ^ tail) * m
	h ^= h >> 32
	return h
}

// update measures one StateUpdate payload: object id at 1, flags at 9.
func (s *suStats) update(now int64, b []byte) {
	if len(b) < 10 {
		return
	}
	s.count++
	s.flags[b[9]]++
	obj := binary.LittleEndian.Uint32(b[1:5])
	c := s.objs[obj]
	if c == nil {
		if len(s.objs) >= MaxObjects {
			s.untracked++
			return
		}
		if s.objs == nil {
			s.objs = make(map[uint32]*objCadence)
		}
		c = &objCadence{}
		s.objs[obj] = c
	} else {
		c.iv.add(uint64(max(now-c.last, 0) / 1000))
	}
	c.last = now
	c.count++
}

// Events ignores events found mid-capture: the profile measures traffic,
// not anomalies.
func (p *Profiler) Events([]dissect.Event) error { return nil }

// Finish ends the current capture: requests still waiting count as
// unanswered and its flows stop being matched by address (the next capture
// starts new ones). end is not needed; it is taken for the Reporter shape.
func (p *Profiler) Finish(end []dissect.Event) error {
	for _, f := range p.index {
		f.close()
	}
	if p.other != nil {
		p.other.close()
	}
	clear(p.index)
	p.recent = [len(p.recent)]recentFlow{}
	return nil
}

// close ends a flow's capture.
func (f *flow) close() {
	if f.inGame {
		f.inGameNs += max(f.last-f.inGameFrom, 0)
		f.inGame = false
	}
	f.pend.closeAll(f)
}
