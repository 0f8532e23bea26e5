package explore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
)

// pinCase is a search whose exact outcome is pinned: how many states and transitions it
// met, how deep it went, and every violation and finding with its path. The numbers were
// measured before the explorer's per-state work was optimised (reusing the decoded parent,
// comparing member renamings without re-encoding, prefetching the seen set): any change to
// what is explored — a state lost or added, a transition not tried, another shortest path
// reported — changes them.
type pinCase struct {
	name  string
	scope func(*explore.Scope)
	// long: behind the build tag long (too slow for the default run).
	long bool
	// raceSlow: skipped under -race unless -long or the build tag long (the race detector
	// makes it minutes).
	raceSlow bool
	// deadStore keeps the dead-store reduction on. The other cases turn it off: they were
	// measured before it existed and pin the per-state optimisation; these pin the
	// reduction's own counts.
	deadStore bool
	// faithfulStore keeps the share coordinator of the scope's version (the default since
	// it became one). The other cases were measured when every version's coordinator kept
	// Kafka 4.4's start-offset rule and pin that (Scope.MonotonicStore).
	faithfulStore bool
}

var pinCases = []pinCase{
	{name: "small scope, dead store", scope: func(sc *explore.Scope) { *sc = smallScope() }, deadStore: true},
	{name: "liveness scope, dead store", scope: func(sc *explore.Scope) { *sc = livenessScope() }, deadStore: true},
	{name: "small scope, complete", scope: func(sc *explore.Scope) { *sc = smallScope() }},
	// raceSlow: 56 348 states, the largest case left under -race (10 s there); with -tags long
	// it runs under -race too.
	{name: "small scope, no symmetry", raceSlow: true, scope: func(sc *explore.Scope) { *sc = smallScope(); sc.Symmetry = false }},
	{name: "2 batches of 1, limit 3", raceSlow: true, scope: func(sc *explore.Scope) { *sc = smallScope(); sc.Batches, sc.Limit = []int{1, 1}, 3 }},
	{name: "3 members, 2 batches of 1, no log-start moves", scope: func(sc *explore.Scope) {
		*sc = smallScope()
		sc.Members, sc.Batches, sc.LogStartMoves = 3, []int{1, 1}, 0
	}},
	{name: "record_limit, budgets 1 and 2", scope: func(sc *explore.Scope) {
		*sc = smallScope()
		sc.Batches, sc.RecordLimit, sc.MaxRecords, sc.LogStartMoves = []int{1, 1}, true, []int{1, 2}, 0
	}},
	{name: "read/acquire window", raceSlow: true, scope: func(sc *explore.Scope) { *sc = smallScope(); sc.Window = true }},
	{name: "default scope, depth 6", scope: func(sc *explore.Scope) { sc.MaxDepth = 6 }, raceSlow: true},
	{name: "default scope with findings, depth 5", scope: func(sc *explore.Scope) { sc.MaxDepth, sc.Findings = 5, true }},
	{name: "window with findings, 1 member, depth 8", scope: func(sc *explore.Scope) {
		sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.Window, sc.MaxDepth, sc.Findings = 1, []int{2}, 2, 2, []int{2}, true, 8, true
	}},
	{name: "liveness, 1 member", scope: func(sc *explore.Scope) { *sc = livenessScope() }, raceSlow: true},
	{name: "step order seed, depth 5", scope: func(sc *explore.Scope) { sc.MaxDepth, sc.StepOrderSeed = 5, 7 }},
	{name: "bug " + model.BugExpireDuringAck, scope: func(sc *explore.Scope) { sc.Bug = model.BugExpireDuringAck }},
	{name: "bug " + model.BugReleaseStopsAtForeign, scope: func(sc *explore.Scope) { sc.Bug = model.BugReleaseStopsAtForeign }},
	{name: "bug " + model.BugStoreNoFencing, scope: func(sc *explore.Scope) { sc.Bug = model.BugStoreNoFencing }},
	{name: "bug " + model.BugHeadPassesPending, scope: func(sc *explore.Scope) { sc.Bug = model.BugHeadPassesPending }},
	{name: "bug " + model.BugReloadHoleOverlaps + ", 1 member", scope: func(sc *explore.Scope) { sc.Bug, sc.Members = model.BugReloadHoleOverlaps, 1 }},
	{name: "bug " + model.BugReleaseStopsAtForeign + ", step order seed", scope: func(sc *explore.Scope) {
		sc.Bug, sc.StepOrderSeed = model.BugReleaseStopsAtForeign, 3
	}},
	{name: "bug " + model.BugReleaseStopsAtForeign + ", 3 members", scope: func(sc *explore.Scope) {
		sc.Bug, sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = model.BugReleaseStopsAtForeign, 3, []int{1, 1, 1}, 2, 3, []int{1}
	}, raceSlow: true},
	{name: "Kafka 4.1, depth 6", scope: func(sc *explore.Scope) {
		sc.Version, sc.MaxDepth = model.Kafka41, 6
		sc.AckTypes = []model.AckType{model.AckAccept, model.AckRelease, model.AckReject}
	}},
	{name: "Kafka 4.4 with the dead-letter queue, liveness scope", raceSlow: true, scope: func(sc *explore.Scope) {
		*sc = livenessScope()
		sc.Version, sc.DLQ = model.Kafka44, true
	}, deadStore: true},
	{name: "Kafka 4.4 with the dead-letter queue, small scope", raceSlow: true, scope: func(sc *explore.Scope) {
		*sc = smallScope()
		sc.Version, sc.DLQ, sc.Findings = model.Kafka44, true, true
	}, deadStore: true},
	{name: "Kafka 4.3, the 4.3 share coordinator", scope: func(sc *explore.Scope) {
		*sc = smallScope()
		sc.Version, sc.Findings = model.Kafka43, true
	}, deadStore: true, faithfulStore: true},
	{name: "liveness scope, the 4.2 share coordinator", scope: func(sc *explore.Scope) { *sc = livenessScope() }, deadStore: true, faithfulStore: true},
	{name: "default scope, no failover, no log-start move, 1 write outstanding", long: true, scope: func(sc *explore.Scope) {
		sc.Failovers, sc.LogStartMoves, sc.MaxPending = 0, 0, 1
	}},
}

