package checker

import (
	"testing"

	"pgregory.net/rapid"
)

// offsetTable behaves as a map from offset to value that forgets the offsets below a
// rising floor: over random sequences of writes (below, inside and above the offsets held,
// across ring growth, wrap-around and shrinking), reads and drops.
func TestOffsetTableIsAMapWithAFloor(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab offsetTable[int64]
		ref := map[int64]int64{}
		floor := rapid.Int64Range(0, 1000).Draw(t, "floor0")
		for step := range rapid.IntRange(1, 300).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0:
				floor += []int64{600, 80_000}[rapid.IntRange(0, 1).Draw(t, "far")] * int64(rapid.IntRange(0, 1000).Draw(t, "rise")) / 1000
				tab.dropBelow(floor)
				for off := range ref {
					if off < floor {
						delete(ref, off)
					}
				}
			case 1, 2, 3:
				off := floor + rapid.Int64Range(0, 3000).Draw(t, "far")
				got := tab.find(off)
				want, ok := ref[off]
				if (got != nil && *got != want) || (got == nil && ok) {
					t.Fatalf("step %d: find(%d) = %v, want %d (held %v)", step, off, got, want, ok)
				}
			default:
				span := []int64{3000, 3000, 3000, 70_000}[rapid.IntRange(0, 3).Draw(t, "span")] // sometimes past the shrink size
				off := floor + rapid.Int64Range(0, span).Draw(t, "off")
				p := tab.at(off)
				if *p != ref[off] {
					t.Fatalf("step %d: at(%d) holds %d, want %d", step, off, *p, ref[off])
				}
				v := int64(step + 1)
				*p, ref[off] = v, v
			}
		}
		for off, want := range ref {
			if got := tab.find(off); got == nil || *got != want {
				t.Fatalf("offset %d: %v, want %d", off, got, want)
			}
		}
	})
}
