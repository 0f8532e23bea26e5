package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
)

// Every variant of the bug zoo is caught by the simulator's checks on its workload within
// the stated number of seeds (counting from seed 1), by the check named in the table.
func TestSimulatorCatchesEveryBug(t *testing.T) {
	covered := map[string]bool{}
	for _, zc := range testworlds.ZooCases {
		covered[zc.Bug] = true
		t.Run(zc.Bug, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= zc.MaxSeeds; seed++ {
				for _, v := range zooCheckedRun(t, zc.World, zc.Bug, seed) {
					if v.Check == zc.Check {
						t.Logf("%s: %s on %s with seed %d: %s", zc.Bug, zc.Check, zc.World, seed, v)
						return
					}
				}
			}
			t.Errorf("%s not caught by %s on %s within %d seeds", zc.Bug, zc.Check, zc.World, zc.MaxSeeds)
		})
	}
	for _, b := range model.BugNames() {
		if !covered[b] {
			t.Errorf("bug %s has no simulator case", b)
		}
	}
}

// The faithful core passes every check on every zoo workload, for the seeds the bug cases
// use: the checks do not fire on correct behaviour.
func TestZooWorldsPassWhenFaithful(t *testing.T) {
	for name := range testworlds.Zoo {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 3; seed++ {
				var msgs []string
				for _, v := range zooCheckedRun(t, name, "", seed) {
					msgs = append(msgs, v.String())
				}
				if len(msgs) > 0 {
					t.Errorf("seed %d: %s", seed, strings.Join(msgs, "\n"))
				}
			}
		})
	}
}

var _ = fmt.Sprint

// terminal-states-absorbing, a deep check that no zoo case names (the cases name the first
// check to catch each bug), catches a bug on its own: reload-hole-overlaps turns records
// seen ACKNOWLEDGED or ARCHIVED on a leader into something else, on chaos at seed 1. The
// deep checks run on a sampled schedule (DeepEvery), so this also shows the schedule
// leaves them enough passes.
func TestTerminalStatesAbsorbingCatchesAReloadBug(t *testing.T) {
	cfg := testworlds.Zoo["chaos"]()
	cfg.Kafka.Bug = model.BugReloadHoleOverlaps
	for _, v := range checkedRun(t, cfg, 1) {
		if v.Check == "terminal-states-absorbing" {
			return
		}
	}
	t.Error("reload-hole-overlaps not caught by terminal-states-absorbing on chaos at seed 1")
}
