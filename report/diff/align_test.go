package diff

import (
	"math/rand/v2"
	"testing"
)

// lcsLen is the textbook O(NM) longest common subsequence length.
func lcsLen(a, b []uint32) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkMatch verifies that match is a valid alignment and returns its size.
func checkMatch(t *testing.T, a, b []uint32, match []int32) int {
	t.Helper()
	if len(match) != len(a) {
		t.Fatalf("match has %d entries for %d elements", len(match), len(a))
	}
	last, n := int32(-1), 0
	for i, j := range match {
		if j < 0 {
			continue
		}
		if j <= last || int(j) >= len(b) || a[i] != b[j] {
			t.Fatalf("bad match a[%d] -> b[%d] (last %d): %v / %v", i, j, last, a, b)
		}
		last = j
		n++
	}
	return n
}

func randSeq(r *rand.Rand, n, alphabet int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = uint32(r.IntN(alphabet))
	}
	return s
}

func TestAlignTable(t *testing.T) {
	cases := []struct {
		name string
		a, b []uint32
		want int
	}{
		{"empty", nil, nil, 0},
		{"old-empty", nil, []uint32{1, 2}, 0},
		{"new-empty", []uint32{1, 2}, nil, 0},
		{"equal", []uint32{1, 2, 3}, []uint32{1, 2, 3}, 3},
		{"one-changed", []uint32{1, 2, 3}, []uint32{1, 9, 3}, 2},
		{"inserted", []uint32{1, 3}, []uint32{1, 2, 3}, 2},
		{"deleted", []uint32{1, 2, 3}, []uint32{1, 3}, 2},
		{"disjoint", []uint32{1, 2}, []uint32{3, 4}, 0},
		{"swap", []uint32{1, 2}, []uint32{2, 1}, 1},
		{"repeats", []uint32{1, 1, 1, 2}, []uint32{2, 1, 1, 1}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if n := checkMatch(t, c.a, c.b, align(c.a, c.b)); n != c.want {
				t.Fatalf("%d matches, want %d", n, c.want)
			}
		})
	}
}

// Myers finds a longest common subsequence: compare with the quadratic DP
// on random sequences of every shape.
func TestAlignOptimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 3000 {
		a := randSeq(r, r.IntN(40), 1+r.IntN(6))
		b := randSeq(r, r.IntN(40), 1+r.IntN(6))
		if it%3 == 0 { // mostly equal sequences, like real diffs
			b = append([]uint32(nil), a...)
			for k := r.IntN(4); k > 0 && len(b) > 0; k-- {
				b[r.IntN(len(b))] = uint32(r.IntN(9))
			}
		}
		got := checkMatch(t, a, b, align(a, b))
		if want := lcsLen(a, b); got != want {
			t.Fatalf("a=%v b=%v: %d matches, LCS is %d", a, b, got, want)
		}
	}
}

// The greedy fallback still gives a valid alignment, and finds the
// obvious resynchronization after a local change.
func TestAlignGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		a := randSeq(r, r.IntN(200), 1+r.IntN(50))
		b := randSeq(r, r.IntN(200), 1+r.IntN(50))
		al := &aligner[uint32]{a: a, b: b, match: make([]int32, len(a))}
		for i := range al.match {
			al.match[i] = -1
		}
		al.greedy(0, len(a), 0, len(b))
		checkMatch(t, a, b, al.match)
	}
	a := []uint32{1, 2, 3, 4, 5, 6}
	b := []uint32{1, 2, 9, 9, 3, 4, 5, 6}
	al := &aligner[uint32]{a: a, b: b, match: []int32{-1, -1, -1, -1, -1, -1}}
	al.greedy(0, len(a), 0, len(b))
	if n := checkMatch(t, a, b, al.match); n != 6 {
		t.Fatalf("greedy matched %d of 6 after an insertion", n)
	}
}

// Huge, completely different sequences end in the greedy fallback instead
// of O(N·D) work.
func TestAlignBudget(t *testing.T) {
	const n = 20_000
	a, b := make([]uint32, n), make([]uint32, n)
	for i := range a {
		a[i], b[i] = uint32(2*i), uint32(2*i+1)
	}
	if got := checkMatch(t, a, b, align(a, b)); got != 0 {
		t.Fatalf("%d matches between disjoint sequences", got)
	}
}

func BenchmarkAlignFewChanges(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randSeq(r, 100_000, 1<<20)
	y := append([]uint32(nil), x...)
	for k := 0; k < 50; k++ {
		y[r.IntN(len(y))] = uint32(r.IntN(1 << 20))
	}
	b.ReportAllocs()
	b.SetBytes(int64(4 * (len(x) + len(y))))
	for b.Loop() {
		align(x, y)
	}
}
