package proptest

import (
	"fmt"
	"reflect"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/model/refspec"
	"pgregory.net/rapid"
)

// check runs after every action: the core must show exactly what the spec shows, and
// the single-partition invariants must hold.
func (m *machine) check(t *rapid.T) {
	if m.dead {
		return
	}
	if err := m.core.CheckConsistency(); err != nil {
		m.fatalf(t, "core CheckConsistency: %v", err)
	}
	if err := stateRunsAgree(m.core); err != nil {
		m.fatalf(t, "core ForEachStateRun: %v", err)
	}
	if c, s := m.core.OutstandingWrites(), len(m.spec.Outstanding()); c != len(m.writes) || s != len(m.writes) {
		m.fatalf(t, "outstanding writes: core %d spec %d harness %d", c, s, len(m.writes))
	}
	if m.classify(t) {
		return
	}
	m.compare(t)
	m.invariants(t)
}

// fataler is the part of rapid.T (and of testing.T) that compare needs.
type fataler interface {
	Fatalf(format string, args ...any)
}

func (m *machine) compare(t fataler) {
	c, s := m.core, m.spec
	type offsets struct{ spso, speo, window, next int64 }
	if got, want := (offsets{c.StartOffset(), c.EndOffset(), c.InFlightCount(), c.NextFetchOffset()}),
		(offsets{s.SPSO(), s.SPEO(), s.Window(), s.NextFetchOffset()}); got != want {
		m.fatalf(t, "SPSO/SPEO/window/next fetch differ: core %+v spec %+v", got, want)
	}
	var cq []int64
	for _, q := range c.OutstandingDLQ(nil) {
		for o := q.First; o <= q.Last; o++ {
			cq = append(cq, o)
		}
	}
	if sq := s.DLQOffsets(); !reflect.DeepEqual(cq, sq) && (len(cq) > 0 || len(sq) > 0) {
		m.fatalf(t, "outstanding DLQ produces differ: core %v spec %v", cq, sq)
	}
	if c.CanAcquire() != s.CanAcquire() {
		m.fatalf(t, "CanAcquire differs: core %v", c.CanAcquire())
	}
	cd, cok := c.NextDeadline()
	sd, sok := s.NextDeadline()
	if cd != sd || cok != sok {
		m.fatalf(t, "NextDeadline differs: core %d,%v spec %d,%v", cd, cok, sd, sok)
	}
	// Dead batches (wholly below SPSO, every offset terminal and not pending) are
	// compared loosely: when the head rule drops them is left open by §5.2 once the
	// log start has jumped past the cache, and nothing else depends on them.
	var cb, sb []refspec.BatchView
	c.ForEachBatch(func(b model.BatchView) bool {
		if !m.coreDead(b) {
			cb = append(cb, refspec.BatchView{First: b.First, Last: b.Last, Whole: b.Whole})
		}
		return true
	})
	for _, b := range s.Batches() {
		if !m.specDead(b) {
			sb = append(sb, b)
		}
	}
	if !reflect.DeepEqual(cb, sb) {
		m.fatalf(t, "cached batches differ:\ncore %v\nspec %v", cb, sb)
	}
	live := func(o int64, bs []refspec.BatchView) bool {
		for _, b := range bs {
			if b.First <= o && o <= b.Last {
				return true
			}
		}
		return false
	}
	var cv []model.RecordView
	c.ForEachRecord(func(v model.RecordView) bool {
		if live(v.Offset, cb) {
			cv = append(cv, v)
		}
		return true
	})
	var so []int64
	for _, o := range s.Offsets() {
		if live(o, sb) {
			so = append(so, o)
		}
	}
	if len(cv) != len(so) {
		m.fatalf(t, "cached offsets differ: core %d offsets, spec %v", len(cv), so)
	}
	for i, v := range cv {
		sv, _ := s.View(so[i])
		want := model.RecordView{Offset: so[i], State: model.State(sv.State), DeliveryCount: int16(sv.DC),
			Owner: model.MemberID(sv.Owner), Pending: sv.Pending, HasLock: sv.HasLock, LockDeadlineMs: sv.Deadline}
		if !v.HasLock {
			v.LockDeadlineMs = 0
		}
		want.Cause = v.Cause // not modelled by the spec
		if v != want {
			m.fatalf(t, "offset %d differs:\ncore %+v\nspec %+v", so[i], v, want)
		}
	}
}

