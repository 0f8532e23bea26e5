package explore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
)

// The successor memo changes nothing a search finds: with it and without it, on scopes with
// every kind of step (failovers with stale writes, log-start moves, the read/acquire window,
// the dead-letter queue, a coordinator whose start offset moves back, bugs that break
// invariants, findings, liveness), the same states (every fingerprint), transitions, levels,
// violations, findings and liveness verdict.
func TestMemoChangesNothing(t *testing.T) {
	small := func() Scope {
		sc := DefaultScope()
		sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = []int{2}, 2, 2, []int{2}
		return sc
	}
	cases := []struct {
		name  string
		scope func(*Scope)
		big   bool // left out under -race unless -long
	}{
		{"standard scope, depth 7, findings", func(sc *Scope) { sc.MaxDepth, sc.Findings = 7, true }, true},
		{"standard scope, depth 7, monotonic store, 2 workers", func(sc *Scope) { sc.MaxDepth, sc.MonotonicStore, sc.Workers = 7, true, 2 }, true},
		{"anchor scope, 200 000 states, fix all", func(sc *Scope) {
			sc.Failovers, sc.LogStartMoves, sc.MaxPending, sc.DeadStore, sc.Fix, sc.MaxStates = 0, 0, 1, false, "all", 200000
		}, true},
		{"standard scope, depth 5, 2 workers", func(sc *Scope) { sc.MaxDepth, sc.Workers = 5, 2 }, false},
		{"small scope, 2 failovers, 3 writes, no dead store", func(sc *Scope) {
			*sc = small()
			sc.Failovers, sc.MaxPending, sc.DeadStore, sc.Findings = 2, 3, false, true
		}, true},
		{"window, findings", func(sc *Scope) { *sc = small(); sc.Window, sc.Findings = true, true }, false},
		{"Kafka 4.4 with the dead-letter queue", func(sc *Scope) { *sc = small(); sc.Version, sc.DLQ, sc.Findings = model.Kafka44, true, true }, true},
		{"Kafka 4.1, 3 members", func(sc *Scope) {
			*sc = small()
			sc.Version, sc.Members, sc.Batches = model.Kafka41, 3, []int{1, 1}
			sc.AckTypes = []model.AckType{model.AckAccept, model.AckRelease, model.AckReject}
		}, false},
		{"small scope, failovers, 2 workers, a 64 KiB ring (entries overwritten)", func(sc *Scope) {
			*sc = small()
			sc.Failovers, sc.DeadStore, sc.memoRing, sc.Workers = 2, false, 64<<10, 2
			if raceEnabled && !testmode.Long {
				sc.Failovers, sc.DeadStore = 1, true
			}
		}, false},
		{"liveness", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
			sc.Liveness, sc.Findings = true, true
		}, false},
		{"bug " + model.BugStoreNoFencing, func(sc *Scope) { sc.Bug = model.BugStoreNoFencing }, false},
		{"bug " + model.BugExpireDuringAck, func(sc *Scope) { sc.Bug = model.BugExpireDuringAck }, false},
		{"bug " + model.BugReloadHoleOverlaps + ", 1 member", func(sc *Scope) { sc.Bug, sc.Members = model.BugReloadHoleOverlaps, 1 }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.big && raceEnabled && !testmode.Long {
				t.Skip("minutes under -race: run with -tags long")
			}
			var res [2]*Result
			for i, noMemo := range []bool{true, false} {
				sc := DefaultScope()
				sc.Workers = 1
				c.scope(&sc)
				sc.KeepFingerprints, sc.noMemo = true, noMemo
				r, err := Explore(sc, nil)
				if err != nil {
					t.Fatal(err)
				}
				res[i] = r
			}
			a, b := res[0], res[1]
			if a.States != b.States || a.Transitions != b.Transitions || a.Depth != b.Depth || a.Complete != b.Complete ||
				!slices.Equal(a.Levels, b.Levels) || !slices.Equal(a.Fingerprints, b.Fingerprints) {
				t.Fatalf("without the memo %d states, %d transitions, levels %v; with it %d, %d, %v (same fingerprints: %v)",
					a.States, a.Transitions, a.Levels, b.States, b.Transitions, b.Levels, slices.Equal(a.Fingerprints, b.Fingerprints))
			}
			if got, want := describeFound(b.Violation), describeFound(a.Violation); got != want {
				t.Errorf("violation with the memo %s, without %s", got, want)
			}
			if len(a.Findings) != len(b.Findings) {
				t.Fatalf("findings: %d with the memo, %d without", len(b.Findings), len(a.Findings))
			}
			for i := range a.Findings {
				if got, want := describeFound(b.Findings[i]), describeFound(a.Findings[i]); got != want {
					t.Errorf("finding with the memo %s, without %s", got, want)
				}
			}
			if (a.Liveness == nil) != (b.Liveness == nil) || a.Liveness != nil &&
				(a.Liveness.Stuck != b.Liveness.Stuck || a.Liveness.Settled != b.Liveness.Settled || a.Liveness.Edges != b.Liveness.Edges) {
				t.Errorf("liveness with the memo %+v, without %+v", b.Liveness, a.Liveness)
			}
			t.Logf("%d states, %d transitions", a.States, a.Transitions)
		})
	}
}

func describeFound(f *Found) string {
	if f == nil {
		return "none"
	}
	s := f.Invariant + " " + f.Finding + ": " + f.Message + " after"
	for _, a := range f.Path {
		s += fmt.Sprintf(" %#x", uint32(a))
	}
	return s
}
