package transport

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"net/netip"
	"slices"
	"time"
	"unsafe"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Dir is the direction of a datagram within a flow.
type Dir uint8

const (
	C2S Dir = iota // client to game server
	S2C            // game server to client
)

func (d Dir) String() string {
	if d == S2C {
		return "s2c"
	}
	return "c2s"
}

func (d Dir) other() Dir { return d ^ 1 }

// FlowKey identifies a flow: one client endpoint and the game server endpoint
// it talks to. It is a comparable value, so it keys maps without allocating.
type FlowKey struct {
	Client, Server netip.AddrPort
}

// FlowID numbers flows in order of their first datagram, from 1. A flow that
// ends (idle, evicted) and comes back gets a new id.
type FlowID uint32

// Packet is what the caller knows about a datagram besides its decoded
// contents: capture frame number and time, the endpoints and which of them
// sent it (the caller decides which side is the server), and its UDP payload
// size in bytes.
type Packet struct {
	Frame          int
	Time           time.Time
	Client, Server netip.AddrPort
	Dir            Dir
	Size           int
	// KeyHash, when not 0, is KeyHash(Client, Server), computed beforehand
	// off the in-order path (the parallel pipeline does it while decoding).
	KeyHash uint64
}

// Tracker reconstructs reliable delivery, fragment reassembly and peer
// identity per flow. Feed it every decoded game datagram in capture order with
// Track; call Events after each Track (or whenever convenient) to collect
// anomalies about earlier traffic, and Finish at the end of the capture.
//
// All timing is capture time: the tracker never reads the wall clock. Time
// only moves forward (a datagram older than the newest seen is tracked at its
// own time, but does not move the tracker's clock back).
//
// Anomalies, and when they fire:
//
//   - retransmit (note, on the datagram): a reliable message with the same
//     direction, channel, seq and fragment index as an earlier one.
//     A byte-identical repeat of a type 0x00 (PeerInfo) message is a
//     keepalive (MsgInfo.Keepalive), not a retransmission: periodic
//     keepalives re-send the peer record (protocol-facts 4.2).
//   - retransmit-differs (error, on the datagram): such a repeat whose bytes
//     (flags_len, fragment total, payload) differ from the first send, or
//     whose fragment bit differs.
//   - seq-reuse (warn, on the datagram): a reliable message of another type
//     than the one first sent under that seq (OpenBC keepalives reuse low
//     seq 0 of its Connect reply). Not a retransmission; the earlier message
//     is finished and the new one tracked in its place.
//   - ack-unknown (note, on the datagram): an ACK for a seq nothing was sent
//     with in that direction and channel (normal when the capture starts
//     mid-session or missed the message).
//   - ack-mismatch (warn, event per message): ACKs for the message's seq were
//     seen, but with the wrong fragment status or an index the message does
//     not have. Replaces retransmit-unacked for that message.
//   - retransmit-unacked (warn, event per message): the message (or some of
//     its fragments) was retransmitted and no matching ACK was ever seen.
//   - unacked-fragment-retransmit (warn, event per message): a fragmented
//     message whose every fragment got its matching fragment ACK, yet
//     fragments kept being resent after their ACK (seed 001). Reported once
//     when the message's tracking ends, so its counts and span are final.
//   - fragment-incomplete (warn, event): a reassembly still open at the end of
//     its flow or older than ReassemblyTimeout; names the missing indices.
//   - reassembly-overflow (warn, on the datagram that needed the room): an
//     older reassembly was dropped to respect MaxOpenReassemblies or
//     MaxReassemblyBytes (or the new fragment itself could not be kept).
//   - fragment-bad-total (error, on the datagram): fragment 0 announces total
//     0, or a fragment index is at or past the total; not reassembled.
//   - fragment-unreliable (warn, on the datagram): a fragment without the
//     reliable bit has no seq to key it by; not reassembled.
//   - peer-timeout (warn, event): a connected peer (client with a known peer
//     id that has not disconnected; or the server towards it) sent nothing
//     for longer than PeerTimeout, found when capture time passed the limit
//     or at the end of the flow. Once per silence.
//   - peer-id-mismatch (warn, on the datagram): byte 0 is not the id assigned
//     to (or first seen from) that address; once per run of the same wrong id.
//   - tracking-limit (note): a flow was evicted because the state of all
//     active flows reached MaxFlowBytes (once per evicted flow), or an
//     unacked message left a full window (MaxTrackedMessages/Fragments;
//     once per flow, direction and channel).
//
// A flow ends when it has been idle for FlowIdle (capture time), at Finish,
// or when evicted; a Disconnect ends its session, not the flow. A message's
// tracking ends when it is evicted from its window, when a new Connect
// request restarts the session, when its flow ends, or at Finish.
type Tracker struct {
	cfg       Config
	now       int64 // newest capture time seen, ns since the epoch
	nextSweep int64
	started   bool

	flows  map[FlowKey]*flow        // the active flows
	cache  *[flowCacheSets]cacheSet // 2-way set-associative by cacheSlot, in front of the map
	last   *flow                    // the flow of the previous datagram: skips the map most of the time
	lru    flowList                 // active flows, most recently active first
	timers flowHeap                 // active flows by due time
	batch  []*flow                  // scratch for sweep
	pieces []piece                  // unused part of the chunk newPieces hands out

	whyIdle, whyReasm string // whyText's texts, built once
	bytes             int    // estimated state of the active flows
	nextID            FlowID
	spare             []*flow // finished flows kept for reuse
	rpool             []*reassembly

	done     []FlowStats
	other    FlowStats
	hasOther bool
	events   []Event
	evOut    []Event
	out      []byte // reassembled payloads of the current datagram
	hash     maphash.Hash
	scratch  MsgInfo
	canoms   []anomaly.Anomaly // anomalies of the current datagram
}

