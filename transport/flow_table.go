package transport

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"time"
	"unsafe"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// The flow table. Active flows are found by key in a map, kept in an
// intrusive list by recent activity (most recent at the head) and in a
// min-heap by the earliest capture time a timeout could end or concern
// them. Every operation on a datagram's flow is O(1) (moving it to the head
// of the list, updating its size) except when that time moves earlier,
// O(log n); the periodic sweep looks only at the flows whose time has come.
//
// A flow ends only by its own idle timeout (FlowIdle), at the end of the
// capture (Finish) or, when the estimated state of all active flows
// exceeds MaxFlowBytes, by eviction of the least recently active flow
// (a tracking-limit note). A Disconnect ends a session, and the flow then
// idles out.

// flowList is an intrusive doubly linked list of flows.
type flowList struct{ head, tail *flow }

func (l *flowList) unlink(f *flow) {
	if f.prev != nil {
		f.prev.next = f.next
	} else {
		l.head = f.next
	}
	if f.next != nil {
		f.next.prev = f.prev
	} else {
		l.tail = f.prev
	}
	f.prev, f.next = nil, nil
}

func (l *flowList) pushFront(f *flow) {
	f.prev, f.next = nil, l.head
	if l.head != nil {
		l.head.prev = f
	}
	l.head = f
	if l.tail == nil {
		l.tail = f
	}
}

// lruGranularity is how often (capture time) a flow's datagrams move it
// to the front of the list: moving it touches its neighbours' memory, and
// eviction needs no finer order.
const lruGranularity = int64(time.Second)

// touch makes f the most recently active flow, at most once per
// lruGranularity of capture time ts.
func (l *flowList) touch(f *flow, ts int64) {
	if ts-f.touched < lruGranularity || l.head == f {
		return
	}
	f.touched = ts
	l.unlink(f)
	l.pushFront(f)
}

// flowHeap orders flows by due; flow.hidx is each flow's index.
type flowHeap []*flow

func (h flowHeap) less(i, j int) bool {
	return h[i].due < h[j].due || h[i].due == h[j].due && h[i].id < h[j].id
}

func (h flowHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx, h[j].hidx = i, j
}

func (h flowHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h flowHeap) down(i int) {
	for {
		j := 2*i + 1
		if j >= len(h) {
			return
		}
		if r := j + 1; r < len(h) && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h.swap(i, j)
		i = j
	}
}

func (h *flowHeap) push(f *flow) {
	f.hidx = len(*h)
	*h = append(*h, f)
	h.up(f.hidx)
}

// remove takes f out of the heap (if it is in it).
func (h *flowHeap) remove(f *flow) {
	if f.hidx < 0 {
		return
	}
	old := *h
	i, n := f.hidx, len(old)-1
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	if i != n {
		h.down(i)
		h.up(i)
	}
	f.hidx = -1
}

// fix restores the order after f.due changed.
func (h flowHeap) fix(f *flow) {
	h.down(f.hidx)
	h.up(f.hidx)
}

// due is the earliest capture time at which a sweep could find something
// about f: an idle flow, a stale reassembly, a silent peer. checkTimeouts
// and the idle test fire at a sweep whose time is past it.
func (t *Tracker) due(f *flow) int64 {
	d := f.last + int64(t.cfg.FlowIdle)
	for _, r := range f.reasm {
		d = min(d, r.first+int64(t.cfg.ReassemblyTimeout))
	}
	if f.connected {
		for dir := range f.seenDir {
			if f.seenDir[dir] && !f.timedOut[dir] {
				d = min(d, f.lastDir[dir]+int64(t.cfg.PeerTimeout))
			}
		}
	}
	return d
}

// schedule files f under its due time when that is earlier than the one
// it is filed under. A later time is left for the sweep to find (it
// re-files the flow), so activity costs no heap work.
func (t *Tracker) schedule(f *flow) {
	if d := t.due(f); d < f.due {
		f.due = d
		t.timers.fix(f)
	}
}

// sweep checks the flows due before now: timeouts, idle flows. The flows
// are taken in creation order, as a scan of all flows would meet them.
func (t *Tracker) sweep() {
	batch := t.batch[:0]
	for len(t.timers) > 0 && t.timers[0].due < t.now {
		f := t.timers[0]
		t.timers.remove(f)
		batch = append(batch, f)
	}
	slices.SortFunc(batch, func(a, b *flow) int { return cmp.Compare(a.id, b.id) })
	mark := len(t.events)
	for _, f := range batch {
		t.checkTimeouts(f)
		if t.now-f.last > int64(t.cfg.FlowIdle) {
			t.finishFlow(f, t.whyText(&t.whyIdle, "when its flow went idle for %s", t.cfg.FlowIdle))
			continue
		}
		f.due = t.due(f)
		t.timers.push(f)
		n := f.size() // stale reassemblies may have gone
		t.bytes += n - f.bytes
		f.bytes = n
	}
	t.sortEvents(mark)
	clear(batch)
	t.batch = batch[:0]
}

// Size estimates of the state kept per flow: the structs themselves plus
// map and pointer overhead.
const (
	flowBaseBytes  = int(unsafe.Sizeof(flow{})) + 4*64 + 128 // 4 first bySeq tables, flows map entry and heap slot
	slotBytes      = int(unsafe.Sizeof(sentMsg{})) + 16 + 4  // bySeq entry, free list entry
	pieceBytes     = int(unsafe.Sizeof(piece{}))
	reasmBytes     = int(unsafe.Sizeof(reassembly{})) + 8
	anomCountBytes = 16
)

