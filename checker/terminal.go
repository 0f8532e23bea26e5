package checker

import "github.com/sharesim/sharesim/model"

// terminalRuns is terminal-states-absorbing's memory of one leader's share-partition: the
// offsets last seen ACKNOWLEDGED, ARCHIVED or ARCHIVING with no write outstanding, as
// ascending, disjoint runs of one state. A deep pass walks the cached records in offset
// order and merges them with the runs (pass), so it costs O(window + runs) with no
// per-offset map.
type terminalRuns struct {
	runs, next []termRun
	// The pass in progress: j is the first run not yet passed, lo the first offset not yet
	// visited, start the leader's SPSO (a remembered offset below it that is no longer
	// cached is forgotten).
	j         int
	lo, start int64
}

// termRun is the offsets first..last, each last seen in state.
type termRun struct {
	first, last int64
	state       model.State
}

// pass walks the cached records of the leader's share-partition (each: its ForEachRecord)
// whose SPSO is start, calls bad for each record no longer in the state it was last seen
// in, and remembers what it saw. A record pending a write is not compared; one seen
// ARCHIVING may become ARCHIVED.
func (t *terminalRuns) pass(start int64, each func(func(model.RecordView) bool), bad func(prev model.State, v model.RecordView)) {
	t.begin(start)
	each(func(v model.RecordView) bool {
		prev, seen := t.visit(v.Offset)
		switch {
		case seen && prev == model.Archiving && v.State == model.Archived && !v.Pending:
			t.add(v.Offset, v.Offset, v.State) // the DLQ step ended: ARCHIVING's one exit
		case seen && v.State != prev && !v.Pending:
			bad(prev, v) // and forgotten
		case seen:
			t.add(v.Offset, v.Offset, prev)
		case (v.State.Terminal() || v.State == model.Archiving) && !v.Pending:
			t.add(v.Offset, v.Offset, v.State)
		}
		return true
	})
	t.end()
}

// begin starts a pass over the cached records of a share-partition whose SPSO is start.
func (t *terminalRuns) begin(start int64) {
	t.next, t.j, t.lo, t.start = t.next[:0], 0, -1<<62, start
}

// visit moves the pass to the cached offset off (ascending): the remembered offsets
// before it that were not visited left the cache and are kept only at or above SPSO. It
// returns the state remembered for off, if any.
func (t *terminalRuns) visit(off int64) (model.State, bool) {
	t.skipTo(off)
	t.lo = off + 1
	if t.j < len(t.runs) && t.runs[t.j].first <= off {
		return t.runs[t.j].state, true
	}
	return 0, false
}

// skipTo keeps what is remembered of the offsets in [t.lo, end) at or above SPSO (they were
// not visited) and moves j to the run holding end, or past it.
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

// end finishes the pass.
func (t *terminalRuns) end() {
	t.skipTo(1<<63 - 1)
	t.runs, t.next = t.next, t.runs
}

// reset forgets everything (a new leader).
func (t *terminalRuns) reset() { t.runs = t.runs[:0] }
