package explore_test

import (
	"testing"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
)

// The size estimate is within explore.EstimateFactor of the true count on five scopes that
// finish, from a sample of a twentieth of their states (a sample bounded by states, so that
// the test does not depend on the machine's speed); a sample that finishes the search is
// exact.
func TestEstimateWithinFactor(t *testing.T) {
	if raceShort() {
		t.Skip("too slow under -race; runs without it or with -long")
	}
	rungs := explore.Ladder(explore.DefaultScope())
	scopes := []explore.Scope{rungs[3].Scope, rungs[4].Scope}
	for _, f := range []func(*explore.Scope){
		func(sc *explore.Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 2, []int{1, 1}, 3, 2, []int{2}
		},
		func(sc *explore.Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.MaxPending = 1, []int{1, 2}, 2, 3, []int{3}, 1
		},
		func(sc *explore.Scope) { sc.Failovers, sc.LogStartMoves, sc.MaxPending = 0, 0, 1 },
	} {
		sc := explore.DefaultScope()
		f(&sc)
		scopes = append(scopes, sc)
	}
	for _, sc := range scopes {
		sc.Liveness, sc.Findings = false, true
		full, err := explore.Explore(sc, nil)
		if err != nil || !full.Complete {
			t.Fatalf("%s: %v (complete %v)", sc.String(), err, full != nil && full.Complete)
		}
		// The sample: the first levels that hold a twentieth of the states, at least 7.
		levels, sum := 0, 0
		for levels < len(full.Levels) && (sum < full.States/20 || levels < explore.MinSampleLevels) {
			sum += full.Levels[levels]
			levels++
		}
		est, err := explore.Estimate(sc, 0, levels-1)
		if err != nil {
			t.Fatal(err)
		}
		ratio := float64(est.States) / float64(full.States)
		t.Logf("%s: %d states, estimated %d from %d (%.2f×, %d levels)", sc.String(), full.States, est.States, est.SampleStates, ratio, len(est.Levels))
		if !est.Fitted || ratio > explore.EstimateFactor || ratio < 1/float64(explore.EstimateFactor) {
			t.Errorf("%s: estimate %d for %d states (%.2f×, fitted %v), want within %d×", sc.String(), est.States, full.States, ratio, est.Fitted, explore.EstimateFactor)
		}
		exact, err := explore.Estimate(sc, time.Hour, 0)
		if err != nil || !exact.Exact || exact.States != full.States {
			t.Errorf("%s: a sample that finishes: exact %v, %d states, want %d (%v)", sc.String(), exact.Exact, exact.States, full.States, err)
		}
	}
}
