package refspec

import "sort"

// Acknowledge applies one acknowledgement call (§6.2–6.5). It returns the outcome and
// the write issued for the non-RENEW changes (nil when there are none or on error).
func (s *Spec) Acknowledge(now int64, member string, ranges []AckRange) (Code, *Write) {
	maxType := Reject
	if s.cfg.Version >= V42 {
		maxType = Renew
	}
	for i, r := range ranges {
		n := r.Last - r.First + 1
		if r.First > r.Last || (i > 0 && r.First < ranges[i-1].Last) || len(r.Types) == 0 ||
			(len(r.Types) > 1 && int64(len(r.Types)) != n) {
			return InvalidRequest, nil
		}
		for _, t := range r.Types {
			if t > maxType {
				return InvalidRequest, nil
			}
		}
	}
	s.moment++
	const tentative = ^uint64(0) // marks offsets made pending by this call
	var changed []int64
	for _, r := range ranges {
		if code := s.ackRange(now, member, r, tentative, &changed); code != OK {
			for _, o := range changed {
				p := s.recs[o]
				p.state, p.dc, p.owner, p.write = p.prev.state, p.prev.dc, p.prev.owner, 0
			}
			return code, nil
		}
	}
	return OK, s.issue(KindAck, changed)
}

func (s *Spec) ackRange(now int64, member string, r AckRange, id uint64, changed *[]int64) Code {
	if r.Last < s.spso {
		return OK
	}
	fl := s.floor(r.First)
	if fl == nil && r.First < s.spso && s.spso <= r.Last {
		fl = s.floor(s.spso)
	}
	if fl == nil {
		return InvalidRecordState
	}
	var located []*batch
	for _, b := range s.sorted() {
		if b.first >= fl.first && b.first <= r.Last {
			located = append(located, b)
		}
	}
	// Both ends are checked against the last located batch (the last one starting at or
	// before r.Last), not against the cache as a whole.
	if last := located[len(located)-1].last; last < r.First || r.Last > last {
		return InvalidRequest
	}
	typeAt := func(o int64) AckType {
		if len(r.Types) == 1 {
			return r.Types[0]
		}
		return r.Types[o-r.First]
	}
	for _, b := range located {
		if b.last < r.First || b.last < s.spso {
			continue
		}
		if b.whole {
			r0 := s.recs[b.first]
			if r0.owner != member || r0.write != 0 || r0.state != Acquired {
				return InvalidRecordState
			}
			if r.First <= b.first && r.Last >= b.last && len(r.Types) == 1 && s.spso <= b.first {
				if r.Types[0] == Renew && s.cfg.NoRenew {
					return InvalidRecordState
				}
				for o := b.first; o <= b.last; o++ {
					s.applyAck(now, o, r.Types[0], id, changed)
				}
				continue
			}
			b.whole = false
		}
		for o := max(b.first, r.First, s.spso); o <= min(b.last, r.Last); o++ {
			if p := s.recs[o]; p.state != Acquired || p.write != 0 || p.owner != member {
				return InvalidRecordState
			}
			if typeAt(o) == Renew && s.cfg.NoRenew {
				return InvalidRecordState
			}
			s.applyAck(now, o, typeAt(o), id, changed)
		}
	}
	return OK
}

func (s *Spec) applyAck(now int64, o int64, t AckType, id uint64, changed *[]int64) {
	r := s.recs[o]
	if t == Renew {
		r.hasLock, r.deadline, r.moment = true, now+s.cfg.LockMs, s.moment
		return
	}
	s.startPending(o, id)
	switch t {
	case Accept:
		r.state = Acknowledged
	case Release:
		r.state = s.released(o, r.dc) // never below SPSO here
	case Reject:
		r.state = Archived
		if s.cfg.DLQ {
			r.state = Archiving
		}
	default: // Gap
		r.state = Archived
	}
	*changed = append(*changed, o)
}