// NewTracker returns a tracker with cfg's limits (zero fields: defaults).
func NewTracker(cfg Config) *Tracker {
	t := &Tracker{cfg: cfg.withDefaults(), flows: make(map[FlowKey]*flow), cache: new([flowCacheSets]cacheSet)}
	t.hash.SetSeed(maphash.MakeSeed())
	return t
}

// Config returns the limits in use.
func (t *Tracker) Config() Config { return t.cfg }

// flow is the state of one client/server pair.
type flow struct {
	// With thousands of flows most datagrams find their flow out of the
	// CPU cache, so what every datagram reads or writes is packed into
	// lines 0-2 and 4 (64 B each; TestFlowLayout), what size reads besides
	// into line 3.
	key FlowKey // line 0

	first    int64 // line 1
	last     int64
	touched  int64 // capture time f last moved to the front of Tracker.lru
	lastDir  [2]int64
	lastFr   [2]int
	seenDir  [2]bool
	timedOut [2]bool
	badID    [2]int16

	peerID      uint8 // line 2
	hasPeer     bool
	serverID    uint8
	hasServer   bool
	connected   bool   // peer id known and no Disconnect since
	established bool   // the client sent under its id: a new Connect starts a new session
	nAnoms      uint16 // len(st.anoms), for size
	rbytes      int
	sized       uint64 // sizeKey() when bytes was counted
	due         int64  // filed under this time in Tracker.timers (never later than due())
	reasm       []*reassembly
	chBytes     int // the channels' share of size(), kept up to date by their changes

	// state is what a layer above keeps about this flow (Flow.State); it
	// is dropped with the flow.
	state   any // line 3
	name    string
	nameRaw []byte
	bytes   int // size() when last counted in Tracker.bytes

	st flowCounters // from line 4

	ch [2][2]channel // [Dir][Channel]

	id         FlowID
	hidx       int   // index in Tracker.timers
	prev, next *flow // in Tracker.lru
	peerFrom   string
	cuts       cutSeqs
}

// Flow is a handle on the flow of the datagram Track saw last, for the
// layers above the transport: their per-flow state lives in the flow and
// their anomalies count in its statistics, so one lifecycle (creation,
// idle timeout, eviction at MaxFlowBytes, Finish) and one set of limits govern
// everything known about a flow. A Flow is valid until the next call of
// Track, Advance or Finish.
type Flow struct{ f *flow }

