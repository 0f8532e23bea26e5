package explore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Shared insertion (workers put their candidates into the seen set during the wave, the merge
// settles the fingerprints two of them met: merger.resolveShared) decides exactly what one
// worker inserting every candidate in order decides: the same states, transitions, levels,
// paths, findings and fingerprints, and the same parent log (every new state's fingerprint,
// parent and action in id order). Each case runs on one worker (which never shares) and on
// two and three (two under -race): with shared insertion as it is; with one block of wave
// tags for every wave, so that most fingerprints met again carry a tag of an earlier wave and
// look contested; with two candidates of room per partition and worker, so that most
// candidates are deferred to the merge; with the merge inserting every candidate
// (insertParallel); and with waves of 512 states, so that the levels have many waves and a
// wave's appends (ids, parent records, next frontier) run while the next wave expands
// (merger.appendPending). Each variant must meet the kind of candidate it is there for in some
// case, or it would test nothing.
func TestSharedInsertKeepsResults(t *testing.T) {
	cases := []struct {
		name  string
		scope func(*Scope)
		race  bool
		// cut: a violation ends the search at the end of the wave that met it, so how far
		// the last level got depends on the waves' size ("small waves" does not apply).
		cut bool
	}{
		{"default scope, depth 5", func(sc *Scope) { sc.MaxDepth = 5 }, true, false},
		{"default scope, depth 6", func(sc *Scope) { sc.MaxDepth = 6 }, false, false},
		{"findings, depth 7", func(sc *Scope) { sc.Members, sc.Findings, sc.MaxDepth = 1, true, 7 }, false, false},
		{"violation", func(sc *Scope) { sc.Bug, sc.MaxDepth = model.BugStoreNoFencing, 6 }, true, true},
		{"complete, spilling", func(sc *Scope) {
			sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = []int{2}, 2, 2, []int{2}
			sc.Memory, sc.TempDir = 1, "tmp"
		}, false, false},
	}
	variants := []struct {
		name  string
		set   func(*Scope)
		met   func(shareStats) int // the candidates the variant is there for
		waves bool                 // the variant changes the waves' size
	}{
		{"shared", func(*Scope) {}, func(s shareStats) int { return s.contested }, false},
		{"one tag", func(sc *Scope) { sc.sharedTags = 1 }, func(s shareStats) int { return s.stale }, false},
		{"little room", func(sc *Scope) { sc.sharedRoom = 2 }, func(s shareStats) int { return s.deferred }, false},
		{"merge inserts", func(sc *Scope) { sc.noSharedInsert = true }, func(shareStats) int { return 1 }, false},
		{"small waves", func(sc *Scope) { sc.waveSize = 512 }, func(s shareStats) int { return s.overlapped }, true},
	}
	workerCounts := []int{2, 3}
	if raceEnabled {
		workerCounts = workerCounts[:1]
	}
	var mu sync.Mutex
	met := make([]int, len(variants))
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if raceEnabled && !c.race {
					t.Skip("too slow under -race; runs without it")
				}
				t.Parallel()
				scope := func() Scope {
					sc := DefaultScope()
					c.scope(&sc)
					sc.KeepFingerprints, sc.hashOrder = true, true
					if sc.TempDir != "" {
						sc.TempDir = t.TempDir()
					}
					return sc
				}
				base := scope()
				base.Workers = 1
				want, err := Explore(base, nil)
				if err != nil {
					t.Fatal(err)
				}
				wantOut := orderedOutcome(&base, want)
				for vi, v := range variants {
					if v.waves && c.cut {
						continue
					}
					for _, workers := range workerCounts {
						sc := scope()
						sc.Workers = workers
						v.set(&sc)
						got, err := Explore(sc, nil)
						if err != nil {
							t.Fatal(err)
						}
						what := fmt.Sprintf("%s, %d workers", v.name, workers)
						if out := orderedOutcome(&sc, got); out != wantOut {
							t.Errorf("%s: got\n%s\nwant (1 worker)\n%s", what, out, wantOut)
						}
						mu.Lock()
						met[vi] += v.met(got.shared)
						mu.Unlock()
						t.Logf("%s: %+v", what, got.shared)
					}
				}
			})
		}
	})
	for vi, v := range variants {
		if met[vi] == 0 {
			t.Errorf("%s: no case met the candidates the variant is there for", v.name)
		}
	}
}
