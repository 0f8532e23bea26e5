package model

import "math"

// Durable state: what the share coordinator stores for a share-partition, its merge rule
// and epoch fencing (§8.1–8.2), and rebuilding a share-partition on a new leader (§8.3).

// StateStore is the share coordinator's view of one share-partition key (group, topic,
// partition): the merged durable state that WriteShareGroupState updates and
// ReadShareGroupState returns. ACQUIRED is never stored.
type StateStore struct {
	version Version
	// keepStart applies the fix start-offset-regresses before 4.4: the 4.4 rules for the
	// start offset and the delivery-complete count.
	keepStart   bool
	stateEpoch  int32
	leaderEpoch int32
	startOffset int64
	dcc         int64
	batches     []PersistedBatch
	scratch     []PersistedBatch
}

// NewStateStore initialises a key as the group coordinator does when a share group first
// subscribes: the given state epoch and start offset (-1: let share.auto.offset.reset
// decide), no batches.
func NewStateStore(stateEpoch int32, startOffset int64) *StateStore {
	return &StateStore{stateEpoch: stateEpoch, leaderEpoch: -1, startOffset: startOffset, dcc: -1}
}

// ForVersion selects the Kafka release whose share coordinator rules the store follows
// and returns s. A store that was never given a version follows Kafka 4.2's rules.
func (s *StateStore) ForVersion(v Version) *StateStore {
	s.version = v
	return s
}

// ForConfig selects the release of c and, before 4.4, the fix start-offset-regresses when c
// applies it (the 4.4 start-offset and delivery-complete-count rules), and returns s.
func (s *StateStore) ForConfig(c Config) *StateStore {
	s.version = c.Version
	s.keepStart = c.Version < Kafka44 && c.fixed(FixStartOffsetRegresses)
	return s
}

// Version is the release whose rules the store follows (Kafka42 when never set).
func (s *StateStore) Version() Version {
	if s.version == 0 {
		return Kafka42
	}
	return s.version
}

// Reinitialize wipes the state with a new state epoch and start offset (alter offsets,
// resubscription); leaders with the old state epoch are fenced from then on. A start offset
// ≥ 0 (an offsets reset) stores a delivery-complete count of 0 from Kafka 4.3 (KAFKA-20034,
// also in 4.2.1; sharesim's 4.2 is 4.2.0), so lag is known at once; -1 leaves it unknown.
// From Kafka 4.4 a negative state epoch is INVALID_REQUEST (KAFKA-20743) and nothing
// changes.
func (s *StateStore) Reinitialize(stateEpoch int32, startOffset int64) error {
	if stateEpoch < 0 && s.Version() >= Kafka44 {
		return errf(ErrInvalidRequest, -1, "initialize with state epoch %d: the state epoch cannot be negative", stateEpoch)
	}
	s.stateEpoch, s.startOffset, s.dcc = stateEpoch, startOffset, -1
	if startOffset >= 0 && s.Version() >= Kafka43 {
		s.dcc = 0
	}
	s.batches = s.batches[:0]
	return nil
}

// Read is ReadShareGroupState: a leader epoch lower than the highest seen is fenced; a
// higher one is recorded (fencing older leaders' writes from now on). Leader epoch -1 is
// Kafka 4.3's "do not update" sentinel (KAFKA-20694): neither fenced nor recorded. From
// Kafka 4.4 a negative leader epoch is INVALID_REQUEST (KAFKA-20743).
func (s *StateStore) Read(leaderEpoch int32) (Snapshot, error) {
	switch v := s.Version(); {
	case leaderEpoch < 0 && v >= Kafka44:
		return Snapshot{}, errf(ErrInvalidRequest, -1, "read with leader epoch %d: the leader epoch cannot be negative", leaderEpoch)
	case leaderEpoch == -1 && v == Kafka43:
		return s.Snapshot(), nil
	}
	if leaderEpoch < s.leaderEpoch {
		return Snapshot{}, errf(ErrFencedLeaderEpoch, -1, "read with leader epoch %d < %d", leaderEpoch, s.leaderEpoch)
	}
	s.leaderEpoch = leaderEpoch
	return s.Snapshot(), nil
}

// StartOffset is the stored start offset (-1: never written).
func (s *StateStore) StartOffset() int64 { return s.startOffset }

// DeliveryCompleteCount is the stored delivery-complete count (-1: unknown).
func (s *StateStore) DeliveryCompleteCount() int64 { return s.dcc }

