package model

// State writes (WriteShareGroupState). An acknowledgement call or a session release makes
// its changes provisional ("pending"): the records already show their target state but
// cannot be acquired, acknowledged again or expired, and the change is rolled back if the
// write fails. Lock-expiry changes stand whatever the write's result. Several writes may be
// outstanding at once and complete in any order.

// beginWrite returns an empty write of the given kind, reusing a completed one.
func (sp *SharePartition) beginWrite(kind WriteKind) *Write {
	var w *Write
	if n := len(sp.freeWrites); n > 0 {
		w = sp.freeWrites[n-1]
		sp.freeWrites = sp.freeWrites[:n-1]
		w.Batches = w.Batches[:0]
	} else {
		w = &Write{}
	}
	w.ID, w.Kind, w.decremented = 0, kind, false
	return w
}

// add appends the changed offsets [first, last], coalescing with the previous entry when
// adjacent with equal state and delivery count.
func (w *Write) add(first, last int64, s State, dc int16) {
	if n := len(w.Batches); n > 0 {
		p := &w.Batches[n-1]
		if p.Last+1 == first && p.State == s && p.DeliveryCount == dc {
			p.Last = last
			return
		}
	}
	w.Batches = append(w.Batches, PersistedBatch{First: first, Last: last, State: s, DeliveryCount: dc})
}

// issueWrite stamps the write with the epochs, SPSO and delivery-complete count and
// registers it as outstanding.
func (sp *SharePartition) issueWrite(w *Write) *Write {
	sp.nextWrite++
	w.ID = sp.nextWrite
	w.StateEpoch, w.LeaderEpoch = sp.stateEpoch, sp.leaderEpoch
	w.unfenced = sp.cfg.Bug == BugStoreNoFencing // bug zoo: the share coordinator will not fence it
	w.StartOffset = sp.spso
	w.DeliveryCompleteCount = sp.deliveryCompleteCount()
	sp.writes = append(sp.writes, w)
	sp.stats.WritesIssued++
	return w
}

// writeIndex returns the index in sp.writes of the write with the given id.
func (sp *SharePartition) writeIndex(id WriteID) (int, bool) {
	lo, hi := 0, len(sp.writes)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if sp.writes[m].ID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(sp.writes) && sp.writes[lo].ID == id
}

func (sp *SharePartition) discardWrite(w *Write) {
	sp.freeWrites = append(sp.freeWrites, w)
}

// CompleteWrite reports the outcome of an outstanding write: writeErr nil means the share
// coordinator committed it. For an acknowledgement or release write the provisional changes
// are committed (locks cancelled, head rule applied) or rolled back (§6.4); for an expiry
// write only the head rule runs. The *Write is recycled afterwards. The returned error is
// non-nil only if id is not outstanding.
func (sp *SharePartition) CompleteWrite(nowMs int64, id WriteID, writeErr error) error {
	i, ok := sp.writeIndex(id)
	if !ok {
		return errf(ErrInvalidArgument, -1, "write %d is not outstanding", id)
	}
	w := sp.writes[i]
	sp.writes = append(sp.writes[:i], sp.writes[i+1:]...)
	if writeErr != nil {
		sp.stats.WritesFailed++
	}
	switch {
	case w.Kind == WriteExpiry:
		// Kafka 4.4: the DLQ step of records the lock sent to ARCHIVING starts after the
		// head rule, whatever the write's result, always as DELIVERY_COUNT_EXCEEDED.
		sp.advanceHead()
		sp.startDLQForWrite(w, CauseLimit)
	case w.Kind == WriteDLQ:
		sp.advanceHead()
	case writeErr == nil:
		sp.forEachWritten(w, sp.commitRec)
		sp.advanceHead()
		sp.startDLQForWrite(w, CauseNone)
	default:
		dec := w.decremented
		if sp.v42() && sp.cfg.fixed(FixStuckBelowLogStart) {
			sp.splitFiredAtSPSO(w)
		}
		sp.forEachWritten(w, func(r *rec, off, n int64) { sp.rollbackRec(r, off, n, dec) })
		if sp.cfg.fixed(FixStuckAtCapAfterRollback) {
			// Kafka fix (stuck-at-cap-after-rollback): Kafka's failure branch returns before
			// the head rule, so a prefix the rollback archived stays counted in flight.
			sp.advanceHead()
		}
	}
	sp.discardWrite(w)
	return nil
}