// pinWant is each pinCase's outcome (pinned), by name, measured on the explorer before the
// optimisation.
var pinWant = map[string]string{
	"Kafka 4.4 with the dead-letter queue, liveness scope":               `76948 states, 404432 transitions, depth 16, complete true, bounded ""; finding stuck-below-log-start at 5: m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; the log start moves to 1; write #1 fails; finding spso-below-log-start at 4: m1 fetches (max 2, one producer batch read); m1 acks 0-0 accept; the log start moves to 2; write #1 succeeds; finding rollback-skips-dlq at 7: m1 fetches (max 2); m1 acks 0-1 release; write #1 succeeds; m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; write #1 fails; liveness 42943 settled, 51 stuck, 174145 edges`,
	"Kafka 4.4 with the dead-letter queue, small scope":                  `52473 states, 264208 transitions, depth 17, complete true, bounded ""; finding spso-below-log-start at 7: m1 fetches (max 2); m1 acks 0-0 reject; write #1 succeeds; the log start moves to 2; leader failover (outstanding writes lost); DLQ produce #1 succeeds; write #1 succeeds; finding rollback-skips-dlq at 7: m1 fetches (max 2); m1 acks 0-1 release; write #1 succeeds; m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; write #1 fails`,
	"Kafka 4.3, the 4.3 share coordinator":                               `24924 states, 126933 transitions, depth 18, complete true, bounded ""; finding spso-below-log-start at 8: m1 fetches (max 2); m1 acks 0-0 release; write #1 succeeds; leader failover (outstanding writes lost); m1 fetches (max 2); m1 acks 0-0 accept; the log start moves to 2; write #1 succeeds; finding start-offset-regresses at 10: m1 fetches (max 2); m1 acks 0-0 accept; the lock of offset 0 fires; m1 fetches (max 2); write #1 succeeds; m1 acks 1-1 accept; write #1 succeeds; write #1 succeeds; leader failover (outstanding writes lost); m1 fetches (max 2)`,
	"liveness scope, the 4.2 share coordinator":                          `32098 states, 165756 transitions, depth 18, complete true, bounded ""; finding stuck-below-log-start at 5: m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; the log start moves to 1; write #1 fails; finding spso-below-log-start at 4: m1 fetches (max 2, one producer batch read); m1 acks 0-0 accept; the log start moves to 2; write #1 succeeds; finding start-offset-regresses at 10: m1 fetches (max 2); m1 acks 0-0 accept; the lock of offset 0 fires; m1 fetches (max 2); write #1 succeeds; m1 acks 1-1 accept; write #1 succeeds; write #1 succeeds; leader failover (outstanding writes lost); m1 fetches (max 2); liveness 15073 settled, 51 stuck, 77989 edges`,
	"small scope, dead store":                                            `22506 states, 117372 transitions, depth 15, complete true, bounded ""`,
	"liveness scope, dead store":                                         `29237 states, 154288 transitions, depth 14, complete true, bounded ""; finding stuck-below-log-start at 5: m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; the log start moves to 1; write #1 fails; finding spso-below-log-start at 4: m1 fetches (max 2, one producer batch read); m1 acks 0-0 accept; the log start moves to 2; write #1 succeeds; liveness 13492 settled, 51 stuck, 71878 edges`,
	"2 batches of 1, limit 3":                                            "247120 states, 1367574 transitions, depth 20, complete true, bounded \"\"",
	"3 members, 2 batches of 1, no log-start moves":                      "11088 states, 58437 transitions, depth 13, complete true, bounded \"\"",
	"Kafka 4.1, depth 6":                                                 "17198 states, 35145 transitions, depth 5, complete false, bounded \"\"; violation leave-releases-all at 5: m1 fetches (max 4); m1 acks 0-0 release; write #1 succeeds; m2 fetches (max 4); m1's share session ends (offset 1 is still ACQUIRED by m1 after its session ended)",
	"bug expire-during-ack":                                              "598 states, 982 transitions, depth 3, complete false, bounded \"\"; violation terminal-states-absorbing at 3: m1 fetches (max 4); m1 acks 0-3 accept; the lock of offset 0 fires (offset 0 was ACKNOWLEDGED (write outstanding), now AVAILABLE (write outstanding))",
	"bug head-passes-pending":                                            "4755 states, 9202 transitions, depth 4, complete false, bounded \"\"; violation no-silent-loss at 4: m1 fetches (max 4); m1 acks 0-0 accept; m1 acks 1-1 accept; write #1 succeeds (SPSO moved from 0 to 2 past offset 1, which was ACKNOWLEDGED (write outstanding))",
	"bug release-stops-at-foreign":                                       "28165 states, 61429 transitions, depth 5, complete false, bounded \"\"; violation leave-releases-all at 5: m1 fetches (max 4); m1 acks 0-0 release; write #1 succeeds; m2 fetches (max 4); m1's share session ends (offset 1 is still ACQUIRED by m1 after its session ended)",
	"bug release-stops-at-foreign, 3 members":                            "57220 states, 215735 transitions, depth 8, complete false, bounded \"\"; violation leave-releases-all at 8: m1 fetches (max 1); m1 fetches (max 1); m1's share session ends; write #1 succeeds; leader failover (outstanding writes lost); m1 fetches (max 1, one producer batch read); m2 fetches (max 1); m2's share session ends (offset 1 is still ACQUIRED by m2 after its session ended)",
	"bug release-stops-at-foreign, step order seed":                      "28165 states, 61429 transitions, depth 5, complete false, bounded \"\"; violation leave-releases-all at 5: m2 fetches (max 4); m2 acks 3-3 release; write #1 succeeds; m1 fetches (max 4); m1's share session ends (offset 3 is still ACQUIRED by m1 after its session ended)",
	"bug reload-hole-overlaps, 1 member":                                 "23829 states, 51251 transitions, depth 5, complete false, bounded \"\"; violation cached-ranges-disjoint at 5: m1 fetches (max 4); m1 acks 1-1 accept; write #1 succeeds; leader failover (outstanding writes lost); m1 fetches (max 4) (cached batch 1-1 after offset 1)",
	"bug store-no-fencing":                                               "4781 states, 9202 transitions, depth 4, complete false, bounded \"\"; violation no-older-epoch-write at 4: m1 fetches (max 4); m1 acks 0-3 accept; leader failover (outstanding writes still on their way); stale write #1 reaches the share coordinator (the share coordinator accepted a write with leader epoch 1, state epoch 0 after seeing 2, 0)",
	"default scope with findings, depth 5":                               "28176 states, 61429 transitions, depth 5, complete false, bounded \"depth\"; finding acquire-below-spso at 3: m1 fetches (max 4, one producer batch read); the log start moves to 3; m1 fetches (max 4); finding spso-below-log-start at 4: m1 fetches (max 4, one producer batch read); m1 acks 0-1 accept; the log start moves to 3; write #1 succeeds",
	"default scope, depth 6":                                             "125718 states, 313701 transitions, depth 6, complete false, bounded \"depth\"",
	"liveness, 1 member":                                                 "40414 states, 200556 transitions, depth 15, complete true, bounded \"\"; finding stuck-below-log-start at 5: m1 fetches (max 2); m1 acks 0-1 accept; the lock of offset 0 fires; the log start moves to 1; write #1 fails; finding spso-below-log-start at 4: m1 fetches (max 2, one producer batch read); m1 acks 0-0 accept; the log start moves to 2; write #1 succeeds; liveness 18957 settled, 55 stuck, 98826 edges",
	"read/acquire window":                                                "36210 states, 180352 transitions, depth 19, complete true, bounded \"\"",
	"record_limit, budgets 1 and 2":                                      "11088 states, 67527 transitions, depth 13, complete true, bounded \"\"",
	"small scope, complete":                                              "31913 states, 158202 transitions, depth 15, complete true, bounded \"\"",
	"small scope, no symmetry":                                           "56348 states, 296038 transitions, depth 15, complete true, bounded \"\"",
	"step order seed, depth 5":                                           "28176 states, 61429 transitions, depth 5, complete false, bounded \"depth\"",
	"window with findings, 1 member, depth 8":                            "4655 states, 15259 transitions, depth 8, complete false, bounded \"depth\"; finding redelivered-below-log-start at 8: m1's fetch reads the log (max 2); the waiting fetch acquires what it read; m1 acks 0-0 accept; the lock of offset 0 fires; m1's fetch reads the log (max 2); the log start moves to 1; write #1 fails; the waiting fetch acquires what it read",
	"default scope, no failover, no log-start move, 1 write outstanding": "5619732 states, 24274170 transitions, depth 28, complete true, bounded \"\"",
}

