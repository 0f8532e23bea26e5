package model

// Acknowledgement (§6) and member release (§7.5).

// undo restores one record of batch index bi after a failed acknowledgement call.
type undo struct {
	bi  int
	off int64 // -1: the whole-batch record
	old rec
}

// Acknowledge applies one acknowledgement call of member for this share-partition: the
// ranges must be ascending, each with one type or one type per offset. The call is atomic:
// on any error nothing changes (except RENEWs already applied, as in Kafka) and the error
// is INVALID_REQUEST for a malformed request, INVALID_RECORD_STATE for a record the member
// does not hold (not ACQUIRED, owned by another member, lock already expired, or an
// acknowledgement of it still being written). Ranges wholly below SPSO are ignored.
//
// On success the changes are provisional and the returned write carries them; the
// client's answer waits for CompleteWrite. A nil write with a nil error means the call
// needed no write (only RENEWs, or nothing at or above SPSO) and is complete.
func (sp *SharePartition) Acknowledge(nowMs int64, member MemberID, ranges []AckRange) (*Write, error) {
	if sp.state == PartitionFenced {
		return nil, sp.activeOrError()
	}
	// EMPTY, INITIALIZING and FAILED are not refused as such: as in Kafka, their cache is
	// empty, so a range at or above SPSO finds no batch (INVALID_RECORD_STATE).
	if err := sp.checkAckRequest(ranges); err != nil {
		return nil, err
	}
	owner, known := sp.lookupMember(member)
	if !known {
		owner = -2 // matches no record
	}
	sp.journal = sp.journal[:0]
	w := sp.beginWrite(WriteAck)
	for _, r := range ranges {
		if err := sp.ackRange(nowMs, owner, r, w); err != nil {
			sp.undoJournal()
			sp.discardWrite(w)
			return nil, err
		}
	}
	sp.countAcks(ranges)
	if len(w.Batches) == 0 {
		sp.discardWrite(w)
		return nil, nil
	}
	return sp.issueWrite(w), nil
}

// checkAckRequest is the request-level validation (§6.2).
func (sp *SharePartition) checkAckRequest(ranges []AckRange) error {
	maxType := AckReject
	if sp.v42() {
		maxType = AckRenew
	}
	for i, r := range ranges {
		switch {
		case r.First > r.Last:
			return errf(ErrInvalidRequest, r.First, "range first %d > last %d", r.First, r.Last)
		case i > 0 && r.First < ranges[i-1].Last:
			return errf(ErrInvalidRequest, r.First, "ranges must be ascending")
		case len(r.Types) == 0:
			return errf(ErrInvalidRequest, r.First, "range has no acknowledgement type")
		case len(r.Types) > 1 && int64(len(r.Types)) != r.Last-r.First+1:
			return errf(ErrInvalidRequest, r.First, "%d types for a range of %d offsets", len(r.Types), r.Last-r.First+1)
		}
		for _, t := range r.Types {
			if t > maxType {
				return errf(ErrInvalidRequest, r.First, "acknowledge type %d is not valid in Kafka %s", t, sp.cfg.Version)
			}
		}
	}
	return nil
}

func (r AckRange) typeAt(off int64) AckType {
	if len(r.Types) == 1 {
		return r.Types[0]
	}
	return r.Types[off-r.First]
}

// ackRange applies one range (§6.3).
func (sp *SharePartition) ackRange(nowMs int64, owner int32, r AckRange, w *Write) error {
	if r.Last < sp.spso {
		return nil
	}
	i := sp.floor(r.First)
	if i < 0 {
		if r.First < sp.spso && sp.spso <= r.Last {
			i = sp.floor(sp.spso)
		}
		if i < 0 {
			return errf(ErrInvalidRecordState, r.First, "no in-flight batch at or before the range")
		}
	}
	// Kafka checks the range against the sub-map of cached batches from the floor batch up
	// to the range's last offset (fetchSubMapForAcknowledgementBatch): a first offset past
	// the last batch of the sub-map, or a last offset beyond it (in a hole between cached
	// batches or past the cache), is INVALID_REQUEST and nothing changes.
	switch j := sp.floor(r.Last); {
	case sp.batches[j].last < r.First:
		return errf(ErrInvalidRequest, r.First, "range [%d, %d] lies in no in-flight batch", r.First, r.Last)
	case r.Last > sp.batches[j].last:
		return errf(ErrInvalidRequest, r.Last, "range ends at %d beyond the in-flight batch [%d, %d] at or before it", r.Last, sp.batches[j].first, sp.batches[j].last)
	}
	var renewLock uint64
	var renewDeadline int64
	for ; i < len(sp.batches) && sp.batches[i].first <= r.Last; i++ {
		b := &sp.batches[i]
		if b.last < r.First || b.last < sp.spso {
			continue
		}
		renewLock = 0
		if b.recs == nil {
			if err := sp.checkHeld(&b.whole, owner, max(b.first, r.First)); err != nil {
				return err
			}
			if r.First <= b.first && b.last <= r.Last && len(r.Types) == 1 && !(b.first < sp.spso) {
				if sp.cfg.DisableRenewAcknowledge && r.Types[0] == AckRenew {
					return renewRefused(b.first)
				}
				sp.applyAck(nowMs, i, -1, &b.whole, b.first, b.last, r.Types[0], w, &renewLock, &renewDeadline)
				continue
			}
			sp.split(i)
			b = &sp.batches[i]
		}
		for off := max(r.First, b.first, sp.spso); off <= min(r.Last, b.last); off++ {
			rc := &b.recs[off-b.first]
			if err := sp.checkHeld(rc, owner, off); err != nil {
				return err
			}
			if sp.cfg.DisableRenewAcknowledge && r.typeAt(off) == AckRenew {
				return renewRefused(off)
			}
			sp.applyAck(nowMs, i, off, rc, off, off, r.typeAt(off), w, &renewLock, &renewDeadline)
		}
	}
	return nil
}

