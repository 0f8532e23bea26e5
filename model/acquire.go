package model

// Acquisition (§4): a share fetch reads the partition log from NextFetchOffset and the
// core decides which offsets the member acquires.

// acquireCall carries the state of one Acquire.
type acquireCall struct {
	nowMs    int64
	owner    int32
	p        FetchParams
	log      []LogBatch
	b0       int64 // first offset of the log read
	last     int64 // last offset to consider (after cap trimming)
	budget   int64 // M': records this call may acquire
	acquired int64 // offsets acquired so far (including holes inside ranges)
	stop     bool  // throttling ended the call
	out      []AcquiredRange
}

func (c *acquireCall) remaining() int64 { return c.budget - c.acquired }

// Acquire is the one-step share fetch: the gate (CanAcquire), the log read at
// NextFetchOffset() that the caller already did, and AcquireFetched with that offset, with
// nothing happening in between. log is the result of that read. It returns nothing when the
// gate is closed.
func (sp *SharePartition) Acquire(nowMs int64, member MemberID, p FetchParams, log []LogBatch, out []AcquiredRange) ([]AcquiredRange, error) {
	if err := sp.cfg.validateFetch(p); err != nil {
		return out, &Error{Code: ErrInvalidArgument, Offset: -1, Msg: err.Error()}
	}
	if err := sp.activeOrError(); err != nil {
		return out, err
	}
	if len(log) == 0 || !sp.CanAcquire() {
		return out, nil
	}
	return sp.acquireFetched(nowMs, member, p, sp.NextFetchOffset(), log, out)
}

// FetchRead is what a share fetch decides before it reads the log (Kafka's
// DelayedShareFetch under the partition's fetch lock): whether the gate is open and the
// offset the read starts at. The caller reads the log from FetchOffset and later hands what
// it read to AcquireFetched with the same FetchOffset.
type FetchRead struct {
	// Open is CanAcquire at read time; when false nothing is read.
	Open bool
	// FetchOffset is NextFetchOffset at read time.
	FetchOffset int64
}

// BeginFetch is the read half of a share fetch: the gate and the fetch offset, taken now.
// It changes nothing. Between BeginFetch and AcquireFetched any other operation may run
// (acknowledgements, lock expiries, session releases, log-start moves, state writes
// completing): Kafka reads the log outside the partition lock, serialising only fetches
// (one fetch lock per share-partition), so a caller must not start a second fetch of the
// same share-partition until the first is acquired.
func (sp *SharePartition) BeginFetch() (FetchRead, error) {
	if err := sp.activeOrError(); err != nil {
		return FetchRead{}, err
	}
	return FetchRead{Open: sp.CanAcquire(), FetchOffset: sp.NextFetchOffset()}, nil
}

// AcquireFetched runs the acquisition of one share fetch for member, as Kafka's
// SharePartition.acquire does with the fetch offset the leader read from and the producer
// batches the read returned, and appends the acquired ranges to out in ascending offset
// order. log must be ascending, disjoint batches, the first containing fetchOffset or
// starting after it (a compaction gap). Under read_committed the caller reads only up to the
// last stable offset and marks batches of aborted transactions.
//
// The partition may have changed since the read (see BeginFetch). As in Kafka, fetchOffset
// is used only twice: AVAILABLE cached records in [fetchOffset, first fetched offset) are
// archived as compacted away (T-COMPACT), and 4.2's cap trim lets a fetch at or below SPEO
// redeliver inside the full window. Everything else follows the fetched batches and the
// partition as it is now: batches wholly below SPSO are ignored, a read starting below SPSO
// with no cached batch before it starts at SPSO (4.2), cached records no longer AVAILABLE
// are skipped, offsets beyond SPEO become new records. The gate is not checked again (Kafka
// checks it before the read only), so in 4.1 a fetch whose read overlapped the cap filling
// up still acquires everything it read.
//
// What is acquired follows Kafka (§4.3–4.6): redeliveries inside the in-flight cache first,
// lowest offset first, then new records; whole producer batches in batch_optimized mode
// (MaxRecords is a soft limit, ranges cut at BatchSize on batch boundaries), exactly
// MaxRecords offsets in record_limit mode (4.2); the in-flight cap as a trim inside the call
// (4.2); throttled redelivery of batches with high delivery counts (4.2). Each acquired
// offset's delivery count grows by one and it gets a lock owned by member with deadline
// nowMs + lock duration. Acquisition issues no state write.
func (sp *SharePartition) AcquireFetched(nowMs int64, member MemberID, p FetchParams, fetchOffset int64, log []LogBatch, out []AcquiredRange) ([]AcquiredRange, error) {
	if err := sp.cfg.validateFetch(p); err != nil {
		return out, &Error{Code: ErrInvalidArgument, Offset: -1, Msg: err.Error()}
	}
	if err := sp.activeOrError(); err != nil {
		return out, err
	}
	if fetchOffset < 0 {
		return out, errf(ErrInvalidArgument, fetchOffset, "fetch offset must be >= 0")
	}
	if len(log) == 0 {
		return out, nil
	}
	return sp.acquireFetched(nowMs, member, p, fetchOffset, log, out)
}

