package refspec

import "sort"

// Store is the share coordinator's durable view of one share-partition (§8.1–8.2).
type Store struct {
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
// the start offset only grows and offsets below it are dropped.
func (st *Store) Write(w *Write) Code {
	if st.leaderEpoch > w.LeaderEpoch {
		return FencedLeaderEpoch
	}
	if st.stateEpoch > w.StateEpoch {
		return FencedStateEpoch
	}
	st.start = max(st.start, w.StartOffset)
	st.dcc = w.DeliveryCompleteCount
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
func (st *Store) Reinitialize(stateEpoch int32, start int64) {
	st.stateEpoch, st.start, st.dcc = stateEpoch, start, -1
	st.offs = map[int64]Entry{}
}