// Current returns the flow of the last datagram tracked (the zero Flow
// before the first, or after that flow ended).
func (t *Tracker) Current() Flow { return Flow{t.last} }

// Valid reports whether fl refers to a flow.
func (fl Flow) Valid() bool { return fl.f != nil }

// Key returns the flow's endpoints.
func (fl Flow) Key() FlowKey { return fl.f.key }

// State returns what SetState stored for this flow (nil for a new flow).
func (fl Flow) State() any { return fl.f.state }

// SetState keeps v with the flow until it ends. If v is a StateSizer, its
// size counts towards MaxFlowBytes from the flow's next datagram on,
// updated as the flow's transport state grows.
func (fl Flow) SetState(v any) {
	fl.f.state = v
	fl.f.sized = ^uint64(0) // recount on the next datagram
}

// Count adds an anomaly a layer above found (a malformed payload, a
// checksum finding) to the flow's per-code statistics.
func (fl Flow) Count(code anomaly.Code) { fl.f.count(code) }

// Track advances the tracker by one decoded datagram and fills info[i] for
// each dg.Messages[i] (info must be at least that long; messages beyond it
// are tracked but not described). Anomalies about this datagram's messages
// are appended to anoms and the result returned. Info's Reassembled slices
// stay valid until the next call. Track does not keep dg.
//
// In the steady state Track does not allocate; reporting an anomaly does.
func (t *Tracker) Track(p Packet, dg *Datagram, info []MsgInfo, anoms []anomaly.Anomaly) []anomaly.Anomaly {
	ts := p.Time.UnixNano()
	d := p.Dir & 1
	t.canoms = anoms
	t.out = t.out[:0]
	t.advance(ts)
	h := p.KeyHash
	if h == 0 {
		h = KeyHash(p.Client, p.Server)
	}
	f := t.lookup(FlowKey{p.Client, p.Server}, h, ts)

	f.first, f.last = min(f.first, ts), max(f.last, ts)
	f.lastDir[d] = max(f.lastDir[d], ts)
	f.lastFr[d] = p.Frame
	f.seenDir[d] = true
	f.timedOut[d] = false
	f.st.datagrams[d]++
	f.st.bytes[d] += uint64(max(p.Size, 0))
	for i := range dg.Anomalies {
		f.count(dg.Anomalies[i].Code)
	}
	if p.Size > dg.Missing || len(dg.Messages) > 0 {
		t.checkPeerID(f, d, dg.PeerID)
	}

	for i := range dg.Messages {
		m := &dg.Messages[i]
		mi := &t.scratch
		if i < len(info) {
			mi = &info[i]
		}
		*mi = MsgInfo{}
		if m.Type == TypeACK {
			t.ack(f, d, p.Frame, ts, i, m, mi)
			continue
		}
		t.control(f, d, dg.PeerID, m)
		switch {
		case m.Reliable:
			t.send(f, d, p.Frame, ts, i, m, mi)
		case m.Fragment:
			t.msgAnom(f, i, m, anomaly.FragmentUnreliable,
				"fragment %d without the reliable bit has no seq to reassemble by", m.FragIdx)
		}
	}
	if dg.Missing > 0 {
		t.cut(f, d, dg)
	}
	t.schedule(f)
	t.resize(f)
	anoms, t.canoms = t.canoms, nil
	return anoms
}

// Events returns the anomalies found since the last call that are not about
// the datagram just tracked (message summaries, timeouts, evictions), in the
// order they were found; each batch found together (one sweep, one ended
// session) is sorted by the frame it is about. The slice is valid until the
// next call of Events.
func (t *Tracker) Events() []Event {
	t.evOut, t.events = t.events, t.evOut[:0]
	return t.evOut
}

// Finish ends the capture: every flow is finished (open reassemblies,
// message summaries, peer timeouts up to the newest capture time) and all
// pending events are returned. The tracker stays usable; Flows then lists
// every flow as finished.
func (t *Tracker) Finish() []Event {
	mark := len(t.events)
	for _, f := range t.byID() {
		t.checkTimeouts(f)
		t.finishFlow(f, "at the end of the capture")
	}
	t.sortEvents(mark)
	ev := slices.Clone(t.events)
	t.events = t.events[:0]
	return ev
}

