package refspec

import (
	"reflect"
	"testing"
)

func cfg(v Version) Config {
	return Config{Version: v, LockMs: 1000, Limit: 3, Cap: 100}
}

func logOf(bs ...[2]int64) []LogBatch {
	var out []LogBatch
	for _, b := range bs {
		out = append(out, LogBatch{First: b[0], Last: b[1]})
	}
	return out
}

func mustView(t *testing.T, s *Spec, o int64) View {
	t.Helper()
	v, ok := s.View(o)
	if !ok {
		t.Fatalf("offset %d not cached", o)
	}
	return v
}

func TestAcquireNewRecordsHaveDeliveryCountOne(t *testing.T) {
	for _, v := range []Version{V41, V42} {
		s := New(cfg(v), 0)
		got := s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 4}))
		if want := []Range{{0, 4, 1}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: ranges %v, want %v", v, got, want)
		}
		if w := mustView(t, s, 3); w.State != Acquired || w.DC != 1 || w.Owner != "m1" || !w.HasLock || w.Deadline != 1000 {
			t.Fatalf("%v: view %+v", v, w)
		}
		if s.SPSO() != 0 || s.SPEO() != 4 || s.Window() != 5 || s.NextFetchOffset() != 5 {
			t.Fatalf("%v: spso %d speo %d window %d next %d", v, s.SPSO(), s.SPEO(), s.Window(), s.NextFetchOffset())
		}
	}
}

func TestBatchSizeCutsAtLogBatchBoundaries(t *testing.T) {
	s := New(cfg(V42), 0)
	got := s.Acquire(0, "m1", 10, 3, BatchOptimized, logOf([2]int64{0, 1}, [2]int64{2, 3}, [2]int64{4, 6}))
	if want := []Range{{0, 3, 1}, {4, 6, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ranges %v, want %v", got, want)
	}
}

func TestRecordLimitLeavesTailAvailable(t *testing.T) {
	s := New(cfg(V42), 0)
	got := s.Acquire(0, "m1", 2, 2, RecordLimit, logOf([2]int64{0, 4}))
	if want := []Range{{0, 1, 1}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ranges %v, want %v", got, want)
	}
	if w := mustView(t, s, 2); w.State != Available || w.DC != 0 || s.NextFetchOffset() != 2 {
		t.Fatalf("tail %+v next %d", w, s.NextFetchOffset())
	}
}

func TestReleaseAtLimitArchives(t *testing.T) {
	for _, tc := range []struct {
		dcAfter int
		want    State
	}{{1, Available}, {2, Available}, {3, Archived}} {
		s := New(cfg(V42), 0)
		for i := 0; i < tc.dcAfter; i++ {
			s.Acquire(int64(i), "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 0}))
			code, w := s.Acknowledge(int64(i), "m1", []AckRange{{0, 0, []AckType{Release}}})
			if code != OK || w == nil || w.Entries[0].DC != i+1 {
				t.Fatalf("release %d: %v %+v", i, code, w)
			}
			s.CompleteWrite(w.ID, true)
		}
		if st := s.recs[0]; st != nil && st.state != tc.want {
			t.Fatalf("dc %d: state %v want %v", tc.dcAfter, st.state, tc.want)
		}
		if tc.want == Archived && (s.SPSO() != 1 || len(s.Offsets()) != 0) {
			t.Fatalf("archived head not dropped: spso %d", s.SPSO())
		}
	}
}

func TestLockExpiryReleasesAndWritesOncePerTimer(t *testing.T) {
	s := New(cfg(V42), 0)
	s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 2}))
	if ws := s.ExpireLocks(999); len(ws) != 0 {
		t.Fatalf("fired early: %v", ws)
	}
	ws := s.ExpireLocks(1000)
	if len(ws) != 1 || len(ws[0].Entries) != 3 || ws[0].Kind != KindExpiry {
		t.Fatalf("whole batch expiry writes %+v", ws)
	}
	if w := mustView(t, s, 1); w.State != Available || w.Owner != "" || w.HasLock || w.DC != 1 {
		t.Fatalf("after expiry %+v", w)
	}
	// Re-acquire, split by a partial ack, then expire: one write per offset.
	s.Acquire(1000, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 2}))
	if code, w := s.Acknowledge(1000, "m1", []AckRange{{0, 0, []AckType{Renew}}}); code != OK || w != nil {
		t.Fatalf("renew: %v %v", code, w)
	}
	ws = s.ExpireLocks(2000)
	if len(ws) != 3 {
		t.Fatalf("split batch expiry writes %d, want 3", len(ws))
	}
	if w := mustView(t, s, 0); w.State != Available || w.DC != 2 {
		t.Fatalf("renewed offset %+v", w)
	}
}

