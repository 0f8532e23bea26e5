package checker

import "github.com/sharesim/sharesim/model"

// terminalRuns is terminal-states-absorbing's memory of one leader's share-partition: the
// offsets last seen ACKNOWLEDGED, ARCHIVED or ARCHIVING with no write outstanding, as
// ascending, disjoint runs of one state. A deep pass walks the cache's runs of one state
// (model.SharePartition.ForEachStateRun) and merges them with the remembered runs (pass),
// so it costs O(runs) with no per-offset map.
type terminalRuns struct {
	runs, next []termRun
	// The pass in progress: j is the first remembered run not yet passed, lo the first
	// offset not yet visited, start the leader's SPSO (a remembered offset below it that is
	// no longer cached is forgotten).
	j         int
	lo, start int64
}

// termRun is the offsets first..last, each last seen in state.
type termRun struct {
	first, last int64
	state       model.State
}

// stateRuns walks a share-partition's cache by runs of one state (ForEachStateRun).
type stateRuns func(fn func(first, last int64, s model.State, pending bool) bool)

// pass walks the cached offsets of the leader's share-partition whose SPSO is start,
// calls bad for each offset no longer in the state it was last seen in, and remembers
// what it saw. An offset pending a write is not compared; one seen ARCHIVING may become
// ARCHIVED.
func (t *terminalRuns) pass(start int64, each stateRuns, bad func(off int64, prev, now model.State)) {
	t.next, t.j, t.lo, t.start = t.next[:0], 0, -1<<62, start
	each(func(first, last int64, s model.State, pending bool) bool {
		t.skipTo(first)
		for t.lo = first; t.lo <= last; {
			// The next segment: offsets that share what is remembered of them.
			a, b, seen, prev := t.lo, last, false, model.State(0)
			if t.j < len(t.runs) {
				switch r := t.runs[t.j]; {
				case r.first <= a:
					b, seen, prev = min(last, r.last), true, r.state
				case r.first <= last:
					b = r.first - 1
				}
			}
			switch {
			case seen && prev == model.Archiving && s == model.Archived && !pending:
				t.add(a, b, s) // the DLQ step ended: ARCHIVING's one exit
			case seen && s != prev && !pending:
				for off := a; off <= b; off++ {
					bad(off, prev, s) // and forgotten
				}
			case seen:
				t.add(a, b, prev)
			case (s.Terminal() || s == model.Archiving) && !pending:
				t.add(a, b, s)
			}
			if seen && t.runs[t.j].last <= b {
				t.j++
			}
			t.lo = b + 1
		}
		return true
	})
	t.skipTo(1<<63 - 1)
	t.runs, t.next = t.next, t.runs
}

// skipTo keeps what is remembered of the offsets in [t.lo, end) at or above SPSO (they were
// not visited: no longer cached) and moves j to the run holding end, or past it.
func (t *terminalRuns) skipTo(end int64) {
	for t.j < len(t.runs) && t.runs[t.j].first < end {
		r := t.runs[t.j]
		if a, b := max(r.first, t.lo, t.start), min(r.last, end-1); a <= b {
			t.add(a, b, r.state)
		}
		if r.last >= end {
			return
		}
		t.j++
	}
}

// add remembers first..last in state (ascending, after everything added in this pass).
func (t *terminalRuns) add(first, last int64, state model.State) {
	if n := len(t.next); n > 0 && t.next[n-1].last+1 == first && t.next[n-1].state == state {
		t.next[n-1].last = last
		return
	}
	t.next = append(t.next, termRun{first, last, state})
}

// reset forgets everything (a new leader).
func (t *terminalRuns) reset() { t.runs = t.runs[:0] }