// Snapshot returns a copy of the stored state without the read's side effect.
func (s *StateStore) Snapshot() Snapshot {
	return Snapshot{
		StateEpoch:            s.stateEpoch,
		LeaderEpoch:           s.leaderEpoch,
		StartOffset:           s.startOffset,
		DeliveryCompleteCount: s.dcc,
		Batches:               append([]PersistedBatch(nil), s.batches...),
	}
}

// Write is WriteShareGroupState: checks the epochs, then merges the write into the stored
// state. Merge rule: for each offset the (state, delivery count) with the highest delivery
// count survives, ties going to the higher state id; offsets below the new start offset
// are dropped and equal neighbours coalesced, so the batches do not depend on the order in
// which writes arrive.
//
// The start offset and the delivery-complete count depend on the version:
//
//   - Kafka 4.2 and 4.3 store the write's start offset and count as they come, so a write
//     issued earlier (or while the leader's SPSO stepped back) that arrives later moves the
//     stored start offset back;
//   - Kafka 4.4 keeps max(incoming, stored) start offset (#23074) and chooses the count by
//     comparing start offsets (#23112): the incoming count if the incoming start is
//     higher, the larger of the two if equal, the stored one if lower.
//
// The fix start-offset-regresses gives 4.2 and 4.3 the 4.4 rules (ForConfig).
//
// Epochs: 4.2 and 4.3 skip the leader (state) epoch check for a write carrying -1; 4.4
// refuses any negative epoch with INVALID_REQUEST (KAFKA-20743).
func (s *StateStore) Write(w *Write) error {
	v44 := s.Version() >= Kafka44
	switch {
	case v44 && (w.LeaderEpoch < 0 || w.StateEpoch < 0):
		return errf(ErrInvalidRequest, -1, "write with leader epoch %d, state epoch %d: epochs cannot be negative", w.LeaderEpoch, w.StateEpoch)
	case w.unfenced: // bug zoo (store-no-fencing): the epoch checks are skipped
	case w.LeaderEpoch < s.leaderEpoch && (v44 || w.LeaderEpoch != -1):
		return errf(ErrFencedLeaderEpoch, -1, "write with leader epoch %d < %d", w.LeaderEpoch, s.leaderEpoch)
	case w.StateEpoch < s.stateEpoch && (v44 || w.StateEpoch != -1):
		return errf(ErrFencedStateEpoch, -1, "write with state epoch %d < %d", w.StateEpoch, s.stateEpoch)
	}
	for _, b := range w.Batches {
		if b.First > b.Last || b.State == Acquired {
			return errf(ErrInvalidRequest, b.First, "malformed state batch [%d, %d] %s", b.First, b.Last, b.State)
		}
	}
	if v44 || s.keepStart {
		switch {
		case w.StartOffset > s.startOffset:
			s.dcc = w.DeliveryCompleteCount
		case w.StartOffset == s.startOffset:
			s.dcc = max(s.dcc, w.DeliveryCompleteCount)
		}
		s.startOffset = max(s.startOffset, w.StartOffset)
	} else {
		if w.StartOffset != -1 {
			s.startOffset = w.StartOffset
		}
		s.dcc = w.DeliveryCompleteCount
	}
	old := s.batches
	s.batches = mergeBatches(s.scratch[:0], old, w.Batches, s.startOffset)
	s.scratch = old
	return nil
}

// mergeBatches merges two ascending, disjoint lists with the coordinator's rule into out,
// dropping offsets below start. It walks both lists once; between two consecutive batch
// boundaries both lists are constant, so one decision covers the whole segment.
func mergeBatches(out, a, b []PersistedBatch, start int64) []PersistedBatch {
	const far = int64(math.MaxInt64)
	i, j, pos := 0, 0, start
	for {
		for i < len(a) && a[i].Last < pos {
			i++
		}
		for j < len(b) && b[j].Last < pos {
			j++
		}
		if i == len(a) && j == len(b) {
			return out
		}
		lo := far
		if i < len(a) {
			lo = min(lo, max(a[i].First, pos))
		}
		if j < len(b) {
			lo = min(lo, max(b[j].First, pos))
		}
		var pa, pb *PersistedBatch
		hi := far
		if i < len(a) {
			if a[i].First <= lo {
				pa, hi = &a[i], min(hi, a[i].Last)
			} else {
				hi = min(hi, a[i].First-1)
			}
		}
		if j < len(b) {
			if b[j].First <= lo {
				pb, hi = &b[j], min(hi, b[j].Last)
			} else {
				hi = min(hi, b[j].First-1)
			}
		}
		win := pa
		if pb != nil && (win == nil || pb.DeliveryCount > win.DeliveryCount ||
			(pb.DeliveryCount == win.DeliveryCount && pb.State > win.State)) {
			win = pb
		}
		if n := len(out); n > 0 && out[n-1].Last+1 == lo && out[n-1].State == win.State && out[n-1].DeliveryCount == win.DeliveryCount {
			out[n-1].Last = hi
		} else {
			out = append(out, PersistedBatch{First: lo, Last: hi, State: win.State, DeliveryCount: win.DeliveryCount})
		}
		pos = hi + 1
	}
}

