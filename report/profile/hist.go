package profile

import "math/bits"

// hist is a log-bucketed histogram of non-negative integers (microseconds,
// bytes, message counts) with bounded memory: values below histExact are
// counted exactly, larger ones in histSub buckets per power of two, so a
// reported percentile is within 1/(2*histSub) (about 3%) of the true one.
// The bucket array grows to the largest bucket seen (at most histBuckets
// entries, a few kilobytes), so recording allocates only when a new
// maximum needs more buckets, never per sample in steady state. Two
// histograms of the same unit merge by adding buckets. Each bucket also
// keeps the sum of its values, and a percentile is the mean of its bucket:
// exact when the bucket holds one value (as in generated captures),
// within the bucket's width otherwise.
type hist struct {
	counts []uint32
	sums   []uint64
	n      uint64
	sum    float64
	min    uint64
	max    uint64
}

const (
	histSubBits = 4
	histSub     = 1 << histSubBits       // buckets per power of two
	histExact   = 2 * histSub            // values below are their own bucket
	histBuckets = histExact + 59*histSub // enough for every uint64
)

// bucketOf maps a value to its bucket index.
func bucketOf(v uint64) int {
	if v < histExact {
		return int(v)
	}
	e := bits.Len64(v) - 1 // v in [2^e, 2^(e+1)), e >= histSubBits+1
	sub := int(v>>(uint(e)-histSubBits)) & (histSub - 1)
	return histExact + (e-histSubBits-1)*histSub + sub
}

// bucketRange returns the smallest and largest value of bucket i.
func bucketRange(i int) (lo, hi uint64) {
	if i < histExact {
		return uint64(i), uint64(i)
	}
	j := i - histExact
	e := uint(j/histSub + histSubBits + 1)
	sub := uint64(j % histSub)
	w := uint64(1) << (e - histSubBits)
	lo = uint64(1)<<e + sub*w
	return lo, lo + w - 1
}

// add records one value.
func (h *hist) add(v uint64) {
	i := bucketOf(v)
	if i >= len(h.counts) {
		h.grow(i)
	}
	h.counts[i]++
	h.sums[i] += v
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += float64(v)
}

// grow makes room for bucket i, with headroom so growth happens rarely.
func (h *hist) grow(i int) {
	n := min(max(i+1, 2*len(h.counts), 16), histBuckets)
	c := make([]uint32, n)
	copy(c, h.counts)
	sm := make([]uint64, n)
	copy(sm, h.sums)
	h.counts, h.sums = c, sm
}

// merge adds o's samples to h.
func (h *hist) merge(o *hist) {
	if o.n == 0 {
		return
	}
	if len(o.counts) > len(h.counts) {
		h.grow(len(o.counts) - 1)
	}
	for i, c := range o.counts {
		h.counts[i] += c
		h.sums[i] += o.sums[i]
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// quantile returns the nearest-rank q-quantile (0 < q <= 1): the mean of
// the bucket holding it. It is 0 without samples.
func (h *hist) quantile(q float64) uint64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.999999999)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += uint64(c)
		if seen >= rank {
			return (h.sums[i] + uint64(c)/2) / uint64(c)
		}
	}
	return h.max
}

// mean is the exact mean (0 without samples).
func (h *hist) mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// each calls fn for every non-empty bucket, lowest first.
func (h *hist) each(fn func(lo, hi uint64, n uint32)) {
	for i, c := range h.counts {
		if c > 0 {
			lo, hi := bucketRange(i)
			fn(lo, hi, c)
		}
	}
}
