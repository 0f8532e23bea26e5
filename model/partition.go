package model

// noOwner marks a record without an owner.
const noOwner int32 = -1

// Record flags.
const (
	flagPending   uint8 = 1 << iota // a state write covering the record is outstanding
	flagLockFired                   // the lock fired while the record was pending
	flagForced                      // force-archived (log start, compaction, abort): a rollback cannot revive it

	causeShift = 3
	causeMask  = uint8(15) << causeShift
)

// rec is the state of one offset, or of a whole batch tracked as a unit. Its fields are
// ordered so that it packs into 24 bytes.
type rec struct {
	deadline int64  // lock deadline in virtual ms; meaningful when lock != 0
	lock     uint64 // id of the live lock, 0 when none
	owner    int32  // member index; while pending, the owner a rollback restores
	dc       int16  // delivery count
	state    State  // shown state; while pending, the provisional target
	flags    uint8
}

func (r *rec) pending() bool { return r.flags&flagPending != 0 }

func (r *rec) cause() Cause { return Cause((r.flags & causeMask) >> causeShift) }

func (r *rec) setCause(c Cause) { r.flags = r.flags&^causeMask | uint8(c)<<causeShift }

// acquirable reports whether a fetch may take the record now.
func (r *rec) acquirable() bool { return r.state == Available && !r.pending() }

// settledTerminal reports whether the record is terminal with no write outstanding; such a
// record can never change again.
func (r *rec) settledTerminal() bool { return r.state.Terminal() && !r.pending() }

// batch is one entry of the in-flight cache: offsets first..last inclusive, tracked either
// whole (recs == nil, state in whole) or per offset (recs[i] is offset first+i).
// Splitting to per-offset tracking is one-way.
type batch struct {
	first, last int64
	whole       rec
	recs        []rec
	// settled counts the leading offsets of a per-offset batch known to be settled
	// terminal; it only grows (settled terminal records never change).
	settled int64
}

func (b *batch) size() int64 { return b.last - b.first + 1 }

// at returns the record of offset off, which must lie in the batch.
func (b *batch) at(off int64) *rec {
	if b.recs == nil {
		return &b.whole
	}
	return &b.recs[off-b.first]
}

// gapWindow is the reload gap window of §8.3: offsets in [max(start, SPSO), end] that no
// cached batch covers were in flight at the old leader but never written; they are fetched
// as new records first.
type gapWindow struct {
	active     bool
	start, end int64
}

// SharePartition is the state a partition leader keeps for one share group on one
// topic-partition: the in-flight cache of records with their states, delivery counts and
// acquisition locks, the start and end offsets, and the state writes in flight.
//
// It is a pure value: no I/O, no goroutines, no clock but the nowMs arguments, no
// randomness. Methods are not safe for concurrent use; Kafka serialises them with a
// per-partition lock and so does the caller.
//
// Invariants (checked by CheckConsistency):
//   - cached batches are ordered, disjoint, and lie at or below SPEO;
//   - a record has an owner iff it is ACQUIRED or pending;
//   - a record with a live lock is ACQUIRED (possibly pending);
//   - the delivery count only grows, except Kafka 4.1's session release.
type SharePartition struct {
	cfg         Config
	state       PartitionState
	stateEpoch  int32
	leaderEpoch int32

	spso, speo int64
	batches    []batch
	findNext   bool
	// availFrom is a lower bound of the first acquirable cached offset: no acquirable
	// record lies below it.
	availFrom int64
	nTerminal int64 // terminal offsets (shown state) in the cache
	gap       gapWindow

	memberIdx   map[MemberID]int32
	memberNames []MemberID

	locks lockHeap
	// locksKept is how many entries the last compaction of locks kept (compactLocks).
	locksKept int
	nextLock  uint64

	// writes are the outstanding writes in ascending id order (ids only grow, so issuing
	// appends; few are outstanding at once, so a slice beats a map).
	writes    []*Write
	nextWrite WriteID
	// dlqs are the outstanding dead-letter-queue produces (Kafka 4.4), in the order asked.
	dlqs       []DLQRequest
	nextDLQ    DLQID
	freeWrites []*Write
	freeRecs   [][]rec
	journal    []undo

	stats Stats
	// limitLowered: the delivery count limit was lowered (4.3), so AVAILABLE records may
	// hold counts at or above it.
	limitLowered bool
	// raw are the group values as last set (Kafka stores them unclamped and clamps them
	// to the broker's bounds when it reads them, 4.3).
	raw struct {
		limit, locks int
		lockMs       int64
	}

	finalOn bool
	final   []Finalized
}

