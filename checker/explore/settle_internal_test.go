package explore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Looking up on disk a chunk's candidates together when the chunk ends (worker.settlePending)
// decides what looking each up at once decides (Scope.syncDisk): the same states,
// transitions, levels, paths, findings, liveness verdict and fingerprints, the same parent log
// (every new state's fingerprint, parent and action in id order) and, on one worker, the same
// number of states found on disk. Every case spills its seen set with a budget of one byte
// (the set ages after every wave: memory holds the last wave's states, the runs on disk the
// rest), with the successor memo on, on one worker and on two. Without -race the first two cases also run on one worker
// with a state bound that stops its inserting mid-wave, on two with two slots of room per
// partition (settled candidates are deferred to the merge) and with the merge inserting every
// candidate, and on three. Across the cases settlePending must meet candidates found on disk
// and second candidates of a fingerprint, or it would test nothing. (A candidate that another
// worker's contests when settled is a new state that two workers' chunks reach and a filter
// lets pass by mistake: a few per run on three workers, too few to require.)
func TestSettleKeepsResults(t *testing.T) {
	cases := []struct {
		name  string
		scope func(*Scope)
		all   bool // every variant (else one and two workers)
		race  bool
	}{
		{"complete", func(sc *Scope) {
			sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = []int{2}, 2, 2, []int{2}
		}, true, false},
		{"depth 5", func(sc *Scope) { sc.MaxDepth = 5 }, true, true},
		{"findings, depth 6", func(sc *Scope) { sc.Members, sc.Findings, sc.MaxDepth = 1, true, 6 }, false, false},
		{"violation", func(sc *Scope) { sc.Bug, sc.MaxDepth = model.BugStoreNoFencing, 6 }, false, true},
		{"liveness", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
			sc.Liveness, sc.Findings = true, true
		}, false, false},
	}
	variants := []struct {
		name    string
		workers int
		set     func(*Scope)
	}{
		{"1 worker", 1, func(*Scope) {}},
		{"1 worker, state bound mid-wave", 1, func(sc *Scope) { sc.MaxStates = 11_111 }},
		{"2 workers", 2, func(*Scope) {}},
		{"2 workers, little room", 2, func(sc *Scope) { sc.sharedRoom = 2 }},
		{"2 workers, merge inserts", 2, func(sc *Scope) { sc.noSharedInsert = true }},
		{"3 workers", 3, func(*Scope) {}},
	}
	budgets := []int64{1}
	var mu sync.Mutex
	var met settleStats
	var onDisk int64
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if raceEnabled && !c.race {
					t.Skip("too slow under -race; runs without it")
				}
				t.Parallel()
				for _, v := range variants {
					if (raceEnabled || !c.all) && v.name != "1 worker" && v.name != "2 workers" {
						continue
					}
					for _, budget := range budgets {
						scope := func() Scope {
							sc := DefaultScope()
							c.scope(&sc)
							v.set(&sc)
							sc.KeepFingerprints, sc.hashOrder = !sc.Liveness, true
							sc.Workers, sc.Memory, sc.TempDir = v.workers, budget, t.TempDir()
							sc.memoRing = 4 << 20 // the budget leaves none; with it, children come from the memo too (expandRemembered)
							return sc
						}
						outcome := func(sc *Scope, r *Result) string {
							s := orderedOutcome(sc, r)
							if sc.Workers == 1 {
								s += fmt.Sprintf("%d states found on disk\n", r.DiskHits)
							}
							return s
						}
						what := fmt.Sprintf("%s, budget %d bytes", v.name, budget)
						sync := scope()
						sync.syncDisk = true
						want, err := Explore(sync, nil)
						if err != nil {
							t.Fatal(err)
						}
						if want.DiskHits == 0 {
							t.Errorf("%s: no state found on disk; the case tests nothing", what)
						}
						sc := scope()
						got, err := Explore(sc, nil)
						if err != nil {
							t.Fatal(err)
						}
						if a, b := outcome(&sc, got), outcome(&sync, want); a != b {
							t.Errorf("%s: settled per chunk:\n%s\nlooked up at once:\n%s", what, a, b)
						}
						if want.settled != (settleStats{}) {
							t.Errorf("%s: looking up at once, settlePending met %+v", what, want.settled)
						}
						mu.Lock()
						met.pending += got.settled.pending
						met.twice += got.settled.twice
						met.contested += got.settled.contested
						onDisk += got.DiskHits
						mu.Unlock()
						t.Logf("%s: %d found on disk, %+v", what, got.DiskHits, got.settled)
					}
				}
			})
		}
	})
	if onDisk == 0 || met.twice == 0 {
		t.Errorf("the cases met %d candidates found on disk and %+v: each kind should be met", onDisk, met)
	}
}