func TestExpiryDuringPendingAck(t *testing.T) {
	for _, tc := range []struct {
		v    Version
		want State
		lock bool
	}{{V42, Available, false}, {V41, Acquired, false}} {
		s := New(cfg(tc.v), 0)
		s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 0}))
		_, w := s.Acknowledge(10, "m1", []AckRange{{0, 0, []AckType{Accept}}})
		if ws := s.ExpireLocks(1000); len(ws) != 0 {
			t.Fatalf("expiry of pending offset wrote %v", ws)
		}
		s.CompleteWrite(w.ID, false)
		if v := mustView(t, s, 0); v.State != tc.want || v.HasLock != tc.lock {
			t.Fatalf("%v: after failed write %+v", tc.v, v)
		}
	}
}

func TestHeadRuleAdvances(t *testing.T) {
	s := New(cfg(V42), 0)
	s.Acquire(0, "m1", 10, 2, BatchOptimized, logOf([2]int64{0, 1}, [2]int64{2, 3}, [2]int64{4, 5}))
	_, w := s.Acknowledge(0, "m1", []AckRange{{0, 2, []AckType{Accept}}})
	if w.DeliveryCompleteCount != 3 || w.StartOffset != 0 {
		t.Fatalf("write %+v", w)
	}
	if s.SPSO() != 0 {
		t.Fatal("SPSO moved before the write completed")
	}
	s.CompleteWrite(w.ID, true)
	if s.SPSO() != 3 || s.Window() != 3 {
		t.Fatalf("spso %d window %d, want 3 and 3 (step 5 inside [2,3])", s.SPSO(), s.Window())
	}
	_, w = s.Acknowledge(0, "m1", []AckRange{{3, 3, []AckType{Reject}}})
	s.CompleteWrite(w.ID, true)
	if s.SPSO() != 4 || len(s.Offsets()) != 2 {
		t.Fatalf("step 4: spso %d offsets %v", s.SPSO(), s.Offsets())
	}
	_, w = s.Acknowledge(0, "m1", []AckRange{{4, 5, []AckType{Gap}}})
	s.CompleteWrite(w.ID, true)
	if s.SPSO() != 6 || s.SPEO() != 6 || s.Window() != 0 || s.NextFetchOffset() != 6 {
		t.Fatalf("step 3: spso %d speo %d", s.SPSO(), s.SPEO())
	}
}

func TestAckValidation(t *testing.T) {
	s := New(cfg(V41), 0)
	s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 4}))
	for _, tc := range []struct {
		ranges []AckRange
		want   Code
	}{
		{[]AckRange{{2, 1, []AckType{Accept}}}, InvalidRequest},
		{[]AckRange{{0, 1, nil}}, InvalidRequest},
		{[]AckRange{{0, 2, []AckType{Accept, Accept}}}, InvalidRequest},
		{[]AckRange{{0, 0, []AckType{Renew}}}, InvalidRequest}, // 4.1
		{[]AckRange{{2, 3, []AckType{Accept}}, {1, 1, []AckType{Accept}}}, InvalidRequest},
		{[]AckRange{{0, 5, []AckType{Accept}}}, InvalidRequest},
		{[]AckRange{{0, 1, []AckType{Accept}}}, InvalidRecordState}, // wrong... owner below
		{[]AckRange{{0, 1, []AckType{Accept}}, {1, 2, []AckType{Accept}}}, InvalidRecordState},
	} {
		member := "m1"
		if tc.want == InvalidRecordState && len(tc.ranges) == 1 {
			member = "m2"
		}
		if code, w := s.Acknowledge(0, member, tc.ranges); code != tc.want || w != nil {
			t.Fatalf("%+v: %v, want %v", tc.ranges, code, tc.want)
		}
	}
	// The failed calls left every offset acquired by m1.
	for o := int64(0); o <= 4; o++ {
		if v := mustView(t, s, o); v.State != Acquired || v.Pending {
			t.Fatalf("offset %d %+v", o, v)
		}
	}
}

func TestMemberReleaseDeliveryCount(t *testing.T) {
	for _, tc := range []struct {
		v      Version
		wantDC int
	}{{V41, 0}, {V42, 1}} {
		s := New(cfg(tc.v), 0)
		s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 1}))
		w := s.ReleaseMember("m1")
		if w == nil || w.Kind != KindRelease || w.Entries[0].DC != tc.wantDC || w.Entries[0].State != Available {
			t.Fatalf("%v: %+v", tc.v, w)
		}
		s.CompleteWrite(w.ID, true)
		if v := mustView(t, s, 1); v.State != Available || v.DC != tc.wantDC || v.HasLock {
			t.Fatalf("%v: %+v", tc.v, v)
		}
	}
}

