package checker

import (
	"slices"
	"testing"

	"github.com/sharesim/sharesim/model"
	"pgregory.net/rapid"
)

// terminalMap is terminal-states-absorbing as it was first written, one map entry per
// offset: the specification terminalRuns must match.
type terminalMap map[int64]model.State

func (m terminalMap) pass(start int64, recs []model.RecordView, bad func(model.State, model.RecordView)) {
	cached := map[int64]bool{}
	for _, v := range recs {
		cached[v.Offset] = true
		prev, seen := m[v.Offset]
		switch {
		case seen && prev == model.Archiving && v.State == model.Archived && !v.Pending:
			m[v.Offset] = v.State
		case seen && v.State != prev && !v.Pending:
			bad(prev, v)
			delete(m, v.Offset)
		case !seen && (v.State.Terminal() || v.State == model.Archiving) && !v.Pending:
			m[v.Offset] = v.State
		}
	}
	for off := range m {
		if off < start && !cached[off] {
			delete(m, off)
		}
	}
}

// The run-length memory of terminal-states-absorbing, fed runs of one state, reports the
// same records, in the same order, and remembers the same offsets as the per-offset map fed
// record by record, over random sequences of deep passes: records entering and leaving the
// cache, SPSO moving both ways, pending writes, ARCHIVING ending ARCHIVED, and terminal
// records changing state.
func TestTerminalRunsMatchThePerOffsetMap(t *testing.T) {
	states := []model.State{model.Available, model.Acquired, model.Acknowledged, model.Archived, model.Archiving}
	rapid.Check(t, func(t *rapid.T) {
		var runs terminalRuns
		ref := terminalMap{}
		for p := range rapid.IntRange(1, 12).Draw(t, "passes") {
			lo := rapid.Int64Range(0, 40).Draw(t, "lo")
			n := rapid.IntRange(0, 40).Draw(t, "n")
			var recs []model.RecordView
			for off := lo; off < lo+int64(n); off++ {
				if rapid.IntRange(0, 9).Draw(t, "hole") == 0 {
					continue // not cached
				}
				recs = append(recs, model.RecordView{Offset: off,
					State:   states[rapid.IntRange(0, len(states)-1).Draw(t, "state")],
					Pending: rapid.IntRange(0, 5).Draw(t, "pending") == 0})
			}
			start := rapid.Int64Range(0, 80).Draw(t, "start")
			var got, want []int64
			// The cache as ForEachStateRun shows it: runs of contiguous offsets of one state,
			// cut at random (cache entries end where they end).
			runs.pass(start, func(fn func(first, last int64, s model.State, pending bool) bool) {
				for i := 0; i < len(recs); {
					j := i
					for j+1 < len(recs) && recs[j+1].Offset == recs[j].Offset+1 && recs[j+1].State == recs[i].State &&
						recs[j+1].Pending == recs[i].Pending && rapid.IntRange(0, 3).Draw(t, "cut") > 0 {
						j++
					}
					if !fn(recs[i].Offset, recs[j].Offset, recs[i].State, recs[i].Pending) {
						return
					}
					i = j + 1
				}
			}, func(off int64, _, _ model.State) { got = append(got, off) })
			ref.pass(start, recs, func(_ model.State, v model.RecordView) { want = append(want, v.Offset) })
			if !slices.Equal(got, want) {
				t.Fatalf("pass %d: reported %v, want %v", p, got, want)
			}
			remembered := terminalMap{}
			for i, r := range runs.runs {
				if r.first > r.last || (i > 0 && runs.runs[i-1].last >= r.first) {
					t.Fatalf("pass %d: runs not ascending and disjoint: %v", p, runs.runs)
				}
				for off := r.first; off <= r.last; off++ {
					remembered[off] = r.state
				}
			}
			if len(remembered) != len(ref) {
				t.Fatalf("pass %d: remembers %v, want %v", p, remembered, ref)
			}
			for off, s := range ref {
				if remembered[off] != s {
					t.Fatalf("pass %d: remembers %v, want %v", p, remembered, ref)
				}
			}
		}
	})
}