// Advance moves capture time to now without a packet, so timeouts (silent
// peers, stale reassemblies, idle flows) fire while the wire is quiet. A
// live capture calls it on a timer with the time the next packet would be
// stamped with; the tracker itself never reads a clock. Time never goes
// backwards. Events found are returned by Events.
func (t *Tracker) Advance(now time.Time) {
	if t.started {
		t.advance(now.UnixNano())
	}
}

// advance moves capture time forward and runs the periodic sweep.
func (t *Tracker) advance(ts int64) {
	if !t.started || ts > t.now {
		t.now = ts
		t.started = true
	}
	if t.now < t.nextSweep {
		return
	}
	t.nextSweep = t.now + int64(sweepInterval)
	t.sweep()
}

// sortEvents orders the events appended since mark by the frame they concern.
func (t *Tracker) sortEvents(mark int) {
	slices.SortStableFunc(t.events[mark:], func(a, b Event) int {
		return cmp.Or(cmp.Compare(a.Frame, b.Frame), cmp.Compare(a.Msg, b.Msg))
	})
}

// Prefetch starts loading the cache lines Track reads first of the flow
// filed under hash h (KeyHash), when the flow cache holds it, without
// waiting for them: with thousands of flows the loads then overlap other
// work instead of stalling Track. The serial loop calls it before
// deciphering a datagram, the pipeline's track step for the datagram after
// the one it tracks. It changes nothing, and must not run while another
// goroutine tracks (it reads the flow cache).
func (t *Tracker) Prefetch(h uint64) {
	slot, tag := slotOf(h)
	for _, e := range &t.cache[slot] {
		if e.f != nil && e.tag == tag {
			prefetchFlow(unsafe.Pointer(e.f))
			return
		}
	}
}

// lookup returns the flow for key, creating it (and evicting the least
// recently active flows to make room within MaxFlowBytes).
func (t *Tracker) lookup(key FlowKey, h uint64, ts int64) *flow {
	if f := t.last; f != nil && f.key == key {
		t.lru.touch(f, ts)
		return f
	}
	slot, tag := slotOf(h)
	set := &t.cache[slot]
	// The tags spare reading other flows' keys (a cache miss each).
	for w := range set {
		if f := set[w].f; f != nil && set[w].tag == tag && f.key == key {
			t.last = f
			t.lru.touch(f, ts)
			return f
		}
	}
	if f := t.flows[key]; f != nil {
		t.last = f
		set.put(tag, f)
		t.lru.touch(f, ts)
		return f
	}
	for t.lru.tail != nil && t.bytes+flowBaseBytes > t.cfg.MaxFlowBytes {
		t.evictFlow(t.lru.tail)
	}
	var f *flow
	if n := len(t.spare); n > 0 {
		f, t.spare = t.spare[n-1], t.spare[:n-1]
	} else {
		f = new(flow)
	}
	f.init(key, ts)
	t.nextID++
	f.id = t.nextID
	t.flows[key] = f
	t.lru.pushFront(f)
	f.touched = ts
	f.due = t.due(f)
	t.timers.push(f)
	f.bytes, f.sized = f.size(), f.sizeKey()
	t.bytes += f.bytes
	t.last = f
	t.cache[slot].put(tag, f) // evictFlow may have cleared a way
	return f
}

// init resets a new or recycled flow, keeping allocated buffers.
func (f *flow) init(key FlowKey, ts int64) {
	ch := f.ch
	raw := f.nameRaw[:0]
	reasm := f.reasm[:0]
	st := f.st.recycle()
	*f = flow{key: key, first: ts, last: ts, ch: ch, nameRaw: raw, reasm: reasm, st: st, badID: [2]int16{-1, -1}}
	for d := range f.ch {
		for c := range f.ch[d] {
			f.ch[d][c].reset()
			f.chBytes += f.ch[d][c].size()
		}
	}
}