// forEachWritten calls fn for every cached record the write's batches cover, with the first
// offset and the number of offsets the record stands for.
func (sp *SharePartition) forEachWritten(w *Write, fn func(r *rec, off, n int64)) {
	for _, pb := range w.Batches {
		for i := sp.firstEndingAtOrAfter(pb.First); i < len(sp.batches) && sp.batches[i].first <= pb.Last; i++ {
			b := &sp.batches[i]
			if b.recs == nil {
				fn(&b.whole, b.first, b.size())
				continue
			}
			for off := max(pb.First, b.first); off <= min(pb.Last, b.last); off++ {
				fn(&b.recs[off-b.first], off, 1)
			}
		}
	}
}

// splitFiredAtSPSO is part of Kafka fix stuck-below-log-start: a whole cached batch the
// failed write covers that straddles SPSO and whose lock fired is tracked per offset, so that
// the rollback archives its offsets below SPSO and releases the rest.
func (sp *SharePartition) splitFiredAtSPSO(w *Write) {
	for _, pb := range w.Batches {
		for i := sp.firstEndingAtOrAfter(pb.First); i < len(sp.batches) && sp.batches[i].first <= pb.Last; i++ {
			b := &sp.batches[i]
			if b.recs == nil && b.first < sp.spso && sp.spso <= b.last && b.whole.pending() && b.whole.flags&flagLockFired != 0 {
				sp.split(i)
			}
		}
	}
}

// commitRec makes a provisional change final: the acquisition ends, its lock is cancelled.
func (sp *SharePartition) commitRec(r *rec, off, n int64) {
	if !r.pending() {
		return
	}
	r.flags &^= flagPending | flagLockFired
	r.lock, r.owner = 0, noOwner
	if r.state == Available {
		sp.noteAvailable(off)
	}
}

// rollbackRec undoes a provisional change after a failed write: the record is ACQUIRED by
// its owner again, unless it was force-archived meanwhile (stays ARCHIVED) or its lock fired
// meanwhile (4.2: released as by expiry; 4.1: ACQUIRED with no live lock).
func (sp *SharePartition) rollbackRec(r *rec, off, n int64, decremented bool) {
	if !r.pending() {
		return
	}
	fired := r.flags&flagLockFired != 0
	forced := r.flags&flagForced != 0
	r.flags &^= flagPending | flagLockFired
	if r.flags&flagForced != 0 && sp.v42() {
		r.lock, r.owner = 0, noOwner
		return // 4.2: force-archived records stay archived; 4.1's rollback revives them
	}
	r.flags &^= flagForced
	if decremented && (r.state == Available || forced) {
		r.dc++ // 4.1's session release lowered it (a forced archive was an AVAILABLE target)
	}
	// Bug zoo (rollback-keeps-acquired): skipping this branch is Kafka 4.1's rollback in 4.2.
	if fired && sp.v42() && sp.cfg.Bug != BugRollbackKeepsAcquired {
		// Kafka's rollback does not look at SPSO: AVAILABLE, or ARCHIVED at the limit.
		o := sp.cfg.transition(Acquired, r.dc, trigRollbackLF, false)
		if o.state == Available && off+n-1 < sp.spso && sp.cfg.fixed(FixStuckBelowLogStart) {
			// Kafka fix (stuck-below-log-start): released wholly below SPSO → archived, as
			// the lock-timeout handler does.
			sp.stats.ArchivedByLogStart += sp.archiveRec(r, off, n, CauseLogStart)
			return
		}
		if sp.cfg.Bug == BugRollbackIgnoresLimit && o.state == Archived {
			o = outcome{state: Available, dc: r.dc, ok: true} // bug zoo (rollback-ignores-limit): no limit substitution
		}
		sp.countArchivedAtLimit(o, false, n)
		dlq := o.state == Archived && sp.cfg.dlqEnabled()
		if dlq && sp.cfg.fixed(FixRollbackSkipsDLQ) {
			// Kafka fix (rollback-skips-dlq): through the dead-letter queue like any
			// other return to AVAILABLE at the limit.
			o.state = Archiving
			sp.apply(r, o, off, n)
			r.lock, r.owner = 0, noOwner
			sp.startDLQ(off, off+n-1, CauseLimit, false)
			return
		}
		if dlq {
			sp.stats.ArchivedNoDLQ += n
		}
		sp.apply(r, o, off, n)
		r.lock, r.owner = 0, noOwner
		return
	}
	sp.setState(r, Acquired, off, n)
	r.setCause(CauseNone)
}
