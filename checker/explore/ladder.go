package explore

import "slices"

// The ladder: scopes of growing size, each containing the one before it (one dimension grows
// per rung), that `sharesim check` explores completely one after the other, with safety and
// liveness, until its time budget runs out. Each rung's cap and fetch budget equal its number
// of records (as in the standard scope: the in-flight gate never closes on a full log, and
// every fetch may take everything), so what grows is what the dimensions name:
// faults, writes outstanding, the read/acquire window, the log, the members, the limit.
//
// The first rungs are small enough that a loaded 2-core machine explores them in seconds;
// by rung 6 every documented finding has been met on the faithful core
// (TestLadderFindsEveryFinding). Later rungs take minutes to hours; the ladder stops at the
// first that does not finish within the budget and reports the largest scope it proved.

// Rung is one scope of the ladder.
type Rung struct {
	// Grows says what this rung adds to the one before it.
	Grows string
	Scope Scope
}

// Ladder returns the rungs built on base: base supplies the core (version, bug, fixes), the
// acknowledgement types, the reductions and the resources (workers, memory, temporary
// directory, consistency checks); the rungs set the scope's dimensions. Every rung checks
// liveness and the findings.
func Ladder(base Scope) []Rung {
	type dims struct {
		grows                           string
		members                         int
		batches                         []int
		limit, failovers, moves, writes int
		window                          bool
		// tight sets the in-flight cap (and the fetch budget) one below the records, so
		// that the cap can be reached with a record still unfetched.
		tight bool
	}
	steps := []dims{
		{"1 member, 2 records, limit 2, no faults, 1 write outstanding", 1, []int{1, 1}, 2, 0, 0, 1, false, false},
		{"+ a leader failover (stale writes)", 1, []int{1, 1}, 2, 1, 0, 1, false, false},
		{"+ a log-start move", 1, []int{1, 1}, 2, 1, 1, 1, false, false},
		{"+ 2 writes outstanding", 1, []int{1, 1}, 2, 1, 1, 2, false, false},
		{"+ the read/acquire window", 1, []int{1, 1}, 2, 1, 1, 2, true, false},
		{"+ a third record (batches 1,2)", 1, []int{1, 2}, 2, 1, 1, 2, true, false},
		{"+ an in-flight cap one below the records (cap 2, max records 2)", 1, []int{1, 2}, 2, 1, 1, 2, true, true},
		{"+ a second member", 2, []int{1, 2}, 2, 1, 1, 2, true, true},
		{"+ delivery limit 3", 2, []int{1, 2}, 3, 1, 1, 2, true, true},
		{"+ a fourth record (batches 2,2)", 2, []int{2, 2}, 3, 1, 1, 2, true, true},
		{"+ a second failover", 2, []int{2, 2}, 3, 2, 1, 2, true, true},
		{"+ a second log-start move", 2, []int{2, 2}, 3, 2, 2, 2, true, true},
		{"+ 3 writes outstanding", 2, []int{2, 2}, 3, 2, 2, 3, true, true},
		{"+ a third member", 3, []int{2, 2}, 3, 2, 2, 3, true, true},
	}
	out := make([]Rung, 0, len(steps))
	for _, d := range steps {
		sc := base
		sc.Members, sc.Batches, sc.Limit = d.members, slices.Clone(d.batches), d.limit
		sc.Cap = sc.Records()
		if d.tight {
			sc.Cap--
		}
		sc.MaxRecords = []int{sc.Cap}
		sc.Failovers, sc.LateWrites, sc.LogStartMoves, sc.MaxPending, sc.Window = d.failovers, true, d.moves, d.writes, d.window
		sc.ShortReads, sc.Leave, sc.RecordLimit = true, true, false
		sc.MaxDepth, sc.MaxStates = 0, 0
		sc.Liveness, sc.Findings = true, true
		out = append(out, Rung{Grows: d.grows, Scope: sc})
	}
	return out
}