// Finalized reports offsets that left the in-flight cache, with their final state: SPSO
// passed them and their batch was dropped. Each cached offset is reported exactly once.
type Finalized struct {
	First, Last   int64
	State         State // ACKNOWLEDGED or ARCHIVED
	DeliveryCount int16
	Cause         Cause
	// DLQ is true for records archived at the end of a dead-letter-queue step (4.4).
	DLQ bool
}

// TrackFinalized turns on the log of finalized offsets read by DrainFinalized. Off by
// default so that callers who never drain it do not accumulate it.
func (sp *SharePartition) TrackFinalized(on bool) {
	sp.finalOn = on
	if !on {
		sp.final = nil
	}
}

// DrainFinalized appends the offsets finalized since the last call to out and forgets them.
func (sp *SharePartition) DrainFinalized(out []Finalized) []Finalized {
	out = append(out, sp.final...)
	sp.final = sp.final[:0]
	return out
}

func (sp *SharePartition) logFinal(r *rec, first, last int64) {
	if n := len(sp.final); n > 0 {
		p := &sp.final[n-1]
		if p.Last+1 == first && p.State == r.state && p.DeliveryCount == r.dc && p.Cause == r.cause() && p.DLQ == r.dlqStarted() {
			p.Last = last
			return
		}
	}
	sp.final = append(sp.final, Finalized{First: first, Last: last, State: r.state, DeliveryCount: r.dc, Cause: r.cause(), DLQ: r.dlqStarted()})
}

// Stats are running counters of what the share-partition did, for metrics. They use
// Kafka's metric names where Kafka has one.
type Stats struct {
	AcquiredRecords         int64 // offsets acquired (delivery attempts)
	AcquisitionLockTimeouts int64 // offsets a firing lock released or archived (ACQUIRED, no write outstanding)
	// LockTimerOffsets is Kafka's AcquisitionLockTimeoutPerSec count: every offset of a
	// firing timer's range, whatever the timeout handler then does with it (an
	// acknowledgement's write outstanding included).
	LockTimerOffsets                              int64
	Accepted, Released, Rejected, Gapped, Renewed int64 // RecordAcknowledgementsPerSec by type
	ArchivedAtLimit                               int64 // offsets archived because the delivery count reached the limit
	ArchivedByLogStart                            int64 // AVAILABLE offsets archived by a log-start move
	ArchivedByCompaction                          int64
	ArchivedAborted                               int64 // acquired offsets archived as part of aborted transactions
	WritesIssued                                  int64
	WritesFailed                                  int64
	Throttled                                     int64 // acquisitions cut short by throttled redelivery (4.2)
	// Dead-letter queue (4.4): produces asked for, and records produced by cause or whose
	// produce failed (Kafka's DeadLetterQueueRecordCount counts the produced ones).
	DLQRequests                         int64
	DLQRecordsRejected, DLQRecordsLimit int64
	DLQProduceFailed                    int64
	// ArchivedNoDLQ counts offsets a failed write's rollback archived at the limit after
	// their lock fired while the queue was on: they never reach the dead-letter topic.
	ArchivedNoDLQ int64
}

// New returns an ACTIVE share-partition with an empty cache starting at startOffset
// (SPSO = SPEO = startOffset), state epoch 0 and leader epoch 0.
func New(cfg Config, startOffset int64) (*SharePartition, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if startOffset < 0 {
		return nil, errf(ErrInvalidArgument, startOffset, "start offset must be >= 0")
	}
	sp := newPartition(cfg)
	sp.spso, sp.speo, sp.availFrom = startOffset, startOffset, startOffset
	return sp, nil
}

func newPartition(cfg Config) *SharePartition {
	sp := &SharePartition{
		cfg:       cfg,
		memberIdx: make(map[MemberID]int32),
	}
	sp.raw.limit, sp.raw.locks, sp.raw.lockMs = cfg.DeliveryCountLimit, cfg.PartitionMaxRecordLocks, cfg.RecordLockDurationMs
	return sp
}

// Config returns the configuration in force.
func (sp *SharePartition) Config() Config { return sp.cfg }

// Limits returns the delivery count limit and the in-flight record cap in force (as Config
// does, without copying the whole configuration: checkers read them after every step).
func (sp *SharePartition) Limits() (deliveryCountLimit, partitionMaxRecordLocks int) {
	return sp.cfg.DeliveryCountLimit, sp.cfg.PartitionMaxRecordLocks
}

