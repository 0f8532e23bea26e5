package checker_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
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
			streamed, _ := unlimitedZooRun(t, r.world, r.bug, r.seed)
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

// The history checks run beside the simulation (on a goroutine of their own, Attach) with
// the verdicts, the violations, their order and the limit on how many are kept of the
// same run checked on the simulation's goroutine: on every zoo workload with each bug,
// keeping 20 violations, so that the limit cuts many runs.
func TestHistoryChecksBesideTheRunAgree(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one processor: the history checks run on the simulation's goroutine anyway")
	}
	for _, zc := range testworlds.ZooCases {
		t.Run(zc.World+"/"+zc.Bug, func(t *testing.T) {
			t.Parallel()
			run := func(beside bool) []string {
				cfg := testworlds.Zoo[zc.World]()
				cfg.Kafka.Bug = zc.Bug
				ck, err := checker.New(cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				checker.SetViolationLimit(ck, 20)
				if !beside {
					checker.SetSyncHistory(ck)
				}
				opts := sim.Options{Observer: ck.Observe}
				ck.Attach(&opts)
				w, err := sim.New(cfg, 1, opts)
				if err != nil {
					t.Fatal(err)
				}
				res, err := w.Run()
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, v := range ck.Finish(w, res) {
					out = append(out, v.String())
				}
				return out
			}
			// The run beside at seed 1 with every violation kept is shared with
			// TestStreamedHistoryChecksAgreeWithTheWholeHistory; when it found no more than 20,
			// keeping 20 gives the same list (lists are cut only past the limit), so it stands
			// for the run beside.
			var beside []string
			if vs, _ := unlimitedZooRun(t, zc.World, zc.Bug, 1); len(vs) <= 20 {
				for _, v := range vs {
					beside = append(beside, v.String())
				}
			} else {
				beside = run(true)
			}
			inTurn := run(false)
			if !slices.Equal(beside, inTurn) {
				t.Errorf("beside the run:\n  %s\nin turn:\n  %s", strings.Join(beside, "\n  "), strings.Join(inTurn, "\n  "))
			}
			if len(inTurn) == 0 {
				t.Errorf("no violation: the comparison says nothing")
			}
		})
	}
}