// StateSizer is implemented by flow state (Flow.SetState) that can
// estimate the bytes it holds, so they count towards MaxFlowBytes.
type StateSizer interface {
	StateBytes() int
}

// size estimates the bytes f holds. It reads lines 2 and 3 of f (and a
// layer's state), not the channels: it runs for every new reliable message.
func (f *flow) size() int {
	n := flowBaseBytes + cap(f.nameRaw) + len(f.name) + 4*(f.st.rtt[C2S].Cap()+f.st.rtt[S2C].Cap()) + anomCountBytes*int(f.nAnoms) + 8*cap(f.reasm) + f.chBytes
	for _, r := range f.reasm {
		n += reasmBytes + cap(r.buf)
	}
	if s, ok := f.state.(StateSizer); ok {
		n += s.StateBytes()
	}
	return n
}

// sizeKey changes whenever f may have grown: a new reliable message or
// fragment (window slots and pieces; a layer's state grows with the
// handshake's reliable messages), an RTT sample, a reassembly opened or
// grown. Most datagrams (unreliable state updates, ACKs past the sample
// limit) change none of these, and size is not recomputed for them. (A new
// anomaly code, at most a few hundred bytes a flow, is counted with the
// next change: reading the map's length would cost a cache miss on every
// datagram.)
func (f *flow) sizeKey() uint64 {
	c := &f.st
	return c.grown + c.rttKept +
		uint64(len(f.reasm))<<32 + uint64(f.rbytes)<<40
}

// flowCacheBits sizes Tracker.cache, a cache of flows by a cheap hash of
// their key in front of the map: with thousands of flows, a datagram's flow
// is mostly found there without the map's hashing and its cache misses.
// 8K sets of 2 keep a few thousand flows from evicting each other while
// the array (256 KB) stays within the CPU's L2.
const (
	flowCacheBits = 13
	flowCacheSets = 1 << flowCacheBits
)

// cacheEntry is a way of Tracker.cache: a flow and more bits of its hash.
type cacheEntry struct {
	tag uint32
	f   *flow
}

// cacheSet holds the most recently put flow first.
type cacheSet [2]cacheEntry

func (s *cacheSet) put(tag uint32, f *flow) {
	if s[0].f != f {
		s[1] = s[0]
	}
	s[0] = cacheEntry{tag, f}
}

// cacheSlot is the index of key in Tracker.cache and the tag checked there.
func cacheSlot(key *FlowKey) (int, uint32) { return slotOf(KeyHash(key.Client, key.Server)) }

// slotOf is cacheSlot of the key with hash h.
func slotOf(h uint64) (int, uint32) {
	return int(h >> (64 - flowCacheBits)), uint32(h >> (32 - flowCacheBits))
}

// KeyHash is the hash Track files the flow of client and server under
// (Packet.KeyHash); it is never 0.
func KeyHash(client, server netip.AddrPort) uint64 {
	c, s := client.Addr().As16(), server.Addr().As16()
	h := binary.LittleEndian.Uint64(c[8:]) ^ binary.LittleEndian.Uint64(c[:8])*0x9E3779B97F4A7C15 ^
		binary.LittleEndian.Uint64(s[8:])*0xC2B2AE3D27D4EB4F ^
		uint64(client.Port())<<17 ^ uint64(server.Port())<<41
	h *= 0x9E3779B97F4A7C15
	return h | 1 // slotOf does not read bit 0
}

// resize updates f's share of the tracked bytes and, over MaxFlowBytes,
// evicts the least recently active flows other than f.
func (t *Tracker) resize(f *flow) {
	k := f.sizeKey()
	if k == f.sized {
		return
	}
	f.sized = k
	n := f.size()
	t.bytes += n - f.bytes
	f.bytes = n
	for t.bytes > t.cfg.MaxFlowBytes {
		// f may be the least recently active itself (resized before it
		// moves to the front): the victim is then the one before it.
		victim := t.lru.tail
		if victim == f {
			victim = f.prev
		}
		if victim == nil {
			break // f alone: a flow is never evicted for its own growth
		}
		t.evictFlow(victim)
	}
}

// evictFlow ends the least recently active flow to keep the tracked
// bytes within MaxFlowBytes.
func (t *Tracker) evictFlow(victim *flow) {
	mark := len(t.events)
	t.flowEvent(victim, max(victim.lastFr[C2S], victim.lastFr[S2C]), -1, anomaly.NoOffset, victim.last, anomaly.TrackingLimit,
		"flow evicted after %s idle: the state of the active flows reached the %s bound (--flow-memory; %d flows active)",
		time.Duration(t.now-victim.last), byteSize(t.cfg.MaxFlowBytes), len(t.flows))
	t.checkTimeouts(victim)
	t.finishFlow(victim, "when its flow was evicted")
	t.sortEvents(mark)
}

// ActiveFlows is the number of flows being tracked.
func (t *Tracker) ActiveFlows() int { return len(t.flows) }

// TrackedBytes is the estimated state of the active flows (bounded by
// MaxFlowBytes).
func (t *Tracker) TrackedBytes() int { return t.bytes }

// byID returns the active flows in creation order.
func (t *Tracker) byID() []*flow {
	fs := make([]*flow, 0, len(t.flows))
	for f := t.lru.head; f != nil; f = f.next {
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b *flow) int { return cmp.Compare(a.id, b.id) })
	return fs
}

// byteSize formats n bytes for a message: "512 MB", "96 KB", "700 B".
func byteSize(n int) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
