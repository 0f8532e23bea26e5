package explore_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
)

// livenessScope is the smallest scope with the stuck partition: one member, two producer
// batches of one record, limit 2, cap 2, every step kind.
func livenessScope() explore.Scope {
	sc := explore.DefaultScope()
	sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
	sc.Liveness, sc.Findings, sc.Workers = true, true, 1
	return sc
}

func describe(sc *explore.Scope, path []explore.Action) string {
	var steps []string
	for _, a := range path {
		steps = append(steps, a.Describe(sc))
	}
	return strings.Join(steps, "; ")
}

// The liveness check finds, unaided, the stuck partition of the faithful Kafka 4.2 core at
// its shortest depth: an ACCEPT's write outstanding, the lock fires, the log start moves past
// the record, the write fails, and the rollback leaves the record AVAILABLE below SPSO, where
// every fetch reads below the log start. It names it as the documented finding, and the
// scripted scenario it writes replays to the stuck state. With the fix the scope passes.
func TestLivenessFindsStuckPartition(t *testing.T) {
	sc := livenessScope()
	res, err := explore.ExploreShared(sc)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || res.Violation != nil || res.Liveness == nil {
		t.Fatalf("want a complete search with a liveness result, got complete %v violation %+v", res.Complete, res.Violation)
	}
	if res.Liveness.First != nil {
		t.Fatalf("a stuck state that is no documented finding: %s after %s", res.Liveness.First.Message, describe(&sc, res.Liveness.First.Path))
	}
	var stuck *explore.Found
	for _, f := range res.Findings {
		if f.Finding == model.FixStuckBelowLogStart {
			stuck = f
		}
	}
	if stuck == nil {
		t.Fatalf("stuck partition not found; findings %v", res.Findings)
	}
	if stuck.Invariant != explore.LivenessInvariant || len(stuck.Path) != 5 {
		t.Errorf("found %s at depth %d, want %s at depth 5: %s", stuck.Invariant, len(stuck.Path), explore.LivenessInvariant, describe(&sc, stuck.Path))
	}
	for _, want := range []string{"acks", "fires", "log start moves", "fails"} {
		if !strings.Contains(describe(&sc, stuck.Path), want) {
			t.Errorf("path lacks %q: %s", want, describe(&sc, stuck.Path))
		}
	}
	if !strings.Contains(stuck.Message, "below SPSO") || res.Liveness.Stuck == 0 {
		t.Errorf("diagnosis: %s (%d stuck)", stuck.Message, res.Liveness.Stuck)
	}
	yml, err := explore.Counterexample(sc, stuck, "stuck")
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenarios.Parse("stuck.yaml", yml)
	if err != nil {
		t.Fatalf("%v\n%s", err, yml)
	}
	r, err := scenarios.RunScript(s)
	if err != nil || !r.Pass {
		t.Fatalf("the replay does not reach the stuck state: %v %v\n%s", r, err, yml)
	}
	if !strings.Contains(string(yml), `acquired: "none"`) {
		t.Errorf("the script does not show the stuck fetch:\n%s", yml)
	}
	// On the fixed core the stuck fetch acquires the released record: the same script fails.
	fixed := strings.Replace(string(yml), "  relax_ranges: true\n", "  relax_ranges: true\n  fix: all\n", 1)
	if s, err = scenarios.Parse("fixed.yaml", []byte(fixed)); err != nil {
		t.Fatal(err)
	}
	if r, err := scenarios.RunScript(s); err != nil || r.Pass {
		t.Errorf("with the fix the script still shows a stuck fetch: %v %v", r, err)
	}

	sc.Fix = "all"
	res, err = explore.ExploreShared(sc)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || res.Violation != nil || len(res.Findings) != 0 || res.Liveness.Stuck != 0 {
		t.Errorf("fixed core: complete %v, violation %+v, findings %d, stuck %d", res.Complete, res.Violation, len(res.Findings), res.Liveness.Stuck)
	}
}

