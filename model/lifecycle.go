package model

// The share-partition lifecycle (Kafka's SharePartitionState and
// SharePartition.maybeInitialize): a leader creates the share-partition EMPTY when the first
// share fetch for it arrives, reads its durable state (INITIALIZING), and serves it once the
// read succeeded (ACTIVE). A failed or malformed read leaves it FAILED; losing leadership or
// a fenced state write makes it FENCED. Kafka never revives a FAILED or FENCED object: the
// share-partition manager drops it from its cache and the next fetch creates a new one,
// which Reset models on the same value.

// NewUninitialized returns an EMPTY share-partition for a leader at leaderEpoch, as Kafka's
// share-partition manager creates it on the first share fetch. Nothing can be fetched or
// acknowledged until MaybeInitialize and CompleteInitialize have made it ACTIVE.
func NewUninitialized(cfg Config, leaderEpoch int32) (*SharePartition, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sp := newPartition(cfg)
	sp.state, sp.leaderEpoch = PartitionEmpty, leaderEpoch
	return sp, nil
}

// MaybeInitialize is what every share fetch does first (Kafka's maybeInitialize). It
// returns read = true exactly when it moved the partition from EMPTY to INITIALIZING: the
// caller then sends ReadShareGroupState with LeaderEpoch() and reports the answer with
// CompleteInitialize. Otherwise:
//
//	ACTIVE        nil: serve the fetch
//	INITIALIZING  LEADER_NOT_AVAILABLE: the fetch waits (Kafka parks it until the read ends)
//	FENCED        LEADER_NOT_AVAILABLE
//	FAILED        UNKNOWN_SERVER_ERROR (Kafka's IllegalStateException): the fetch fails,
//	              and the manager drops the partition so that the next fetch builds a new one
func (sp *SharePartition) MaybeInitialize() (read bool, err error) {
	switch sp.state {
	case PartitionActive:
		return false, nil
	case PartitionEmpty:
		sp.state = PartitionInitializing
		return true, nil
	case PartitionInitializing:
		return false, errf(ErrLeaderNotAvailable, -1, "share-partition is already initializing")
	case PartitionFenced:
		return false, errf(ErrLeaderNotAvailable, -1, "share-partition is fenced")
	}
	return false, errf(ErrUnknownServerError, -1, "share-partition failed to load")
}

// CompleteInitialize reports the answer to the state read MaybeInitialize asked for.
// readErr nil means snap is the share coordinator's answer: the partition is rebuilt as
// Load does and becomes ACTIVE. A read error, or a malformed snapshot, makes it FAILED with
// an empty cache, and the returned error carries the code the fetch that triggered the read
// reports: the persister's error mapped by PersisterError, or UNKNOWN_SERVER_ERROR for a
// malformed snapshot (Kafka's IllegalStateException). Called in any state but
// INITIALIZING it is an INVALID_ARGUMENT error and changes nothing.
func (sp *SharePartition) CompleteInitialize(snap Snapshot, readErr error, startIfUnset int64) error {
	if sp.state != PartitionInitializing {
		return errf(ErrInvalidArgument, -1, "CompleteInitialize in state %s", sp.state)
	}
	if readErr != nil {
		sp.state = PartitionFailed
		return errf(PersisterError(readErr), -1, "state read failed: %v", readErr)
	}
	if err := sp.loadSnapshot(snap, startIfUnset); err != nil {
		sp.clear()
		sp.state = PartitionFailed
		return errf(ErrUnknownServerError, -1, "invalid state read: %v", err)
	}
	sp.state = PartitionActive
	return nil
}

// Reset discards a FAILED or FENCED share-partition's content and makes it EMPTY again for
// a leader at leaderEpoch: the value then stands for the new object Kafka's manager creates
// on the next fetch. Outstanding writes are forgotten (completing one is then an
// INVALID_ARGUMENT error), and so are DLQ produces; write and DLQ ids are never reused. In any other state Reset is an
// INVALID_ARGUMENT error and changes nothing.
func (sp *SharePartition) Reset(leaderEpoch int32) error {
	if sp.state != PartitionFailed && sp.state != PartitionFenced {
		return errf(ErrInvalidArgument, -1, "Reset in state %s", sp.state)
	}
	sp.clear()
	sp.state, sp.leaderEpoch = PartitionEmpty, leaderEpoch
	return nil
}

// clear empties the cache, the members, the locks and the outstanding writes.
func (sp *SharePartition) clear() {
	next, nextDLQ := sp.nextWrite, sp.nextDLQ
	cfg, final, raw := sp.cfg, sp.finalOn, sp.raw
	*sp = *newPartition(cfg)
	sp.nextWrite, sp.nextDLQ, sp.finalOn, sp.raw = next, nextDLQ, final, raw
}

// activeOrError is the answer of an operation that needs an ACTIVE share-partition:
// NOT_LEADER_OR_FOLLOWER when FENCED (the client must find the new leader),
// LEADER_NOT_AVAILABLE while EMPTY or INITIALIZING, UNKNOWN_SERVER_ERROR when FAILED (the
// codes MaybeInitialize reports, except FENCED).
func (sp *SharePartition) activeOrError() error {
	switch sp.state {
	case PartitionActive:
		return nil
	case PartitionFenced:
		return errf(ErrNotLeaderOrFollower, -1, "share-partition is FENCED")
	case PartitionEmpty, PartitionInitializing:
		return errf(ErrLeaderNotAvailable, -1, "share-partition is %s", sp.state)
	}
	return errf(ErrUnknownServerError, -1, "share-partition is FAILED")
}
