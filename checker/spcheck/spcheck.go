// Package spcheck holds the single-share-partition invariants that the exhaustive explorer
// (checker/explore) evaluates on every transition and that scripted scenarios evaluate after
// every step when they set `invariants: true`. Both drive one model.SharePartition the way a
// partition leader does, so one implementation serves both: a counterexample the explorer
// writes as a script fails on the same invariant when `sharesim run` replays it.
//
// Each invariant protects a rule from the Kafka semantics reference or a bug Kafka's
// share-partition code had (docs/checking.md). Where Kafka itself knowingly breaks an
// intuitive rule (docs/semantics.md, "Real Kafka behaviour that breaks intuitive
// invariants"), the exception is written into the invariant.
package spcheck

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
)

// Invariant names, in the order they are evaluated (the first broken one is reported).
const (
	CachedRangesDisjoint     = "cached-ranges-disjoint"
	PendingNotAcquired       = "pending-not-acquired"
	OneLockPerAcquired       = "one-lock-per-acquired"
	LimitNeverAvailable      = "limit-never-available"
	NothingBelowSPSO         = "nothing-below-spso-acquired"
	AcceptedNeverRedelivered = "accepted-never-redelivered"
	InflightWithinCap        = "inflight-within-cap"
	TerminalAbsorbing        = "terminal-states-absorbing"
	DeliveryCountMonotonic   = "delivery-count-monotonic"
	SPSOMonotonic            = "spso-monotonic"
	NoSilentLoss             = "no-silent-loss"
	LeaveReleasesAll         = "leave-releases-all"
	NoOlderEpochWrite        = "no-older-epoch-write"
	DLQExactlyOnce           = "dlq-exactly-once"
	CoreConsistent           = "core-consistent"
)

// Info describes one invariant.
type Info struct {
	Name string
	Doc  string
}

// Catalogue lists the invariants in evaluation order.
var Catalogue = []Info{
	{CachedRangesDisjoint, "The in-flight cache's batches are ordered and disjoint (no offset is tracked twice)."},
	{PendingNotAcquired, "A record whose acknowledgement or release write is outstanding is never ACQUIRED: a fetch must not take it (§2.3)."},
	{OneLockPerAcquired, "Every ACQUIRED record holds a live lock and no other settled record does (Kafka 4.1 leaves a failed write whose lock fired ACQUIRED with a dead timer, §6.4, so 4.1 is exempt from the first half)."},
	{LimitNeverAvailable, "A settled AVAILABLE record's delivery count is below the limit (§3.2; Kafka 4.2)."},
	{NothingBelowSPSO, "A fetch acquires nothing below SPSO (Kafka 4.2), except records below the log start offset and reads that find stale cache batches wholly below SPSO after a log-start move (§4.3, docs/semantics.md)."},
	{AcceptedNeverRedelivered, "A record whose ACCEPT the client saw succeed is never delivered again, on any leader (except on a leader loaded after a late write moved the share coordinator's start offset back, Kafka 4.2 and 4.3: docs/findings.md, start-offset-regresses)."},
	{InflightWithinCap, "A fetch that adds new records leaves the window SPEO − SPSO + 1 within the cap plus less than one producer batch (4.2 trims inside acquire); Kafka 4.1 only gates, so it may add up to a fetch's MaxRecords more (§4.6)."},
	{TerminalAbsorbing, "On one leader, an ACKNOWLEDGED or ARCHIVED record never changes state again; while its write is outstanding, only that write's failure (the rollback) may change it (a lock firing during an acknowledgement once turned an accepted record available again). A settled ARCHIVING record (Kafka 4.4's dead-letter queue) only becomes ARCHIVED."},
	{DeliveryCountMonotonic, "On one leader the delivery count of a record never decreases (Kafka 4.2; 4.1 lowers it on session release, KAFKA-19972)."},
	{SPSOMonotonic, "On one leader SPSO never moves backwards, except by the head rule's step 3 after a log-start jump past the whole cache (it empties the cache and puts SPSO just past it, below the log start, as Kafka does)."},
	{NoSilentLoss, "On one leader SPSO passes only records that are terminal with no write outstanding (or that a failed write's rollback after lock expiry archives at the delivery limit), or lie below the log start offset."},
	{LeaveReleasesAll, "When a member's share session ends, none of its records stays ACQUIRED (§7.5; KAFKA-19953 broke this in 4.1)."},
	{NoOlderEpochWrite, "The share coordinator never accepts a state write whose leader or state epoch is older than one it has seen (§8.2)."},
	{DLQExactlyOnce, "Kafka 4.4 with the dead-letter queue on: one leader sends a record to the dead-letter topic at most once. Across leaders Kafka may send it again (docs/findings.md: a new leader resumes a DLQ step persisted ARCHIVING, or redelivers a record whose archiving writes were lost), so the topic can hold duplicates."},
	{CoreConsistent, "The core's own structural invariants hold (model.SharePartition.CheckConsistency)."},
}