// acquireFetched is AcquireFetched after the parameter and lifecycle checks.
func (sp *SharePartition) acquireFetched(nowMs int64, member MemberID, p FetchParams, f int64, log []LogBatch, out []AcquiredRange) ([]AcquiredRange, error) {
	if err := checkLogRead(log, f); err != nil {
		return out, err
	}
	c := acquireCall{nowMs: nowMs, owner: sp.member(member), p: p, log: log, b0: log[0].First, out: out}
	bN := log[len(log)-1].Last
	if bN < sp.spso {
		return out, nil
	}
	c.budget, c.last = int64(p.MaxRecords), bN
	// Bug zoo (no-cap-trim): without the trim, 4.2 acquires like 4.1 (gate only).
	if sp.v42() && sp.cfg.Bug != BugNoCapTrim && !sp.trimToCap(&c, f) {
		return out, nil
	}
	start := len(out)
	if c.b0 > f {
		sp.stats.ArchivedByCompaction += sp.forceArchive(f, c.b0-1, Available, CauseCompacted)
		if sp.gap.active && f >= sp.gap.start {
			sp.gap.start = max(sp.gap.start, c.b0) // the log holds nothing in [f, b0)
		}
	}
	sp.walk(&c)
	if sp.cfg.IsolationLevel == ReadCommitted {
		sp.dropAborted(&c, start)
	}
	sp.stats.AcquiredRecords += countRanges(c.out[start:])
	return c.out, nil
}

// checkLogRead verifies the caller's side of the contract.
func checkLogRead(log []LogBatch, f int64) error {
	for i, lb := range log {
		if lb.First > lb.Last || lb.First < 0 {
			return errf(ErrInvalidArgument, lb.First, "log batch %d has first %d > last %d", i, lb.First, lb.Last)
		}
		if i > 0 && lb.First <= log[i-1].Last {
			return errf(ErrInvalidArgument, lb.First, "log batches must be ascending and disjoint")
		}
	}
	if log[0].Last < f {
		return errf(ErrInvalidArgument, log[0].First, "log read must start with the batch containing fetch offset %d", f)
	}
	return nil
}

func countRanges(rs []AcquiredRange) int64 {
	var n int64
	for _, r := range rs {
		n += r.Last - r.First + 1
	}
	return n
}

// trimToCap is Kafka 4.2's cap trimming inside acquire (KAFKA-19555/19808): the budget is
// limited to the room left under the cap; with no room, only redeliveries inside the window
// are allowed. It returns false when nothing may be acquired.
func (sp *SharePartition) trimToCap(c *acquireCall, f int64) bool {
	room := int64(sp.cfg.PartitionMaxRecordLocks) - sp.InFlightCount()
	c.budget = min(c.budget, room)
	if c.budget > 0 {
		return true
	}
	if len(sp.batches) == 0 || f > sp.speo {
		return false
	}
	c.budget = min(int64(c.p.MaxRecords), sp.speo-f+1)
	c.last = min(c.last, sp.speo)
	return c.budget > 0
}

