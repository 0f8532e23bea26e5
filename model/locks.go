package model

// Acquisition locks are deadlines, not timers. Each acquisition (a whole batch, or the
// offsets one call takes individually from one batch) creates a lock id and pushes one heap
// entry covering its offsets; a record holds the id of its live lock. Cancelling a lock only
// clears the record's id: the heap entry becomes stale and is dropped when it reaches the top
// (NextDeadline) or fires with nothing to do. Stale entries therefore live at most one lock
// duration, so the heap holds at most the locks created in the last lock duration.
//
// Entries at the same deadline fire in creation order (lock id), and the offsets of one
// entry in ascending order.

type lockEntry struct {
	deadline    int64
	id          uint64
	first, last int64
}

type lockHeap []lockEntry

func (h lockHeap) less(i, j int) bool {
	if h[i].deadline != h[j].deadline {
		return h[i].deadline < h[j].deadline
	}
	return h[i].id < h[j].id
}

func (h *lockHeap) push(e lockEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *lockHeap) pop() lockEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	h.down(0)
	return top
}

// down sifts entry i down to its place.
func (h lockHeap) down(i int) {
	n := len(h)
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// newLock creates a lock over [first, last] with the configured duration and returns its
// id and deadline.
func (sp *SharePartition) newLock(nowMs, first, last int64) (uint64, int64) {
	sp.nextLock++
	d := nowMs + sp.cfg.RecordLockDurationMs
	if n := len(sp.locks); n >= minLockCompaction && n >= 2*sp.locksKept {
		sp.compactLocks()
	}
	sp.locks.push(lockEntry{deadline: d, id: sp.nextLock, first: first, last: last})
	return sp.nextLock, d
}

// minLockCompaction is the heap size from which stale entries are compacted away.
const minLockCompaction = 64

// compactLocks drops the stale entries of the heap. Without it they live until their
// deadline, so when virtual time stands still (a scripted scenario acquiring and
// acknowledging 60 000 times without advancing) the heap grows with every acquisition and
// CheckConsistency, which reads it whole, costs the square of the script's length. Firing
// order is unchanged: it depends on (deadline, id) alone, and a stale entry fires with
// nothing to do. Run when the heap has doubled since the last compaction, it costs O(1)
// per lock amortised and allocates nothing.
func (sp *SharePartition) compactLocks() {
	kept := sp.locks[:0]
	for _, e := range sp.locks {
		if sp.live(e) {
			kept = append(kept, e)
		}
	}
	clear(sp.locks[len(kept):])
	sp.locks = kept
	for i := len(kept)/2 - 1; i >= 0; i-- {
		sp.locks.down(i)
	}
	sp.locksKept = len(kept)
}

// live reports whether any offset of the entry still holds its lock.
func (sp *SharePartition) live(e lockEntry) bool {
	for i := sp.firstEndingAtOrAfter(e.first); i < len(sp.batches) && sp.batches[i].first <= e.last; i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.lock == e.id {
				return true
			}
			continue
		}
		from, to := max(e.first, b.first), min(e.last, b.last)
		for off := from; off <= to; off++ {
			if b.recs[off-b.first].lock == e.id {
				return true
			}
		}
	}
	return false
}

// NextDeadline returns the earliest virtual time at which a live lock fires. The caller
// calls ExpireLocks at that time (or later).
func (sp *SharePartition) NextDeadline() (int64, bool) {
	for len(sp.locks) > 0 {
		if sp.live(sp.locks[0]) {
			return sp.locks[0].deadline, true
		}
		sp.locks.pop()
	}
	return 0, false
}

// ExpireLocks fires every lock whose deadline is at or before nowMs (T-EXPIRE) and appends
// the writes this issues to out: one per firing lock of a whole batch, one per released
// offset for offsets locked individually. The writes' results are ignored by the core, but
// each must be completed with CompleteWrite (the head rule runs then).
func (sp *SharePartition) ExpireLocks(nowMs int64, out []*Write) []*Write {
	for len(sp.locks) > 0 && sp.locks[0].deadline <= nowMs {
		e := sp.locks.pop()
		out = sp.fire(e, out)
	}
	return out
}