func TestThrottledRedeliveryAndIsolation(t *testing.T) {
	c := cfg(V42)
	c.Limit = 5 // T = 3
	s := New(c, 0)
	lg := logOf([2]int64{0, 7})
	for i := 0; i < 2; i++ { // dc 2 after two whole deliveries
		s.Acquire(0, "m1", 10, 10, BatchOptimized, lg)
		_, w := s.Acknowledge(0, "m1", []AckRange{{0, 7, []AckType{Release}}})
		s.CompleteWrite(w.ID, true)
	}
	// dc 2 < T: whole batch again (dc 3); release; now throttled: 8 >> (3-3+1) = 4.
	s.Acquire(0, "m1", 10, 10, BatchOptimized, lg)
	_, w := s.Acknowledge(0, "m1", []AckRange{{0, 7, []AckType{Release}}})
	s.CompleteWrite(w.ID, true)
	got := s.Acquire(0, "m1", 10, 10, BatchOptimized, lg)
	if want := []Range{{0, 3, 4}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("throttled ranges %v, want %v", got, want)
	}
	// Offsets 4..7 have dc 3; 0..3 have dc 4 = L−1 after release: isolated one by one.
	_, w = s.Acknowledge(0, "m1", []AckRange{{0, 3, []AckType{Release}}})
	s.CompleteWrite(w.ID, true)
	got = s.Acquire(0, "m1", 10, 10, BatchOptimized, lg)
	if want := []Range{{0, 0, 5}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("last attempt ranges %v, want %v", got, want)
	}
}

func TestStoreMergeAndReload(t *testing.T) {
	st := NewStore(1, -1)
	st.Write(&Write{StateEpoch: 1, StartOffset: 0, Entries: []Entry{{0, Available, 2}, {1, Available, 1}, {2, Acknowledged, 1}}})
	st.Write(&Write{StateEpoch: 1, StartOffset: 0, Entries: []Entry{{0, Available, 1}, {1, Archived, 1}, {4, Available, 1}}})
	snap, code := st.Read(1)
	want := []PersistedBatch{{0, 0, Available, 2}, {1, 1, Archived, 1}, {2, 2, Acknowledged, 1}, {4, 4, Available, 1}}
	if code != OK || !reflect.DeepEqual(snap.Batches, want) {
		t.Fatalf("snapshot %+v", snap)
	}
	if _, code := st.Read(0); code != FencedLeaderEpoch {
		t.Fatalf("stale read %v", code)
	}
	if code := st.Write(&Write{StateEpoch: 0, LeaderEpoch: 1}); code != FencedStateEpoch {
		t.Fatalf("stale state epoch %v", code)
	}
	s, err := Load(cfg(V42), snap, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Offset 3 is a reload hole: it is fetched first after offset 0.
	if s.NextFetchOffset() != 0 || s.SPEO() != 4 {
		t.Fatalf("next %d speo %d", s.NextFetchOffset(), s.SPEO())
	}
	s.Acquire(0, "m1", 1, 1, BatchOptimized, logOf([2]int64{0, 0}))
	if s.NextFetchOffset() != 3 {
		t.Fatalf("reload hole not preferred: next %d", s.NextFetchOffset())
	}
	got := s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{3, 3}, [2]int64{4, 4}))
	if want := []Range{{3, 3, 1}, {4, 4, 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("hole fill %v, want %v", got, want)
	}
}

func TestLogStartMoveArchivesAvailable(t *testing.T) {
	s := New(cfg(V42), 0)
	s.Acquire(0, "m1", 10, 10, BatchOptimized, logOf([2]int64{0, 3}))
	_, w := s.Acknowledge(0, "m1", []AckRange{{0, 3, []AckType{Release, Release, Accept, Release}}})
	s.MoveLogStartOffset(2) // 0,1 pending AVAILABLE → forced ARCHIVED
	s.CompleteWrite(w.ID, false)
	for o, want := range []State{Archived, Archived, Acquired, Acquired} {
		if v := mustView(t, s, int64(o)); v.State != want {
			t.Fatalf("offset %d %+v want %v", o, v, want)
		}
	}
	if s.SPSO() != 2 || s.NextFetchOffset() != 4 {
		t.Fatalf("spso %d next %d", s.SPSO(), s.NextFetchOffset())
	}
}
