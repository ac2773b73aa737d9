package transport

import (
	"net/netip"

	"github.com/bcdump/bcdump/transport/anomaly"
)

// Messages the capture cut. A datagram cut short by the snap length holds
// whole messages, maybe one message cut in two (Datagram.Cut) and maybe
// messages not captured at all (Datagram.Uncaptured). Only the whole ones
// are tracked: a cut message is neither seen (its retransmission is a
// first send, not compared with bytes the capture lacks) nor missing. What
// refers to it must not look wrong either, so each flow remembers the seqs
// such messages had or may have had: an ACK for one that matches nothing
// is AckCut, not ack-unknown, and a reassembly that lacks a cut fragment
// ends without fragment-incomplete. An ACK the capture cut or lost spares
// the messages it may have acknowledged retransmit-unacked. A datagram
// lost whole without its ports (Tracker.Lost) marks every flow between its
// hosts so.

// maxCutSeqs bounds the seqs a flow remembers; the oldest are forgotten.
const maxCutSeqs = 32

type cutSeq struct {
	dir Dir
	ch  Channel
	seq uint16
}

// cutSeqs is a ring of the most recent cut seqs of a flow.
type cutSeqs struct {
	ring [maxCutSeqs]cutSeq
	n    int // seqs added in all; the ring holds the last maxCutSeqs
}

func (c *cutSeqs) add(d Dir, ch Channel, seq uint16) {
	if c.has(d, ch, seq) {
		return
	}
	c.ring[c.n%maxCutSeqs] = cutSeq{d, ch, seq}
	c.n++
}

func (c *cutSeqs) has(d Dir, ch Channel, seq uint16) bool {
	for i := range min(c.n, maxCutSeqs) {
		if e := c.ring[i]; e.dir == d && e.ch == ch && e.seq == seq {
			return true
		}
	}
	return false
}

// cut remembers the seqs of the messages the capture cut from datagram dg,
// sent in direction d. The cut message's own seq is known when its header
// was captured; the messages after it took the next seqs of their channel
// (which channel is unknown, so both are marked).
func (t *Tracker) cut(f *flow, d Dir, dg *Datagram) {
	unknown := dg.Uncaptured
	var next [2]uint16
	var known [2]bool
	for c := range next {
		if ch := &f.ch[d][c]; ch.hasExt {
			next[c], known[c] = uint16(ch.ext)+1, true
		}
	}
	if m := &dg.Cut; dg.HasCut && m.Type != TypeACK {
		switch {
		case dg.CutInHeader:
			unknown++
		case m.Reliable:
			c := m.Channel()
			f.cuts.add(d, c, m.Seq)
			next[c], known[c] = m.Seq+1, true
			if m.Fragment {
				if ri := f.findReasm(d, m.Seq); ri >= 0 {
					f.reasm[ri].cut = true
				}
			}
		}
	}
	if unknown > 0 || dg.HasCut && dg.Cut.Type == TypeACK {
		f.acksLost(d.other())
	}
	unknown = min(unknown, maxCutSeqs/4)
	for c := range next {
		for k := range unknown {
			if known[c] {
				f.cuts.add(d, Channel(c), next[c]+uint16(k))
			}
		}
	}
}

// lostSeqs is how many seqs per channel a lost datagram may have used.
const lostSeqs = maxCutSeqs / 4

// Lost tells the tracker that the capture lost a datagram sent from host
// src to host dst whose ports are unknown (an IP-fragmented datagram
// without its first fragment), after the datagrams tracked so far. Every
// flow between those hosts in that direction may have lost messages
// there, so each is marked as for a cut datagram of unknown content: the
// next seqs of both channels and the messages its open reassemblies are
// assembling, so an ACK for one is AckCut and the reassembly may end
// without fragment-incomplete, and the ACKs it may have carried spare the
// messages of the other direction retransmit-unacked (acksLost). The
// flow's statistics count an ip-fragment-incomplete note. fn, when not nil, is
// called with each flow marked (valid until fn returns). Call Lost before tracking the datagrams that followed the lost
// one.
func (t *Tracker) Lost(src, dst netip.Addr, fn func(Flow)) {
	src, dst = src.Unmap(), dst.Unmap()
	// Walked in recency order (deterministic, unlike the map); a loss is
	// rare, so a walk over every active flow is cheap enough.
	for f := t.lru.head; f != nil; f = f.next {
		c, s := f.key.Client.Addr().Unmap(), f.key.Server.Addr().Unmap()
		marked := false
		if c == src && s == dst {
			t.lost(f, C2S)
			marked = true
		}
		if s == src && c == dst {
			t.lost(f, S2C)
			marked = true
		}
		if marked {
			f.count(anomaly.IPFragmentIncomplete)
			if fn != nil {
				fn(Flow{f})
			}
		}
	}
}

// lost marks what a datagram lost in direction d of f may have held.
func (t *Tracker) lost(f *flow, d Dir) {
	for c := range f.ch[d] {
		if ch := &f.ch[d][c]; ch.hasExt {
			for k := range lostSeqs {
				f.cuts.add(d, Channel(c), uint16(ch.ext)+1+uint16(k))
			}
		}
	}
	for _, r := range f.reasm {
		if r.dir == d {
			r.cut = true
			f.cuts.add(d, ChanHigh, r.seq)
		}
	}
	f.acksLost(d.other())
}

// acksLost marks the messages sent in direction d so far: an ACK for any
// of them may have been in what the capture lost or cut, so one resent and
// never seen ACKed is not retransmit-unacked unless it was resent again
// after (its receiver would have ACKed that copy).
func (f *flow) acksLost(d Dir) {
	for c := range f.ch[d] {
		ch := &f.ch[d][c]
		for i := ch.head; i >= 0; i = ch.slots[i].next {
			e := &ch.slots[i]
			e.ackLost, e.ackLostRe = true, e.retrans
		}
	}
}
