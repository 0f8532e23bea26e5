package explore_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
)

// smallScope is the CI scope: two members, two producer batches of two records, every
// step kind, small enough to explore completely in seconds.
func smallScope() explore.Scope {
	sc := explore.DefaultScope()
	sc.Batches = []int{2}
	sc.Limit, sc.Cap, sc.MaxRecords = 2, 2, []int{2}
	return sc
}

// The faithful core passes the explorer on the standard small scopes: every reachable state
// explored, every transition checked, no invariant broken.
func TestFaithfulCorePasses(t *testing.T) {
	scopes := map[string]func(*explore.Scope){
		"2 members, 1 batch of 2, limit 2, every step kind": func(sc *explore.Scope) {},
		"2 members, 2 batches of 1, limit 3":                func(sc *explore.Scope) { sc.Batches, sc.Limit = []int{1, 1}, 3 },
		"3 members, 2 batches of 1, limit 2, no log-start moves": func(sc *explore.Scope) {
			sc.Members, sc.Batches, sc.LogStartMoves = 3, []int{1, 1}, 0
		},
		"record_limit fetches, budgets 1 and 2, 2 batches of 1": func(sc *explore.Scope) {
			sc.Batches, sc.RecordLimit, sc.MaxRecords, sc.LogStartMoves = []int{1, 1}, true, []int{1, 2}, 0
		},
		"read/acquire window, 2 members, 1 batch of 2": func(sc *explore.Scope) { sc.Window = true },
		"cap 1, 3 batches of 1, no failover": func(sc *explore.Scope) {
			sc.Batches, sc.Cap, sc.MaxRecords, sc.Failovers = []int{1, 1, 1}, 1, []int{3}, 0
		},
	}
	for name, adjust := range scopes {
		t.Run(name, func(t *testing.T) {
			if raceShort() && (strings.Contains(name, "limit 3") || strings.Contains(name, "window")) {
				t.Skip("470 000 states: too slow under -race; runs without it or with -tags long")
			}
			t.Parallel()
			sc := smallScope()
			adjust(&sc)
			sc.Workers = 1
			res, err := explore.ExploreShared(sc)
			if err != nil {
				t.Fatal(err)
			}
			if v := res.Violation; v != nil {
				var steps []string
				for _, a := range v.Path {
					steps = append(steps, a.Describe(&sc))
				}
				t.Fatalf("%s: %s after\n  %s", v.Invariant, v.Message, strings.Join(steps, "\n  "))
			}
			if !res.Complete {
				t.Fatalf("not complete: %+v", res)
			}
			t.Logf("%s: %d states, %d transitions, depth %d, %v", sc.String(), res.States, res.Transitions, res.Depth, res.Elapsed.Round(time.Millisecond))
		})
	}
}

// zooCase is how the explorer catches one bug of the zoo.
type zooCase struct {
	bug       string
	invariant string
	maxDepth  int
	scope     func(*explore.Scope)
	states    int // unreduced states to the violation, about (docs/checking.md)
	// raceScope, if set, narrows scope further under -race without -tags long
	// (TestExplorerCatchesEveryBug): a scope where the same invariant catches the bug on a
	// path of the same length, with a tenth of the states or fewer.
	raceScope func(*explore.Scope)
}

// oneMember is scope S with one member, for bugs whose shortest path needs only one.
func oneMember(sc *explore.Scope) { sc.Members = 1 }

// oneBatchOf2 narrows scope S's log to one producer batch of two records.
func oneBatchOf2(sc *explore.Scope) { sc.Batches = []int{2} }

// ZooCases lists, for every bug of the zoo, the scope that catches it, the invariant and the
// length of the shortest counterexample (docs/checking.md has the table).
var zooCases = []zooCase{
	{model.BugExpireDuringAck, "terminal-states-absorbing", 3, nil, 1132, nil},
	{model.BugRollbackKeepsAcquired, "one-lock-per-acquired", 4, nil, 9104, nil},
	{model.BugRollbackIgnoresLimit, "limit-never-available", 6, func(sc *explore.Scope) {
		sc.Members, sc.Batches, sc.MaxRecords, sc.Limit, sc.MaxPending = 1, []int{1}, []int{1}, 2, 3
	}, 212, nil},
	{model.BugAcquireIgnoresPending, "pending-not-acquired", 3, nil, 1162, nil},
	{model.BugNoCapTrim, "inflight-within-cap", 4, func(sc *explore.Scope) {
		sc.Batches, sc.Cap, sc.MaxRecords = []int{1, 1, 1}, 2, []int{2}
	}, 70, nil},
	// Under -race: one write outstanding and fetches of at most 2 records, 9 749 states.
	{model.BugSPSOStepsBack, "spso-monotonic", 6, oneMember, 99704, func(sc *explore.Scope) {
		sc.MaxPending, sc.MaxRecords = 1, []int{2}
	}},
	// Under -race: one producer batch of 2, 1 717 states.
	{model.BugReleaseStopsAtForeign, "leave-releases-all", 5, nil, 53720, oneBatchOf2},
	// Under -race: also only ACCEPT acknowledgements, 2 517 states.
	{model.BugReloadAcquiresBelow, "spso-monotonic", 6, oneMember, 99739, func(sc *explore.Scope) {
		sc.MaxPending, sc.MaxRecords, sc.AckTypes = 1, []int{2}, []model.AckType{model.AckAccept}
	}},
	// Under -race: one producer batch of 2, 1 625 states.
	{model.BugReloadHoleOverlaps, "cached-ranges-disjoint", 5, oneMember, 23833, oneBatchOf2},
	{model.BugStoreNoFencing, "no-older-epoch-write", 4, nil, 9110, nil},
	{model.BugLeaveDecrementsCount, "delivery-count-monotonic", 2, nil, 106, nil},
	{model.BugHeadPassesPending, "no-silent-loss", 4, nil, 9058, nil},
}

