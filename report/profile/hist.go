package profile

import "math/bits"

// hist is a log-bucketed histogram of non-negative integers (microseconds,
// bytes, message counts) with bounded memory: values below histExact are
// counted exactly, larger ones in histSub buckets per power of two. Each
// bucket also keeps the sum of its values, and a percentile is the mean of
// its bucket: exact when the bucket holds one value (as in generated
// captures), within the bucket's width (1/histSub of the value, about 6%)
// otherwise. Only the window of buckets from the smallest to the largest
// value seen is kept (off is the index of its first; at most histBuckets),
// so recording allocates only when a value falls outside the window, never
// per sample in steady state. Histograms of one unit merge by adding
// buckets.
type hist struct {
	b   []bucket // buckets off .. off+len(b)-1
	off int
	n   uint64
	max uint64
}

const (
	histSubBits = 4
	histSub     = 1 << histSubBits       // buckets per power of two
	histExact   = 2 * histSub            // values below are their own bucket
	histBuckets = histExact + 59*histSub // enough for every uint64
)

type bucket struct {
	n   uint64 // values counted
	sum uint64 // their sum
}

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
	if i < h.off || i >= h.off+len(h.b) {
		h.grow(i)
	}
	b := &h.b[i-h.off]
	b.n++
	b.sum += v
	h.max = max(h.max, v)
	h.n++
}

// grow makes room for bucket i, with headroom so growth happens rarely.
func (h *hist) grow(i int) {
	if len(h.b) == 0 {
		h.off = max(i-2, 0)
		h.b = make([]bucket, min(8, histBuckets-h.off))
		return
	}
	lo, hi := min(h.off, i), max(h.off+len(h.b), i+1)
	if i < h.off {
		lo = max(i-(hi-lo)/2, 0) // headroom below too
	} else {
		hi = min(i+1+(hi-lo)/2, histBuckets)
	}
	b := make([]bucket, hi-lo)
	copy(b[h.off-lo:], h.b)
	h.b, h.off = b, lo
}

// merge adds o's samples to h.
func (h *hist) merge(o *hist) {
	if o.n == 0 {
		return
	}
	for i, b := range o.b {
		if b.n == 0 {
			continue
		}
		j := o.off + i
		if j < h.off || j >= h.off+len(h.b) {
			h.grow(j)
		}
		h.b[j-h.off].n += b.n
		h.b[j-h.off].sum += b.sum
	}
	h.max = max(h.max, o.max)
	h.n += o.n
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
	for _, b := range h.b {
		seen += b.n
		if seen >= rank {
			return (b.sum + b.n/2) / b.n
		}
	}
	return h.max
}

// mean is the exact mean (0 without samples).
func (h *hist) mean() float64 {
	if h.n == 0 {
		return 0
	}
	var sum uint64
	for _, b := range h.b {
		sum += b.sum
	}
	return float64(sum) / float64(h.n)
}

// each calls fn for every non-empty bucket, lowest first.
func (h *hist) each(fn func(lo, hi, n uint64)) {
	for i, b := range h.b {
		if b.n > 0 {
			lo, hi := bucketRange(h.off + i)
			fn(lo, hi, b.n)
		}
	}
}
