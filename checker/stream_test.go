package checker_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
)

// verdicts is the set of checks that failed, with where, one line each: what the verdict
// of a run is made of (linearizability failures may group their offsets differently when
// streamed, since offsets are checked as they finish, so offsets are left out).
func verdicts(vs []checker.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s %s/%s", v.Check, v.Group, v.Partition))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Streaming the history to the checker (Attach: per-offset state dropped once an offset is
// finished) gives the verdicts of checking the whole history at the end, on every zoo
// workload, faithful and with each bug of the zoo.
func TestStreamedHistoryChecksAgreeWithTheWholeHistory(t *testing.T) {
	type run struct {
		world, bug string
		seed       uint64
	}
	var runs []run
	for name := range testworlds.Zoo {
		runs = append(runs, run{name, "", 1})
	}
	for _, zc := range testworlds.ZooCases {
		runs = append(runs, run{zc.World, zc.Bug, 1})
	}
	if testmode.Long {
		for _, seed := range []uint64{2, 3} {
			for name := range testworlds.Zoo {
				runs = append(runs, run{name, "", seed})
			}
			for _, zc := range testworlds.ZooCases {
				runs = append(runs, run{zc.World, zc.Bug, seed})
			}
		}
	}
	for _, r := range runs {
		t.Run(fmt.Sprintf("%s/%s/%d", r.world, r.bug, r.seed), func(t *testing.T) {
			t.Parallel()
			cfg := testworlds.Zoo[r.world]()
			cfg.Kafka.Bug = r.bug
			streamed := runWith(t, cfg, r.seed, true, 1<<30)
			whole := runWith(t, cfg, r.seed, false, 1<<30)
			if a, b := verdicts(streamed), verdicts(whole); !slices.Equal(a, b) {
				t.Errorf("streamed verdicts\n  %s\nwhole history\n  %s", strings.Join(a, "\n  "), strings.Join(b, "\n  "))
			}
			// Outside linearizability the violations are the same, one for one.
			same := func(vs []checker.Violation) []string {
				var out []string
				for _, v := range vs {
					if v.Check != "linearizable" {
						out = append(out, v.String())
					}
				}
				slices.Sort(out)
				return out
			}
			if a, b := same(streamed), same(whole); !slices.Equal(a, b) {
				t.Errorf("streamed violations\n  %s\nwhole history\n  %s", strings.Join(a, "\n  "), strings.Join(b, "\n  "))
			}
		})
	}
}
