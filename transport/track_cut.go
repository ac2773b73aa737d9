package transport

// Messages the capture cut. A datagram cut short by the snap length holds
// whole messages, maybe one message cut in two (Datagram.Cut) and maybe
// messages not captured at all (Datagram.Uncaptured). Only the whole ones
// are tracked: a cut message is neither seen (its retransmission is a
// first send, not compared with bytes the capture lacks) nor missing. What
// refers to it must not look wrong either, so each flow remembers the seqs
// such messages had or may have had: an ACK for one that matches nothing
// is AckCut, not ack-unknown, and a reassembly that lacks a cut fragment
// ends without fragment-incomplete.

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
	unknown = min(unknown, maxCutSeqs/4)
	for c := range next {
		for k := range unknown {
			if known[c] {
				f.cuts.add(d, Channel(c), next[c]+uint16(k))
			}
		}
	}
}
