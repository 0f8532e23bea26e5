package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
)

func pbs(spec string) []model.PersistedBatch {
	names := map[string]model.State{"AVA": model.Available, "ACK": model.Acknowledged, "ARC": model.Archived}
	var out []model.PersistedBatch
	for _, f := range strings.Fields(spec) {
		var a, b int64
		var st string
		var dc int16
		if _, err := fmt.Sscanf(strings.NewReplacer("-", " ", "/", " ").Replace(f), "%d %d %s %d", &a, &b, &st, &dc); err != nil {
			panic(fmt.Sprintf("bad batch spec %q: %v", f, err))
		}
		out = append(out, model.PersistedBatch{First: a, Last: b, State: names[st], DeliveryCount: dc})
	}
	return out
}

func renderPBs(bs []model.PersistedBatch) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%d-%d/%s/%d", b.First, b.Last, b.State.String()[:3], b.DeliveryCount))
	}
	return strings.Join(parts, " ")
}

// The coordinator's merge (§8.1): highest delivery count wins, ties to the higher state id,
// below-start offsets dropped, equal neighbours coalesced; on Kafka 4.4 the start offset
// only grows (TestStateStoreVersions covers 4.2 and 4.3).
func TestStateStoreMerge(t *testing.T) {
	cases := []struct {
		name          string
		stored, write string
		start         int64
		want          string
		wantStart     int64
	}{
		{"ack inside an available run", "0-9/AVA/1", "3-4/ACK/1", 0, "0-2/AVA/1 3-4/ACK/1 5-9/AVA/1", 0},
		{"older lower count loses", "0-0/AVA/3", "0-0/ACK/2", 0, "0-0/AVA/3", 0},
		{"tie goes to the higher state", "0-1/AVA/2", "0-1/ARC/2", 0, "0-1/ARC/2", 0},
		{"start offset prunes", "0-9/AVA/1", "8-9/ACK/1", 5, "5-7/AVA/1 8-9/ACK/1", 5},
		{"coalesce neighbours", "0-1/ACK/1", "2-3/ACK/1", 0, "0-3/ACK/1", 0},
		{"start never regresses", "", "0-0/AVA/1", 0, "", 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := model.NewStateStore(1, 0).ForVersion(model.Kafka44)
			if c.stored != "" {
				if err := s.Write(&model.Write{StateEpoch: 1, StartOffset: 0, Batches: pbs(c.stored)}); err != nil {
					t.Fatal(err)
				}
			}
			if c.wantStart == 7 { // regressing start: first raise to 7, then write with 0
				_ = s.Write(&model.Write{StateEpoch: 1, StartOffset: 7})
			}
			if err := s.Write(&model.Write{StateEpoch: 1, StartOffset: c.start, Batches: pbs(c.write)}); err != nil {
				t.Fatal(err)
			}
			snap := s.Snapshot()
			if got := renderPBs(snap.Batches); got != c.want {
				t.Errorf("batches: got %q want %q", got, c.want)
			}
			if snap.StartOffset != c.wantStart {
				t.Errorf("start: got %d want %d", snap.StartOffset, c.wantStart)
			}
		})
	}
}

// Merging is insensitive to the order writes arrive in (§8.1).
func TestStateStoreMergeOrderInsensitive(t *testing.T) {
	writes := []string{"0-4/AVA/1", "2-3/ACK/2", "0-0/ARC/2", "4-6/AVA/3", "5-5/ACK/3"}
	var first string
	perms := [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 4, 0, 3, 2}}
	for _, p := range perms {
		s := model.NewStateStore(1, 0)
		for _, i := range p {
			if err := s.Write(&model.Write{StateEpoch: 1, Batches: pbs(writes[i])}); err != nil {
				t.Fatal(err)
			}
		}
		got := renderPBs(s.Snapshot().Batches)
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("order %v: %q, first order gave %q", p, got, first)
		}
	}
}

// Epoch fencing (§8.2): a read raises the leader epoch; older writes are fenced.
func TestStateStoreFencing(t *testing.T) {
	s := model.NewStateStore(3, 0)
	if _, err := s.Read(5); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		w      model.Write
		want   model.ErrorCode
		readAt int32
	}{
		{"older leader epoch", model.Write{StateEpoch: 3, LeaderEpoch: 4}, model.ErrFencedLeaderEpoch, 0},
		{"older state epoch", model.Write{StateEpoch: 2, LeaderEpoch: 5}, model.ErrFencedStateEpoch, 0},
		{"current epochs", model.Write{StateEpoch: 3, LeaderEpoch: 5}, model.ErrNone, 0},
	}
	for _, c := range cases {
		if got := model.CodeOf(s.Write(&c.w)); got != c.want {
			t.Errorf("%s: got %s want %s", c.name, got, c.want)
		}
	}
	if _, err := s.Read(4); model.CodeOf(err) != model.ErrFencedLeaderEpoch {
		t.Errorf("stale read: got %v", err)
	}
	if !errors.Is(s.Write(&model.Write{StateEpoch: 3, LeaderEpoch: 1}), &model.Error{Code: model.ErrFencedLeaderEpoch}) {
		t.Errorf("errors.Is should match on the code")
	}
	if !model.IsFencingWriteError(s.Write(&model.Write{StateEpoch: 0, LeaderEpoch: 9})) {
		t.Errorf("state-epoch fencing must be a fencing error")
	}
}

