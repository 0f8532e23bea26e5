package proptest

import (
	"reflect"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/model/refspec"
	"pgregory.net/rapid"
)

// check runs after every action: the core must show exactly what the spec shows, and
// the single-partition invariants must hold.
func (m *machine) check(t *rapid.T) {
	if err := m.core.CheckConsistency(); err != nil {
		t.Fatalf("core CheckConsistency: %v", err)
	}
	m.compare(t)
	m.invariants(t)
}

func (m *machine) compare(t *rapid.T) {
	c, s := m.core, m.spec
	type offsets struct{ spso, speo, window, next int64 }
	if got, want := (offsets{c.StartOffset(), c.EndOffset(), c.InFlightCount(), c.NextFetchOffset()}),
		(offsets{s.SPSO(), s.SPEO(), s.Window(), s.NextFetchOffset()}); got != want {
		t.Fatalf("SPSO/SPEO/window/next fetch differ: core %+v spec %+v", got, want)
	}
	if c.CanAcquire() != s.CanAcquire() {
		t.Fatalf("CanAcquire differs: core %v", c.CanAcquire())
	}
	cd, cok := c.NextDeadline()
	sd, sok := s.NextDeadline()
	if cd != sd || cok != sok {
		t.Fatalf("NextDeadline differs: core %d,%v spec %d,%v", cd, cok, sd, sok)
	}
	if c.OutstandingWrites() != len(m.writes) || len(s.Outstanding()) != len(m.writes) {
		t.Fatalf("outstanding writes: core %d spec %d harness %d", c.OutstandingWrites(), len(s.Outstanding()), len(m.writes))
	}
	var cb []refspec.BatchView
	c.ForEachBatch(func(b model.BatchView) bool {
		cb = append(cb, refspec.BatchView{First: b.First, Last: b.Last, Whole: b.Whole})
		return true
	})
	if sb := s.Batches(); !reflect.DeepEqual(cb, sb) {
		t.Fatalf("cached batches differ:\ncore %v\nspec %v", cb, sb)
	}
	var cv []model.RecordView
	c.ForEachRecord(func(v model.RecordView) bool { cv = append(cv, v); return true })
	so := s.Offsets()
	if len(cv) != len(so) {
		t.Fatalf("cached offsets differ: core %d offsets, spec %v", len(cv), so)
	}
	for i, v := range cv {
		sv, _ := s.View(so[i])
		want := model.RecordView{Offset: so[i], State: model.State(sv.State), DeliveryCount: int16(sv.DC),
			Owner: model.MemberID(sv.Owner), Pending: sv.Pending, HasLock: sv.HasLock, LockDeadlineMs: sv.Deadline}
		if !v.HasLock {
			v.LockDeadlineMs = 0
		}
		if v != want {
			t.Fatalf("offset %d differs:\ncore %+v\nspec %+v", so[i], v, want)
		}
	}
}

// invariants are the single-partition rules from user-questions.md, checked on the core.
func (m *machine) invariants(t *rapid.T) {
	c, v42 := m.core, m.cfg.Version == model.Kafka42
	prevLast := int64(-1)
	c.ForEachBatch(func(b model.BatchView) bool {
		if b.First > b.Last || b.First <= prevLast {
			t.Fatalf("invariant cache-ordered-disjoint: batch %+v after %d", b, prevLast)
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
			t.Fatalf("invariant one-lock-per-acquired: offset %d ACQUIRED without a lock", v.Offset)
		case v.State != model.Acquired && !v.Pending && v.HasLock:
			t.Fatalf("invariant one-lock-per-acquired: offset %d %v holds a lock", v.Offset, v.State)
		case v.State == model.Acquired && v.Owner == "":
			t.Fatalf("invariant owner: offset %d ACQUIRED without owner", v.Offset)
		case v.State == model.Available && int(v.DeliveryCount) >= m.cfg.DeliveryCountLimit:
			t.Fatalf("invariant limit-never-available: offset %d AVAILABLE with dc %d", v.Offset, v.DeliveryCount)
		}
		if old, ok := m.lastViews[v.Offset]; ok && old.State.Terminal() && !old.Pending &&
			(v.State != old.State || v.Pending) {
			t.Fatalf("invariant terminal-states-absorbing: offset %d went %v → %+v", v.Offset, old.State, v)
		}
		return true
	})
	m.lastViews = views
	if v42 && c.StartOffset() < m.lastSPSO {
		t.Fatalf("invariant spso-monotonic: SPSO %d < %d", c.StartOffset(), m.lastSPSO)
	}
	m.lastSPSO = c.StartOffset()
}

func runMachine(t *rapid.T, v model.Version) {
	m := newMachine(t, v)
	t.Repeat(m.actions())
}
