package transport

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Reliable-delivery bookkeeping. Per flow, direction and channel a channel
// remembers recent reliable messages by seq in a fixed-capacity slab with an
// LRU list: the least recently active message (sent, resent or ACKed) is the
// one finished when room is needed, so a message that keeps being resent
// (seed 001) stays tracked however long the session runs.

// piece is one transmitted unit of a reliable message: the whole message, or
// one fragment. key is pieceKey(fragment, index), the ACK's matching fields.
// Fields are ordered by size (56 bytes, no padding).
type piece struct {
	hash     uint64 // of the first send's bytes
	frame    int
	first    int64
	ackFrame int
	ackTime  int64
	msg      int32
	retrans  int32
	postAck  int32 // resends after this piece's matching ACK
	key      uint16
	acked    bool
}

func pieceKey(frag bool, idx uint8) uint16 {
	if frag {
		return 0x100 | uint16(idx)
	}
	return 0
}

// sentMsg is one reliable message (all fragments of one seq). Fields are
// ordered by size so the struct has little padding: a flow keeps
// up to MaxTrackedMessages of them per direction and channel.
type sentMsg struct {
	ext         int64 // seq unwrapped within its channel, to tell a wrapped reuse
	frame       int
	first       int64
	lastRe      int64
	lastReFrame int
	mmFrame     int
	pieces      []piece

	msg        int32
	off        int32
	retrans    int32
	postAck    int32
	mismatch   int32 // ACKs for this seq with the wrong fragment status or index
	ackLostRe  int32
	prev, next int32

	op  int16 // game opcode (first payload byte of the whole message), -1 until seen
	seq uint16

	typ       Type
	frag      bool
	total     uint8
	hasTotal  bool
	mmFrag    bool
	mmIdx     uint8
	delivered bool // reassembled
	abandoned bool // reassembly given up (overflow, timeout, bad total)
	// ackLost: the capture lost or cut what may have been its ACK when it
	// had been resent ackLostRe times; unACKed without more resends, it is
	// no news (flow.acksLost).
	ackLost bool
}

func (e *sentMsg) find(key uint16) int {
	for i := range e.pieces {
		if e.pieces[i].key == key {
			return i
		}
	}
	return -1
}

// keptPieces is the largest pieces buffer a freed slot keeps for reuse: a
// whole message or a few fragments (the stock checksum response has 3).
const keptPieces = 4

// channel is one direction's sequence space of one flow.
type channel struct {
	bySeq      seqIndex
	slots      []sentMsg
	free       []int32
	head, tail int32 // most recently active at head; -1 when empty
	n, pieces  int
	ext        int64 // highest unwrapped seq sent
	hasExt     bool
	limitNoted bool
}

func (c *channel) reset() {
	c.bySeq.reset()
	c.free = c.free[:0]
	for i := range c.slots {
		c.free = append(c.free, int32(len(c.slots)-1-i))
	}
	c.head, c.tail, c.n, c.pieces = -1, -1, 0, 0
	c.ext, c.hasExt, c.limitNoted = 0, false, false
}

// size is the channel's share of flow.size: every slot ever used keeps a
// piece buffer (up to keptPieces); held pieces beyond one per slot are
// counted as they are held.
func (c *channel) size() int {
	return cap(c.slots)*slotBytes + max(len(c.slots), c.pieces)*pieceBytes
}

// extend unwraps a sent seq and moves the channel's high mark.
func (c *channel) extend(seq uint16) int64 {
	if !c.hasExt {
		c.ext, c.hasExt = int64(seq), true
		return c.ext
	}
	e := Seq(seq).unwrap(c.ext)
	c.ext = max(c.ext, e)
	return e
}

// peek unwraps an acknowledged seq without moving the high mark.
func (c *channel) peek(seq uint16) int64 {
	if !c.hasExt {
		return int64(seq)
	}
	return Seq(seq).unwrap(c.ext)
}

