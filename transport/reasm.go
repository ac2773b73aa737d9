package transport

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Fragment reassembly, keyed by flow, direction and seq (only type 0x32
// fragments, which are always reliable). Fragments may come in any order;
// duplicates are ignored; the message is delivered once, on the datagram
// whose fragment completes it: fragment 0 (it carries the total) and every
// index below the total present. Per flow at most MaxOpenReassemblies are
// open and MaxReassemblyBytes buffered; the oldest open one is dropped to
// make room.

type span struct{ off, n int32 }

type reassembly struct {
	dir      Dir
	seq      uint16
	first    int64
	frame    int
	msg, off int
	total    uint8
	hasTotal bool
	cut      bool // the capture cut one of its fragments: incomplete is no news
	have     [4]uint64
	part     [256]span
	buf      []byte
}

func (r *reassembly) has(i uint8) bool { return r.have[i>>6]&(1<<(i&63)) != 0 }

// count returns how many fragments below n are held.
func (r *reassembly) count(n int) int {
	c := 0
	for w := 0; w < 4 && n > 0; w++ {
		mask := ^uint64(0)
		if n < 64 {
			mask = 1<<n - 1
		}
		c += bits.OnesCount64(r.have[w] & mask)
		n -= 64
	}
	return c
}

func (f *flow) findReasm(d Dir, seq uint16) int {
	for i, r := range f.reasm {
		if r.dir == d && r.seq == seq {
			return i
		}
	}
	return -1
}

// reassemble adds fragment message i (of sent message e) to its reassembly.
func (t *Tracker) reassemble(f *flow, d Dir, e *sentMsg, frame int, ts int64, i int, m *Message, mi *MsgInfo) {
	if e.delivered {
		mi.Dup = true
		return
	}
	if e.abandoned {
		return
	}
	idx := m.FragIdx
	ri := f.findReasm(d, m.Seq)
	if m.HasFragTotal && m.FragTotal == 0 {
		t.msgAnom(f, i, m, anomaly.FragmentBadTotal,
			"fragment 0 of %s seq %d announces a total of 0 fragments; not reassembled", d, m.Seq)
		t.abandon(f, d, m.Seq, ri)
		return
	}
	if e.hasTotal && idx >= e.total {
		t.msgAnom(f, i, m, anomaly.FragmentBadTotal,
			"fragment %d of %s seq %d is past its total of %d fragments; ignored", idx, d, m.Seq, e.total)
		return
	}
	var r *reassembly
	if ri >= 0 {
		r = f.reasm[ri]
		if r.has(idx) {
			mi.Dup = true
			return
		}
	}
	need := len(m.Payload)
	if need > t.cfg.MaxReassemblyBytes {
		t.msgAnom(f, i, m, anomaly.ReassemblyOverflow,
			"fragment %d of %s seq %d has %d bytes, more than the %d bytes a flow may buffer; message not reassembled",
			idx, d, m.Seq, need, t.cfg.MaxReassemblyBytes)
		t.abandon(f, d, m.Seq, ri)
		return
	}
	if r == nil {
		for len(f.reasm) >= t.cfg.MaxOpenReassemblies {
			t.overflow(f, 0, i, m, fmt.Sprintf("to open one more than %d reassemblies", t.cfg.MaxOpenReassemblies))
		}
		r = t.newReasm(f, d, m.Seq, frame, ts, i, m.Offset)
	}
	for f.rbytes+need > t.cfg.MaxReassemblyBytes {
		victim := 0
		if f.reasm[0] == r {
			victim = 1
		}
		if victim >= len(f.reasm) { // r alone is too big
			t.overflow(f, 0, i, m, fmt.Sprintf("its fragments exceed the %d bytes a flow may buffer", t.cfg.MaxReassemblyBytes))
			return
		}
		t.overflow(f, victim, i, m, fmt.Sprintf("to buffer more than %d bytes", t.cfg.MaxReassemblyBytes))
	}

	r.part[idx] = span{int32(len(r.buf)), int32(need)}
	r.buf = append(r.buf, m.Payload...)
	r.have[idx>>6] |= 1 << (idx & 63)
	f.rbytes += need
	if m.HasFragTotal {
		r.total, r.hasTotal = m.FragTotal, true
		if past := r.count(256) - r.count(int(r.total)); past > 0 {
			t.msgAnom(f, i, m, anomaly.FragmentBadTotal,
				"%s seq %d has a total of %d fragments, but %d held fragments are past it; they are ignored",
				d, m.Seq, r.total, past)
		}
	}
	if !r.hasTotal || r.count(int(r.total)) < int(r.total) {
		return
	}
	start := len(t.out)
	for k := range int(r.total) {
		s := r.part[k]
		t.out = append(t.out, r.buf[s.off:s.off+s.n]...)
	}
	mi.Reassembled = t.out[start:len(t.out):len(t.out)]
	mi.ReassembledFrags = int(r.total)
	f.st.reassembled[d]++
	e.delivered = true
	t.releaseReasm(f, f.findReasm(d, m.Seq))
}

func (t *Tracker) newReasm(f *flow, d Dir, seq uint16, frame int, ts int64, i, off int) *reassembly {
	var r *reassembly
	if n := len(t.rpool); n > 0 {
		r, t.rpool = t.rpool[n-1], t.rpool[:n-1]
	} else {
		r = new(reassembly)
	}
	buf := r.buf[:0]
	r.dir, r.seq, r.first, r.frame, r.msg, r.off = d, seq, ts, frame, i, off
	r.total, r.hasTotal, r.have, r.buf = 0, false, [4]uint64{}, buf
	r.cut = f.cuts.has(d, ChanHigh, seq)
	f.reasm = append(f.reasm, r)
	return r
}

// releaseReasm removes open reassembly ri of f and pools it.
func (t *Tracker) releaseReasm(f *flow, ri int) {
	r := f.reasm[ri]
	f.rbytes -= len(r.buf)
	copy(f.reasm[ri:], f.reasm[ri+1:])
	f.reasm[len(f.reasm)-1] = nil
	f.reasm = f.reasm[:len(f.reasm)-1]
	if len(t.rpool) < 64 && cap(r.buf) <= t.cfg.MaxReassemblyBytes {
		t.rpool = append(t.rpool, r)
	}
}

// abandon drops reassembly ri (if open) and stops reassembling the message.
func (t *Tracker) abandon(f *flow, d Dir, seq uint16, ri int) {
	if ri >= 0 {
		t.releaseReasm(f, ri)
	}
	if slot, ok := f.ch[d][ChanHigh].bySeq.get(seq); ok {
		f.ch[d][ChanHigh].slots[slot].abandoned = true
	}
}

// overflow drops open reassembly ri to make room for message i.
func (t *Tracker) overflow(f *flow, ri, i int, m *Message, why string) {
	r := f.reasm[ri]
	t.msgAnom(f, i, m, anomaly.ReassemblyOverflow,
		"dropped the reassembly of %s seq %d (first fragment frame %d, %s) %s",
		r.dir, r.seq, r.frame, r.state(), why)
	t.abandon(f, r.dir, r.seq, ri)
}

// reasmIncomplete reports open reassembly ri as incomplete and drops it.
func (t *Tracker) reasmIncomplete(f *flow, ri int, why string) {
	r := f.reasm[ri]
	if r.cut { // the truncated note on the cut fragment's datagram said it
		t.abandon(f, r.dir, r.seq, ri)
		return
	}
	t.flowEvent(f, r.frame, r.msg, r.off, r.first, anomaly.FragmentIncomplete,
		"reassembly of %s seq %d incomplete %s: %s", r.dir, r.seq, why, r.state())
	t.abandon(f, r.dir, r.seq, ri)
}

// state describes what a reassembly holds and lacks.
func (r *reassembly) state() string {
	var held []int
	for k := range 256 {
		if r.has(uint8(k)) {
			held = append(held, k)
		}
	}
	if !r.hasTotal {
		return fmt.Sprintf("fragment 0 (with the total) missing, have %s (%d bytes)", ranges(held), len(r.buf))
	}
	var missing []int
	for k := range int(r.total) {
		if !r.has(uint8(k)) {
			missing = append(missing, k)
		}
	}
	return fmt.Sprintf("missing fragments %s of %d, have %s (%d bytes)", ranges(missing), r.total, ranges(held), len(r.buf))
}

// ranges formats sorted indices compactly: "0, 2-5, 9".
func ranges(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", v[i], v[j])
		} else {
			fmt.Fprintf(&b, "%d", v[i])
		}
		i = j + 1
	}
	return b.String()
}
