package model

// SPSO/SPEO advancement, the next fetch offset, and archiving forced by the log.

// advanceHead is the head rule (§5.2), run after a successful acknowledgement or release
// write, after any expiry write completes, and on load. It moves SPSO past the terminal
// prefix of the cache and drops the batches it passed.
func (sp *SharePartition) advanceHead() {
	if len(sp.batches) == 0 || sp.batches[0].first > sp.spso {
		return // empty, or a hole at the head after a reload
	}
	if i, ok := sp.find(sp.spso); ok && !sp.headPasses(sp.batches[i].at(sp.spso)) {
		return
	} else if !ok {
		// SPSO is not cached (the log start moved past it): Kafka looks at the batch just
		// below SPSO, which must be settled terminal if it is tracked whole.
		if f := sp.floor(sp.spso); f >= 0 && sp.batches[f].recs == nil && !sp.headPasses(&sp.batches[f].whole) {
			return
		}
	}
	hole := sp.firstUnfilledHole()
	x, xi := int64(-1), -1
	for i := range sp.batches {
		b := &sp.batches[i]
		if hole >= 0 && i > 0 && hole < b.first && hole > sp.batches[i-1].last {
			break // an unfetched reload hole stops the scan
		}
		if b.recs == nil {
			if !sp.headPasses(&b.whole) {
				break
			}
			x, xi = b.last, i
			continue
		}
		for b.settled < b.size() && sp.headPasses(&b.recs[b.settled]) {
			b.settled++
		}
		if b.settled > 0 {
			x, xi = b.first+b.settled-1, i
		}
		if b.settled < b.size() {
			break
		}
	}
	if xi < 0 {
		return
	}
	switch {
	case x == sp.lastCached():
		// Unconditional, as in Kafka: after a log-start jump past the whole cache SPSO can
		// step back below the log start until the next fetch applies T-LSO again.
		next := x + 1
		if sp.cfg.fixed(FixSPSOBelowLogStart) {
			next = max(next, sp.spso) // Kafka fix (spso-below-log-start): never back
		}
		sp.dropBatches(len(sp.batches))
		sp.spso, sp.speo = next, next
		sp.gap.active = false
	case x == sp.batches[xi].last:
		next := sp.batches[xi+1].first
		if !sp.v42() || next > sp.spso || sp.cfg.Bug == BugSPSOStepsBack { // bug zoo: 4.1's unconditional step
			sp.spso = next // 4.1 moves SPSO unconditionally (backwards after a log-start jump)
		}
		if hole >= 0 && sp.spso > hole {
			sp.spso = hole
		}
		sp.dropBatches(xi + 1)
	default:
		if x+1 > sp.spso {
			sp.spso = x + 1
		}
		sp.dropBatches(xi)
	}
	if sp.availFrom < sp.spso && len(sp.batches) == 0 {
		sp.availFrom = sp.spso
	}
}

// headPasses reports whether the head rule may pass the record: it is settled terminal, or
// (bug zoo, head-passes-pending, KAFKA-19436) terminal with its write still outstanding.
func (sp *SharePartition) headPasses(r *rec) bool {
	return r.settledTerminal() || (sp.cfg.Bug == BugHeadPassesPending && r.state.Terminal())
}

// firstUnfilledHole returns the lowest offset of the reload gap window that no cached batch
// covers, or -1.
func (sp *SharePartition) firstUnfilledHole() int64 {
	if !sp.gap.active {
		return -1
	}
	cur := max(sp.gap.start, sp.spso)
	for i := sp.firstEndingAtOrAfter(cur); i < len(sp.batches); i++ {
		b := &sp.batches[i]
		if cur < b.first {
			break
		}
		cur = b.last + 1
	}
	if cur > sp.gap.end {
		return -1
	}
	return cur
}

// NextFetchOffset is the log offset the next fetch for this share-partition reads from
// (§4.2): the first acquirable cached offset (or unfetched reload hole) if something was
// made available again, otherwise the offset after SPEO.
func (sp *SharePartition) NextFetchOffset() int64 {
	if len(sp.batches) == 0 || sp.spso > sp.lastCached() {
		return sp.speo // nothing cached at or above SPSO: read new data from SPEO (= SPSO)
	}
	if sp.findNext {
		hole := sp.firstUnfilledHole()
		avail := sp.firstAcquirable()
		switch {
		case hole >= 0 && (avail < 0 || hole < avail):
			return hole
		case avail >= 0:
			return avail
		}
		sp.findNext = false
	}
	return sp.speo + 1
}

