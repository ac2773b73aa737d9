package transport

import (
	"math/rand/v2"
	"testing"
)

// seqIndex agrees with a map under random sets and deletes, including
// seqs crowded into few homes.
func TestSeqIndex(t *testing.T) {
	for _, spread := range []int{1 << 16, 64, 8} {
		r := rand.New(rand.NewPCG(1, uint64(spread)))
		var x seqIndex
		want := map[uint16]int32{}
		for i := range 20000 {
			seq := uint16(r.IntN(spread) * (1 << 16 / spread))
			switch r.IntN(3) {
			case 0, 1:
				if len(want) < 300 {
					x.set(seq, int32(i))
					want[seq] = int32(i)
				}
			default:
				slot, ok := want[seq]
				if r.IntN(4) == 0 {
					slot++ // another slot's seq: left alone
				} else if ok {
					delete(want, seq)
				}
				x.del(seq, slot)
			}
			if x.n != len(want) {
				t.Fatalf("spread %d step %d: %d entries, want %d", spread, i, x.n, len(want))
			}
			if _, in := want[seq]; !in {
				if _, ok := x.get(seq); ok {
					t.Fatalf("spread %d step %d: finds removed seq %d", spread, i, seq)
				}
			}
			if i%97 == 0 {
				for s, w := range want {
					if got, ok := x.get(s); !ok || got != w {
						t.Fatalf("spread %d step %d: seq %d at %d %v, want %d", spread, i, s, got, ok, w)
					}
				}
			}
		}
		x.reset()
		if _, ok := x.get(0); ok || x.n != 0 {
			t.Fatalf("spread %d: reset index still finds entries", spread)
		}
	}
}