// pinned renders what a search found: counts, then each violation and finding with its path.
func pinned(sc *explore.Scope, res *explore.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d states, %d transitions, depth %d, complete %v, bounded %q", res.States, res.Transitions, res.Depth, res.Complete, res.Bounded)
	if v := res.Violation; v != nil {
		fmt.Fprintf(&b, "; violation %s at %d: %s (%s)", v.Invariant, len(v.Path), describe(sc, v.Path), v.Message)
	}
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "; finding %s at %d: %s", f.Finding, len(f.Path), describe(sc, f.Path))
	}
	if l := res.Liveness; l != nil {
		fmt.Fprintf(&b, "; liveness %d settled, %d stuck, %d edges", l.Settled, l.Stuck, l.Edges)
		if f := l.First; f != nil {
			fmt.Fprintf(&b, ", first stuck at %d: %s (%s)", len(f.Path), describe(sc, f.Path), f.Finding)
		}
	}
	return b.String()
}

// The explorer explores exactly what it did before its per-state work was optimised: the
// same number of states and transitions, the same depth, and the same violations and
// findings on the same paths, with one worker and with three, and with the stores on disk.
func TestExploredStatesPinned(t *testing.T) {
	for _, pc := range pinCases {
		t.Run(pc.name, func(t *testing.T) {
			switch {
			case pc.long && !testmode.Long:
				t.Skip("long: runs with -tags long")
			case pc.raceSlow && raceShort():
				t.Skip("too slow under -race; runs without it or with -long")
			}
			t.Parallel()
			for _, workers := range []int{1, 3} {
				if workers > 1 && (pc.long || raceShort()) {
					continue // under -race TestExplorerDeterministic covers the workers
				}
				sc := explore.DefaultScope()
				pc.scope(&sc)
				sc.DeadStore, sc.MonotonicStore = pc.deadStore, !pc.faithfulStore
				sc.Workers = workers
				res, err := explore.ExploreShared(sc)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := pinned(&sc, res), pinWant[pc.name]; got != want {
					t.Errorf("workers %d:\n got %s\nwant %s", workers, got, want)
				}
			}
			// The same with a one-byte budget: the seen set goes to disk after every wave and
			// every frontier segment and parent record to a file. Liveness keeps its seen set
			// in memory (TestSpillKeepsResults spills the rest of it).
			sc := explore.DefaultScope()
			pc.scope(&sc)
			if sc.Liveness || pc.long || raceShort() {
				return
			}
			sc.DeadStore, sc.MonotonicStore, sc.Workers, sc.Memory, sc.TempDir = pc.deadStore, !pc.faithfulStore, 2, 1, t.TempDir()
			res, err := explore.Explore(sc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.DiskBytes == 0 {
				t.Errorf("a one-byte budget, yet nothing spilled")
			}
			if got, want := pinned(&sc, res), pinWant[pc.name]; got != want {
				t.Errorf("on disk:\n got %s\nwant %s", got, want)
			}
		})
	}
}