// ReleaseMember applies T-LEAVE for member (§7.5) and returns the write, if any.
func (s *Spec) ReleaseMember(member string) *Write {
	const tentative = ^uint64(0)
	var changed []int64
	leave := func(o int64) {
		r := s.startPending(o, tentative)
		switch {
		case s.cfg.Version >= V42:
			r.state = s.released(o, r.dc)
		case o < s.spso:
			r.state = Archived
		default:
			r.state, r.dc = Available, r.dc-1
		}
		changed = append(changed, o)
	}
	for _, b := range s.sorted() {
		if b.whole {
			if r0 := s.recs[b.first]; r0.state != Acquired || r0.owner != member || r0.write != 0 {
				continue
			}
			if !(b.first < s.spso && s.spso <= b.last) {
				for o := b.first; o <= b.last; o++ {
					leave(o)
				}
				continue
			}
			b.whole = false
		}
		for o := b.first; o <= b.last; o++ {
			r := s.recs[o]
			if s.cfg.Version == V41 && r.state == Acquired && r.owner != member && r.owner != "" {
				break // KAFKA-19953
			}
			if r.state == Acquired && r.owner == member && r.write == 0 {
				leave(o)
			}
		}
	}
	return s.issue(KindRelease, changed)
}

// ExpireLocks fires every lock whose deadline is ≤ now (§7.2–7.3), one write per
// firing timer that changed something.
func (s *Spec) ExpireLocks(now int64) []*Write {
	type unit struct {
		deadline, moment, first int64
		b                       *batch
	}
	var units []unit
	for _, b := range s.sorted() {
		for o := b.first; o <= b.last; o++ {
			if r := s.recs[o]; r.hasLock && r.deadline <= now {
				units = append(units, unit{r.deadline, r.moment, o, b})
				if b.whole {
					break
				}
			}
		}
	}
	sort.SliceStable(units, func(i, j int) bool {
		a, b := units[i], units[j]
		if a.deadline != b.deadline {
			return a.deadline < b.deadline
		}
		if a.moment != b.moment {
			return a.moment < b.moment
		}
		return a.first < b.first
	})
	var out []*Write
	for _, u := range units {
		lo, hi := u.first, u.first
		if u.b.whole {
			lo, hi = u.b.first, u.b.last
			if r := s.recs[lo]; lo < s.spso && s.spso <= hi && r.state == Acquired && r.write == 0 {
				u.b.whole = false // some offsets are archived below SPSO, the rest released
			}
		}
		var changed []int64
		for o := lo; o <= hi; o++ {
			r := s.recs[o]
			r.hasLock = false
			if r.write != 0 {
				r.fired = true
			} else if r.state == Acquired {
				r.state, r.owner = s.released(o, r.dc), ""
				changed = append(changed, o)
			}
		}
		if w := s.issue(KindExpiry, changed); w != nil {
			out = append(out, w)
		}
	}
	return out
}

// CompleteWrite finishes an outstanding write (§6.4). ok=false is a failed write.
func (s *Spec) CompleteWrite(id uint64, ok bool) bool {
	w := s.writes[id]
	if w == nil {
		return false
	}
	delete(s.writes, id)
	if w.Kind == KindExpiry || w.Kind == KindDLQ {
		s.advanceHead()
		s.startDLQ(w)
		return true
	}
	for _, e := range w.Entries {
		r := s.recs[e.Offset]
		if r == nil || r.write != id {
			continue
		}
		r.write = 0
		switch {
		case ok:
			r.hasLock = false
		case s.cfg.Version >= V42 && r.forced:
			r.state, r.hasLock = Archived, false
		case s.cfg.Version >= V42 && r.fired: // §6.4: by the limit only, even below SPSO
			r.state, r.dc, r.owner = Available, r.prev.dc, ""
			if r.dc >= s.cfg.Limit {
				r.state = Archived
			}
		default: // back to ACQUIRED; the lock is live unless it fired (4.1: dead timer)
			r.state, r.dc, r.owner, r.forced = r.prev.state, r.prev.dc, r.prev.owner, false
		}
		r.fired = false
	}
	if ok {
		s.advanceHead()
		s.startDLQ(w)
	}
	return true
}
