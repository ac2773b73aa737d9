package game

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkFixed compares appendFixed with strconv for v at every precision.
func checkFixed(t *testing.T, v float64) {
	t.Helper()
	for prec := range len(pow10f) {
		want := strconv.FormatFloat(v, 'f', prec, 64)
		if got := string(appendFixed(nil, v, prec)); got != want {
			t.Fatalf("appendFixed(%v (%#x), %d) = %q, strconv says %q", v, math.Float64bits(v), prec, got, want)
		}
	}
}

func TestAppendFixedSpecial(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), -0.001, 0.125, 0.375, 2.5, 0.25, 0.35, 0.005, 0.015,
		0.05, 0.45, 1.005, 1.015, 1e15, 1e16, 4503599627370495.5, 4503599627370496, 9007199254740993,
		1e20, -1e300, math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), 0.9999999999999999, 9.995, 99.995, -99.995, 0.0005, 0.0015, 0.0025} {
		checkFixed(t, v)
	}
}

// TestAppendFixedTies tries every tie and the doubles beside it: k/2 and
// k/20, k/200, k/2000 for small k, whose nearest doubles sit on either
// side of a rounding tie.
func TestAppendFixedTies(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	for k := -n; k <= n; k++ {
		for _, den := range []float64{2, 20, 200, 2000} {
			v := float64(k) / den
			checkFixed(t, v)
			checkFixed(t, math.Nextafter(v, math.Inf(1)))
			checkFixed(t, math.Nextafter(v, math.Inf(-1)))
		}
	}
}

// TestAppendFixedRandom compares random float32 values (what the wire
// carries), random doubles of every size and random bit patterns.
func TestAppendFixedRandom(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range n {
		checkFixed(t, float64(math.Float32frombits(r.Uint32())))
		checkFixed(t, (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(36)-18)))
		checkFixed(t, math.Float64frombits(r.Uint64()))
	}
}

func FuzzAppendFixed(f *testing.F) {
	for _, v := range []float64{0, 0.125, -2.5, 1e20, 0.015} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) { checkFixed(t, v) })
}

func BenchmarkAppendFixed(b *testing.B) {
	vals := []float64{123.456, -0.5, 1.25, 3000.125, -42.0625, 0.015}
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		for _, v := range vals {
			buf = appendFixed(buf[:0], v, 2)
		}
	}
}

func BenchmarkStrconvFixed(b *testing.B) {
	vals := []float64{123.456, -0.5, 1.25, 3000.125, -42.0625, 0.015}
	b.ReportAllocs()
	buf := make([]byte, 0, 64)
	for b.Loop() {
		for _, v := range vals {
			buf = strconv.AppendFloat(buf[:0], v, 'f', 2, 64)
		}
	}
}
