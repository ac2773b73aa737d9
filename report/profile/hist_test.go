package profile

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBucketRoundTrip(t *testing.T) {
	prev := -1
	for _, v := range []uint64{0, 1, 31, 32, 33, 63, 64, 100, 1000, 99999, 100000, 1 << 40, 1<<63 + 5, ^uint64(0)} {
		i := bucketOf(v)
		lo, hi := bucketRange(i)
		if v < lo || v > hi || i >= histBuckets {
			t.Errorf("%d: bucket %d [%d, %d]", v, i, lo, hi)
		}
		if i < prev {
			t.Errorf("%d: bucket %d below the previous %d", v, i, prev)
		}
		prev = i
	}
}

func TestHistQuantiles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		values   []uint64
		q        float64
		want     uint64
		tolerant bool // within 1/histSub of the exact value
	}{
		{"empty", nil, 0.5, 0, false},
		{"one", []uint64{7}, 0.5, 7, false},
		{"small exact", []uint64{1, 2, 3, 4, 5}, 0.5, 3, false},
		{"p95 of 1..20", seq(1, 20), 0.95, 19, false},
		{"constant large", []uint64{100000, 100000, 100000}, 0.5, 100000, false},
		{"spread", seq(1000, 2000), 0.5, 1500, true},
		{"spread p95", seq(1000, 2000), 0.95, 1950, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h hist
			for _, v := range tc.values {
				h.add(v)
			}
			got := h.quantile(tc.q)
			if tc.tolerant {
				if d := float64(got) - float64(tc.want); d < -float64(tc.want)/histSub || d > float64(tc.want)/histSub {
					t.Errorf("q%v = %d, want about %d", tc.q, got, tc.want)
				}
			} else if got != tc.want {
				t.Errorf("q%v = %d, want %d", tc.q, got, tc.want)
			}
		})
	}
}

func seq(a, b uint64) []uint64 {
	var s []uint64
	for v := a; v <= b; v++ {
		s = append(s, v)
	}
	return s
}

// Random samples: every quantile is within the bucket error of the exact
// nearest-rank value, and merging equals adding everything to one.
func TestHistAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a, b, all hist
	var exact []uint64
	for i := 0; i < 20000; i++ {
		v := uint64(r.ExpFloat64() * 50000)
		exact = append(exact, v)
		all.add(v)
		if i%2 == 0 {
			a.add(v)
		} else {
			b.add(v)
		}
	}
	a.merge(&b)
	slices.Sort(exact)
	for _, q := range []float64{0.05, 0.5, 0.95, 0.99} {
		want := float64(exact[int(q*float64(len(exact))+0.999999)-1])
		got := float64(all.quantile(q))
		if got < want*(1-2.0/histSub)-1 || got > want*(1+2.0/histSub)+1 {
			t.Errorf("q%v = %v, exact %v", q, got, want)
		}
		if a.quantile(q) != all.quantile(q) {
			t.Errorf("q%v: merged %d, single %d", q, a.quantile(q), all.quantile(q))
		}
	}
	if all.max != exact[len(exact)-1] || all.n != 20000 || len(all.b) > histBuckets {
		t.Errorf("max %d n %d buckets %d", all.max, all.n, len(all.b))
	}
}
