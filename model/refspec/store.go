package refspec

import "sort"

// Store is the share coordinator's durable view of one share-partition (§8.1–8.2).
type Store struct {
	// V selects the coordinator's rules (zero: 4.2's).
	V                       Version
	stateEpoch, leaderEpoch int32
	start                   int64
	dcc                     int64
	offs                    map[int64]Entry
}

// NewStore returns an initialised, never-written store.
func NewStore(stateEpoch int32, start int64) *Store {
	return &Store{stateEpoch: stateEpoch, start: start, dcc: -1, offs: map[int64]Entry{}}
}

// Write merges a write: per offset the highest dc wins, ties go to the higher state id;
// offsets below the start offset are dropped. Before 4.4 the start offset and the
// delivery-complete count are the write's (a late write moves the start back); from 4.4
// the start offset only grows and the count follows the higher start (the larger count
// on equal starts), and negative epochs are invalid.
func (st *Store) Write(w *Write) Code {
	if st.V >= V44 && (w.LeaderEpoch < 0 || w.StateEpoch < 0) {
		return InvalidRequest
	}
	if st.leaderEpoch > w.LeaderEpoch && (st.V >= V44 || w.LeaderEpoch != -1) {
		return FencedLeaderEpoch
	}
	if st.stateEpoch > w.StateEpoch && (st.V >= V44 || w.StateEpoch != -1) {
		return FencedStateEpoch
	}
	if st.V >= V44 {
		if w.StartOffset > st.start {
			st.dcc = w.DeliveryCompleteCount
		} else if w.StartOffset == st.start && w.DeliveryCompleteCount > st.dcc {
			st.dcc = w.DeliveryCompleteCount
		}
		if w.StartOffset > st.start {
			st.start = w.StartOffset
		}
	} else {
		if w.StartOffset != -1 {
			st.start = w.StartOffset
		}
		st.dcc = w.DeliveryCompleteCount
	}
	for _, e := range w.Entries {
		if e.State == Acquired {
			continue
		}
		old, ok := st.offs[e.Offset]
		if !ok || e.DC > old.DC || (e.DC == old.DC && e.State > old.State) {
			st.offs[e.Offset] = e
		}
	}
	for o := range st.offs {
		if o < st.start {
			delete(st.offs, o)
		}
	}
	return OK
}

// Read returns the stored state; a higher leader epoch is recorded, a lower one fenced.
func (st *Store) Read(leaderEpoch int32) (Snapshot, Code) {
	if leaderEpoch < st.leaderEpoch {
		return Snapshot{}, FencedLeaderEpoch
	}
	st.leaderEpoch = leaderEpoch
	snap := Snapshot{StateEpoch: st.stateEpoch, LeaderEpoch: st.leaderEpoch, StartOffset: st.start,
		DeliveryCompleteCount: st.dcc}
	offs := make([]int64, 0, len(st.offs))
	for o := range st.offs {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	for _, o := range offs {
		e := st.offs[o]
		n := len(snap.Batches)
		if n > 0 && snap.Batches[n-1].Last == o-1 && snap.Batches[n-1].State == e.State && snap.Batches[n-1].DC == e.DC {
			snap.Batches[n-1].Last = o
			continue
		}
		snap.Batches = append(snap.Batches, PersistedBatch{First: o, Last: o, State: e.State, DC: e.DC})
	}
	return snap, OK
}

// Reinitialize wipes the stored state with a new state epoch and start offset (-1: unset).
// From 4.3 a reset to a known start offset stores a delivery-complete count of 0.
func (st *Store) Reinitialize(stateEpoch int32, start int64) {
	st.stateEpoch, st.start, st.dcc = stateEpoch, start, -1
	if start >= 0 && st.V >= V43 {
		st.dcc = 0
	}
	st.offs = map[int64]Entry{}
}