// finishFlow ends a flow: open reassemblies, message summaries, stats record.
// why completes "reassembly ... incomplete <why>".
func (t *Tracker) finishFlow(f *flow, why string) {
	t.endSession(f, why)
	t.storeStats(f)
	delete(t.flows, f.key)
	if t.last == f {
		t.last = nil
	}
	slot, _ := cacheSlot(&f.key)
	for w := range t.cache[slot] {
		if t.cache[slot][w].f == f {
			t.cache[slot][w] = cacheEntry{}
		}
	}
	t.lru.unlink(f)
	t.timers.remove(f)
	t.bytes -= f.bytes
	f.bytes = 0
	f.state = nil
	if len(t.spare) < 16 {
		t.spare = append(t.spare, f)
	}
}

// endSession finishes every tracked message and open reassembly of f.
func (t *Tracker) endSession(f *flow, why string) {
	mark := len(t.events)
	defer t.sortEvents(mark)
	for len(f.reasm) > 0 {
		t.reasmIncomplete(f, 0, why)
	}
	for d := range f.ch {
		for c := range f.ch[d] {
			ch := &f.ch[d][c]
			for ch.tail >= 0 {
				t.finishMsg(f, Dir(d), Channel(c), ch.tail)
			}
			n := ch.size()
			ch.reset()
			f.chBytes += ch.size() - n
		}
	}
	f.cuts = cutSeqs{}
}

// checkTimeouts reports silent peers and expires old reassemblies.
func (t *Tracker) checkTimeouts(f *flow) {
	for i := 0; i < len(f.reasm); {
		if r := f.reasm[i]; t.now-r.first > int64(t.cfg.ReassemblyTimeout) {
			t.reasmIncomplete(f, i, t.whyText(&t.whyReasm, "after %s (reassembly timeout)", t.cfg.ReassemblyTimeout))
			continue
		}
		i++
	}
	if !f.connected {
		return
	}
	for d := C2S; d <= S2C; d++ {
		if !f.seenDir[d] || f.timedOut[d] || t.now-f.lastDir[d] <= int64(t.cfg.PeerTimeout) {
			continue
		}
		f.timedOut[d] = true
		who := "client"
		if d == S2C {
			who = "server"
		}
		// Typed arguments: a peer may fall silent many times per flow.
		format := "%s %s sent nothing for more than the %s peer timeout after frame %d"
		args := [5]anomaly.Arg{anomaly.S(who), anomaly.AddrPort(t.endpoint(f, d)), anomaly.D(t.cfg.PeerTimeout), anomaly.I(f.lastFr[d])}
		n := 4
		if id, ok := f.peerNum(d); ok {
			format = "%s %s (peer %d) sent nothing for more than the %s peer timeout after frame %d"
			args, n = [5]anomaly.Arg{args[0], args[1], anomaly.U(id), args[2], args[3]}, 5
		}
		t.events = append(t.events, Event{
			Flow: f.id, Client: f.key.Client, Server: f.key.Server, Frame: f.lastFr[d],
			Time:    time.Unix(0, f.lastDir[d]+int64(t.cfg.PeerTimeout)).UTC(),
			Anomaly: anomaly.Newf(anomaly.PeerTimeout, -1, anomaly.NoOffset, format, args[:n]...),
		})
		f.count(anomaly.PeerTimeout)
	}
}

func (t *Tracker) endpoint(f *flow, d Dir) netip.AddrPort {
	if d == S2C {
		return f.key.Server
	}
	return f.key.Client
}

// peerNum is the peer id peerLabel shows, if any.
func (f *flow) peerNum(d Dir) (uint8, bool) {
	switch {
	case d == C2S && f.hasPeer:
		return f.peerID, true
	case d == S2C && f.hasServer:
		return f.serverID, true
	}
	return 0, false
}