// Every variant of the bug zoo is caught by the explorer, by the invariant named in the
// table, on a shortest path no longer than stated; and the counterexample, written as a
// scripted scenario, fails on the same invariant when scenarios.RunScript replays it.
func TestExplorerCatchesEveryBug(t *testing.T) {
	covered := map[string]bool{}
	for _, zc := range zooCases {
		covered[zc.bug] = true
		t.Run(zc.bug, func(t *testing.T) {
			t.Parallel()
			sc := explore.DefaultScope()
			if zc.scope != nil {
				zc.scope(&sc)
			}
			if zc.raceScope != nil && raceDetector && !testmode.Long {
				zc.raceScope(&sc)
			}
			sc.Bug, sc.Workers, sc.MaxDepth = zc.bug, 1, zc.maxDepth
			res, err := explore.ExploreShared(sc)
			if err != nil {
				t.Fatal(err)
			}
			v := res.Violation
			if v == nil {
				t.Fatalf("not caught within depth %d (%d states)", zc.maxDepth, res.States)
			}
			if v.Invariant != zc.invariant {
				t.Errorf("caught by %s (%s), want %s", v.Invariant, v.Message, zc.invariant)
			}
			yml, err := explore.Counterexample(sc, v, zc.bug)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenarios.Parse(zc.bug+".yaml", yml)
			if err != nil {
				t.Fatalf("counterexample does not parse: %v\n%s", err, yml)
			}
			r, err := scenarios.RunScript(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Pass || len(r.Failures) != 1 || r.Failures[0].What != "invariant "+v.Invariant || r.Failures[0].Step != len(v.Path)+1 {
				t.Errorf("replay: %s\nwant one failure, invariant %s at step %d\n%s", r, v.Invariant, len(v.Path)+1, yml)
			}
			// The same script passes on the faithful core (the failure is the bug's).
			clean := strings.Replace(string(yml), "  bug: "+zc.bug+"\n", "", 1)
			s, err = scenarios.Parse("clean.yaml", []byte(clean))
			if err != nil {
				t.Fatal(err)
			}
			if r, err := scenarios.RunScript(s); err != nil || !r.Pass {
				t.Errorf("the counterexample fails on the faithful core too: %v %v", r, err)
			}
			t.Logf("%s: %s at depth %d after %d states in %v", zc.bug, v.Invariant, len(v.Path), res.States, res.Elapsed.Round(time.Millisecond))
		})
	}
	for _, b := range model.BugNames() {
		if !covered[b] {
			t.Errorf("bug %s has no explorer case", b)
		}
	}
}

// Exploring Kafka 4.1 finds the bugs Kafka 4.1 really had and 4.2 fixed: a leaving member's
// records are not all released (KAFKA-19953).
func TestExplorerFindsKafka41Bugs(t *testing.T) {
	sc := explore.DefaultScope()
	sc.Version, sc.Workers, sc.MaxDepth = model.Kafka41, 1, 6
	sc.AckTypes = []model.AckType{model.AckAccept, model.AckRelease, model.AckReject}
	res, err := explore.Explore(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Violation == nil || res.Violation.Invariant != "leave-releases-all" {
		t.Fatalf("want leave-releases-all (KAFKA-19953), got %+v", res.Violation)
	}
}

// A bounded exploration reports its bound; the counts are deterministic whatever the
// number of workers.
func TestExplorerDeterministic(t *testing.T) {
	var got []string
	for _, workers := range []int{1, 2, 3} {
		sc := smallScope()
		sc.Workers, sc.MaxDepth = workers, 7
		res, err := explore.Explore(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Bounded != "depth" || res.Complete {
			t.Errorf("workers %d: bounded %q complete %v", workers, res.Bounded, res.Complete)
		}
		got = append(got, fmt.Sprintf("%d/%d/%d", res.States, res.Transitions, res.Depth))
	}
	if got[0] != got[1] || got[1] != got[2] {
		t.Errorf("results depend on the number of workers: %v", got)
	}
	// The counterexample: on the default scope (98 000 states before it, 12 s under -race),
	// or under -race without -tags long on the small scope with two batches of 2 (15 000
	// states, 0.7 s; the same 6-step violation).
	sc := explore.DefaultScope()
	if raceDetector && !testmode.Long {
		sc = smallScope()
		sc.Batches = []int{2, 2}
	}
	sc.Bug, sc.Workers, sc.Members = model.BugSPSOStepsBack, 2, 1
	a, _ := explore.Explore(sc, nil)
	sc.Workers = 1
	b, _ := explore.Explore(sc, nil)
	if a.Violation == nil || b.Violation == nil {
		t.Fatalf("no counterexample: %v, %v", a.Violation, b.Violation)
	}
	if fmt.Sprint(a.Violation.Path) != fmt.Sprint(b.Violation.Path) {
		t.Errorf("counterexample depends on the number of workers")
	}
}