// fire applies T-EXPIRE to the offsets still holding the entry's lock. A pending record
// only remembers that its lock fired (§7.3); its write's outcome decides later.
func (sp *SharePartition) fire(e lockEntry, out []*Write) []*Write {
	sp.stats.LockTimerOffsets += sp.timerOffsets(e)
	for i := sp.firstEndingAtOrAfter(e.first); i < len(sp.batches) && sp.batches[i].first <= e.last; i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.lock != e.id {
				continue
			}
			if !(b.first < sp.spso && sp.spso <= b.last && !b.whole.pending()) {
				out = sp.issueExpiry(sp.expireRec(&b.whole, b.first, b.last, nil), out)
				continue
			}
			// A whole batch holding SPSO (after a log-start move) is split so that offsets
			// below SPSO are archived and the rest released; its timer still issues one write.
			sp.split(i)
			b = &sp.batches[i]
			var w *Write
			for off := b.first; off <= b.last; off++ {
				if r := &b.recs[off-b.first]; r.lock == e.id {
					w = sp.expireRec(r, off, off, w)
				}
			}
			out = sp.issueExpiry(w, out)
			continue
		}
		from, to := max(e.first, b.first), min(e.last, b.last)
		for off := from; off <= to; off++ {
			r := &b.recs[off-b.first]
			if r.lock == e.id {
				out = sp.issueExpiry(sp.expireRec(r, off, off, nil), out)
			}
		}
	}
	return out
}

// timerOffsets is how many offsets Kafka's timer for the entry covers when it fires: the
// offsets still holding the lock while ACQUIRED or with a write outstanding (Kafka cancels a
// timer only when the state change commits, or when it archives the record). Kafka's
// AcquisitionLockTimeoutPerSec is marked with that count before the timeout handler looks
// at any record's state.
func (sp *SharePartition) timerOffsets(e lockEntry) int64 {
	var n int64
	for i := sp.firstEndingAtOrAfter(e.first); i < len(sp.batches) && sp.batches[i].first <= e.last; i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if r := &b.whole; r.lock == e.id && (r.pending() || r.state == Acquired) {
				n += b.last - b.first + 1
			}
			continue
		}
		for off := max(e.first, b.first); off <= min(e.last, b.last); off++ {
			if r := &b.recs[off-b.first]; r.lock == e.id && (r.pending() || r.state == Acquired) {
				n++
			}
		}
	}
	return n
}

func (sp *SharePartition) issueExpiry(w *Write, out []*Write) []*Write {
	if w == nil {
		return out
	}
	return append(out, sp.issueWrite(w))
}

// expireRec expires the lock of a record standing for offsets [first, last], adding the
// change to w (a new expiry write when w is nil). It returns the write, or w unchanged
// when nothing changed.
func (sp *SharePartition) expireRec(r *rec, first, last int64, w *Write) *Write {
	r.lock = 0
	if r.pending() {
		if sp.cfg.Bug == BugExpireDuringAck && r.state != Available {
			// Bug zoo (expire-during-ack): the firing lock ignores the outstanding write and
			// releases the record over its provisional state; the write's commit then
			// leaves it AVAILABLE.
			o := sp.cfg.transition(Acquired, r.dc, trigExpire, last < sp.spso)
			sp.apply(r, o, first, last-first+1)
			if w == nil {
				w = sp.beginWrite(WriteExpiry)
			}
			w.add(first, last, o.state, o.dc)
			return w
		}
		r.flags |= flagLockFired
		return w
	}
	if r.state != Acquired {
		return w
	}
	n := last - first + 1
	sp.stats.AcquisitionLockTimeouts += n
	o := sp.cfg.transition(Acquired, r.dc, trigExpire, last < sp.spso)
	sp.countArchivedAtLimit(o, last < sp.spso, n)
	sp.apply(r, o, first, n)
	r.owner = noOwner
	if w == nil {
		w = sp.beginWrite(WriteExpiry)
	}
	w.add(first, last, o.state, o.dc)
	return w
}

func (sp *SharePartition) countArchivedAtLimit(o outcome, belowStart bool, n int64) {
	if (o.state == Archived || o.state == Archiving && o.cause == CauseLimit) && !belowStart {
		sp.stats.ArchivedAtLimit += n
	}
}