// renewRefused is Kafka 4.3's share.renew.acknowledge.enable: with it off, a RENEW of a
// held record is INVALID_RECORD_STATE (checked after the record is found held, as Kafka's
// acknowledgeBatchRecords / acknowledgePerOffsetBatchRecords do).
func renewRefused(off int64) error {
	return errf(ErrInvalidRecordState, off, "renewing acquisition locks is not enabled for the group (share.renew.acknowledge.enable)")
}

// checkHeld verifies that the record is ACQUIRED by owner with no write outstanding.
func (sp *SharePartition) checkHeld(r *rec, owner int32, off int64) error {
	switch {
	case r.pending():
		return errf(ErrInvalidRecordState, off, "an acknowledgement of this record is still being written")
	case r.state != Acquired:
		return errf(ErrInvalidRecordState, off, "record is %s, not ACQUIRED", r.state)
	case r.owner != owner:
		return errf(ErrInvalidRecordState, off, "record is held by another member")
	}
	return nil
}

// applyAck applies type t to a held record standing for [first, last]. RENEW restarts the
// lock at once (one new lock per range and batch); every other type makes the record
// pending with its target state and adds it to the write.
func (sp *SharePartition) applyAck(nowMs int64, bi int, off int64, r *rec, first, last int64, t AckType, w *Write, renewLock *uint64, renewDeadline *int64) {
	if t == AckRenew {
		if *renewLock == 0 {
			*renewLock, *renewDeadline = sp.newLock(nowMs, first, sp.batches[bi].last)
		}
		r.lock, r.deadline = *renewLock, *renewDeadline
		return
	}
	sp.journal = append(sp.journal, undo{bi: bi, off: off, old: *r})
	o := sp.cfg.transition(Acquired, r.dc, ackTrigger(t), false)
	if t == AckRelease {
		sp.countArchivedAtLimit(o, false, last-first+1)
	}
	sp.apply(r, o, first, last-first+1)
	r.flags |= flagPending
	w.add(first, last, o.state, o.dc)
}

// undoJournal rolls back the provisional changes of a failed acknowledgement call.
func (sp *SharePartition) undoJournal() {
	for k := len(sp.journal) - 1; k >= 0; k-- {
		u := sp.journal[k]
		b := &sp.batches[u.bi]
		r, first, n := &b.whole, b.first, b.size()
		if u.off >= 0 {
			r, first, n = &b.recs[u.off-b.first], u.off, 1
		}
		sp.setState(r, u.old.state, first, n)
		*r = u.old
	}
	sp.journal = sp.journal[:0]
}

func (sp *SharePartition) countAcks(ranges []AckRange) {
	for _, r := range ranges {
		if len(r.Types) == 1 {
			sp.countAck(r.Types[0], r.Last-r.First+1)
			continue
		}
		for _, t := range r.Types {
			sp.countAck(t, 1)
		}
	}
}

func (sp *SharePartition) countAck(t AckType, n int64) {
	switch t {
	case AckAccept:
		sp.stats.Accepted += n
	case AckRelease:
		sp.stats.Released += n
	case AckReject:
		sp.stats.Rejected += n
	case AckGap:
		sp.stats.Gapped += n
	case AckRenew:
		sp.stats.Renewed += n
	}
}

// ReleaseMember is T-LEAVE (§7.5): the member's share session on this leader ended (close
// with the final epoch, or its connection dropped). Every record it holds here is released
// at once, not waiting for its lock: Kafka 4.2 keeps the delivery count and archives records
// on their last attempt; Kafka 4.1 lowers the count by one and never archives at the limit.
// Records below SPSO are archived. The change is provisional until the returned write
// completes (rolled back if it fails). Nil means the member held nothing.
func (sp *SharePartition) ReleaseMember(nowMs int64, member MemberID) *Write {
	owner, ok := sp.lookupMember(member)
	if !ok || sp.state != PartitionActive {
		return nil
	}
	w := sp.beginWrite(WriteRelease)
	w.decremented = !sp.v42() || sp.cfg.Bug == BugLeaveDecrementsCount
	for i := 0; i < len(sp.batches); i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if !sp.heldBy(&b.whole, owner) {
				continue
			}
			if !(b.first < sp.spso && sp.spso <= b.last) {
				sp.leaveRec(&b.whole, b.first, b.last, w)
				continue
			}
			sp.split(i)
			b = &sp.batches[i]
		}
		for off := b.first; off <= b.last; off++ {
			r := &b.recs[off-b.first]
			if (!sp.v42() || sp.cfg.Bug == BugReleaseStopsAtForeign) && r.state == Acquired && r.owner != owner && r.owner != noOwner {
				break // Kafka 4.1 (KAFKA-19953): another member's offset ends the release of this batch
			}
			if sp.heldBy(r, owner) {
				sp.leaveRec(r, off, off, w)
			}
		}
	}
	if len(w.Batches) == 0 {
		sp.discardWrite(w)
		return nil
	}
	return sp.issueWrite(w)
}

func (sp *SharePartition) heldBy(r *rec, owner int32) bool {
	return r.state == Acquired && !r.pending() && r.owner == owner
}

func (sp *SharePartition) leaveRec(r *rec, first, last int64, w *Write) {
	below := last < sp.spso
	o := sp.cfg.transition(Acquired, r.dc, trigLeave, below)
	sp.countArchivedAtLimit(o, below, last-first+1)
	sp.apply(r, o, first, last-first+1)
	r.flags |= flagPending
	w.add(first, last, o.state, o.dc)
}
