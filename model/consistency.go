package model

import "fmt"

// CheckConsistency verifies the core's structural invariants and returns the first one
// broken. It is O(in-flight window) and meant for tests, the explorer and debug runs.
func (sp *SharePartition) CheckConsistency() error {
	var liveLocks lockTable // lock id → deadline
	locked := int64(0)      // records (whole batches count once) holding a lock
	terminal := int64(0)    // terminal offsets (shown state), recounted
	for i := range sp.batches {
		b := &sp.batches[i]
		if b.first > b.last {
			return fmt.Errorf("batch %d: first %d > last %d", i, b.first, b.last)
		}
		if i > 0 && b.first <= sp.batches[i-1].last {
			return fmt.Errorf("batches %d and %d overlap or are out of order", i-1, i)
		}
		if b.last > sp.speo {
			return fmt.Errorf("batch [%d, %d] lies beyond SPEO %d", b.first, b.last, sp.speo)
		}
		if b.recs != nil && int64(len(b.recs)) != b.size() {
			return fmt.Errorf("batch [%d, %d] tracks %d offsets", b.first, b.last, len(b.recs))
		}
		if b.recs == nil && b.whole.state.Terminal() {
			terminal += b.last - b.first + 1
		}
		for off := b.first; off <= b.last; off++ {
			r := b.at(off)
			if err := sp.checkRec(r, off); err != nil {
				return err
			}
			if b.recs != nil && r.state.Terminal() {
				terminal++
			}
			if r.lock != 0 {
				locked++
				// Past the table's size checkLocksByCount checks every locked record
				// (a second deadline of a lock included), so the table is no longer kept.
				if !liveLocks.over {
					if d, ok := liveLocks.get(r.lock); ok && d != r.deadline {
						return fmt.Errorf("offset %d: lock %d has two deadlines", off, r.lock)
					}
					liveLocks.set(r.lock, r.deadline)
				}
			}
			if b.recs != nil && off-b.first < b.settled && !r.settledTerminal() {
				return fmt.Errorf("offset %d: inside the settled prefix but %s pending=%v", off, r.state, r.pending())
			}
			if r.acquirable() && off < sp.availFrom {
				return fmt.Errorf("offset %d is acquirable below the hint %d", off, sp.availFrom)
			}
			if b.recs == nil {
				break
			}
		}
	}
	if sp.nTerminal != terminal {
		return fmt.Errorf("terminal count %d, recount %d", sp.nTerminal, terminal)
	}
	if len(sp.batches) == 0 && sp.speo != sp.spso {
		return fmt.Errorf("empty cache with SPSO %d != SPEO %d", sp.spso, sp.speo)
	}
	if liveLocks.over || len(sp.locks) > len(liveLocks.buf) {
		if err := sp.checkLocksByCount(locked); err != nil {
			return err
		}
	} else {
		// Every live lock has a heap entry with its deadline (the last entry of an id
		// counts, as a table filled from the heap in order would keep it).
	next:
		for _, p := range liveLocks.buf[:liveLocks.n] {
			for k := len(sp.locks) - 1; k >= 0; k-- {
				if e := &sp.locks[k]; e.id == p.id {
					if e.deadline == p.deadline {
						continue next
					}
					break
				}
			}
			return fmt.Errorf("live lock %d (deadline %d) has no heap entry", p.id, p.deadline)
		}
	}
	for _, q := range sp.dlqs {
		for off := q.First; off <= q.Last; off++ {
			i, ok := sp.find(off)
			if !ok {
				return fmt.Errorf("DLQ request %d covers offset %d, not cached", q.ID, off)
			}
			if r := sp.batches[i].at(off); r.state != Archiving || !r.dlqStarted() || r.dc != q.DeliveryCount {
				return fmt.Errorf("DLQ request %d covers offset %d, %s dc %d", q.ID, off, r.state, r.dc)
			}
		}
	}
	for i, w := range sp.writes {
		if w.ID == 0 || w.ID > sp.nextWrite || i > 0 && w.ID <= sp.writes[i-1].ID {
			return fmt.Errorf("write table entry %d holds write %d (ids must ascend, up to %d)", i, w.ID, sp.nextWrite)
		}
	}
	return nil
}

// checkRec verifies one record's own invariants.
func (sp *SharePartition) checkRec(r *rec, off int64) error {
	switch {
	case r.state > Archived: // Available, Acquired, Acknowledged, Archiving and Archived are 0-4
		return fmt.Errorf("offset %d: unknown state %d", off, r.state)
	case r.state == Archiving && sp.cfg.Version < Kafka44:
		return fmt.Errorf("offset %d: ARCHIVING before Kafka 4.4", off)
	case r.dlqStarted() && r.state != Archiving && r.state != Archived:
		return fmt.Errorf("offset %d: %s in a DLQ step", off, r.state)
	case r.dlqStarted() && r.pending():
		return fmt.Errorf("offset %d: DLQ step started while its write is pending", off)
	case r.dc < 0:
		return fmt.Errorf("offset %d: negative delivery count", off)
	case r.state == Acquired && r.owner < 0:
		return fmt.Errorf("offset %d: ACQUIRED with no owner", off)
	case !r.pending() && r.state != Acquired && r.owner != noOwner:
		return fmt.Errorf("offset %d: %s but owned", off, r.state)
	case !r.pending() && r.state != Acquired && r.lock != 0:
		return fmt.Errorf("offset %d: %s with a live lock", off, r.state)
	case r.pending() && r.state == Acquired:
		return fmt.Errorf("offset %d: pending with target ACQUIRED", off)
	case r.flags&flagLockFired != 0 && !r.pending():
		return fmt.Errorf("offset %d: lock-fired mark on a settled record", off)
	case r.state == Available && r.dc > 0 && int(r.dc) >= sp.cfg.DeliveryCountLimit && !r.pending() && sp.v42() && !sp.limitLowered:
		return fmt.Errorf("offset %d: AVAILABLE at delivery count %d >= limit %d", off, r.dc, sp.cfg.DeliveryCountLimit)
	case r.state == Acquired && !r.pending() && r.lock == 0 && sp.v42():
		return fmt.Errorf("offset %d: ACQUIRED with no live lock", off)
	}
	return nil
}

// checkLocksByCount is the lock check of CheckConsistency for many locks, without a table:
// every one of the locked records must lie in the range of a heap entry of its lock id with
// its deadline. Lock ids are unique to one heap entry, so counting the records the entries
// cover with a matching id and deadline gives locked exactly when each locked record has
// its entry. It allocates nothing and costs the heap's ranges.
func (sp *SharePartition) checkLocksByCount(locked int64) error {
	covered := int64(0)
	for _, e := range sp.locks {
		for i := sp.firstEndingAtOrAfter(e.first); i < len(sp.batches) && sp.batches[i].first <= e.last; i++ {
			b := &sp.batches[i]
			if b.recs == nil {
				if b.whole.lock == e.id && b.whole.deadline == e.deadline {
					covered++
				}
				continue
			}
			for off := max(e.first, b.first); off <= min(e.last, b.last); off++ {
				if r := &b.recs[off-b.first]; r.lock == e.id && r.deadline == e.deadline {
					covered++
				}
			}
		}
	}
	if covered != locked {
		return fmt.Errorf("%d records hold a lock, %d of them lie in a heap entry of their lock with their deadline (a live lock without its heap entry, or with another deadline)", locked, covered)
	}
	return nil
}
