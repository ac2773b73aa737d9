package diff

// Alignment of two message sequences: Myers' O(ND) difference algorithm in
// its linear-space form (the "middle snake" divide and conquer, Myers 1986
// section 4b), on interned message keys. Memory is O(N+M). Time is
// O((N+M)·D); a work budget bounds it, and a subproblem that would exceed
// the budget is aligned greedily instead (a linear scan that resynchronizes
// on the nearest equal pair within a window), so two huge, very different
// traces still finish quickly with a valid, if not minimal, alignment.

// workBudget caps the snake steps of one alignment (~0.1 s of work).
const workBudget = 50_000_000

// greedyWindow is how far the greedy fallback looks ahead to resynchronize.
const greedyWindow = 32

// An aligner is reused across the windows of one comparison; work counts
// the snake steps of one flow direction (Compare resets it), so the budget
// holds for a direction whatever its number of windows.
type aligner[K comparable] struct {
	a, b   []K
	match  []int32 // per a index: the matched b index, or -1
	vf, vb []int
	work   int
}

// align returns, for every element of a, the index of the element of b it
// is matched with, or -1. Matches are strictly increasing in both indices
// and only pair equal elements.
func align[K comparable](a, b []K) []int32 {
	var al aligner[K]
	return al.align(a, b)
}

// align is align, reusing the aligner's memory: the result is valid until
// the next call.
func (al *aligner[K]) align(a, b []K) []int32 {
	al.a, al.b = a, b
	if cap(al.match) < len(a) {
		al.match = make([]int32, len(a))
	}
	al.match = al.match[:len(a)]
	for i := range al.match {
		al.match[i] = -1
	}
	al.compare(0, len(a), 0, len(b))
	al.a, al.b = nil, nil
	return al.match
}

func (al *aligner[K]) compare(aLo, aHi, bLo, bHi int) {
	a, b := al.a, al.b
	for aLo < aHi && bLo < bHi && a[aLo] == b[bLo] {
		al.match[aLo] = int32(bLo)
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && a[aHi-1] == b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
		al.match[aHi] = int32(bHi)
	}
	if aLo == aHi || bLo == bHi {
		return // only deletions or only insertions are left
	}
	x, y, u, v, ok := al.middleSnake(aLo, aHi, bLo, bHi)
	if !ok || (x == aLo && y == bLo && u == aHi && v == bHi) {
		al.greedy(aLo, aHi, bLo, bHi)
		return
	}
	al.compare(aLo, x, bLo, y)
	for i, j := x, y; i < u; i, j = i+1, j+1 {
		al.match[i] = int32(j)
	}
	al.compare(u, aHi, v, bHi)
}

// middleSnake finds the middle snake of an optimal path through the edit
// graph of a[aLo:aHi] and b[bLo:bHi]: it runs from (x, y) to (u, v) in
// absolute indices. ok is false when the work budget ran out.
func (al *aligner[K]) middleSnake(aLo, aHi, bLo, bHi int) (x, y, u, v int, ok bool) {
	a, b := al.a[aLo:aHi], al.b[bLo:bHi]
	n, m := len(a), len(b)
	maxD := (n + m + 1) / 2
	off := maxD + 1
	size := 2*maxD + 3
	if cap(al.vf) < size {
		al.vf, al.vb = make([]int, size), make([]int, size)
	}
	vf, vb := al.vf[:size], al.vb[:size]
	// vf[off+k]: furthest x on forward diagonal k = x-y.
	// vb[off+k]: furthest distance walked back on reverse diagonal k, where
	// the reverse coordinates are (n-x, m-y).
	vf[off+1], vb[off+1] = 0, 0
	delta := n - m
	odd := delta&1 != 0
	for d := 0; d <= maxD; d++ {
		al.work += 2*d + 1
		if al.work > workBudget {
			return 0, 0, 0, 0, false
		}
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				px = vf[off+k+1]
			} else {
				px = vf[off+k-1] + 1
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < m && a[px] == b[py] {
				px, py = px+1, py+1
			}
			vf[off+k] = px
			if kr := delta - k; odd && kr >= -(d-1) && kr <= d-1 && px+vb[off+kr] >= n {
				return aLo + sx, bLo + sy, aLo + px, bLo + py, true
			}
		}
		for k := -d; k <= d; k += 2 {
			var px int
			if k == -d || (k != d && vb[off+k-1] < vb[off+k+1]) {
				px = vb[off+k+1]
			} else {
				px = vb[off+k-1] + 1
			}
			py := px - k
			sx, sy := px, py
			for px < n && py < m && a[n-px-1] == b[m-py-1] {
				px, py = px+1, py+1
			}
			vb[off+k] = px
			if kf := delta - k; !odd && kf >= -d && kf <= d && px+vf[off+kf] >= n {
				return aLo + n - px, bLo + m - py, aLo + n - sx, bLo + m - sy, true
			}
		}
	}
	return 0, 0, 0, 0, false // unreachable: the paths meet by d = maxD
}

// greedy aligns a[aLo:aHi] with b[bLo:bHi] in one pass: equal heads match;
// otherwise the nearest equal pair within greedyWindow on both sides is
// taken, the elements before it being deleted and inserted.
func (al *aligner[K]) greedy(aLo, aHi, bLo, bHi int) {
	a, b := al.a, al.b
	i, j := aLo, bLo
	for i < aHi && j < bHi {
		if a[i] == b[j] {
			al.match[i] = int32(j)
			i, j = i+1, j+1
			continue
		}
		found := false
		for s := 1; s <= 2*greedyWindow && !found; s++ {
			for di := max(0, s-greedyWindow); di <= min(s, greedyWindow); di++ {
				dj := s - di
				if i+di < aHi && j+dj < bHi && a[i+di] == b[j+dj] {
					i, j, found = i+di, j+dj, true
					break
				}
			}
		}
		if !found {
			i, j = i+1, j+1 // neither has a partner nearby
		}
	}
}
