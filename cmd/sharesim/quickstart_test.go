package main

import (
	"fmt"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
)

// quickstart is the first scenario people run, so it must show its lesson on every seed and
// at every reasonable duration: the group keeps up, every check passes, and records whose
// locks expired behind a slow record are processed twice (duplicates by lock_expiry) without
// the group thrashing. (With three consumers on two partitions it sat at the edge of its
// capacity: seed 7 fell behind at 36 400 duplicates per hour, and 20 minutes failed
// liveness.)
func TestQuickstartShowsItsLesson(t *testing.T) {
	seeds, durations := []uint64{1, 2, 3, 7}, []string{"3m"}
	long := []struct {
		seed     uint64
		duration string
	}{{7, "20m"}}
	if testmode.Long {
		seeds, durations = nil, []string{"2m", "3m", "10m", "20m", "1h"}
		for s := uint64(1); s <= 20; s++ {
			seeds = append(seeds, s)
		}
		long = nil
	}
	type run struct {
		seed     uint64
		duration string
	}
	var runs []run
	for _, d := range durations {
		for _, s := range seeds {
			runs = append(runs, run{s, d})
		}
	}
	for _, l := range long {
		runs = append(runs, run{l.seed, l.duration})
	}
	for _, r := range runs {
		t.Run(fmt.Sprintf("seed%d-%s", r.seed, r.duration), func(t *testing.T) {
			sc, err := loadScenario("quickstart", []string{"duration=" + r.duration})
			if err != nil {
				t.Fatal(err)
			}
			o, err := simulate(sc, r.seed, simOpts{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.violations {
				t.Errorf("violation: %s", v.String())
			}
			g := o.res.Metrics.Groups[0]
			if !g.KeepUp.KeptUp {
				t.Errorf("did not keep up: %s", g.KeepUp.Reason)
			}
			if g.InWindow.DuplicatesByCause["lock_expiry"] == 0 {
				t.Errorf("no duplicate by lock expiry in the window: %v", g.InWindow.DuplicatesByCause)
			}
			// The kill strikes a consumer holding records (holding: true): the leader
			// releases them at once, on every seed (with eight consumers a kill at a fixed
			// instance and time found it between polls on 17 of 20 seeds).
			if g.RedeliveriesByCause.Crash == 0 {
				t.Errorf("no redelivery by crash: the killed consumer held nothing (%+v)", g.RedeliveriesByCause)
			}
			if f := g.Rates.DuplicateFraction; f > 0.2 {
				t.Errorf("%.1f%% of processings were duplicates: the group thrashes instead of showing the lesson", 100*f)
			}
		})
	}
}