// SetRecordLockDurationMs changes the lock duration for locks created from now on
// (share.record.lock.duration.ms is a dynamic group config); running locks keep theirs. A
// value outside group.share.min/max.record.lock.duration.ms is refused, as Kafka's
// IncrementalAlterConfigs does.
func (sp *SharePartition) SetRecordLockDurationMs(ms int64) error {
	c := sp.cfg
	c.RecordLockDurationMs = ms
	if err := c.Validate(); err != nil {
		return err
	}
	sp.cfg = c
	sp.raw.lockMs = ms
	return nil
}

// SetDeliveryCountLimit changes the delivery count limit from now on: Kafka 4.3's group
// config share.delivery.count.limit is dynamic and read at every use (acquisition,
// release, expiry, throttling). Records keep their counts; the new limit applies to their
// next transition. A value outside the broker's bounds (Config.Bounds) is refused, as
// Kafka's IncrementalAlterConfigs does (GroupConfig.validate). Before 4.3 the limit is a
// static broker config: INVALID_ARGUMENT.
func (sp *SharePartition) SetDeliveryCountLimit(limit int) error {
	if sp.cfg.Version < Kafka43 {
		return errf(ErrInvalidArgument, -1, "share.delivery.count.limit is a group config from Kafka 4.3")
	}
	c := sp.cfg
	c.DeliveryCountLimit = limit
	if err := c.Validate(); err != nil {
		return err
	}
	sp.setLimit(c)
	sp.raw.limit = limit
	return nil
}

// setLimit installs c, whose delivery count limit may differ from the one in force.
func (sp *SharePartition) setLimit(c Config) {
	// Kafka applies the limit only on the way back to AVAILABLE
	// (InFlightState.tryUpdateState), so a record already AVAILABLE at or above a lowered
	// limit is acquired once more before it is archived.
	sp.limitLowered = sp.limitLowered || c.DeliveryCountLimit < sp.cfg.DeliveryCountLimit
	sp.cfg = c
}

// SetPartitionMaxRecordLocks changes the in-flight cap from now on (Kafka 4.3's dynamic
// group config share.partition.max.record.locks, read by the gate and the cap trim at
// every fetch). A window already above a lowered cap stays; fetches then only redeliver
// inside it. A value outside the broker's bounds is refused. Before 4.3: INVALID_ARGUMENT.
func (sp *SharePartition) SetPartitionMaxRecordLocks(n int) error {
	if sp.cfg.Version < Kafka43 {
		return errf(ErrInvalidArgument, -1, "share.partition.max.record.locks is a group config from Kafka 4.3")
	}
	c := sp.cfg
	c.PartitionMaxRecordLocks = n
	if err := c.Validate(); err != nil {
		return err
	}
	sp.cfg = c
	sp.raw.locks = n
	return nil
}

// SetBrokerBounds changes the broker's bounds on the group values (Kafka 4.3,
// group.share.min/max.* for the delivery count limit, the record-lock cap and the lock
// duration; a broker restart with new settings). The group values set earlier stay stored
// as they were and are read clamped to the new bounds (GroupConfig.clampToRange), so
// widening the bounds again restores them. Bounds outside Kafka's ranges are refused.
// Before 4.3: INVALID_ARGUMENT.
func (sp *SharePartition) SetBrokerBounds(b Bounds, minLockMs, maxLockMs int64) error {
	if sp.cfg.Version < Kafka43 {
		return errf(ErrInvalidArgument, -1, "the group.share.min/max bounds on group configs exist from Kafka 4.3")
	}
	c := sp.cfg
	c.Bounds, c.MinRecordLockDurationMs, c.MaxRecordLockDurationMs = b, minLockMs, maxLockMs
	if !c.RelaxRanges {
		if err := b.validate(); err != nil {
			return err
		}
		if err := inRange("group.share.min.record.lock.duration.ms", minLockMs, RecordLockDurationRangeMinMs, MinRecordLockDurationRangeMaxMs); err != nil {
			return err
		}
		if err := inRange("group.share.max.record.lock.duration.ms", maxLockMs, MaxRecordLockDurationRangeMinMs, RecordLockDurationRangeMaxMs); err != nil {
			return err
		}
		c.DeliveryCountLimit = clamp(sp.raw.limit, b.MinDeliveryCountLimit, b.MaxDeliveryCountLimit)
		c.PartitionMaxRecordLocks = clamp(sp.raw.locks, b.MinPartitionMaxRecordLocks, b.MaxPartitionMaxRecordLocks)
		c.RecordLockDurationMs = clamp(sp.raw.lockMs, minLockMs, maxLockMs)
	}
	if err := c.Validate(); err != nil {
		return err
	}
	sp.setLimit(c)
	return nil
}