// walk is steps 4–7 of §4.3: cached batches overlapping the read are redelivered, holes of
// a reload gap window and the span after the cache are acquired as new records.
func (sp *SharePartition) walk(c *acquireCall) {
	s := c.b0
	if i, ok := sp.find(s); ok {
		s = sp.batches[i].first
	} else if sp.v42() && (sp.floor(s) < 0 || sp.cfg.fixed(FixAcquireBelowSPSO)) && s < sp.spso && sp.cfg.Bug != BugReloadAcquiresBelow { // bug zoo: no start adjustment; Kafka fix acquire-below-spso: also past a stale batch
		s = sp.spso
	}
	i := sp.firstEndingAtOrAfter(min(c.b0, s))
	if i == len(sp.batches) || sp.batches[i].first > c.last {
		sp.acquireNew(c, s, c.last)
		return
	}
	lastWalked := int64(-1)
	for ; i < len(sp.batches) && sp.batches[i].first <= c.last; i++ {
		if c.stop || c.remaining() <= 0 {
			return
		}
		if h := sp.holeBefore(i, c); h >= 0 {
			before := len(sp.batches)
			end := min(sp.batches[i].first-1, c.last)
			if sp.cfg.Bug == BugReloadHoleOverlaps {
				end = c.last // bug zoo (reload-hole-overlaps): the fill runs into the cached batch
			}
			sp.acquireNew(c, h, end)
			i += len(sp.batches) - before
			if c.remaining() <= 0 {
				return
			}
		}
		sp.redeliver(c, i)
		lastWalked = sp.batches[i].last
	}
	if !c.stop && c.remaining() > 0 && c.last > lastWalked {
		sp.acquireNew(c, lastWalked+1, c.last)
	}
}

// holeBefore returns the first unfetched reload-hole offset before batch i that this read
// covers, or -1.
func (sp *SharePartition) holeBefore(i int, c *acquireCall) int64 {
	if !sp.gap.active {
		return -1
	}
	lo := max(sp.gap.start, sp.spso, c.b0)
	if i > 0 {
		lo = max(lo, sp.batches[i-1].last+1)
	}
	if lo < sp.batches[i].first && lo <= sp.gap.end && lo <= c.last {
		return lo
	}
	return -1
}

// redeliver handles one cached batch of the walk: the whole-batch path or the per-offset
// path, with throttling (4.2, §3.4).
func (sp *SharePartition) redeliver(c *acquireCall, i int) {
	b := &sp.batches[i]
	// Kafka does not clip the per-offset walk at SPSO: an offset below it is only
	// acquirable after a rollback of a write whose lock fired (§6.4).
	from, to := max(b.first, c.b0), min(b.last, c.last)
	throttled := false
	if sp.v42() {
		maxDC, any := sp.acquirableDC(b, from, to)
		throttled = any && maxDC >= sp.cfg.throttleThreshold()
		if throttled && c.acquired > 0 {
			c.stop = true // the throttled batch goes out on its own in a later fetch
			sp.stats.Throttled++
			return
		}
	}
	if b.recs == nil && b.first >= c.b0 && b.last <= c.last && !throttled &&
		(c.p.Mode != RecordLimit || b.size() <= c.remaining()) {
		if sp.takeable(&b.whole) {
			sp.acquireRec(c, &b.whole, b.first, b.last)
			c.out = append(c.out, AcquiredRange{First: b.first, Last: b.last, DeliveryCount: b.whole.dc})
		}
		return
	}
	if b.recs == nil && !sp.takeable(&b.whole) {
		return // not splitting a batch that has nothing to give
	}
	sp.split(i)
	b = &sp.batches[i]
	if sp.redeliverOffsets(c, b, from, to) > 0 && throttled {
		c.stop = true // a throttled batch goes out on its own
		sp.stats.Throttled++
	}
}

