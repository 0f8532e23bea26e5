package explore

import (
	"fmt"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

// Findings are behaviours of real Kafka that break an intuitive invariant, found by the
// checkers and documented in docs/findings.md. The single-partition invariants tolerate them
// (their exceptions describe what Kafka does), so that the faithful core passes; with
// Scope.Findings the explorer also checks the strict forms and names a match as the
// finding, and the liveness check names a stuck state of a known shape. Each finding has a
// Kafka fix (model.Fixes) under which the strict form holds.

// Finding is one documented behaviour of Kafka.
type Finding struct {
	// Name is the finding's name, also the name of its fix (kafka.fix).
	Name string
	// Title says in one line what happens.
	Title string
	// Invariant is the strict invariant (or the progress property) it breaks.
	Invariant string
	// Script is the scripted scenario of the built-in library that shows it.
	Script string
	// Fix is the model fix (kafka.fix) that removes it.
	Fix string
}

// RedeliveredBelowLogStart names the finding the read/acquire window adds to
// stuck-below-log-start: the released record is delivered from below the log start.
const RedeliveredBelowLogStart = "redelivered-below-log-start"

// KnownFindings lists the findings in docs/findings.md, in its order.
var KnownFindings = []Finding{
	{model.FixStuckBelowLogStart, "a write that fails after its lock fired releases a record below SPSO; every later fetch reads below the log start and the partition stops delivering", LivenessInvariant, "finding-stuck-below-log-start", model.FixStuckBelowLogStart},
	{RedeliveredBelowLogStart, "a record released below the log start by a failed write is delivered again by a fetch whose log read came before the failure", spcheck.NothingBelowSPSO, "finding-redelivered-below-log-start", model.FixStuckBelowLogStart},
	{model.FixAcquireBelowSPSO, "with a stale cached batch below SPSO, a fetch acquires records below SPSO and below the log start", spcheck.NothingBelowSPSO, "finding-acquire-below-spso", model.FixAcquireBelowSPSO},
	{model.FixSPSOBelowLogStart, "when the whole cache is finished after a log-start move, SPSO moves back below the log start", spcheck.SPSOMonotonic, "finding-spso-below-log-start", model.FixSPSOBelowLogStart},
	{model.FixStuckAtCapAfterRollback, "a write that fails after its lock fired archives records at SPSO at the delivery limit without moving SPSO; with the in-flight cap reached the partition is never fetched again", LivenessInvariant, "finding-stuck-at-cap-after-rollback", model.FixStuckAtCapAfterRollback},
	{model.FixRollbackSkipsDLQ, "Kafka 4.4: a write that fails after its lock fired archives a record at the delivery limit with no dead-letter-queue record", DLQAllReach, "finding-rollback-skips-dlq", model.FixRollbackSkipsDLQ},
	{model.FixStartOffsetRegresses, "Kafka 4.2 and 4.3: a state write that arrives late moves the share coordinator's start offset back; after a failover a record whose ACCEPT succeeded is delivered again", spcheck.AcceptedNeverRedelivered, "finding-start-offset-regresses", model.FixStartOffsetRegresses},
}

// DLQAllReach is the strict form of the dead-letter-queue family: with the queue on, every
// record that reached the delivery limit, or was rejected, goes through a DLQ step.
const DLQAllReach = "dlq-every-limit-record"

// LookupFinding returns a finding by name.
func LookupFinding(name string) (Finding, bool) {
	for _, f := range KnownFindings {
		if f.Name == name {
			return f, true
		}
	}
	return Finding{}, false
}

// strictFinding checks the strict forms of the invariants on a step that passed spcheck.Check
// and returns the finding it matches with the violation, or "" (Kafka 4.2: 4.1's rules differ
// and its invariants are weaker).
func strictFinding(cfg *model.Config, prev, cur *spcheck.View, st *spcheck.Step, accepted func(int64) bool) (string, *spcheck.Violation) {
	if cfg.Version < model.Kafka42 {
		return "", nil
	}
	if st.Kind == spcheck.StepFetch && st.StartRegressed {
		for _, r := range st.Acquired {
			for off := r.First; off <= r.Last; off++ {
				if accepted(off) {
					return model.FixStartOffsetRegresses, &spcheck.Violation{Invariant: spcheck.AcceptedNeverRedelivered,
						Msg: fmt.Sprintf("%s acquired offset %d (delivery count %d) after its ACCEPT succeeded; a late write had moved the share coordinator's start offset back before this leader loaded it", st.Member, off, r.DeliveryCount)}
				}
			}
		}
	}
	if st.Kind == spcheck.StepFetch {
		for _, r := range st.Acquired {
			if r.First < prev.SPSO {
				if cachedAvailable(prev, r.First) {
					return RedeliveredBelowLogStart, &spcheck.Violation{Invariant: spcheck.NothingBelowSPSO,
						Msg: fmt.Sprintf("%s acquired offset %d again, AVAILABLE in the cache below SPSO %d (log start %d)", st.Member, r.First, prev.SPSO, st.LogStart)}
				}
				return model.FixAcquireBelowSPSO, &spcheck.Violation{Invariant: spcheck.NothingBelowSPSO,
					Msg: fmt.Sprintf("%s acquired offset %d below SPSO %d (log start %d)", st.Member, r.First, prev.SPSO, st.LogStart)}
			}
		}
	}
	if cfg.DLQEnabled() && len(st.RolledBack) > 0 {
		for i := range prev.Recs {
			p := &prev.Recs[i]
			if !p.Pending || p.State == model.Archived || !coversOffset(st.RolledBack, p.Offset) {
				continue
			}
			if c, ok := cur.Find(p.Offset); ok && c.State == model.Archived && !c.Pending && int(c.DeliveryCount) >= cfg.DeliveryCountLimit {
				return model.FixRollbackSkipsDLQ, &spcheck.Violation{Invariant: DLQAllReach,
					Msg: fmt.Sprintf("offset %d (delivery count %d, limit %d) was archived by a failed write's rollback with no dead-letter-queue step", p.Offset, c.DeliveryCount, cfg.DeliveryCountLimit)}
			}
		}
	}
	if !st.NewLeader && cur.SPSO < prev.SPSO {
		return model.FixSPSOBelowLogStart, &spcheck.Violation{Invariant: spcheck.SPSOMonotonic,
			Msg: fmt.Sprintf("SPSO moved back from %d to %d, below the log start %d", prev.SPSO, cur.SPSO, st.LogStart)}
	}
	return "", nil
}

// stuckFinding names the shape of a stuck state (the harness replayed to it), or "".
func stuckFinding(h *harness) string {
	nf := h.sp.NextFetchOffset()
	if nf < h.logStart && h.logStart <= h.sp.StartOffset() {
		return model.FixStuckBelowLogStart
	}
	// The in-flight gate is closed (nothing cached left to redeliver and the cap reached)
	// while the record at SPSO is finished: the head rule did not run after it finished.
	if sp := h.sp; sp.InFlightCount() >= int64(h.cfg.PartitionMaxRecordLocks) && nf == sp.EndOffset()+1 {
		if r, ok := sp.Record(sp.StartOffset()); ok && !r.Pending && (r.State == model.Archived || r.State == model.Acknowledged) {
			return model.FixStuckAtCapAfterRollback
		}
	}
	return ""
}

func coversOffset(bs []model.PersistedBatch, off int64) bool {
	for _, b := range bs {
		if b.First <= off && off <= b.Last {
			return true
		}
	}
	return false
}

// cachedAvailable reports whether offset off is cached AVAILABLE in v.
func cachedAvailable(v *spcheck.View, off int64) bool {
	for i := range v.Recs {
		if v.Recs[i].Offset == off {
			return v.Recs[i].State == model.Available
		}
	}
	return false
}
