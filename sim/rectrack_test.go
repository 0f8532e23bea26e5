package sim

import (
	"testing"

	"github.com/sharesim/sharesim/sim/rng"
)

// span and tracked see the same infos get and peek see, offset by offset, through random
// growth at either end and trimming.
func TestRecTrackSpanIsGet(t *testing.T) {
	r := rng.New(5)
	var tr recTrack
	for step := range 20_000 {
		base := tr.base
		first := base + int64(r.Intn(40)) - 8
		last := first + int64(r.Intn(12))
		switch r.Intn(4) {
		case 0:
			tr.trimTo(base + int64(r.Intn(10)))
		case 1:
			infos := tr.span(first, last)
			for k := range infos {
				infos[k].okCount++
				if got := tr.get(first + int64(k)); got != &infos[k] {
					t.Fatalf("step %d: span(%d, %d)[%d] is not get(%d)", step, first, last, k, first+int64(k))
				}
			}
		default:
			infos, lo := tr.tracked(first, last)
			n := 0
			for off := first; off <= last; off++ {
				p := tr.peek(off)
				if p == nil {
					continue
				}
				if off-lo >= int64(len(infos)) || off < lo || &infos[off-lo] != p {
					t.Fatalf("step %d: tracked(%d, %d) from %d (%d) misses peek(%d)", step, first, last, lo, len(infos), off)
				}
				n++
			}
			if n != len(infos) {
				t.Fatalf("step %d: tracked(%d, %d) holds %d, peek finds %d", step, first, last, len(infos), n)
			}
		}
	}
}