// acquirableDC returns the largest delivery count among the acquirable offsets of b in
// [from, to] and whether there is any.
func (sp *SharePartition) acquirableDC(b *batch, from, to int64) (maxDC int16, any bool) {
	if b.recs == nil {
		if b.whole.acquirable() && from <= to {
			return b.whole.dc, true
		}
		return 0, false
	}
	for off := from; off <= to; off++ {
		if r := &b.recs[off-b.first]; r.acquirable() {
			maxDC, any = max(maxDC, r.dc), true
		}
	}
	return maxDC, any
}

// redeliverOffsets is the per-offset path: acquire the acquirable offsets of b in
// [from, to], each locked on its own, and return how many it took. Kafka 4.2 adds two
// limits. Throttling: the first acquirable offset whose delivery count d is at least
// T = max(2, ⌈L/2⌉) sets a limit max(1, N >> (d − T + 1)) on the offsets taken from the
// batch (N its size), checked, as Kafka does, for equality after each take, so offsets
// taken before it count. Last-attempt isolation (L > 2): an offset about to get its last
// delivery is not taken together with earlier offsets of the batch, and nothing follows an
// offset taken for the last time.
func (sp *SharePartition) redeliverOffsets(c *acquireCall, b *batch, from, to int64) int64 {
	limit := int16(sp.cfg.DeliveryCountLimit)
	t := sp.cfg.throttleThreshold()
	isolate := sp.v42() && limit > 2
	base := len(c.out) // ranges are merged only within this pass over one cached batch
	var lockID uint64
	var deadline int64
	taken, most := int64(0), int64(-1)
	for off := from; off <= to; off++ {
		r := &b.recs[off-b.first]
		if !sp.takeable(r) {
			continue
		}
		if c.p.Mode == RecordLimit && c.remaining() <= 0 {
			break
		}
		if isolate && taken > 0 && r.dc+1 >= limit {
			break
		}
		if sp.v42() && most < 0 && r.dc >= t {
			most = max(1, b.size()>>uint(r.dc-t+1))
		}
		if lockID == 0 {
			lockID, deadline = sp.newLock(c.nowMs, off, to)
		}
		sp.apply(r, sp.cfg.transition(r.state, r.dc, trigAcquire, false), off, 1)
		r.owner, r.lock, r.deadline = c.owner, lockID, deadline
		c.acquired++
		taken++
		sp.appendRange(c, base, off, r.dc)
		if (isolate && r.dc >= limit) || taken == most {
			break
		}
	}
	return taken
}

// appendRange adds one individually acquired offset to the result: merged with the previous
// range of the same pass (index ≥ base) when consecutive with the same delivery count (4.2,
// KAFKA-19957; ranges of different cached batches are never merged), else its own.
func (sp *SharePartition) appendRange(c *acquireCall, base int, off int64, dc int16) {
	if n := len(c.out); sp.v42() && n > base {
		p := &c.out[n-1]
		if p.Last+1 == off && p.DeliveryCount == dc {
			p.Last = off
			return
		}
	}
	c.out = append(c.out, AcquiredRange{First: off, Last: off, DeliveryCount: dc})
}

// takeable reports whether a fetch may take the record: it is acquirable, or (bug zoo,
// acquire-ignores-pending) AVAILABLE with its acknowledgement's write still outstanding.
func (sp *SharePartition) takeable(r *rec) bool {
	return r.acquirable() || (sp.cfg.Bug == BugAcquireIgnoresPending && r.state == Available)
}

// acquireRec acquires a record standing for [first, last] (AVAILABLE → ACQUIRED).
func (sp *SharePartition) acquireRec(c *acquireCall, r *rec, first, last int64) {
	o := sp.cfg.transition(r.state, r.dc, trigAcquire, false)
	sp.apply(r, o, first, last-first+1)
	r.owner = c.owner
	r.lock, r.deadline = sp.newLock(c.nowMs, first, last)
	c.acquired += last - first + 1
}

