package model

import "fmt"

// State is the state of one offset of a share-partition, with Kafka's persisted ids.
type State uint8

// Record states. The numeric values are the ids Kafka writes to __share_group_state
// (ACQUIRED is never written).
const (
	Available    State = 0
	Acquired     State = 1
	Acknowledged State = 2
	// Archiving (Kafka 4.4, KIP-1191) is a record on its way to the dead-letter queue: not
	// terminal (it holds SPSO and counts in the in-flight window), not acquirable, no
	// owner once its write committed, no lock. It becomes ARCHIVED when the DLQ produce
	// ends, whatever its result.
	Archiving State = 3
	Archived  State = 4
)

// String returns Kafka's upper-case name of the state.
func (s State) String() string {
	switch s {
	case Available:
		return "AVAILABLE"
	case Acquired:
		return "ACQUIRED"
	case Acknowledged:
		return "ACKNOWLEDGED"
	case Archiving:
		return "ARCHIVING"
	case Archived:
		return "ARCHIVED"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Terminal reports whether the state has no exits (ACKNOWLEDGED, ARCHIVED). ARCHIVING is
// not terminal.
func (s State) Terminal() bool { return s == Acknowledged || s == Archived }

// AckType is an acknowledgement type with Kafka's wire ids.
type AckType uint8

// Acknowledgement types (ShareAcknowledge / ShareFetch AcknowledgeTypes).
const (
	AckGap     AckType = 0 // offset holds no deliverable record → ARCHIVED
	AckAccept  AckType = 1 // processed → ACKNOWLEDGED
	AckRelease AckType = 2 // give back → AVAILABLE (ARCHIVED at the delivery limit)
	AckReject  AckType = 3 // unprocessable → ARCHIVED
	AckRenew   AckType = 4 // Kafka 4.2+: restart the lock, state unchanged
)

// String returns Kafka's upper-case name of the type.
func (t AckType) String() string {
	switch t {
	case AckGap:
		return "GAP"
	case AckAccept:
		return "ACCEPT"
	case AckRelease:
		return "RELEASE"
	case AckReject:
		return "REJECT"
	case AckRenew:
		return "RENEW"
	}
	return fmt.Sprintf("AckType(%d)", uint8(t))
}

// MemberID identifies a share-group member (Kafka uses a UUID string).
type MemberID string

// WriteID identifies one WriteShareGroupState issued by a share-partition. Zero means
// "no write".
type WriteID uint64

// LogBatch is one producer batch as returned by a log read: offsets First..Last inclusive.
// Aborted marks a batch of an aborted transaction; it only matters under read_committed.
type LogBatch struct {
	First, Last int64
	Aborted     bool
}

// FetchParams are the per-request acquisition parameters a share consumer sends.
type FetchParams struct {
	// MaxRecords is the record budget of the request (the Java client sends max.poll.records).
	MaxRecords int
	// BatchSize is the soft size of one acquired range in batch_optimized mode (the Java
	// client also sends max.poll.records).
	BatchSize int
	// Mode is share.acquire.mode; RecordLimit needs Kafka 4.2.
	Mode AcquireMode
}

// AcquiredRange is one range returned to the client: offsets First..Last inclusive, all
// with the same delivery count (the count after this acquisition; first delivery = 1).
type AcquiredRange struct {
	First, Last   int64
	DeliveryCount int16
}

// AckRange acknowledges offsets First..Last inclusive. Types holds either one type for the
// whole range or exactly one type per offset.
type AckRange struct {
	First, Last int64
	Types       []AckType
}

// PersistedBatch is one entry of the durable state: offsets First..Last inclusive share a
// state (AVAILABLE, ACKNOWLEDGED, ARCHIVED, or on Kafka 4.4 ARCHIVING) and a delivery
// count.
type PersistedBatch struct {
	First, Last   int64
	State         State
	DeliveryCount int16
}

// WriteKind says which operation issued a state write.
type WriteKind uint8

// Kinds of state write.
const (
	WriteAck     WriteKind = iota + 1 // an acknowledgement call (provisional until complete)
	WriteRelease                      // a member's share session ended (provisional)
	WriteExpiry                       // an acquisition lock fired (not provisional; result ignored)
	WriteDLQ                          // 4.4: a DLQ step ended, ARCHIVING → ARCHIVED (result ignored)
)

// String names the write kind.
func (k WriteKind) String() string {
	switch k {
	case WriteAck:
		return "ack"
	case WriteRelease:
		return "release"
	case WriteExpiry:
		return "expiry"
	case WriteDLQ:
		return "dlq"
	}
	return fmt.Sprintf("WriteKind(%d)", uint8(k))
}

// Write is the content of one WriteShareGroupState request for this share-partition.
// The *Write returned by the core stays valid until CompleteWrite is called with its ID;
// copy it (Clone) to keep it longer.
type Write struct {
	ID          WriteID
	Kind        WriteKind
	StateEpoch  int32
	LeaderEpoch int32
	// StartOffset is the SPSO when the write was issued.
	StartOffset int64
	// DeliveryCompleteCount is the number of terminal offsets at or above StartOffset
	// in the in-flight cache when the write was issued (KIP-1226).
	DeliveryCompleteCount int64
	// Batches are the changed offsets with their new state and delivery count, ascending
	// and disjoint.
	Batches []PersistedBatch

	decremented bool // 4.1 session release lowered the delivery counts of Batches
	unfenced    bool // bug zoo (store-no-fencing): the share coordinator skips its epoch checks
}

// Clone returns a deep copy that the core will not reuse.
func (w *Write) Clone() *Write {
	c := *w
	c.Batches = append([]PersistedBatch(nil), w.Batches...)
	return &c
}

// DLQID identifies one dead-letter-queue produce a share-partition asked for.
type DLQID uint64

// DLQRequest is one step of Kafka 4.4's dead-letter queue (phase 2 of KIP-1191's
// ARCHIVING → ARCHIVED): the share-partition asks its caller to produce records
// First..Last (all with DeliveryCount) to the group's dead-letter topic, and the caller
// reports the outcome with CompleteDLQ. The caller performs the produce, its retries
// (DLQMaxAttempts, DLQBackoffMs) and its latency; the core stays pure.
type DLQRequest struct {
	ID            DLQID
	First, Last   int64
	DeliveryCount int16
	// Cause is CauseRejected (a client REJECT) or CauseLimit (the delivery count reached
	// the limit), Kafka's CLIENT_REJECT and DELIVERY_COUNT_EXCEEDED.
	Cause Cause
	// Resumed marks a request made at load for a batch persisted ARCHIVING by an earlier
	// leader (Kafka's maybeResumeDlqArchiving): its records may already be in the topic.
	Resumed bool
	handed  bool // returned by TakeDLQRequests
}

// Snapshot is the durable state of a share-partition as the share coordinator returns it
// on ReadShareGroupState.
type Snapshot struct {
	StateEpoch  int32
	LeaderEpoch int32
	// StartOffset is the persisted SPSO; -1 means never written (share.auto.offset.reset
	// decides).
	StartOffset int64
	// DeliveryCompleteCount is -1 when unknown.
	DeliveryCompleteCount int64
	Batches               []PersistedBatch
}

// Clone returns a deep copy.
func (s Snapshot) Clone() Snapshot {
	s.Batches = append([]PersistedBatch(nil), s.Batches...)
	return s
}

// RecordView is the observable state of one cached offset.
type RecordView struct {
	Offset int64
	// State is the shown state; while Pending it is the provisional target of a write.
	State         State
	DeliveryCount int16
	// Owner is the member holding the lock; empty unless State is ACQUIRED.
	Owner MemberID
	// Pending is true while a state write covering this offset is outstanding.
	Pending bool
	// LockDeadlineMs is the virtual time at which the lock fires; valid when HasLock.
	LockDeadlineMs int64
	HasLock        bool
	// Cause says why a terminal record ended where it did (CauseNone otherwise).
	Cause Cause
}

// PartitionState is the lifecycle state of the share-partition object on its leader
// (Kafka's SharePartitionState). The numeric values are sharesim's own.
type PartitionState uint8

// Partition lifecycle states. New and Load return ACTIVE values; NewUninitialized returns
// an EMPTY one that MaybeInitialize and CompleteInitialize take through INITIALIZING to
// ACTIVE or FAILED. Fence makes any state FENCED.
const (
	PartitionActive       PartitionState = iota // serving fetches and acknowledgements
	PartitionFenced                             // leadership lost or a write fenced: discarded
	PartitionEmpty                              // created, state not yet read
	PartitionInitializing                       // ReadShareGroupState outstanding
	PartitionFailed                             // the state read failed or was malformed
)

// String returns Kafka's name of the partition state.
func (p PartitionState) String() string {
	switch p {
	case PartitionActive:
		return "ACTIVE"
	case PartitionFenced:
		return "FENCED"
	case PartitionEmpty:
		return "EMPTY"
	case PartitionInitializing:
		return "INITIALIZING"
	case PartitionFailed:
		return "FAILED"
	}
	return fmt.Sprintf("PartitionState(%d)", uint8(p))
}
