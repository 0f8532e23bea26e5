package sim

import (
	"math"
	"testing"

	"github.com/sharesim/sharesim/sim/rng"
)

// divisor.mod must be x % d for every x and d: a record's key depends on it.
func TestDivisorModIsRemainder(t *testing.T) {
	r := rng.New(7)
	ds := []uint64{1, 2, 3, 7, 10, 250, 1000, 1 << 31, 1<<32 + 1, math.MaxUint64 / 3, math.MaxUint64 - 1, math.MaxUint64}
	for range 200 {
		ds = append(ds, 1+r.Uint64n(1<<20), r.Uint64()|1)
	}
	for _, d := range ds {
		v := newDivisor(d)
		xs := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 - d}
		for range 2000 {
			xs = append(xs, r.Uint64())
		}
		for _, x := range xs {
			if got, want := v.mod(x), x%d; got != want {
				t.Fatalf("%d mod %d = %d, want %d", x, d, got, want)
			}
		}
	}
}
