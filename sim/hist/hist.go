// Package hist is a fixed-memory histogram of non-negative integers (milliseconds, offsets)
// with nearest-rank quantiles of bounded error.
//
// Values below Exact are counted exactly. Above, each power of two [2^e, 2^(e+1)) is split
// into SubBuckets equal buckets of width 2^(e-7); a quantile that falls in such a bucket is
// reported as the bucket's midpoint clamped to the observed minimum and maximum, so it is
// within MaxRelativeError of the true nearest-rank quantile. Memory is fixed (Buckets
// counters), whatever the number of values.
package hist

import (
	"math"
	"math/bits"
)

const (
	// Exact is the bound below which every value has its own bucket.
	Exact = 256
	// SubBuckets is the number of buckets per power of two above Exact.
	SubBuckets = 128
	// MaxRelativeError bounds |reported − true| / true for a quantile at or above Exact:
	// half a bucket width over the bucket's lower bound, 1/(2·SubBuckets).
	MaxRelativeError = 1.0 / (2 * SubBuckets)

	subBits   = 7  // log2(SubBuckets)
	exactBits = 8  // log2(Exact)
	maxExp    = 46 // values up to 2^47 − 1 (about 4 400 years in ms); larger ones saturate
	// Buckets is the number of counters a histogram holds.
	Buckets = Exact + (maxExp-exactBits+1)*SubBuckets
)

// Hist counts values. The zero value is an empty histogram.
type Hist struct {
	counts   [Buckets]int64
	n, sum   int64
	min, max int64
}

// index returns the bucket of v ≥ 0.
func index(v int64) int {
	if v < Exact {
		return int(v)
	}
	e := 63 - bits.LeadingZeros64(uint64(v)) // v in [2^e, 2^(e+1))
	if e > maxExp {
		return Buckets - 1
	}
	sub := int((v >> (e - subBits)) & (SubBuckets - 1))
	return Exact + (e-exactBits)*SubBuckets + sub
}

// Bounds returns the smallest and largest value bucket b holds.
func Bounds(b int) (lo, hi int64) {
	if b < Exact {
		return int64(b), int64(b)
	}
	e := (b-Exact)/SubBuckets + exactBits
	sub := int64((b - Exact) % SubBuckets)
	width := int64(1) << (e - subBits)
	lo = int64(1)<<e + sub*width
	return lo, lo + width - 1
}

// Add counts v; negative values count as 0.
func (h *Hist) Add(v int64) {
	v = max(v, 0)
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.counts[index(v)]++
	h.n++
	h.sum += v
}

// AddN counts v n times (n ≥ 1), exactly as n calls of Add(v) would.
func (h *Hist) AddN(v, n int64) {
	v = max(v, 0)
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.counts[index(v)] += n
	h.n += n
	h.sum += v * n
}

// Merge adds every value of o.
func (h *Hist) Merge(o *Hist) {
	if o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of values.
func (h *Hist) Count() int64 { return h.n }

// Max is the largest value (0 when empty).
func (h *Hist) Max() int64 { return h.max }

// Min is the smallest value (0 when empty).
func (h *Hist) Min() int64 { return h.min }

// Mean is the exact mean (0 when empty).
func (h *Hist) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n)
}

// Quantile returns the nearest-rank q-quantile: the smallest value v such that at least
// ⌈q·n⌉ of the n values are ≤ v (q = 0 gives the minimum). ok is false when empty.
func (h *Hist) Quantile(q float64) (v int64, ok bool) {
	if h.n == 0 {
		return 0, false
	}
	// ⌈q·n⌉, forgiving the rounding of q·n (0.07·100 is 7.000000000000001).
	rank := int64(math.Ceil(q*float64(h.n) - 1e-9))
	rank = min(max(rank, 1), h.n)
	var cum int64
	for b, c := range h.counts {
		cum += c
		if cum < rank {
			continue
		}
		lo, hi := Bounds(b)
		if lo == hi {
			return lo, true
		}
		mid := lo + (hi-lo)/2
		return min(max(mid, h.min), h.max), true
	}
	return h.max, true
}

// Bucket is one non-empty bucket: Count values in [Low, High].
type Bucket struct {
	Low   int64 `json:"low"`
	High  int64 `json:"high"`
	Count int64 `json:"count"`
}

// Buckets lists the non-empty buckets in ascending order, merged so that at most about
// limit remain (adjacent buckets are joined; 0 keeps them all).
func (h *Hist) Buckets(limit int) []Bucket {
	var out []Bucket
	for b, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := Bounds(b)
		hi = min(hi, h.max)
		lo = max(lo, h.min)
		out = append(out, Bucket{Low: lo, High: hi, Count: c})
	}
	if limit <= 0 || len(out) <= limit {
		return out
	}
	per := (len(out) + limit - 1) / limit
	merged := make([]Bucket, 0, limit)
	for i := 0; i < len(out); i += per {
		m := out[i]
		for _, b := range out[i+1 : min(i+per, len(out))] {
			m.High, m.Count = b.High, m.Count+b.Count
		}
		merged = append(merged, m)
	}
	return merged
}
