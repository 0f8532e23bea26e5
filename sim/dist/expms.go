package dist

import (
	"math"
	"sync"
)

// expMs returns toMs(math.Exp(y)), bit for bit, without calling math.Exp when y lies where
// the rounded value is between 0 and expTableMax-1 ms: a log-normal sample is exp of a normal
// and then rounded to whole milliseconds, so all that matters is which pair of half-way
// points (m−½, m+½) exp(y) falls between, and those are fixed numbers in y.
//
// The table holds, for every m in 1..expTableMax, the smallest float64 y with
// toMs(math.Exp(y)) ≥ m, found with math.Exp itself (so it is right for this GOARCH's Exp),
// and a grid over y that says where to start looking. It relies on math.Exp being monotonic
// near each of those points (its error is below one ulp, so away from them the rounding
// cannot change); building the table checks that for expTableCheck ulps on either side of
// every threshold and, should it fail anywhere, leaves the table off, so every sample goes
// through math.Exp as before.
func expMs(y float64) int64 { return expTableOnce().ms(y) }

// ms is expMs with the table at hand (nil: no table, math.Exp for every value).
func (t *expTable) ms(y float64) int64 {
	if t == nil || !(y < t.yt[expTableMax-1]) {
		return toMs(math.Exp(y))
	}
	if y < t.yt[0] {
		return 0 // exp(y) < ½
	}
	j := int((y - t.yt[0]) * t.inv)
	k := int(t.start[min(j, len(t.start)-1)])
	for y >= t.yt[k+1] {
		k++
	}
	for y < t.yt[k] {
		k--
	}
	return int64(k) + 1 // yt[k] ≤ y < yt[k+1]: the value is k+1
}

// expTableMax is the number of thresholds: values up to expTableMax-1 ms come from the table.
const expTableMax = 1024

// expTableCheck is how many ulps on either side of a threshold are checked.
const expTableCheck = 32

// expGridPerUnit is the grid's buckets per unit of y: about one threshold per bucket at the
// top of the table (thresholds are 1/m apart in y near m).
const expGridPerUnit = expTableMax

type expTable struct {
	yt    [expTableMax]float64 // yt[i]: the smallest y with toMs(math.Exp(y)) ≥ i+1
	inv   float64              // grid buckets per unit of y
	start []int16              // start[j]: about the largest i with yt[i] ≤ yt[0] + j/inv
}

var expTableOnce = sync.OnceValue(buildExpTable)

func buildExpTable() *expTable {
	t := &expTable{inv: expGridPerUnit}
	f := func(y float64) int64 { return toMs(math.Exp(y)) }
	for i := range t.yt {
		m := int64(i) + 1
		y, ok := threshold(f, m)
		if !ok {
			return nil
		}
		t.yt[i] = y
	}
	n := int((t.yt[expTableMax-1]-t.yt[0])*t.inv) + 1
	t.start = make([]int16, n)
	k := 0
	for j := range t.start {
		at := t.yt[0] + float64(j)/t.inv
		for k+1 < expTableMax && t.yt[k+1] <= at {
			k++
		}
		t.start[j] = int16(k)
	}
	return t
}

// threshold finds the smallest float64 y with f(y) ≥ m, f non-decreasing near it, and
// checks that f stays below m for expTableCheck floats under it and at or above m for as
// many from it up; ok is false when it could not.
func threshold(f func(float64) int64, m int64) (y float64, ok bool) {
	guess := math.Log(float64(m) - 0.5)
	// Bracket: f(lo) < m ≤ f(hi), lo and hi as ordered keys.
	lo, hi := orderKey(guess), orderKey(guess)
	for step := uint64(1); f(fromKey(lo)) >= m; step *= 2 {
		if step > 1<<20 {
			return 0, false
		}
		lo -= step
	}
	for step := uint64(1); f(fromKey(hi)) < m; step *= 2 {
		if step > 1<<20 {
			return 0, false
		}
		hi += step
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if f(fromKey(mid)) >= m {
			hi = mid
		} else {
			lo = mid
		}
	}
	for d := uint64(0); d < expTableCheck; d++ {
		if f(fromKey(hi-1-d)) >= m || f(fromKey(hi+d)) < m {
			return 0, false
		}
	}
	return fromKey(hi), true
}

// orderKey maps a float64 to a uint64 whose order is the floats' order (for non-NaN values),
// so that adjacent keys are adjacent floats.
func orderKey(x float64) uint64 {
	u := math.Float64bits(x)
	if u>>63 == 1 {
		return ^u
	}
	return u | 1<<63
}

func fromKey(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