// findingCases: for each documented finding, a scope where the faithful core shows it, and
// the length of its shortest path.
var findingCases = []struct {
	finding string
	depth   int
	scope   func(*explore.Scope)
	states  int // unreduced, about
}{
	{model.FixStuckBelowLogStart, 5, func(sc *explore.Scope) { *sc = livenessScope() }, 40414},
	{explore.RedeliveredBelowLogStart, 8, func(sc *explore.Scope) {
		sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.Window, sc.MaxDepth = 1, []int{2}, 2, 2, []int{2}, true, 8
	}, 5000},
	{model.FixAcquireBelowSPSO, 3, func(sc *explore.Scope) { sc.Members, sc.MaxDepth = 1, 4 }, 4323},
	{model.FixSPSOBelowLogStart, 4, func(sc *explore.Scope) { sc.Members, sc.MaxDepth = 1, 4 }, 4323},
	{model.FixStuckAtCapAfterRollback, 7, func(sc *explore.Scope) {
		sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{2, 1}, 2, 2, []int{2}
		sc.Failovers, sc.LogStartMoves, sc.Liveness = 0, 0, true
	}, 5243},
	{model.FixStartOffsetRegresses, 10, func(sc *explore.Scope) {
		*sc = smallScope()
		sc.Members, sc.Liveness, sc.MaxDepth = 1, false, 10
	}, 6000},
	{model.FixRollbackSkipsDLQ, 7, func(sc *explore.Scope) {
		sc.Version, sc.DLQ = model.Kafka44, true
		sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.MaxDepth = 1, []int{1, 1}, 2, 2, []int{2}, 7
	}, 20000},
}

// Every documented finding is found on the faithful core, named, at its shortest depth, and
// its counterexample replays with its expectations holding; the fixed core does not show it
// on the same scope; every finding has a case, a fix and a script in the built-in library.
func TestFindingsNamedAndFixed(t *testing.T) {
	covered := map[string]bool{}
	for _, fc := range findingCases {
		covered[fc.finding] = true
		t.Run(fc.finding, func(t *testing.T) {
			t.Parallel()
			sc := explore.DefaultScope()
			fc.scope(&sc)
			sc.Findings, sc.Workers = true, 1
			res, err := explore.ExploreShared(sc)
			if err != nil {
				t.Fatal(err)
			}
			var got *explore.Found
			for _, f := range res.Findings {
				if f.Finding == fc.finding {
					got = f
				}
			}
			if got == nil {
				t.Fatalf("not found (%d states, findings %v)", res.States, res.Findings)
			}
			if len(got.Path) != fc.depth {
				t.Errorf("depth %d, want %d: %s", len(got.Path), fc.depth, describe(&sc, got.Path))
			}
			yml, err := explore.Counterexample(sc, got, fc.finding)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenarios.Parse(fc.finding+".yaml", yml)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := scenarios.RunScript(s); err != nil || !r.Pass {
				t.Errorf("replay: %v %v\n%s", r, err, yml)
			}
			kf, _ := explore.LookupFinding(fc.finding)
			sc.Fix = kf.Fix
			res, err = explore.ExploreShared(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if f.Finding == fc.finding {
					t.Errorf("fix %s: still found after %s", fc.finding, describe(&sc, f.Path))
				}
			}
		})
	}
	for _, kf := range explore.KnownFindings {
		if !covered[kf.Name] {
			t.Errorf("finding %s has no case", kf.Name)
		}
		if _, err := model.ParseFixes(kf.Fix); err != nil || kf.Fix == "" {
			t.Errorf("finding %s has no fix: %v", kf.Name, err)
		}
		if _, err := scenarios.Builtin(kf.Script); err != nil {
			t.Errorf("finding %s: no built-in script %s: %v", kf.Name, kf.Script, err)
		}
	}
}
