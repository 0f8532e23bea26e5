package explore

import (
	"fmt"
	"math/rand/v2"
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
	// Under -race without -tags long, narrow applies to the scope too: a state bound keeps
	// the comparison (both searches stop at the same state), not the whole scope's cost.
	bound := func(sc *Scope) { sc.MaxStates = 10000 }
	cases := []struct {
		name   string
		scope  func(*Scope)
		big    bool // left out under -race unless -long
		narrow func(*Scope)
	}{
		{"standard scope, depth 7, findings", func(sc *Scope) { sc.MaxDepth, sc.Findings = 7, true }, true, nil},
		{"standard scope, depth 7, monotonic store, 2 workers", func(sc *Scope) { sc.MaxDepth, sc.MonotonicStore, sc.Workers = 7, true, 2 }, true, nil},
		{"anchor scope, 200 000 states, fix all", func(sc *Scope) {
			sc.Failovers, sc.LogStartMoves, sc.MaxPending, sc.DeadStore, sc.Fix, sc.MaxStates = 0, 0, 1, false, "all", 200000
		}, true, nil},
		{"standard scope, depth 5, 2 workers", func(sc *Scope) { sc.MaxDepth, sc.Workers = 5, 2 }, false, nil},
		{"small scope, 2 failovers, 3 writes, no dead store", func(sc *Scope) {
			*sc = small()
			sc.Failovers, sc.MaxPending, sc.DeadStore, sc.Findings = 2, 3, false, true
		}, true, nil},
		{"window, findings", func(sc *Scope) { *sc = small(); sc.Window, sc.Findings = true, true }, false, bound},
		{"Kafka 4.4 with the dead-letter queue", func(sc *Scope) { *sc = small(); sc.Version, sc.DLQ, sc.Findings = model.Kafka44, true, true }, true, nil},
		{"Kafka 4.1, 3 members", func(sc *Scope) {
			*sc = small()
			sc.Version, sc.Members, sc.Batches = model.Kafka41, 3, []int{1, 1}
			sc.AckTypes = []model.AckType{model.AckAccept, model.AckRelease, model.AckReject}
		}, false, nil},
		{"small scope, failovers, 2 workers, a 64 KiB ring (entries overwritten)", func(sc *Scope) {
			*sc = small()
			sc.Failovers, sc.DeadStore, sc.memoRing, sc.Workers = 2, false, 64<<10, 2
			if raceEnabled && !testmode.Long {
				sc.Failovers, sc.DeadStore = 1, true
			}
		}, false, bound},
		{"liveness", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
			sc.Liveness, sc.Findings = true, true
		}, false, nil},
		{"bug " + model.BugStoreNoFencing, func(sc *Scope) { sc.Bug = model.BugStoreNoFencing }, false, nil},
		{"bug " + model.BugExpireDuringAck, func(sc *Scope) { sc.Bug = model.BugExpireDuringAck }, false, nil},
		{"bug " + model.BugReloadHoleOverlaps + ", 1 member", func(sc *Scope) { sc.Bug, sc.Members = model.BugReloadHoleOverlaps, 1 }, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			short := raceEnabled && !testmode.Long
			if c.big && short {
				t.Skip("minutes under -race: run with -tags long")
			}
			var res [2]*Result
			for i, noMemo := range []bool{true, false} {
				sc := DefaultScope()
				sc.Workers = 1
				c.scope(&sc)
				if short && c.narrow != nil {
					c.narrow(&sc)
				}
				var r *Result
				var err error
				if short && sc.Liveness && !noMemo {
					// The liveness tests' scope: their search, shared, without the
					// fingerprints (the other figures are compared).
					r, err = ExploreShared(sc)
				} else {
					sc.KeepFingerprints, sc.noMemo = !short || !sc.Liveness, noMemo
					r, err = Explore(sc, nil)
				}
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

// A memo whose entries fill its ring exactly to the end grows on the next entry and keeps
// them (it once wrapped silently at an exact fit, and a later growth copied past the ring).
func TestMemoGrowsAtAnExactFit(t *testing.T) {
	m := newMemo(4 << 20)
	key := make([]byte, 1024-memoHead) // entries of exactly 1 KiB: 1 024 fill the first ring
	const n = 3000
	for i := 0; i < n; i++ {
		key[0], key[1] = byte(i), byte(i>>8)
		m.begin(uint64(i)*0x9e3779b97f4a7c15|1, key, nil)
		m.commit()
	}
	if len(m.ring) != 4<<20 || m.wrapped {
		t.Fatalf("ring %d bytes, wrapped %v: want 4 MiB, not wrapped", len(m.ring), m.wrapped)
	}
	for i := 0; i < n; i++ {
		key[0], key[1] = byte(i), byte(i>>8)
		if m.lookup(uint64(i)*0x9e3779b97f4a7c15|1, key, nil) == nil {
			t.Fatalf("entry %d lost", i)
		}
	}
}

// diff finds the same delta as comparing byte by byte, on pairs that differ anywhere: at the
// start, the end, in a word or across words, in length or not at all.
func TestDiffMatchesBytewise(t *testing.T) {
	bytewise := func(p, c []byte) delta {
		pre := 0
		for pre < len(p) && pre < len(c) && p[pre] == c[pre] {
			pre++
		}
		suf := 0
		for suf < len(p)-pre && suf < len(c)-pre && p[len(p)-1-suf] == c[len(c)-1-suf] {
			suf++
		}
		return delta{pre: pre, suf: suf, mid: c[pre : len(c)-suf]}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		p := make([]byte, rng.IntN(40))
		for k := range p {
			p[k] = byte(rng.IntN(3))
		}
		c := slices.Clone(p)
		switch rng.IntN(4) {
		case 0: // a few bytes changed
			for n := rng.IntN(3); n > 0 && len(c) > 0; n-- {
				c[rng.IntN(len(c))] = byte(rng.IntN(3))
			}
		case 1: // bytes inserted
			at := rng.IntN(len(c) + 1)
			c = slices.Insert(c, at, make([]byte, 1+rng.IntN(10))...)
		case 2: // bytes removed
			if len(c) > 0 {
				at := rng.IntN(len(c))
				c = slices.Delete(c, at, at+1+rng.IntN(len(c)-at))
			}
		}
		got, want := diff(p, c), bytewise(p, c)
		if got.pre != want.pre || got.suf != want.suf || !slices.Equal(got.mid, want.mid) {
			t.Fatalf("diff(%v, %v) = %d %d %v, want %d %d %v", p, c, got.pre, got.suf, got.mid, want.pre, want.suf, want.mid)
		}
		if !slices.Equal(got.apply(nil, p), c) {
			t.Fatalf("diff(%v, %v) applied gives %v", p, c, got.apply(nil, p))
		}
	}
}