// acquireNew acquires the span [a, z] of the log as new records (§4.4).
func (sp *SharePartition) acquireNew(c *acquireCall, a, z int64) {
	if len(sp.batches) == 0 && sp.speo > a {
		a = sp.speo
	}
	if a < sp.spso && sp.v42() && sp.cfg.fixed(FixAcquireBelowSPSO) {
		// Kafka fix (acquire-below-spso): no new record starts below SPSO, also when the
		// span follows a stale cached batch below it (the span after the cache).
		a = sp.spso
	}
	m := c.remaining()
	if a > z || m <= 0 {
		return
	}
	if z-a+1 > m {
		z = min(z, c.logBatchEnd(a+m-1))
	}
	at := sp.firstEndingAtOrAfter(a)
	first := at == 0
	if c.p.Mode == RecordLimit {
		sp.newBatch(c, at, a, z, min(z-a+1, m))
	} else {
		rs := a
		for _, lb := range c.log {
			if lb.First > z {
				break
			}
			if lb.First > rs && lb.First-rs >= int64(c.p.BatchSize) {
				sp.newBatch(c, at, rs, lb.First-1, lb.First-rs)
				at++
				rs = lb.First
			}
		}
		sp.newBatch(c, at, rs, z, z-rs+1)
	}
	if first {
		sp.spso = a // the new batch is the first cache entry
	}
	sp.raiseSPEO(z)
}

// logBatchEnd returns the last offset of the log batch containing off, or off itself when
// it falls in a gap between log batches.
func (c *acquireCall) logBatchEnd(off int64) int64 {
	for _, lb := range c.log {
		if lb.First > off {
			break
		}
		if lb.Last >= off {
			return lb.Last
		}
	}
	return off
}

// newBatch inserts a new cache batch [first, last] at index at with its first n offsets
// ACQUIRED (delivery count 1, one lock) and the rest AVAILABLE with delivery count 0
// (record_limit tail).
func (sp *SharePartition) newBatch(c *acquireCall, at int, first, last, n int64) {
	id, deadline := sp.newLock(c.nowMs, first, first+n-1)
	acq := rec{state: Acquired, dc: 1, owner: c.owner, lock: id, deadline: deadline}
	nb := batch{first: first, last: last, whole: acq}
	if n < last-first+1 {
		nb.recs = sp.takeRecs(last - first + 1)
		for k := range nb.recs {
			if int64(k) < n {
				nb.recs[k] = acq
			} else {
				nb.recs[k] = rec{state: Available, owner: noOwner}
			}
		}
		sp.noteAvailable(first + n)
	}
	sp.insertBatch(at, nb)
	c.acquired += n
	c.out = append(c.out, AcquiredRange{First: first, Last: first + n - 1, DeliveryCount: 1})
}

// dropAborted is T-ABORT (§2.2): under read_committed, acquired offsets of aborted
// transactional batches are archived at once and cut out of the returned ranges.
func (sp *SharePartition) dropAborted(c *acquireCall, start int) {
	kept := c.out[:start]
	acquired := append([]AcquiredRange(nil), c.out[start:]...)
	for _, r := range acquired {
		cur := r.First
		for _, lb := range c.log {
			if !lb.Aborted || lb.Last < cur || lb.First > r.Last {
				continue
			}
			if lb.First > cur {
				kept = append(kept, AcquiredRange{First: cur, Last: lb.First - 1, DeliveryCount: r.DeliveryCount})
			}
			end := min(lb.Last, r.Last)
			sp.stats.ArchivedAborted += sp.forceArchive(max(lb.First, cur), end, Acquired, CauseAborted)
			cur = end + 1
		}
		if cur <= r.Last {
			kept = append(kept, AcquiredRange{First: cur, Last: r.Last, DeliveryCount: r.DeliveryCount})
		}
	}
	c.out = kept
}