// Rec is what the invariants look at in one cached offset.
type Rec = model.CompactRecord

// View is a snapshot of one share-partition after a step.
type View struct {
	SPSO, SPEO, Window int64
	Recs               []Rec
	Batches            []model.BatchView
	sp                 *model.SharePartition // for member names in messages
}

// Capture fills v from sp, reusing v's memory.
func (v *View) Capture(sp *model.SharePartition) {
	v.SPSO, v.SPEO, v.Window, v.sp = sp.StartOffset(), sp.EndOffset(), sp.InFlightCount(), sp
	v.Batches = sp.AppendBatches(v.Batches[:0])
	v.Recs = sp.AppendCompact(v.Recs[:0])
}

// owner names the member holding r.
func (v *View) owner(r *Rec) model.MemberID { return v.sp.MemberName(r.Owner) }

// rec returns the view of offset off, if cached.
func (v *View) rec(off int64) (*Rec, bool) {
	lo, hi := 0, len(v.Recs)
	for lo < hi {
		m := (lo + hi) / 2
		if v.Recs[m].Offset < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(v.Recs) && v.Recs[lo].Offset == off {
		return &v.Recs[lo], true
	}
	return nil, false
}

// Find returns the view of offset off, if cached.
func (v *View) Find(off int64) (*Rec, bool) { return v.rec(off) }

// StepKind says what a step did, as far as the invariants care.
type StepKind uint8

// Step kinds.
const (
	StepOther StepKind = iota
	StepFetch
	StepLeave
)

// StoreWrite is a state write that reached the share coordinator during a step.
type StoreWrite struct {
	// WriteLeaderEpoch and WriteStateEpoch are the write's epochs; StoreLeaderEpoch and
	// StoreStateEpoch the store's just before it arrived.
	WriteLeaderEpoch, WriteStateEpoch int32
	StoreLeaderEpoch, StoreStateEpoch int32
	// Accepted is true when the store took it.
	Accepted bool
}

// Step describes one step for the invariants.
type Step struct {
	Kind StepKind
	// Member is the fetching or leaving member.
	Member model.MemberID
	// Acquired is a fetch's result.
	Acquired []model.AcquiredRange
	// NewLeader is true when the share-partition was rebuilt on a new leader during the
	// step: the per-leader invariants then start afresh.
	NewLeader bool
	// LogStart is the log start offset after the step.
	LogStart int64
	// MaxLogBatch is the largest producer batch in the log; MaxRecords the fetch's budget.
	MaxLogBatch int64
	MaxRecords  int64
	// Writes are the state writes that reached the share coordinator during the step.
	Writes []StoreWrite
	// Committed and RolledBack are the offsets of this leader's writes that completed
	// successfully (their provisional changes became final) or failed (rolled back) during
	// the step.
	Committed, RolledBack []model.PersistedBatch
	// DLQ is the dead-letter-queue step that ended during the step (4.4), if any.
	DLQ *DLQStep
	// StartRegressed is true when the share-partition's leader was loaded from a stored
	// state whose start offset a write arriving late had moved back (Kafka 4.2 and 4.3,
	// docs/findings.md start-offset-regresses): records below the regressed start whose
	// state the coordinator had already pruned are new records to it, so a record whose
	// ACCEPT succeeded may be delivered again (accepted-never-redelivered's exception).
	StartRegressed bool
}

// DLQStep is a dead-letter-queue produce that ended.
type DLQStep struct {
	Request model.DLQRequest
	// Produced is true when the records reached the topic; Again when this leader had sent
	// some of them before.
	Produced, Again bool
}

func covers(bs []model.PersistedBatch, off int64) bool {
	for _, b := range bs {
		if b.First <= off && off <= b.Last {
			return true
		}
	}
	return false
}

// Violation is a broken invariant.
type Violation struct {
	Invariant string
	Msg       string
}

func (v *Violation) Error() string { return v.Invariant + ": " + v.Msg }

func violation(name, format string, args ...any) *Violation {
	return &Violation{Invariant: name, Msg: fmt.Sprintf(format, args...)}
}

// Check evaluates the invariants on a step that took the share-partition from prev to cur
// (cur captured from sp). accepted reports whether a client saw an ACCEPT of the offset
// succeed before this step. consistency runs sp.CheckConsistency as well. It returns the
// first broken invariant in catalogue order, or nil.
func Check(cfg *model.Config, sp *model.SharePartition, prev, cur *View, st *Step, accepted func(int64) bool, consistency bool) *Violation {
	v42 := cfg.Version >= model.Kafka42
	// The limit and cap in force are the share-partition's (a config change may have
	// altered them since cfg was built). After a lowered limit a record already AVAILABLE
	// may hold a count at or above it: it is delivered once more, then archived.
	limit, capInForce, lowered := cfg.DeliveryCountLimit, cfg.PartitionMaxRecordLocks, false
	if sp != nil {
		limit, capInForce = sp.Limits()
		lowered = sp.LimitLowered()
	}
	last := int64(-1)
	for _, b := range cur.Batches {
		if b.First > b.Last || b.First <= last {
			return violation(CachedRangesDisjoint, "cached batch %d-%d after offset %d", b.First, b.Last, last)
		}
		last = b.Last
	}
	for i := range cur.Recs {
		r := &cur.Recs[i]
		switch {
		case r.State == model.Acquired && r.Pending:
			return violation(PendingNotAcquired, "offset %d is ACQUIRED by %s while its state write is outstanding", r.Offset, cur.owner(r))
		case r.State == model.Acquired && !r.Lock && v42:
			return violation(OneLockPerAcquired, "offset %d is ACQUIRED by %s with no live lock", r.Offset, cur.owner(r))
		case r.State != model.Acquired && !r.Pending && r.Lock:
			return violation(OneLockPerAcquired, "offset %d is %s but holds a live lock", r.Offset, r.State)
		case r.State == model.Available && !r.Pending && v42 && int(r.DeliveryCount) >= limit && !lowered:
			return violation(LimitNeverAvailable, "offset %d is AVAILABLE at delivery count %d, limit %d", r.Offset, r.DeliveryCount, limit)
		}
	}
	if st.Kind == StepFetch && prev != nil {
		stale := false
		for _, b := range prev.Batches {
			stale = stale || b.Last < prev.SPSO
		}
		for _, r := range st.Acquired {
			for off := r.First; off <= r.Last; off++ {
				if v42 && off < prev.SPSO && off >= st.LogStart && !stale {
					return violation(NothingBelowSPSO, "%s acquired offset %d below SPSO %d", st.Member, off, prev.SPSO)
				}
				if accepted != nil && !st.StartRegressed && accepted(off) {
					return violation(AcceptedNeverRedelivered, "%s acquired offset %d (delivery count %d) after its ACCEPT succeeded", st.Member, off, r.DeliveryCount)
				}
			}
		}
		if cur.SPEO > prev.SPEO || (prev.Window == 0 && cur.Window > 0) {
			limit := int64(max(capInForce, cfg.PartitionMaxRecordLocks)) + st.MaxLogBatch - 1
			if !v42 {
				limit += st.MaxRecords
			}
			if cur.Window > limit {
				return violation(InflightWithinCap, "in-flight window %d after a fetch exceeds the cap %d (allowed up to %d)", cur.Window, capInForce, limit)
			}
		}
	}
	sameLeader := prev != nil && !st.NewLeader
	if sameLeader {
		// One walk over the offsets cached before and after (both ascending): the first
		// terminal-states-absorbing break is reported before any delivery-count one.
		var dcFrom *Rec
		var dcTo int16
		j := 0
		for i := range prev.Recs {
			p := &prev.Recs[i]
			if j == len(cur.Recs) {
				break
			}
			c := &cur.Recs[j]
			if c.Offset != p.Offset {
				// Not the usual case (the same offsets cached before and after): walk on.
				for c.Offset < p.Offset {
					if j++; j == len(cur.Recs) {
						break
					}
					c = &cur.Recs[j]
				}
				if c.Offset != p.Offset {
					continue
				}
			}
			j++
			if v42 && dcFrom == nil && c.DeliveryCount < p.DeliveryCount {
				dcFrom, dcTo = p, c.DeliveryCount
			}
			if p.State == model.Archiving && !p.Pending {
				if c.State != model.Archiving && c.State != model.Archived || c.Pending {
					return violation(TerminalAbsorbing, "offset %d was ARCHIVING, now %s%s", p.Offset, c.State, pendingMark(c.Pending))
				}
				continue
			}
			if !p.State.Terminal() || c.State == p.State && (p.Pending || !c.Pending) {
				continue
			}
			if !p.Pending || !covers(st.RolledBack, p.Offset) {
				return violation(TerminalAbsorbing, "offset %d was %s%s, now %s%s", p.Offset, p.State, pendingMark(p.Pending), c.State, pendingMark(c.Pending))
			}
		}
		if dcFrom != nil {
			return violation(DeliveryCountMonotonic, "offset %d: delivery count went from %d to %d", dcFrom.Offset, dcFrom.DeliveryCount, dcTo)
		}
		if cur.SPSO < prev.SPSO && !(cur.Window == 0 && cur.SPSO < st.LogStart) {
			return violation(SPSOMonotonic, "SPSO moved back from %d to %d (log start %d, window %d)", prev.SPSO, cur.SPSO, st.LogStart, cur.Window)
		}
		for off := max(prev.SPSO, st.LogStart); off < cur.SPSO; off++ {
			p, ok := prev.rec(off)
			if !ok {
				if prev.Window == 0 || off > prev.SPEO {
					break // beyond the old cache: nothing there was ever delivered
				}
				return violation(NoSilentLoss, "SPSO moved from %d to %d past offset %d, which was not in flight", prev.SPSO, cur.SPSO, off)
			}
			// A failed write's rollback after the lock fired archives a record at the
			// delivery limit (Kafka 4.2); a head rule after it may pass the record
			// (kafka.fix stuck-at-cap-after-rollback).
			archivedByRollback := v42 && p.Pending && !p.Lock && covers(st.RolledBack, off) && int(p.DeliveryCount) >= cfg.DeliveryCountLimit
			if !p.State.Terminal() || (p.Pending && !covers(st.Committed, off) && !archivedByRollback) {
				return violation(NoSilentLoss, "SPSO moved from %d to %d past offset %d, which was %s%s", prev.SPSO, cur.SPSO, off, p.State, pendingMark(p.Pending))
			}
		}
	}
	if st.Kind == StepLeave {
		m := sp.MemberIndex(st.Member)
		for i := range cur.Recs {
			if r := &cur.Recs[i]; r.State == model.Acquired && !r.Pending && r.Owner == m && m >= 0 {
				return violation(LeaveReleasesAll, "offset %d is still ACQUIRED by %s after its session ended", r.Offset, st.Member)
			}
		}
	}
	for _, w := range st.Writes {
		if w.Accepted && (w.WriteLeaderEpoch < w.StoreLeaderEpoch || w.WriteStateEpoch < w.StoreStateEpoch) {
			return violation(NoOlderEpochWrite, "the share coordinator accepted a write with leader epoch %d, state epoch %d after seeing %d, %d",
				w.WriteLeaderEpoch, w.WriteStateEpoch, w.StoreLeaderEpoch, w.StoreStateEpoch)
		}
	}
	if q := st.DLQ; q != nil && q.Produced && q.Again {
		return violation(DLQExactlyOnce, "offsets %d-%d reached the dead-letter topic again from the same leader", q.Request.First, q.Request.Last)
	}
	if consistency {
		if err := sp.CheckConsistency(); err != nil {
			return violation(CoreConsistent, "%v", err)
		}
	}
	return nil
}

func pendingMark(p bool) string {
	if p {
		return " (write outstanding)"
	}
	return ""
}

// AcceptedOffsets calls fn for every offset that a successfully completed write confirms as
// ACCEPTed to the client (an acknowledgement write's ACKNOWLEDGED entries).
func AcceptedOffsets(w *model.Write, fn func(off int64)) {
	if w.Kind != model.WriteAck {
		return
	}
	for _, b := range w.Batches {
		if b.State != model.Acknowledged {
			continue
		}
		for off := b.First; off <= b.Last; off++ {
			fn(off)
		}
	}
}