// failover rebuilds h.sp from the harness's store, as a new leader would (§8.3).
func (h *harness) failover(leaderEpoch int32) {
	h.t.Helper()
	snap, err := h.store.Read(leaderEpoch)
	if err != nil {
		h.t.Fatalf("read: %v", err)
	}
	sp, err := model.Load(h.cfg, snap, leaderEpoch, 0)
	if err != nil {
		h.t.Fatalf("load: %v", err)
	}
	h.sp = sp
	h.open = map[model.WriteID]*model.Write{}
	h.check()
}

func TestFailoverReload(t *testing.T) {
	cases := []struct {
		name string
		run  func(h *harness)
	}{
		{"acquired records revert to their last written state; unwritten ones are refetched as new", func(h *harness) {
			h.produce(2, 2, 2)
			h.fetchP("c1", model.FetchParams{MaxRecords: 2, BatchSize: 2}) // 0-1
			h.fetchP("c2", model.FetchParams{MaxRecords: 2, BatchSize: 2}) // 2-3
			h.fetchP("c3", model.FetchParams{MaxRecords: 2, BatchSize: 2}) // 4-5
			h.ackOK("c1", "0-1:accept")
			h.ackOK("c3", "4-5:release")
			h.eq("snapshot", renderPBs(h.store.Snapshot().Batches), "4-5/AVA/1")
			h.failover(1)
			h.eq("loaded", h.states(), "4:AVA/-/1 5:AVA/-/1")
			h.eq("span", h.span(), "spso=2 speo=5 window=4 next=2")
			// The hole 2-3 (acquired by c2 at the old leader, never written) comes first, as new.
			h.eq("fetch", h.fetch("c4", 500), "2-3@1 4-5@2")
			h.ackOK("c4", "2-3:accept 4-5:accept")
			h.eq("drained", h.span(), "spso=6 speo=6 window=0 next=6")
		}},
		{"an accepted record never comes back; delivery counts never drop below the persisted value", func(h *harness) {
			h.produce(1, 1)
			h.fetchP("c1", model.FetchParams{MaxRecords: 2, BatchSize: 1})
			h.advance(30000) // both expire: written AVAILABLE dc 1
			h.fetch("c1", 2) // dc 2, not written
			h.ackOK("c1", "0:accept")
			h.failover(1)
			h.eq("loaded", h.states(), "1:AVA/-/1")
			h.eq("fetch", h.fetch("c2", 2), "1-1@2")
		}},
		{"a stale leader's writes are fenced after the new leader's read", func(h *harness) {
			h.produce(2)
			h.sp.SetEpochs(0, 1)
			if _, err := h.store.Read(1); err != nil {
				h.t.Fatal(err)
			}
			h.fetch("c1", 500)
			old := h.sp
			w, _ := h.ack("c1", "0-1:accept")
			if _, err := h.store.Read(2); err != nil { // new leader loads
				h.t.Fatal(err)
			}
			err := h.store.Write(h.open[w.ID])
			if model.CodeOf(err) != model.ErrFencedLeaderEpoch {
				h.t.Fatalf("stale write: %v", err)
			}
			if err := old.CompleteWrite(h.now, w.ID, err); err != nil {
				h.t.Fatal(err)
			}
			if got := model.AckErrorForWriteFailure(err); got != model.ErrNotLeaderOrFollower {
				h.t.Errorf("client sees %s, want NOT_LEADER_OR_FOLLOWER", got)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(newHarness(t, cfg42()))
		})
	}
}

func TestLoadRejectsMalformedSnapshots(t *testing.T) {
	cases := []struct {
		name string
		snap model.Snapshot
	}{
		{"batch below start", model.Snapshot{StartOffset: 5, Batches: pbs("3-6/AVA/1")}},
		{"inverted batch", model.Snapshot{StartOffset: 0, Batches: []model.PersistedBatch{{First: 4, Last: 2}}}},
		{"overlap", model.Snapshot{StartOffset: 0, Batches: pbs("0-4/AVA/1 3-6/ACK/1")}},
		{"acquired stored", model.Snapshot{StartOffset: 0, Batches: []model.PersistedBatch{{First: 0, Last: 0, State: model.Acquired, DeliveryCount: 1}}}},
	}
	for _, c := range cases {
		if _, err := model.Load(model.DefaultConfig(), c.snap, 1, 0); err == nil {
			t.Errorf("%s: Load accepted a malformed snapshot", c.name)
		}
	}
}

// Kafka 4.1 moved SPSO to the next batch start unconditionally, backwards after a log-start
// jump; 4.2 never moves it backwards in step 4 (KAFKA-19859).
func TestSPSOAfterLogStartJump(t *testing.T) {
	for _, c := range []struct {
		cfg  model.Config
		want string
	}{
		{cfg41(), "spso=2 speo=6 window=5 next=7"},
		{cfg42(), "spso=6 speo=6 window=1 next=6"},
	} {
		t.Run(c.cfg.Version.String(), func(t *testing.T) {
			h := newHarness(t, c.cfg)
			h.produce(2, 2, 2)
			two := model.FetchParams{MaxRecords: 2, BatchSize: 2}
			h.fetchP("c1", two) // 0-1
			h.fetchP("c2", two) // 2-3
			h.fetchP("c3", two) // 4-5
			h.ackOK("c2", "2-3:release")
			h.now += 1000
			h.fetchP("c4", two)                                                     // 2-3 again, locked one second later
			h.sp.MoveLogStartOffset(6)                                              // past the whole cache
			h.advance(29000)                                                        // 0-1 and 4-5 expire below SPSO and are archived
			h.eq("states", h.states(), "2:ACQ/c4/2 3:ACQ/c4/2 4:ARC/-/1 5:ARC/-/1") // 0-1 passed and dropped
			h.eq("span", h.span(), c.want)
		})
	}
}

// Every cached offset is reported once when it leaves the cache, with why it ended.
func TestFinalizedCauses(t *testing.T) {
	c := cfg42()
	c.DeliveryCountLimit = 2
	h := newHarness(t, c)
	h.sp.TrackFinalized(true)
	h.produce(1, 1, 1, 1, 1, 1)
	h.fetchP("c1", model.FetchParams{MaxRecords: 6, BatchSize: 1})
	h.ackOK("c1", "0:accept 1:reject 2:gap 3:release")
	h.fetch("c1", 1) // 3 again, dc 2
	h.ackOK("c1", "3:release")
	h.sp.MoveLogStartOffset(6)
	h.advance(30000) // 4-5 expire below SPSO
	var got []string
	for _, f := range h.sp.DrainFinalized(nil) {
		got = append(got, fmt.Sprintf("%d-%d/%s/%d/%s", f.First, f.Last, f.State.String()[:3], f.DeliveryCount, f.Cause))
	}
	want := "0-0/ACK/1/accepted 1-1/ARC/1/rejected 2-2/ARC/1/gap 3-3/ARC/2/limit 4-5/ARC/1/log-start"
	if strings.Join(got, " ") != want {
		t.Errorf("finalized:\n got  %s\n want %s", strings.Join(got, " "), want)
	}
	if len(h.sp.DrainFinalized(nil)) != 0 {
		t.Error("drain must forget what it returned")
	}
}

// The share coordinator's per-version rules for the start offset, the delivery-complete
// count and negative epochs (Kafka 4.2/4.3 ShareCoordinatorShard.generateShareStateRecord
// stores what comes; 4.4 keeps the higher start offset (#23074), picks the count by
// comparing start offsets (#23112) and refuses negative epochs (KAFKA-20743)); and the
// delivery-complete count an offsets reset stores (KAFKA-20034, from 4.3).
func TestStateStoreVersions(t *testing.T) {
	type step struct {
		start, dcc int64
		le, se     int32
	}
	cases := []struct {
		name      string
		v         model.Version
		steps     []step
		wantStart int64
		wantDCC   int64
		wantErr   model.ErrorCode // of the last step
	}{
		{"4.2 lower start regresses", model.Kafka42, []step{{7, 3, 1, 0}, {2, 5, 1, 0}}, 2, 5, model.ErrNone},
		{"4.3 lower start regresses", model.Kafka43, []step{{7, 3, 1, 0}, {2, 5, 1, 0}}, 2, 5, model.ErrNone},
		{"4.4 lower start kept, stored count kept", model.Kafka44, []step{{7, 3, 1, 0}, {2, 5, 1, 0}}, 7, 3, model.ErrNone},
		{"4.4 equal start: larger count", model.Kafka44, []step{{7, 3, 1, 0}, {7, 1, 1, 0}}, 7, 3, model.ErrNone},
		{"4.4 equal start: larger incoming count", model.Kafka44, []step{{7, 1, 1, 0}, {7, 4, 1, 0}}, 7, 4, model.ErrNone},
		{"4.4 higher start: incoming count", model.Kafka44, []step{{7, 3, 1, 0}, {9, 0, 1, 0}}, 9, 0, model.ErrNone},
		{"4.2 equal start: incoming count even if lower", model.Kafka42, []step{{7, 3, 1, 0}, {7, 1, 1, 0}}, 7, 1, model.ErrNone},
		{"4.3 leader epoch -1 skips the fence", model.Kafka43, []step{{1, 0, 3, 0}, {2, 0, -1, 0}}, 2, 0, model.ErrNone},
		{"4.4 negative leader epoch is invalid", model.Kafka44, []step{{1, 0, 3, 0}, {2, 0, -1, 0}}, 1, 0, model.ErrInvalidRequest},
		{"4.4 negative state epoch is invalid", model.Kafka44, []step{{1, 0, 3, 0}, {2, 0, 3, -1}}, 1, 0, model.ErrInvalidRequest},
		// The fix start-offset-regresses gives 4.2 and 4.3 the 4.4 rules (epochs unchanged).
		{"4.2 fixed: lower start kept", model.Kafka42, []step{{7, 3, 1, 0}, {2, 5, 1, 0}}, 7, 3, model.ErrNone},
		{"4.3 fixed: equal start, larger count", model.Kafka43, []step{{7, 3, 1, 0}, {7, 1, 1, 0}}, 7, 3, model.ErrNone},
		{"4.3 fixed: leader epoch -1 still skips the fence", model.Kafka43, []step{{1, 0, 3, 0}, {2, 0, -1, 0}}, 2, 0, model.ErrNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := model.DefaultConfig()
			cfg.Version = c.v
			if strings.Contains(c.name, "fixed") {
				cfg.Fix = model.FixStartOffsetRegresses
			}
			s := model.NewStateStore(0, 0).ForConfig(cfg)
			var err error
			for _, st := range c.steps {
				err = s.Write(&model.Write{LeaderEpoch: st.le, StateEpoch: st.se, StartOffset: st.start, DeliveryCompleteCount: st.dcc})
			}
			if got := model.CodeOf(err); got != c.wantErr {
				t.Fatalf("last write: %v, want %s", err, c.wantErr)
			}
			if s.StartOffset() != c.wantStart || s.DeliveryCompleteCount() != c.wantDCC {
				t.Errorf("start %d dcc %d, want %d %d", s.StartOffset(), s.DeliveryCompleteCount(), c.wantStart, c.wantDCC)
			}
		})
	}
	t.Run("reset count", func(t *testing.T) {
		for _, c := range []struct {
			v     model.Version
			start int64
			want  int64
		}{{model.Kafka42, 5, -1}, {model.Kafka43, 5, 0}, {model.Kafka44, 5, 0}, {model.Kafka43, -1, -1}, {model.Kafka44, -1, -1}} {
			s := model.NewStateStore(0, 0).ForVersion(c.v)
			if err := s.Reinitialize(1, c.start); err != nil {
				t.Fatal(err)
			}
			if got := s.DeliveryCompleteCount(); got != c.want {
				t.Errorf("%s reset to %d: count %d, want %d", c.v, c.start, got, c.want)
			}
		}
		if err := model.NewStateStore(0, 0).ForVersion(model.Kafka44).Reinitialize(-1, 0); model.CodeOf(err) != model.ErrInvalidRequest {
			t.Errorf("4.4 initialize with state epoch -1: %v, want INVALID_REQUEST", err)
		}
	})
	t.Run("read epochs", func(t *testing.T) {
		s := model.NewStateStore(0, 0).ForVersion(model.Kafka43)
		if _, err := s.Read(4); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Read(-1); err != nil {
			t.Errorf("4.3 read with -1: %v, want no fence (KAFKA-20694)", err)
		}
		if _, err := model.NewStateStore(0, 0).ForVersion(model.Kafka42).Read(-1); err != nil {
			t.Errorf("4.2 first read with -1: %v", err)
		}
		s42 := model.NewStateStore(0, 0).ForVersion(model.Kafka42)
		_, _ = s42.Read(4)
		if _, err := s42.Read(-1); model.CodeOf(err) != model.ErrFencedLeaderEpoch {
			t.Errorf("4.2 read with -1 after 4: %v, want FENCED_LEADER_EPOCH", err)
		}
		if _, err := model.NewStateStore(0, 0).ForVersion(model.Kafka44).Read(-1); model.CodeOf(err) != model.ErrInvalidRequest {
			t.Errorf("4.4 read with -1: %v, want INVALID_REQUEST", err)
		}
	})
}