// SetDLQTopic sets or clears (empty) the group config errors.deadletterqueue.topic.name
// from now on (Kafka 4.4). The dead-letter-queue gate is read at every transition, so
// records already ARCHIVING finish their DLQ step and later transitions follow the new
// setting. Before 4.4: INVALID_ARGUMENT.
func (sp *SharePartition) SetDLQTopic(name string) error {
	if sp.cfg.Version < Kafka44 {
		return errf(ErrInvalidArgument, -1, "errors.deadletterqueue.topic.name is a group config from Kafka 4.4")
	}
	sp.cfg.DLQTopic = name
	return nil
}

// SetRenewAcknowledge turns share.renew.acknowledge.enable on or off from now on (a
// dynamic group config of Kafka 4.3). Before 4.3: INVALID_ARGUMENT.
func (sp *SharePartition) SetRenewAcknowledge(enabled bool) error {
	if sp.cfg.Version < Kafka43 {
		return errf(ErrInvalidArgument, -1, "share.renew.acknowledge.enable is a group config from Kafka 4.3")
	}
	sp.cfg.DisableRenewAcknowledge = !enabled
	return nil
}

// State returns the lifecycle state.
func (sp *SharePartition) State() PartitionState { return sp.state }

// Fence discards the share-partition, as Kafka does when leadership is lost or a write is
// fenced. Every later operation fails with NOT_LEADER_OR_FOLLOWER; outstanding writes can
// still be completed (their results no longer matter).
func (sp *SharePartition) Fence() { sp.state = PartitionFenced }

// StateEpoch and LeaderEpoch are the epochs sent with every state write.
func (sp *SharePartition) StateEpoch() int32  { return sp.stateEpoch }
func (sp *SharePartition) LeaderEpoch() int32 { return sp.leaderEpoch }

// SetEpochs sets the state and leader epochs carried by later writes.
func (sp *SharePartition) SetEpochs(stateEpoch, leaderEpoch int32) {
	sp.stateEpoch, sp.leaderEpoch = stateEpoch, leaderEpoch
}

// StartOffset is the SPSO: every offset below it is finished.
func (sp *SharePartition) StartOffset() int64 { return sp.spso }

// EndOffset is the SPEO: the last offset that entered the cache, or SPSO when the cache
// is empty.
func (sp *SharePartition) EndOffset() int64 { return sp.speo }

// InFlightCount is the in-flight window SPEO − SPSO + 1 (0 when the cache is empty), the
// quantity group.share.partition.max.record.locks caps and Kafka reports as
// InFlightMessageCount. It counts every offset in the window whatever its state.
func (sp *SharePartition) InFlightCount() int64 {
	if len(sp.batches) == 0 {
		return 0
	}
	return sp.speo - sp.spso + 1
}

// CachedBatchCount is the number of in-flight cache entries (InFlightBatchCount).
func (sp *SharePartition) CachedBatchCount() int { return len(sp.batches) }

// Stats returns the running counters.
func (sp *SharePartition) Stats() Stats { return sp.stats }

// OutstandingWrites is the number of issued writes not yet completed.
func (sp *SharePartition) OutstandingWrites() int { return len(sp.writes) }

func (sp *SharePartition) v42() bool { return sp.cfg.Version >= Kafka42 }

// lastCached is the last offset of the last cached batch; call only with a non-empty cache.
func (sp *SharePartition) lastCached() int64 { return sp.batches[len(sp.batches)-1].last }

// find returns the index of the cached batch containing off.
func (sp *SharePartition) find(off int64) (int, bool) {
	i := sp.firstEndingAtOrAfter(off)
	if i < len(sp.batches) && sp.batches[i].first <= off {
		return i, true
	}
	return i, false
}