// Load rebuilds a share-partition on a (new) leader from the durable state (§8.3, §5.4):
// NewUninitialized, MaybeInitialize and CompleteInitialize in one step, with the read
// succeeding. startIfUnset is the start offset share.auto.offset.reset resolved to, used
// when the stored start offset is -1 (see ResolveStartOffset); it is not persisted until the
// next write. Every stored batch becomes a whole cache batch in its stored state and
// delivery count with no owner and no lock: whatever was acquired at the old leader reverts
// to its last written state, or, if never written, is unknown and fetched again as new (the
// reload gap window). A malformed snapshot is an INVALID_ARGUMENT error (CompleteInitialize
// marks the partition FAILED instead, as Kafka does).
func Load(cfg Config, snap Snapshot, leaderEpoch int32, startIfUnset int64) (*SharePartition, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sp := newPartition(cfg)
	sp.leaderEpoch = leaderEpoch
	if err := sp.loadSnapshot(snap, startIfUnset); err != nil {
		return nil, err
	}
	sp.state = PartitionActive
	return sp, nil
}

// loadSnapshot is the rebuild shared by Load and CompleteInitialize. It leaves the
// lifecycle state alone.
func (sp *SharePartition) loadSnapshot(snap Snapshot, startIfUnset int64) error {
	cfg := sp.cfg
	spso := snap.StartOffset
	if spso < 0 {
		spso = startIfUnset
	}
	if spso < 0 {
		return errf(ErrInvalidArgument, spso, "start offset must be resolved before loading")
	}
	sp.stateEpoch = snap.StateEpoch
	sp.spso, sp.speo, sp.availFrom = spso, spso, spso
	for i, pb := range snap.Batches {
		switch {
		case pb.First > pb.Last:
			return errf(ErrInvalidArgument, pb.First, "stored batch has last %d < first %d", pb.Last, pb.First)
		case pb.First < spso:
			return errf(ErrInvalidArgument, pb.First, "stored batch starts below the start offset %d", spso)
		case i > 0 && pb.First <= snap.Batches[i-1].Last:
			return errf(ErrInvalidArgument, pb.First, "stored batches overlap or are out of order")
		case pb.State != Available && pb.State != Acknowledged && pb.State != Archived && (pb.State != Archiving || cfg.Version < Kafka44):
			return errf(ErrInvalidArgument, pb.First, "stored state %s cannot be loaded", pb.State)
		case pb.DeliveryCount < 0:
			return errf(ErrInvalidArgument, pb.First, "negative delivery count")
		}
		r := rec{state: pb.State, dc: pb.DeliveryCount, owner: noOwner}
		if pb.State == Available && int(pb.DeliveryCount) >= cfg.DeliveryCountLimit {
			sp.limitLowered = true // written under a higher limit (4.3's dynamic group config)
		}
		switch {
		case pb.State == Archiving:
			r.setCause(sp.inferDLQCause(pb.DeliveryCount))
		case pb.State == Archived && int(pb.DeliveryCount) >= cfg.DeliveryCountLimit:
			r.setCause(CauseLimit) // archived on its last attempt: the limit is the best guess
		case pb.State.Terminal():
			r.setCause(CauseRestored)
		}
		sp.batches = append(sp.batches, batch{first: pb.First, last: pb.Last, whole: r})
		if pb.State.Terminal() {
			sp.nTerminal += pb.Last - pb.First + 1
		}
	}
	if n := len(sp.batches); n > 0 {
		sp.speo = sp.batches[n-1].last
		sp.gap = gapWindow{active: true, start: spso, end: sp.speo}
	}
	sp.findNext = true
	// Kafka 4.4 (KAFKA-20672): batches persisted ARCHIVING had not finished their DLQ
	// step; it is resumed at once, whether or not the queue is still on.
	for i := range sp.batches {
		if b := &sp.batches[i]; b.whole.state == Archiving {
			sp.startDLQ(b.first, b.last, CauseNone, true)
		}
	}
	sp.advanceHead()
	return nil
}