// alloc takes a free slot, keeping its pieces buffer.
func (c *channel) alloc() int32 {
	var i int32
	if n := len(c.free); n > 0 {
		i, c.free = c.free[n-1], c.free[:n-1]
	} else {
		c.slots = append(c.slots, sentMsg{})
		i = int32(len(c.slots) - 1)
	}
	e := &c.slots[i]
	p := e.pieces[:0]
	*e = sentMsg{pieces: p, prev: -1, next: -1}
	c.n++
	c.pushFront(i)
	return i
}

func (c *channel) unlink(i int32) {
	e := &c.slots[i]
	if e.prev >= 0 {
		c.slots[e.prev].next = e.next
	} else {
		c.head = e.next
	}
	if e.next >= 0 {
		c.slots[e.next].prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = -1, -1
}

func (c *channel) pushFront(i int32) {
	e := &c.slots[i]
	e.prev, e.next = -1, c.head
	if c.head >= 0 {
		c.slots[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

func (c *channel) touch(i int32) {
	if c.head != i {
		c.unlink(i)
		c.pushFront(i)
	}
}

// remove frees slot i (its summary must already be reported).
func (c *channel) remove(i int32) {
	c.unlink(i)
	e := &c.slots[i]
	c.bySeq.del(e.seq, i)
	c.pieces -= len(e.pieces)
	e.pieces = e.pieces[:0]
	if cap(e.pieces) > keptPieces {
		e.pieces = nil // keep only small buffers, so reuse cannot pile up memory
	}
	c.n--
	c.free = append(c.free, i)
}

// msgHash hashes the bytes a retransmission must repeat: type, flags_len,
// the fragment total and the payload (seq and index are the lookup key).
func (t *Tracker) msgHash(m *Message) uint64 {
	t.hash.Reset()
	hdr := [5]byte{byte(m.Type), byte(m.FlagsLen), byte(m.FlagsLen >> 8)}
	if m.HasFragTotal {
		hdr[3], hdr[4] = 1, m.FragTotal
	}
	t.hash.Write(hdr[:])
	t.hash.Write(m.Payload)
	return t.hash.Sum64()
}

// send tracks reliable message i of the current datagram, sent in d.
func (t *Tracker) send(f *flow, d Dir, frame int, ts int64, i int, m *Message, mi *MsgInfo) {
	c := m.Channel()
	ch := &f.ch[d][c]
	ext := ch.extend(m.Seq)
	slot, ok := ch.bySeq.get(m.Seq)
	if ok && ch.slots[slot].ext != ext {
		t.finishMsg(f, d, c, slot) // the seq came round again: a new message
		ok = false
	}
	op := opcodeOf(m)
	if ok && (ch.slots[slot].typ != m.Type || op >= 0 && ch.slots[slot].op >= 0 && ch.slots[slot].op != op) {
		// Another message type or game opcode cannot be a retransmission:
		// the sender reused the seq (OpenBC's keepalives reuse low seq 0 of
		// its Connect reply; captures stitched from several sessions too).
		old := &ch.slots[slot]
		if old.typ == m.Type {
			t.msgAnomf(f, i, m, anomaly.SeqReuse,
				"%s %s seq %d reused by another message (opcode 0x%02X) while opcode 0x%02X (frame %d) still holds it; tracked as a new message",
				anomaly.S(d.String()), anomaly.S(c.String()), anomaly.U(m.Seq), anomaly.I(op), anomaly.I(old.op), anomaly.I(old.frame))
		} else {
			t.msgAnomf(f, i, m, anomaly.SeqReuse,
				"%s %s seq %d reused by another message (%s) while %s (frame %d) still holds it; tracked as a new message",
				anomaly.S(d.String()), anomaly.S(c.String()), anomaly.U(m.Seq), anomaly.S(m.Type.Name()), anomaly.S(old.typ.Name()), anomaly.I(old.frame))
		}
		t.finishMsg(f, d, c, slot)
		ok = false
	}
	if !ok {
		if ch.n >= t.cfg.MaxTrackedMessages {
			t.evict(f, d, c, -1)
		}
		n := ch.size()
		slot = ch.alloc()
		f.chBytes += ch.size() - n
		e := &ch.slots[slot]
		e.typ, e.seq, e.ext, e.frag, e.op = m.Type, m.Seq, ext, m.Fragment, -1
		e.frame, e.msg, e.off, e.first = frame, int32(i), int32(m.Offset), ts
		ch.bySeq.set(m.Seq, slot)
		f.st.reliable[d]++
		f.st.grown++
	}
	ch.touch(slot)
	e := &ch.slots[slot]
	if e.op < 0 {
		e.op = op
	}
	h := t.msgHash(m)

	if e.frag != m.Fragment {
		t.resent(f, d, e, nil, frame, ts, i, m, mi)
		mi.FirstFrame, mi.FirstMsg, mi.Differs = e.frame, int(e.msg), true
		was := "without"
		if e.frag {
			was = "with"
		}
		t.msgAnom(f, i, m, anomaly.RetransmitDiffers,
			"%s %s seq %d was first sent %s the fragment bit (frame %d); this copy differs",
			d, c, m.Seq, was, e.frame)
		return
	}

	key := pieceKey(m.Fragment, m.FragIdx)
	if pi := e.find(key); pi >= 0 {
		p := &e.pieces[pi]
		if m.Type == TypePeerInfo && p.hash == h {
			// Periodic keepalives re-send the peer record (protocol-facts 4.2).
			mi.Keepalive, mi.FirstFrame, mi.FirstMsg = true, p.frame, int(p.msg)
			f.st.keepalives[d]++
			return
		}
		t.resent(f, d, e, p, frame, ts, i, m, mi)
		if p.hash != h {
			mi.Differs = true
			t.msgAnom(f, i, m, anomaly.RetransmitDiffers,
				"retransmission of %s differs from its first send in frame %d", pieceLabel(d, c, m.Seq, key), p.frame)
		}
	} else {
		for ch.pieces >= t.cfg.MaxTrackedFragments && t.evict(f, d, c, slot) {
		}
		if ch.pieces >= t.cfg.MaxTrackedFragments {
			t.limitNote(f, d, c, i, m)
		} else {
			// evict may have finished other messages, but never slot.
			e = &ch.slots[slot]
			if cap(e.pieces) == 0 {
				e.pieces = t.newPieces()
			}
			e.pieces = append(e.pieces, piece{key: key, hash: h, frame: frame, msg: int32(i), first: ts})
			n := ch.size()
			ch.pieces++
			f.chBytes += ch.size() - n
		}
		if m.Fragment {
			f.st.fragments[d]++
			f.st.grown++
		}
		if m.HasFragTotal {
			e.total, e.hasTotal = m.FragTotal, true
		}
		mi.FirstFrame, mi.FirstMsg = frame, i
	}
	if m.Fragment {
		t.reassemble(f, d, e, frame, ts, i, m, mi)
	}
}

// newPieces returns an empty one-piece buffer for a slot that has none,
// cut from a shared chunk: a new slot (every message of a new flow) then
// costs no allocation of its own. A fragmented message outgrows it by
// append as usual.
func (t *Tracker) newPieces() []piece {
	if len(t.pieces) == 0 {
		t.pieces = make([]piece, 256)
	}
	p := t.pieces[:0:1]
	t.pieces = t.pieces[1:]
	return p
}

// resent counts a retransmission of p (nil: of the message as a whole).
func (t *Tracker) resent(f *flow, d Dir, e *sentMsg, p *piece, frame int, ts int64, i int, m *Message, mi *MsgInfo) {
	e.retrans++
	if e.retrans == 1 {
		f.st.retransMsgs[d]++
	}
	f.st.retrans[d]++
	e.lastRe, e.lastReFrame = ts, frame
	mi.Retransmit = true
	first, firstFrame, count := e.first, e.frame, int(e.retrans)
	if p != nil {
		p.retrans++
		if p.acked {
			p.postAck++
			e.postAck++
		}
		first, firstFrame, count = p.first, p.frame, int(p.retrans)
		mi.FirstFrame, mi.FirstMsg = p.frame, int(p.msg)
	}
	mi.RetransmitCount = count
	// Typed arguments: this runs for every retransmission.
	if m.Fragment {
		t.msgAnomf(f, i, m, anomaly.Retransmit, "retransmission %d of %s %s seq %d fragment %d, first sent in frame %d %s earlier",
			anomaly.I(count), anomaly.S(d.String()), anomaly.S(m.Channel().String()), anomaly.U(m.Seq), anomaly.U(m.FragIdx),
			anomaly.I(firstFrame), anomaly.D(time.Duration(ts-first)))
		return
	}
	t.msgAnomf(f, i, m, anomaly.Retransmit, "retransmission %d of %s %s seq %d, first sent in frame %d %s earlier",
		anomaly.I(count), anomaly.S(d.String()), anomaly.S(m.Channel().String()), anomaly.U(m.Seq),
		anomaly.I(firstFrame), anomaly.D(time.Duration(ts-first)))
}

// ack matches ACK message i of the current datagram, sent in d, against the
// messages sent the other way.
func (t *Tracker) ack(f *flow, d Dir, frame int, ts int64, i int, m *Message, mi *MsgInfo) {
	f.st.acks[d]++
	sd := d.other()
	c := m.Channel()
	ch := &f.ch[sd][c]
	key := pieceKey(m.AckFrag, m.FragIdx)
	if slot, ok := ch.bySeq.get(m.Seq); ok && ch.slots[slot].ext == ch.peek(m.Seq) {
		e := &ch.slots[slot]
		if pi := e.find(key); pi >= 0 {
			ch.touch(slot)
			p := &e.pieces[pi]
			mi.AckedFrame, mi.AckedMsg = p.frame, int(p.msg)
			if p.acked {
				mi.Ack = AckRepeat
				return
			}
			p.acked, p.ackFrame, p.ackTime = true, frame, ts
			mi.Ack, mi.RTT, mi.HasRTT = AckMatched, time.Duration(max(ts-p.first, 0)), true
			f.addRTT(sd, time.Duration(ts-p.first), t.cfg.MaxRTTSamples)
			return
		}
		// A fragment ACK for an index the capture missed is not a mismatch.
		missed := e.frag && m.AckFrag && (!e.hasTotal || m.FragIdx < e.total)
		if !missed {
			ch.touch(slot)
			e.mismatch++
			if e.mismatch == 1 {
				e.mmFrag, e.mmIdx, e.mmFrame = m.AckFrag, m.FragIdx, frame
			}
			mi.Ack, mi.AckedFrame, mi.AckedMsg = AckMismatch, e.frame, int(e.msg)
			return
		}
	}
	if f.cuts.has(sd, c, m.Seq) {
		mi.Ack = AckCut // the capture cut what it acknowledges: nothing to say
		return
	}
	mi.Ack = AckUnknown
	t.msgAnom(f, i, m, anomaly.AckUnknown,
		"ACK for %s matches nothing sent in this capture (it may have started mid-session or missed it)",
		pieceLabel(sd, c, m.Seq, key))
}

// evict finishes the least recently active message of a channel, other than
// keep, to make room. It reports whether there was one.
func (t *Tracker) evict(f *flow, d Dir, c Channel, keep int32) bool {
	ch := &f.ch[d][c]
	for i := ch.tail; i >= 0; i = ch.slots[i].prev {
		if i == keep {
			continue
		}
		e := &ch.slots[i]
		acked := len(e.pieces) > 0
		for _, p := range e.pieces {
			acked = acked && p.acked
		}
		if !acked && !ch.limitNoted {
			ch.limitNoted = true
			t.flowEvent(f, e.frame, int(e.msg), int(e.off), e.first, anomaly.TrackingLimit,
				"%s left the window of %d messages / %d fragments of %s %s before it was ACKed; later such evictions are not reported",
				msgLabel(d, c, e), t.cfg.MaxTrackedMessages, t.cfg.MaxTrackedFragments, d, c)
		}
		t.finishMsg(f, d, c, i)
		return true
	}
	return false
}

func (t *Tracker) limitNote(f *flow, d Dir, c Channel, i int, m *Message) {
	ch := &f.ch[d][c]
	if ch.limitNoted {
		return
	}
	ch.limitNoted = true
	t.msgAnom(f, i, m, anomaly.TrackingLimit,
		"fragment not tracked: %s %s already holds %d fragments; later such cases are not reported", d, c, t.cfg.MaxTrackedFragments)
}

// finishMsg reports the summary anomalies of a message whose tracking ends,
// then frees its slot.
func (t *Tracker) finishMsg(f *flow, d Dir, c Channel, slot int32) {
	ch := &f.ch[d][c]
	e := &ch.slots[slot]
	if e.postAck > 0 && e.frag && e.hasTotal && e.total > 0 {
		acked := 0
		var firstAck, lastAck int
		for _, p := range e.pieces {
			if p.key&0xFF < uint16(e.total) && p.acked {
				acked++
				if firstAck == 0 || p.ackFrame < firstAck {
					firstAck = p.ackFrame
				}
				lastAck = max(lastAck, p.ackFrame)
			}
		}
		if acked == int(e.total) {
			t.flowEvent(f, e.frame, int(e.msg), int(e.off), e.first, anomaly.UnackedFragmentRetransmit,
				"%s was retransmitted %d times after the receiver ACKed all %d fragments with matching fragment ACKs (frames %d-%d); resends span %s from the first send to frame %d (stock client bug, seed 001)",
				msgLabel(d, c, e), e.postAck, e.total, firstAck, lastAck, time.Duration(e.lastRe-e.first), e.lastReFrame)
		}
	}
	var unacked []uint16
	var unackedRe int32
	for _, p := range e.pieces {
		if !p.acked && p.retrans > 0 {
			unacked = append(unacked, p.key)
			unackedRe += p.retrans
		}
	}
	switch {
	case e.mismatch > 0:
		matched := 0
		for _, p := range e.pieces {
			if p.acked {
				matched++
			}
		}
		t.flowEvent(f, e.frame, int(e.msg), int(e.off), e.first, anomaly.AckMismatch,
			"%s: %d ACKs for its seq had the wrong fragment status or index (first in frame %d: %s), %d of %d sent pieces got a matching ACK, %d retransmissions",
			msgLabel(d, c, e), e.mismatch, e.mmFrame, ackShape(e.mmFrag, e.mmIdx), matched, len(e.pieces), e.retrans)
	case len(unacked) > 0 && !(e.ackLost && e.retrans == e.ackLostRe):
		what := ""
		slices.Sort(unacked)
		if e.frag {
			what = " for fragments " + keyList(unacked)
		}
		t.flowEvent(f, e.frame, int(e.msg), int(e.off), e.first, anomaly.RetransmitUnacked,
			"%s was retransmitted %d times up to frame %d, %s after the first send, and no matching ACK was seen%s",
			msgLabel(d, c, e), unackedRe, e.lastReFrame, time.Duration(e.lastRe-e.first), what)
	}
	n := ch.size()
	ch.remove(slot)
	f.chBytes += ch.size() - n
}

func msgLabel(d Dir, c Channel, e *sentMsg) string {
	switch {
	case e.frag && e.hasTotal:
		return fmt.Sprintf("%s %s seq %d (%d fragments, first sent frame %d)", d, c, e.seq, e.total, e.frame)
	case e.frag:
		return fmt.Sprintf("%s %s seq %d (fragmented, first sent frame %d)", d, c, e.seq, e.frame)
	}
	return fmt.Sprintf("%s %s seq %d (first sent frame %d)", d, c, e.seq, e.frame)
}

func pieceLabel(d Dir, c Channel, seq uint16, key uint16) string {
	if key&0x100 != 0 {
		return fmt.Sprintf("%s %s seq %d fragment %d", d, c, seq, key&0xFF)
	}
	return fmt.Sprintf("%s %s seq %d", d, c, seq)
}

func ackShape(frag bool, idx uint8) string {
	if frag {
		return fmt.Sprintf("fragment ACK for index %d", idx)
	}
	return "ACK without the fragment flag"
}

func keyList(keys []uint16) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", k&0xFF)
	}
	return b.String()
}

// opcodeOf returns the game opcode m starts (an unfragmented data payload
// or fragment 0), or -1.
func opcodeOf(m *Message) int16 {
	if m.Type != TypeData || m.Fragment && m.FragIdx != 0 || len(m.Payload) == 0 {
		return -1
	}
	return int16(m.Payload[0])
}
