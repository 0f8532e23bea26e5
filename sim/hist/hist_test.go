package hist

import (
	"math"
	"sort"
	"testing"
)

func TestExactBelow256(t *testing.T) {
	var h Hist
	for v := int64(1); v <= 200; v++ {
		h.Add(v)
	}
	cases := []struct {
		q    float64
		want int64
	}{{0, 1}, {0.5, 100}, {0.9, 180}, {0.99, 198}, {0.995, 199}, {1, 200}}
	for _, c := range cases {
		if got, ok := h.Quantile(c.q); !ok || got != c.want {
			t.Errorf("q%.3f = %d, want %d (nearest rank ⌈q·200⌉)", c.q, got, c.want)
		}
	}
	if h.Mean() != 100.5 || h.Count() != 200 || h.Max() != 200 || h.Min() != 1 {
		t.Errorf("mean %v count %d max %d min %d", h.Mean(), h.Count(), h.Max(), h.Min())
	}
}

func TestEmpty(t *testing.T) {
	var h Hist
	if _, ok := h.Quantile(0.5); ok {
		t.Fatal("empty histogram has a median")
	}
}

func TestBoundsCoverEveryValue(t *testing.T) {
	prevHi := int64(-1)
	for b := 0; b < Buckets-1; b++ {
		lo, hi := Bounds(b)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d = [%d, %d] after %d", b, lo, hi, prevHi)
		}
		if index(lo) != b || index(hi) != b {
			t.Fatalf("bucket %d: index(lo)=%d index(hi)=%d", b, index(lo), index(hi))
		}
		if lo >= Exact && float64(hi-lo+1)/float64(lo) > 1.0/SubBuckets+1e-12 {
			t.Fatalf("bucket %d too wide: [%d, %d]", b, lo, hi)
		}
		prevHi = hi
	}
}

// TestRelativeErrorBound compares quantiles of a spread of values with the exact
// nearest-rank quantiles of the sorted values.
func TestRelativeErrorBound(t *testing.T) {
	var h Hist
	var vals []int64
	x := uint64(12345)
	for i := 0; i < 20000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v := int64(math.Exp(float64(x%20000) / 1000)) // 1 .. e^20
		vals = append(vals, v)
		h.Add(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.01, 0.1, 0.5, 0.9, 0.99, 0.999} {
		rank := int(math.Ceil(q * float64(len(vals))))
		want := vals[rank-1]
		got, _ := h.Quantile(q)
		if err := math.Abs(float64(got-want)) / float64(want); err > MaxRelativeError {
			t.Errorf("q%.3f = %d, true %d: relative error %.5f > %.5f", q, got, want, err, MaxRelativeError)
		}
	}
}

func TestMergeEqualsAddingAll(t *testing.T) {
	var a, b, all Hist
	for v := int64(0); v < 5000; v += 7 {
		a.Add(v)
		all.Add(v)
	}
	for v := int64(3); v < 90000; v += 101 {
		b.Add(v)
		all.Add(v)
	}
	a.Merge(&b)
	if a != all {
		t.Fatal("merge differs from adding every value")
	}
}

func TestBucketsLimit(t *testing.T) {
	var h Hist
	for v := int64(0); v < 100000; v += 3 {
		h.Add(v)
	}
	bs := h.Buckets(40)
	var n int64
	for _, b := range bs {
		n += b.Count
	}
	if len(bs) > 40 || n != h.Count() {
		t.Fatalf("%d buckets holding %d of %d values", len(bs), n, h.Count())
	}
}

func TestAddNEqualsAddingEach(t *testing.T) {
	var a, b Hist
	for i, v := range []int64{5, -3, 0, 300, 299, 1 << 40, 7, 5} {
		n := int64(i%3 + 1)
		a.AddN(v, n)
		for range n {
			b.Add(v)
		}
		if a != b {
			t.Fatalf("after AddN(%d, %d): differs from adding it %d times", v, n, n)
		}
	}
}
