package refspec

// acq is the state of one Acquire call.
type acq struct {
	now         int64
	member      string
	mode        Mode
	batchSize   int64
	budget      int64
	count       int64
	b0, last    int64
	log         []LogBatch
	stop        bool
	ranges      []Range
	acquiredNow map[int64]bool
}

// Acquire runs one acquisition for member over the log batches a read at
// NextFetchOffset returned (§4.3–4.6, §3.4).
func (s *Spec) Acquire(now int64, member string, maxRecords, batchSize int, mode Mode, log []LogBatch) []Range {
	return s.AcquireAt(now, member, maxRecords, batchSize, mode, s.NextFetchOffset(), log)
}

// AcquireAt runs one acquisition over the log batches a read at fetch offset f returned,
// however the partition changed since that read: f only decides which AVAILABLE records
// count as compacted away ([f, first fetched offset)) and whether 4.2's cap trim may
// redeliver inside the window (f ≤ SPEO).
func (s *Spec) AcquireAt(now int64, member string, maxRecords, batchSize int, mode Mode, f int64, log []LogBatch) []Range {
	if maxRecords <= 0 || len(log) == 0 || log[len(log)-1].Last < s.spso {
		return nil
	}
	v42 := s.cfg.Version >= V42
	c := &acq{now: now, member: member, mode: mode, batchSize: int64(batchSize), budget: int64(maxRecords),
		b0: log[0].First, last: log[len(log)-1].Last, log: log, acquiredNow: map[int64]bool{}}
	if v42 { // cap trimming
		c.budget = min(c.budget, s.cfg.Cap-s.Window())
		if c.budget <= 0 {
			if f > s.speo {
				return nil
			}
			c.budget = min(int64(maxRecords), s.speo-f+1)
			c.last = min(c.last, s.speo)
		}
	}
	s.forceArchiveAvailable(f, c.b0-1) // T-COMPACT
	for o := f; o < c.b0; o++ {
		delete(s.holes, o)
	}
	st := c.b0
	if b := s.batchOf(st); b != nil {
		st = b.first
	} else if v42 && s.floor(st) == nil && st < s.spso {
		st = s.spso
	}
	s.moment++
	var overlap []*batch
	for _, b := range s.sorted() {
		if b.last >= min(c.b0, st) && b.first <= c.last {
			overlap = append(overlap, b)
		}
	}
	if len(overlap) == 0 {
		s.newSpan(c, st, c.last)
	} else {
		cursor := st
		for _, b := range overlap {
			if c.count >= c.budget || c.stop {
				break
			}
			if s.speo <= s.gapEnd {
				// Only offsets still unfetched are reload holes; the ones a read showed to
				// be missing from the log (cleared above) are plain compaction gaps.
				for lo, hi := max(cursor, s.spso), min(b.first-1, s.gapEnd); lo <= hi && c.count < c.budget; {
					if !s.unfetched(lo) {
						lo++
						continue
					}
					end := lo
					for end+1 <= hi && s.unfetched(end+1) {
						end++
					}
					s.newSpan(c, lo, end)
					lo = end + 1
				}
				if c.count >= c.budget {
					break
				}
			}
			cursor = b.last + 1
			s.redeliver(c, b)
		}
		if end := overlap[len(overlap)-1].last; !c.stop && c.count < c.budget && c.last > end {
			s.newSpan(c, end+1, c.last)
		}
	}
	if s.cfg.ReadCommitted {
		s.dropAborted(c)
	}
	return c.ranges
}

func (s *Spec) take(c *acq, o int64) {
	r := s.recs[o]
	r.state, r.dc, r.owner = Acquired, r.dc+1, c.member
	r.hasLock, r.deadline, r.moment = true, c.now+s.cfg.LockMs, s.moment
	c.acquiredNow[o] = true
}

// redeliver handles one cached batch overlapping the request (§4.3 step 6).
func (s *Spec) redeliver(c *acq, b *batch) {
	lo, hi := max(b.first, c.b0), min(b.last, c.last)
	throttled := false
	for o := lo; o <= hi; o++ {
		if r := s.recs[o]; r.state == Available && r.write == 0 && r.dc >= s.throttleT() {
			throttled = s.cfg.Version >= V42
		}
	}
	if throttled && c.count > 0 {
		c.stop = true
		return
	}
	r0 := s.recs[b.first]
	free := r0.state == Available && r0.write == 0
	if b.whole {
		size := b.last - b.first + 1
		if !throttled && b.first >= c.b0 && b.last <= c.last && (c.mode != RecordLimit || size <= c.budget-c.count) {
			if free {
				for o := b.first; o <= b.last; o++ {
					s.take(c, o)
				}
				c.count += size
				c.ranges = append(c.ranges, Range{b.first, b.last, s.recs[b.first].dc})
			}
			return
		}
		if !free {
			return
		}
		b.whole = false
	}
	if s.perOffset(c, b, lo, hi) > 0 && throttled {
		c.stop = true
	}
}

