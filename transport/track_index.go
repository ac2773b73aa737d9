package transport

import "hash/maphash"

// seqIndex finds a channel's message slots by seq. It replaces a
// map[uint16]int32: with thousands of flows a lookup is a cache miss per
// line read, and a map reads its header, a control word and a slot group
// where this reads one entry (linear probing in a power-of-two table at
// most half full).
type seqIndex struct {
	tab   []seqEntry
	n     int
	shift uint8 // 32 - log2(len(tab))
}

type seqEntry struct {
	seq  uint16
	slot int32 // slot + 1; 0 marks a free entry
}

// seqSeed scrambles the home of a seq, so a capture cannot pick seqs that
// all probe the same run (it would cost time, never correctness).
var seqSeed = uint16(maphash.Comparable(maphash.MakeSeed(), 0))

// home is seq's first entry: Fibonacci hashing spreads runs of seqs evenly.
func (x *seqIndex) home(seq uint16) int {
	return int((uint32(seq^seqSeed) * 0x9E3779B1) >> x.shift)
}

// get returns the slot of seq.
func (x *seqIndex) get(seq uint16) (int32, bool) {
	if x.n == 0 {
		return -1, false
	}
	mask := len(x.tab) - 1
	for i := x.home(seq); ; i = (i + 1) & mask {
		switch e := x.tab[i]; {
		case e.slot == 0:
			return -1, false
		case e.seq == seq:
			return e.slot - 1, true
		}
	}
}

// set maps seq to slot.
func (x *seqIndex) set(seq uint16, slot int32) {
	if 2*(x.n+1) > len(x.tab) {
		x.grow()
	}
	mask := len(x.tab) - 1
	i := x.home(seq)
	for x.tab[i].slot != 0 && x.tab[i].seq != seq {
		i = (i + 1) & mask
	}
	if x.tab[i].slot == 0 {
		x.n++
	}
	x.tab[i] = seqEntry{seq, slot + 1}
}

// del removes seq if it maps to slot, shifting later entries of its probe
// run back so no tombstones are needed.
func (x *seqIndex) del(seq uint16, slot int32) {
	if x.n == 0 {
		return
	}
	mask := len(x.tab) - 1
	i := x.home(seq)
	for ; x.tab[i].seq != seq || x.tab[i].slot == 0; i = (i + 1) & mask {
		if x.tab[i].slot == 0 {
			return
		}
	}
	if x.tab[i].slot != slot+1 {
		return
	}
	x.n--
	for j := i; ; {
		x.tab[i] = seqEntry{}
		for {
			j = (j + 1) & mask
			e := x.tab[j]
			if e.slot == 0 {
				return
			}
			// e may fill the hole at i unless its home lies after i.
			if k := x.home(e.seq); (j-k)&mask >= (j-i)&mask {
				x.tab[i] = e
				i = j
				break
			}
		}
	}
}

func (x *seqIndex) grow() {
	old := x.tab
	n := max(8, 2*len(old))
	x.tab, x.n = make([]seqEntry, n), 0
	x.shift = 32
	for m := n; m > 1; m >>= 1 {
		x.shift--
	}
	for _, e := range old {
		if e.slot != 0 {
			x.set(e.seq, e.slot-1)
		}
	}
}

// reset empties the index, keeping its table.
func (x *seqIndex) reset() {
	clear(x.tab)
	x.n = 0
}