// invariants are the single-partition rules from user-questions.md, checked on the core.
func (m *machine) invariants(t *rapid.T) {
	c, v42 := m.core, m.cfg.Version == model.Kafka42
	prevLast := int64(-1)
	c.ForEachBatch(func(b model.BatchView) bool {
		if b.First > b.Last || b.First <= prevLast {
			m.fatalf(t, "invariant cache-ordered-disjoint: batch %+v after %d", b, prevLast)
		}
		prevLast = b.Last
		return true
	})
	views := map[int64]model.RecordView{}
	c.ForEachRecord(func(v model.RecordView) bool {
		views[v.Offset] = v
		switch {
		case v.State == model.Acquired && !v.Pending && !v.HasLock && v42:
			// 4.1 leaves a failed ack whose lock fired ACQUIRED with a dead timer (§6.4).
			m.fatalf(t, "invariant one-lock-per-acquired: offset %d ACQUIRED without a lock", v.Offset)
		case v.State != model.Acquired && !v.Pending && v.HasLock:
			m.fatalf(t, "invariant one-lock-per-acquired: offset %d %v holds a lock", v.Offset, v.State)
		case v.State == model.Acquired && v.Owner == "":
			m.fatalf(t, "invariant owner: offset %d ACQUIRED without owner", v.Offset)
		case v.State == model.Available && int(v.DeliveryCount) >= m.cfg.DeliveryCountLimit && !m.limitLowered:
			m.fatalf(t, "invariant limit-never-available: offset %d AVAILABLE with dc %d", v.Offset, v.DeliveryCount)
		}
		if old, ok := m.lastViews[v.Offset]; ok && old.State.Terminal() && !old.Pending &&
			(v.State != old.State || v.Pending) {
			m.fatalf(t, "invariant terminal-states-absorbing: offset %d went %v → %+v", v.Offset, old.State, v)
		}
		return true
	})
	m.lastViews = views
	// Head-rule step 3 may put SPSO back below a log start that jumped past the whole
	// cache (Kafka 4.2 does); the next fetch re-applies T-LSO. Other decreases are bugs.
	if v42 && c.StartOffset() < m.lastSPSO && c.StartOffset() >= m.logStart {
		m.fatalf(t, "invariant spso-monotonic: SPSO %d < %d", c.StartOffset(), m.lastSPSO)
	}
	m.lastSPSO = c.StartOffset()
}

func runMachine(t *rapid.T, v model.Version) {
	m := newMachine(t, v)
	t.Repeat(m.actions())
}

func (m *machine) coreDead(b model.BatchView) bool {
	if b.Last >= m.core.StartOffset() {
		return false
	}
	for o := b.First; o <= b.Last; o++ {
		if v, ok := m.core.Record(o); !ok || v.Pending || !v.State.Terminal() {
			return false
		}
	}
	return true
}

func (m *machine) specDead(b refspec.BatchView) bool {
	if b.Last >= m.spec.SPSO() {
		return false
	}
	for o := b.First; o <= b.Last; o++ {
		if v, ok := m.spec.View(o); !ok || v.Pending || !model.State(v.State).Terminal() {
			return false
		}
	}
	return true
}

// stateRunsAgree checks that ForEachStateRun shows the states ForEachRecord shows: the
// same offsets, in order, each in its record's state and pending flag, in runs that are
// maximal within a cache entry.
func stateRunsAgree(c *model.SharePartition) error {
	var recs []model.RecordView
	c.ForEachRecord(func(v model.RecordView) bool { recs = append(recs, v); return true })
	starts := map[int64]bool{}
	c.ForEachBatch(func(b model.BatchView) bool { starts[b.First] = true; return true })
	type run struct {
		first, last int64
		s           model.State
		pending     bool
	}
	var runs []run
	c.ForEachStateRun(func(first, last int64, s model.State, pending bool) bool {
		runs = append(runs, run{first, last, s, pending})
		return true
	})
	i := 0
	for k, r := range runs {
		if k > 0 && !starts[r.first] && runs[k-1].last+1 == r.first && runs[k-1].s == r.s && runs[k-1].pending == r.pending {
			return fmt.Errorf("run %d-%d continues the one before it in its cache entry", r.first, r.last)
		}
		for off := r.first; off <= r.last; off++ {
			if i >= len(recs) || recs[i].Offset != off || recs[i].State != r.s || recs[i].Pending != r.pending {
				return fmt.Errorf("run %d-%d %s pending=%v disagrees with record %d of %d", r.first, r.last, r.s, r.pending, i, len(recs))
			}
			i++
		}
	}
	if i != len(recs) {
		return fmt.Errorf("runs cover %d of %d records", i, len(recs))
	}
	return nil
}