// firstEndingAtOrAfter returns the index of the first batch whose last offset is >= off.
func (sp *SharePartition) firstEndingAtOrAfter(off int64) int {
	lo, hi := 0, len(sp.batches) // sort.Search without a closure call per probe
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sp.batches[m].last >= off {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// floor returns the index of the last batch starting at or before off, or -1.
func (sp *SharePartition) floor(off int64) int {
	lo, hi := 0, len(sp.batches)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sp.batches[m].first > off {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// member returns the index of a member, registering it on first use.
func (sp *SharePartition) member(m MemberID) int32 {
	if i, ok := sp.lookupMember(m); ok {
		return i
	}
	i := int32(len(sp.memberNames))
	sp.memberIdx[m] = i
	sp.memberNames = append(sp.memberNames, m)
	return i
}

// lookupMember returns a registered member's index. A few members (the explorer's, a
// partition read by a small group) are compared in turn, which costs less than hashing the
// name; more go through the map.
func (sp *SharePartition) lookupMember(m MemberID) (int32, bool) {
	if len(sp.memberNames) <= 4 {
		for i, n := range sp.memberNames {
			if n == m {
				return int32(i), true
			}
		}
		return 0, false
	}
	i, ok := sp.memberIdx[m]
	return i, ok
}

func (sp *SharePartition) memberName(i int32) MemberID {
	if i < 0 {
		return ""
	}
	return sp.memberNames[i]
}

// apply changes the shown state, delivery count and cause of a record standing for n offsets starting at off,
// keeping the terminal count and the acquirable hint right. Every state change of a cached
// record goes through here.
func (sp *SharePartition) apply(r *rec, o outcome, off, n int64) {
	sp.setState(r, o.state, off, n)
	r.dc = o.dc
	r.setCause(o.cause)
}

// setState changes the shown state only; see apply.
func (sp *SharePartition) setState(r *rec, s State, off, n int64) {
	if r.state.Terminal() {
		sp.nTerminal -= n
	}
	if s.Terminal() {
		sp.nTerminal += n
	}
	r.state = s
	if s == Available {
		sp.noteAvailable(off)
	}
}

func (sp *SharePartition) noteAvailable(off int64) {
	if off < sp.availFrom {
		sp.availFrom = off
	}
	sp.findNext = true
}

// split converts batch i to per-offset tracking; a no-op if it already is.
func (sp *SharePartition) split(i int) {
	b := &sp.batches[i]
	if b.recs != nil {
		return
	}
	n := b.size()
	recs := sp.takeRecs(n)
	for k := range recs {
		recs[k] = b.whole
	}
	b.recs = recs
	if b.whole.settledTerminal() {
		b.settled = n
	} else {
		b.settled = 0
	}
}

func (sp *SharePartition) takeRecs(n int64) []rec {
	for k := len(sp.freeRecs) - 1; k >= 0; k-- {
		if int64(cap(sp.freeRecs[k])) >= n {
			r := sp.freeRecs[k][:n]
			sp.freeRecs[k] = sp.freeRecs[len(sp.freeRecs)-1]
			sp.freeRecs = sp.freeRecs[:len(sp.freeRecs)-1]
			return r
		}
	}
	return make([]rec, n)
}

const freeRecsMax = 32

// dropBatches removes cached batches [0, n), all of whose offsets are terminal.
func (sp *SharePartition) dropBatches(n int) {
	for i := 0; i < n; i++ {
		b := &sp.batches[i]
		sp.nTerminal -= sp.terminalIn(b, b.first, b.last)
		if sp.finalOn {
			if b.recs == nil {
				sp.logFinal(&b.whole, b.first, b.last)
			} else {
				for k := range b.recs {
					sp.logFinal(&b.recs[k], b.first+int64(k), b.first+int64(k))
				}
			}
		}
		if b.recs != nil && len(sp.freeRecs) < freeRecsMax {
			sp.freeRecs = append(sp.freeRecs, b.recs)
		}
	}
	k := copy(sp.batches, sp.batches[n:])
	for i := k; i < len(sp.batches); i++ {
		sp.batches[i] = batch{}
	}
	sp.batches = sp.batches[:k]
}

// terminalIn counts the terminal offsets of batch b in [from, to].
func (sp *SharePartition) terminalIn(b *batch, from, to int64) int64 {
	if from < b.first {
		from = b.first
	}
	if to > b.last {
		to = b.last
	}
	if from > to {
		return 0
	}
	if b.recs == nil {
		if b.whole.state.Terminal() {
			return to - from + 1
		}
		return 0
	}
	var n int64
	for off := from; off <= to; off++ {
		if b.recs[off-b.first].state.Terminal() {
			n++
		}
	}
	return n
}

// insertBatch inserts nb at index i.
func (sp *SharePartition) insertBatch(i int, nb batch) {
	sp.batches = append(sp.batches, batch{})
	copy(sp.batches[i+1:], sp.batches[i:])
	sp.batches[i] = nb
}

// DeliveryCompleteCount is the number of terminal cached offsets at or above SPSO
// (KIP-1226's deliveryCompleteCount as the leader sees it now).
func (sp *SharePartition) DeliveryCompleteCount() int64 { return sp.deliveryCompleteCount() }

// deliveryCompleteCount is the number of terminal cached offsets at or above SPSO.
func (sp *SharePartition) deliveryCompleteCount() int64 {
	below := int64(0)
	for i := range sp.batches {
		b := &sp.batches[i]
		if b.first >= sp.spso {
			break
		}
		if b.recs != nil && b.settled >= sp.spso-b.first {
			below += min(sp.spso-b.first, b.size())
			continue
		}
		below += sp.terminalIn(b, b.first, sp.spso-1)
	}
	return sp.nTerminal - below
}

// Record returns the view of one cached offset.
func (sp *SharePartition) Record(off int64) (RecordView, bool) {
	i, ok := sp.find(off)
	if !ok {
		return RecordView{}, false
	}
	return sp.view(sp.batches[i].at(off), off), true
}

func (sp *SharePartition) view(r *rec, off int64) RecordView {
	v := RecordView{Offset: off, State: r.state, DeliveryCount: r.dc, Pending: r.pending(), Cause: r.cause()}
	if r.state == Acquired {
		v.Owner = sp.memberName(r.owner)
	}
	if r.lock != 0 {
		v.HasLock, v.LockDeadlineMs = true, r.deadline
	}
	return v
}

// ForEachRecord calls fn for every cached offset in ascending order until fn returns false.
func (sp *SharePartition) ForEachRecord(fn func(RecordView) bool) {
	for i := range sp.batches {
		b := &sp.batches[i]
		for off := b.first; off <= b.last; off++ {
			if !fn(sp.view(b.at(off), off)) {
				return
			}
		}
	}
}

// ForEachStateRun calls fn for every maximal run of consecutive cached offsets of one
// cache entry that show the same state with the same outstanding-write flag, in
// ascending order, until fn returns false: what ForEachRecord shows of states, a batch
// tracked as one unit in one call, for observers that read nothing else.
func (sp *SharePartition) ForEachStateRun(fn func(first, last int64, s State, pending bool) bool) {
	for i := range sp.batches {
		b := &sp.batches[i]
		if b.recs == nil {
			if !fn(b.first, b.last, b.whole.state, b.whole.pending()) {
				return
			}
			continue
		}
		from := 0
		for k := 1; k <= len(b.recs); k++ {
			if k < len(b.recs) && b.recs[k].state == b.recs[from].state && b.recs[k].pending() == b.recs[from].pending() {
				continue
			}
			if !fn(b.first+int64(from), b.first+int64(k-1), b.recs[from].state, b.recs[from].pending()) {
				return
			}
			from = k
		}
	}
}

// BatchView describes one in-flight cache entry.
type BatchView struct {
	First, Last int64
	// Whole is true while the batch is tracked as one unit.
	Whole bool
}

// ForEachBatch calls fn for every cached batch in ascending order until fn returns false.
func (sp *SharePartition) ForEachBatch(fn func(BatchView) bool) {
	for i := range sp.batches {
		b := &sp.batches[i]
		if !fn(BatchView{First: b.first, Last: b.last, Whole: b.recs == nil}) {
			return
		}
	}
}

// AppendBatches appends the view of every cached batch, ascending, to dst.
func (sp *SharePartition) AppendBatches(dst []BatchView) []BatchView {
	for i := range sp.batches {
		b := &sp.batches[i]
		dst = append(dst, BatchView{First: b.first, Last: b.last, Whole: b.recs == nil})
	}
	return dst
}

// HeldBy returns the number of offsets ACQUIRED by member (pending ones excluded).
func (sp *SharePartition) HeldBy(m MemberID) int64 {
	idx, ok := sp.lookupMember(m)
	if !ok {
		return 0
	}
	var n int64
	for i := range sp.batches {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.state == Acquired && !b.whole.pending() && b.whole.owner == idx {
				n += b.size()
			}
			continue
		}
		for k := range b.recs {
			r := &b.recs[k]
			if r.state == Acquired && !r.pending() && r.owner == idx {
				n++
			}
		}
	}
	return n
}