// checkPeerID learns the sender's id from byte 0 and flags a changed id.
func (t *Tracker) checkPeerID(f *flow, d Dir, id uint8) {
	var known *uint8
	switch {
	case d == C2S && id == 0xFF:
		return // a client without an id yet
	case d == C2S:
		if !f.hasPeer {
			f.setPeer(id, "byte0")
		}
		known = &f.peerID
	default:
		if !f.hasServer {
			f.serverID, f.hasServer = id, true
		}
		known = &f.serverID
	}
	if id == *known {
		f.badID[d] = -1
		if d == C2S {
			f.established = true
		}
		return
	}
	f.st.badIDs[d]++
	if f.badID[d] == int16(id) {
		f.count(anomaly.PeerIDMismatch)
		return
	}
	f.badID[d] = int16(id)
	t.msgAnom(f, -1, nil, anomaly.PeerIDMismatch,
		"byte 0 is peer id %d, but %s has id %d (from %s); later datagrams with id %d are counted, not reported",
		id, t.endpoint(f, d), *known, f.idSource(d), id)
}

func (f *flow) idSource(d Dir) string {
	if d == C2S && f.peerFrom == "connect" {
		return "the host's Connect reply"
	}
	return "its first datagram"
}

func (f *flow) setPeer(id uint8, from string) {
	f.peerID, f.hasPeer, f.peerFrom = id, true, from
	f.connected = true
}

// control learns peer ids, names and disconnects from the low-type messages.
func (t *Tracker) control(f *flow, d Dir, byte0 uint8, m *Message) {
	switch m.Type {
	case TypeConnect:
		if d == C2S && byte0 == 0xFF {
			if f.established {
				// The client starts over: a new session with fresh counters.
				t.endSession(f, "when the client reconnected")
				f.hasPeer, f.peerFrom, f.connected, f.established = false, "", false, false
				f.badID[C2S] = -1
			}
			return
		}
		if d == S2C {
			if id, err := ParseConnectAssign(m.Payload); err == nil {
				f.setPeer(id, "connect")
				f.badID[C2S] = -1
			}
		}
	case TypePeerInfo:
		p := m.Payload
		if len(p) < 5 || (d == S2C && (!f.hasPeer || p[0] != f.peerID)) {
			return
		}
		if string(p[5:]) == string(f.nameRaw) { // no allocation for the comparison
			return
		}
		f.nameRaw = append(f.nameRaw[:0], p[5:]...)
		pi, _ := ParsePeerInfo(p)
		f.name = pi.Name
	case TypeDisconnect:
		if d == C2S {
			f.connected = false
			return
		}
		if dc, err := ParseDisconnect(m.Payload); err == nil && f.hasPeer && dc.PeerID == f.peerID {
			f.connected = false
		}
	}
}

// msgAnom records an anomaly about message i of the current datagram (or
// the datagram, i = NoMsg and m = nil).
func (t *Tracker) msgAnom(f *flow, i int, m *Message, code anomaly.Code, format string, args ...any) {
	off := anomaly.NoOffset
	if m != nil {
		off = m.Offset
	}
	t.canoms = append(t.canoms, anomaly.New(code, i, off, format, args...))
	f.count(code)
}

// msgAnomf is msgAnom with typed arguments, which record without
// allocating (see anomaly.Newf).
func (t *Tracker) msgAnomf(f *flow, i int, m *Message, code anomaly.Code, format string, args ...anomaly.Arg) {
	off := anomaly.NoOffset
	if m != nil {
		off = m.Offset
	}
	t.canoms = append(t.canoms, anomaly.Newf(code, i, off, format, args...))
	f.count(code)
}

// flowEvent records an anomaly about earlier traffic of f.
func (t *Tracker) flowEvent(f *flow, frame, msg, off int, ts int64, code anomaly.Code, format string, args ...any) {
	t.events = append(t.events, Event{
		Flow: f.id, Client: f.key.Client, Server: f.key.Server,
		Frame: frame, Time: time.Unix(0, ts).UTC(), Anomaly: anomaly.New(code, msg, off, format, args...),
	})
	f.count(code)
}

// whyText returns fmt.Sprintf(format, d), built on first use into *cache:
// the timeouts are fixed per Tracker, the text is not worth a Sprintf per
// flow.
func (t *Tracker) whyText(cache *string, format string, d time.Duration) string {
	if *cache == "" {
		*cache = fmt.Sprintf(format, d)
	}
	return *cache
}
