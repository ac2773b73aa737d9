package htmlreport

import (
	"math"
	"strconv"
)

// bins are one flow's series at a width that doubles (adjacent bins
// merge) whenever a time falls past the last of MaxBins bins, so a flow
// holds at most MaxBins columns: counts add up, RTT keeps each column's
// minimum and maximum.
type bins struct {
	width   float64
	n       int // bins in use
	dg      [2][]float64
	bytes   [2][]float64
	retrans []float64
	rttMin  []float64 // ms; NaN: none
	rttMax  []float64
}

func newBins() bins {
	b := bins{width: firstWidth}
	for d := range 2 {
		b.dg[d] = make([]float64, MaxBins)
		b.bytes[d] = make([]float64, MaxBins)
	}
	b.retrans = make([]float64, MaxBins)
	b.rttMin = make([]float64, MaxBins)
	b.rttMax = make([]float64, MaxBins)
	for i := range b.rttMin {
		b.rttMin[i], b.rttMax[i] = math.NaN(), math.NaN()
	}
	return b
}

// at returns the bin of time t (seconds, >= 0), merging bins as needed.
func (b *bins) at(t float64) int {
	if t < 0 || math.IsNaN(t) {
		t = 0
	}
	for t/b.width >= MaxBins {
		b.merge()
	}
	i := int(t / b.width)
	if i >= MaxBins { // rounding at the edge
		i = MaxBins - 1
	}
	if i+1 > b.n {
		b.n = i + 1
	}
	return i
}

func (b *bins) merge() {
	sum := func(s []float64) {
		for i := 0; i < MaxBins/2; i++ {
			s[i] = s[2*i] + s[2*i+1]
		}
		clear(s[MaxBins/2:])
	}
	for d := range 2 {
		sum(b.dg[d])
		sum(b.bytes[d])
	}
	sum(b.retrans)
	for i := 0; i < MaxBins/2; i++ {
		b.rttMin[i] = nanMin(b.rttMin[2*i], b.rttMin[2*i+1])
		b.rttMax[i] = nanMax(b.rttMax[2*i], b.rttMax[2*i+1])
	}
	for i := MaxBins / 2; i < MaxBins; i++ {
		b.rttMin[i], b.rttMax[i] = math.NaN(), math.NaN()
	}
	b.width *= 2
	b.n = (b.n + 1) / 2
}

func (b *bins) rtt(i int, ms float64) {
	b.rttMin[i] = nanMin(b.rttMin[i], ms)
	b.rttMax[i] = nanMax(b.rttMax[i], ms)
}

func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || b < a {
		return b
	}
	return a
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || b > a {
		return b
	}
	return a
}

// rateWindow is the span a rate is counted over: a column's rate is what
// the second around it carried, so 82 datagrams in 3 s read as about 27/s
// however narrow the columns are (a 4 ms column with one datagram is not
// 250/s).
const rateWindow = 1.0

// series turns the bins from the one of time first on into per-second
// rates, rounded for the JSON: a flow's series start where it does. A
// column's rate counts the bins within rateWindow around it (prefix sums:
// linear in the bins).
func (b *bins) series(first float64) Series {
	start := min(max(int(first/b.width), 0), b.n)
	s := Series{Width: b.width, Start: start}
	k := max(int(math.Round(rateWindow/b.width)), 1) // bins per window
	span := float64(k) * b.width
	sum := make([]float64, b.n+1)
	rate := func(v []float64) []float64 {
		for i := 0; i < b.n; i++ {
			sum[i+1] = sum[i] + v[i]
		}
		out := make([]float64, b.n-start)
		for i := range out {
			j := start + i
			// Past the capture's ends the window holds nothing: a rate
			// there is what the part of the second in the capture held.
			lo, hi := max(j-k/2, 0), min(j-k/2+k, b.n)
			out[i] = round3((sum[hi] - sum[lo]) / span)
		}
		return out
	}
	s.DgC2S, s.DgS2C = rate(b.dg[0]), rate(b.dg[1])
	s.BC2S, s.BS2C = rate(b.bytes[0]), rate(b.bytes[1])
	s.Retrans = rate(b.retrans)
	s.RTTMin, s.RTTMax = make([]float64, b.n-start), make([]float64, b.n-start)
	for i := range s.RTTMin {
		s.RTTMin[i], s.RTTMax[i] = -1, -1
		if j := start + i; !math.IsNaN(b.rttMin[j]) {
			s.RTTMin[i], s.RTTMax[i] = round3(b.rttMin[j]), round3(b.rttMax[j])
		}
	}
	return s
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func itoa(v int) string { return strconv.Itoa(v) }