// firstAcquirable returns the lowest acquirable cached offset, or -1, and raises the
// availFrom hint to it.
func (sp *SharePartition) firstAcquirable() int64 {
	for i := sp.firstEndingAtOrAfter(sp.availFrom); i < len(sp.batches); i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if sp.takeable(&b.whole) {
				sp.availFrom = max(sp.availFrom, b.first)
				return sp.availFrom
			}
			continue
		}
		for off := max(b.first, sp.availFrom); off <= b.last; off++ {
			if sp.takeable(&b.recs[off-b.first]) {
				sp.availFrom = off
				return off
			}
		}
	}
	if len(sp.batches) > 0 {
		sp.availFrom = sp.lastCached() + 1
	}
	return -1
}

// CanAcquire is Kafka's gate before a log read (§4.6): true when there is something to
// redeliver inside the window or the cache is empty, otherwise only while the in-flight
// window is below group.share.partition.max.record.locks.
func (sp *SharePartition) CanAcquire() bool {
	if sp.state != PartitionActive {
		return false
	}
	if sp.NextFetchOffset() != sp.speo+1 {
		return true
	}
	return sp.InFlightCount() < int64(sp.cfg.PartitionMaxRecordLocks)
}

// MoveLogStartOffset applies a log-start-offset move past SPSO (retention or DeleteRecords,
// T-LSO, §5.3): AVAILABLE offsets below it are archived without a write, SPSO moves to it
// and SPEO at least to it. ACQUIRED offsets below it are left alone; they are archived when
// their lock fires or they are released, and acknowledgements of them are ignored. Kafka
// notices the move lazily, when a read at the next fetch offset fails; the caller calls this
// then. A log start at or below SPSO, or a partition not ACTIVE, is a no-op.
func (sp *SharePartition) MoveLogStartOffset(logStart int64) {
	if logStart <= sp.spso || sp.state != PartitionActive {
		if sp.state == PartitionActive && sp.cfg.fixed(FixStuckBelowLogStart) && len(sp.batches) > 0 && sp.batches[0].first < logStart {
			// Kafka fix (stuck-below-log-start): records released below SPSO are archived.
			if n := sp.forceArchive(sp.batches[0].first, logStart-1, Available, CauseLogStart); n > 0 {
				sp.stats.ArchivedByLogStart += n
				sp.findNext = true
			}
		}
		return
	}
	if len(sp.batches) == 0 {
		sp.spso, sp.speo, sp.availFrom = logStart, logStart, logStart
		return
	}
	sp.stats.ArchivedByLogStart += sp.forceArchive(sp.batches[0].first, logStart-1, Available, CauseLogStart)
	sp.spso = logStart
	sp.raiseSPEO(logStart)
	sp.findNext = true
}

// raiseSPEO moves SPEO up to at least end and drops the reload gap window once SPEO is past
// the loaded end (§8.3), whatever moved it: new records acquired or a log-start jump. Kafka
// never stores the window's activity; it compares the end offset with the loaded end each
// time (SharePartition.isInitialReadGapOffsetWindowActive), so any move of SPEO past the
// loaded end, including updateCacheAndOffsets raising it to the log start, ends the window.
func (sp *SharePartition) raiseSPEO(end int64) {
	sp.speo = max(sp.speo, end)
	if sp.gap.active && sp.speo > sp.gap.end {
		sp.gap.active = false
	}
}

// forceArchive archives every cached record in [from, to] whose shown state is from,
// bypassing the validity rule (T-LSO, T-COMPACT: AVAILABLE; T-ABORT: ACQUIRED). The record
// is marked so that no rollback revives it; an acquired record's lock is cancelled. It
// returns the number of offsets archived.
func (sp *SharePartition) forceArchive(from, to int64, want State, cause Cause) int64 {
	var n int64
	for i := sp.firstEndingAtOrAfter(from); i < len(sp.batches) && sp.batches[i].first <= to; i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.state != want {
				continue
			}
			if from <= b.first && b.last <= to {
				n += sp.archiveRec(&b.whole, b.first, b.size(), cause)
				continue
			}
			sp.split(i)
		}
		for off := max(from, b.first); off <= min(to, b.last); off++ {
			if r := &b.recs[off-b.first]; r.state == want {
				n += sp.archiveRec(r, off, 1, cause)
			}
		}
	}
	return n
}

func (sp *SharePartition) archiveRec(r *rec, off, n int64, cause Cause) int64 {
	sp.setState(r, Archived, off, n)
	r.flags |= flagForced
	r.setCause(cause)
	if !r.pending() {
		r.lock, r.owner = 0, noOwner
	}
	return n
}
