package render

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestAppendMillis(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := []int64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 1001, 1010, 1100, 12500, -1, -1500, -999,
		1<<40 - 1, 1 << 40, -(1<<40 - 1), -(1 << 40), math.MaxInt64, math.MinInt64}
	for range 200000 {
		vals = append(vals, r.Int64N(2<<40)-1<<40, r.Int64N(10_000_000))
	}
	for _, us := range vals {
		want := strconv.FormatFloat(float64(us)/1000, 'f', -1, 64)
		if got := string(appendMillis(nil, us)); got != want {
			t.Fatalf("appendMillis(%d) = %q, strconv says %q", us, got, want)
		}
	}
}

// TestAppendMicros compares appendMicros with the digit-by-digit loop it
// replaced.
func TestAppendMicros(t *testing.T) {
	old := func(b []byte, us int64) []byte {
		if us < 0 {
			us = -us
		}
		b = append(b, '.')
		for div := int64(100000); div > 0; div /= 10 {
			b = append(b, byte('0'+us/div%10))
		}
		return b
	}
	for us := int64(-1_000_500); us <= 2_000_500; us += 7 {
		if got, want := string(appendMicros([]byte("x"), us)), string(old([]byte("x"), us)); got != want {
			t.Fatalf("appendMicros(%d) = %q, want %q", us, got, want)
		}
	}
}
