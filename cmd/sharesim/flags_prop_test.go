package main

import (
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// seedText draws a --seeds value: one seed or a range, with the largest seeds, wrapping
// ranges and junk among them.
func seedText(t *rapid.T) string {
	num := rapid.OneOf(
		rapid.Just("0"), rapid.Just("18446744073709551615"), rapid.Just("18446744073709551614"), rapid.Just("18446744073709551616"),
		rapid.Just("-1"), rapid.Just("x"), rapid.Just(""),
		rapid.Custom(func(t *rapid.T) string { return fmt.Sprint(rapid.Uint64().Draw(t, "n")) }),
		rapid.Custom(func(t *rapid.T) string { return fmt.Sprint(rapid.Uint64Range(0, 2_000_000).Draw(t, "small")) }),
	)
	a := num.Draw(t, "a")
	if rapid.Bool().Draw(t, "range") {
		return a + ".." + num.Draw(t, "b")
	}
	return a
}

// For every --seeds value parseSeeds accepts, the seeds are at most maxSeeds, ascending by
// one from the first, and come back at once (a range ending at the largest uint64 once
// looped forever); for every duration a bounded flag accepts, the value is in its range.
func TestAcceptedFlagValuesAreBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := seedText(t)
		seeds, err := parseSeeds(s)
		if err == nil {
			if len(seeds) == 0 || len(seeds) > maxSeeds {
				t.Fatalf("--seeds %q: %d seeds accepted", s, len(seeds))
			}
			for i := 1; i < len(seeds); i++ {
				if seeds[i] != seeds[i-1]+1 {
					t.Fatalf("--seeds %q: seed %d follows %d", s, seeds[i], seeds[i-1])
				}
			}
		}
		d := rapid.OneOf(
			rapid.Custom(func(t *rapid.T) string {
				return fmt.Sprintf("%d%s", rapid.Int64Range(-1e12, 1e12).Draw(t, "v"), rapid.SampledFrom([]string{"ns", "ms", "s", "m", "h"}).Draw(t, "u"))
			}),
			rapid.SampledFrom([]string{"100000000h", "9223372036854775807ns", "-1s", "0", "1e9h", "5x", "", "24h", "24h0m1s"}),
		).Draw(t, "duration")
		var v time.Duration
		b := newBoundedDuration(&v, 0, 24*time.Hour)
		if err := b.Set(d); err == nil && (v < 0 || v > 24*time.Hour || v == math.MaxInt64) {
			t.Fatalf("--lin-time-limit %q accepted as %s", d, v)
		}
	})
}