func (s *Spec) throttleT() int { return max(2, (s.cfg.Limit+1)/2) }

// perOffset acquires AVAILABLE offsets of a per-offset batch in [lo, hi] and returns
// how many it took. In 4.2 the first acquirable offset with dc ≥ T sets the throttle
// limit max(1, N>>(dc−T+1)), N the whole batch size; offsets taken before it count.
func (s *Spec) perOffset(c *acq, b *batch, lo, hi int64) int64 {
	v42, L := s.cfg.Version >= V42, s.cfg.Limit
	taken, limit, start := int64(0), int64(-1), len(c.ranges)
	for o := lo; o <= hi; o++ {
		r := s.recs[o]
		if r.state != Available || r.write != 0 {
			continue
		}
		if c.mode == RecordLimit && c.count >= c.budget {
			break
		}
		if v42 && L > 2 && r.dc+1 >= L && taken > 0 {
			break // last-attempt isolation
		}
		if v42 && limit < 0 && r.dc >= s.throttleT() {
			limit = max(1, (b.last-b.first+1)>>uint(r.dc-s.throttleT()+1))
		}
		s.take(c, o)
		taken++
		c.count++
		if n := len(c.ranges); v42 && n > start && c.ranges[n-1].Last == o-1 && c.ranges[n-1].DC == r.dc {
			c.ranges[n-1].Last = o
		} else {
			c.ranges = append(c.ranges, Range{o, o, r.dc})
		}
		if (v42 && L > 2 && r.dc >= L) || taken == limit {
			break
		}
	}
	return taken
}

// roundUp returns the last offset of the log batch holding t, or t itself when t
// lies in a compaction gap, never past z.
func (c *acq) roundUp(t, z int64) int64 {
	for _, lb := range c.log {
		if lb.First <= t && t <= lb.Last {
			return min(lb.Last, z)
		}
	}
	return min(t, z)
}

// newSpan acquires never-fetched offsets [a, z] (§4.4).
func (s *Spec) newSpan(c *acq, a, z int64) {
	if len(s.batches) == 0 && s.speo > a {
		a = s.speo
	}
	m := c.budget - c.count
	if a > z || m <= 0 {
		return
	}
	if z-a+1 > m {
		z = c.roundUp(a+m-1, z)
	}
	first := true
	for _, b := range s.sorted() {
		if b.first < a {
			first = false
		}
	}
	if first {
		s.spso = a
	}
	if c.mode == RecordLimit {
		s.addBatch(a, z)
		if z-a+1 > m {
			s.batches[a].whole = false
			for o := a + m; o <= z; o++ {
				s.recs[o].dc = 0 // tail stays AVAILABLE, never delivered
			}
			z = a + m - 1
		}
		s.takeNew(c, a, z)
	} else {
		start := a
		for _, lb := range c.log {
			if z-a+1 > c.batchSize && lb.First <= z && lb.First-start >= c.batchSize {
				s.addBatch(start, lb.First-1)
				s.takeNew(c, start, lb.First-1)
				start = lb.First
			}
		}
		s.addBatch(start, z)
		s.takeNew(c, start, z)
	}
	s.setSPEO(max(s.speo, s.lastCached()))
}

func (s *Spec) addBatch(a, z int64) {
	s.batches[a] = &batch{first: a, last: z, whole: true}
	for o := a; o <= z; o++ {
		s.recs[o] = &rec{state: Available}
	}
}

func (s *Spec) takeNew(c *acq, a, z int64) {
	for o := a; o <= z; o++ {
		s.take(c, o)
	}
	c.count += z - a + 1
	c.ranges = append(c.ranges, Range{a, z, 1})
}

// dropAborted applies T-ABORT to the offsets acquired by this call.
func (s *Spec) dropAborted(c *acq) {
	cut := map[int64]bool{}
	for _, lb := range c.log {
		if !lb.Aborted {
			continue
		}
		for _, b := range s.sorted() {
			if b.last < lb.First || b.first > lb.Last {
				continue
			}
			hit := false
			for o := max(b.first, lb.First); o <= min(b.last, lb.Last); o++ {
				hit = hit || c.acquiredNow[o]
			}
			if !hit {
				continue
			}
			if b.first < lb.First || b.last > lb.Last {
				b.whole = false
			}
			for o := max(b.first, lb.First); o <= min(b.last, lb.Last); o++ {
				if c.acquiredNow[o] {
					r := s.recs[o]
					r.state, r.owner, r.hasLock, r.forced = Archived, "", false, true
					cut[o] = true
				}
			}
		}
	}
	if len(cut) == 0 {
		return
	}
	var out []Range
	for _, rg := range c.ranges {
		for o := rg.First; o <= rg.Last; o++ {
			switch n := len(out); {
			case cut[o]:
			case n > 0 && out[n-1].Last == o-1 && out[n-1].DC == rg.DC && o != rg.First:
				out[n-1].Last = o
			default:
				out = append(out, Range{o, o, rg.DC})
			}
		}
	}
	c.ranges = out
}
