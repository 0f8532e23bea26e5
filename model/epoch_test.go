package model_test

import (
	"reflect"
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Every persisted field survives the share coordinator and a reload, and the state epoch
// read is the one later writes carry (so a reload that lost it would be fenced, and a store
// that lost it would stop fencing).
func TestPersistedFieldsSurviveReload(t *testing.T) {
	cfg := model.DefaultConfig()
	store := model.NewStateStore(3, 0)
	snap, err := store.Read(1)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := model.Load(cfg, snap, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sp.StateEpoch() != 3 || sp.LeaderEpoch() != 1 {
		t.Fatalf("loaded epochs %d/%d, want 3/1", sp.StateEpoch(), sp.LeaderEpoch())
	}
	log := []model.LogBatch{{First: 0, Last: 3}, {First: 4, Last: 7}}
	if _, err := sp.Acquire(0, "c1", model.FetchParams{MaxRecords: 8, BatchSize: 4}, log, nil); err != nil {
		t.Fatal(err)
	}
	w, err := sp.Acknowledge(0, "c1", []model.AckRange{{First: 4, Last: 7, Types: []model.AckType{model.AckAccept, model.AckRelease, model.AckReject, model.AckAccept}}})
	if err != nil || w == nil {
		t.Fatalf("ack: %v", err)
	}
	if w.StateEpoch != 3 || w.LeaderEpoch != 1 || w.StartOffset != 0 || w.DeliveryCompleteCount != 3 {
		t.Fatalf("write epochs %d/%d start %d dcc %d, want 3/1 0 3", w.StateEpoch, w.LeaderEpoch, w.StartOffset, w.DeliveryCompleteCount)
	}
	if err := store.Write(w); err != nil {
		t.Fatal(err)
	}
	if err := sp.CompleteWrite(0, w.ID, nil); err != nil {
		t.Fatal(err)
	}
	// Failover: the new leader reads every field back.
	snap, err = store.Read(2)
	if err != nil {
		t.Fatal(err)
	}
	want := model.Snapshot{StateEpoch: 3, LeaderEpoch: 2, StartOffset: 0, DeliveryCompleteCount: 3, Batches: []model.PersistedBatch{
		{First: 4, Last: 4, State: model.Acknowledged, DeliveryCount: 1},
		{First: 5, Last: 5, State: model.Available, DeliveryCount: 1},
		{First: 6, Last: 6, State: model.Archived, DeliveryCount: 1},
		{First: 7, Last: 7, State: model.Acknowledged, DeliveryCount: 1},
	}}
	if !reflect.DeepEqual(snap, want) {
		t.Fatalf("snapshot\n got  %+v\n want %+v", snap, want)
	}
	nsp, err := model.Load(cfg, snap, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if nsp.StateEpoch() != 3 || nsp.LeaderEpoch() != 2 || nsp.StartOffset() != 0 || nsp.EndOffset() != 7 || nsp.DeliveryCompleteCount() != 3 {
		t.Fatalf("reloaded: epochs %d/%d spso %d speo %d dcc %d", nsp.StateEpoch(), nsp.LeaderEpoch(), nsp.StartOffset(), nsp.EndOffset(), nsp.DeliveryCompleteCount())
	}
	for off, wantV := range map[int64]model.RecordView{
		4: {Offset: 4, State: model.Acknowledged, DeliveryCount: 1, Cause: model.CauseRestored},
		5: {Offset: 5, State: model.Available, DeliveryCount: 1},
		6: {Offset: 6, State: model.Archived, DeliveryCount: 1, Cause: model.CauseRestored},
	} {
		if v, ok := nsp.Record(off); !ok || v != wantV {
			t.Errorf("offset %d: %+v, want %+v", off, v, wantV)
		}
	}
	// The new leader's writes carry the state epoch it read and are stored; the old
	// leader's are fenced by leader epoch.
	rs, err := nsp.Acquire(0, "c2", model.FetchParams{MaxRecords: 10, BatchSize: 10}, log, nil)
	if err != nil || len(rs) == 0 {
		t.Fatalf("acquire after reload: %v %v", rs, err)
	}
	nw, err := nsp.Acknowledge(0, "c2", []model.AckRange{{First: 5, Last: 5, Types: []model.AckType{model.AckAccept}}})
	if err != nil || nw == nil || nw.StateEpoch != 3 || nw.LeaderEpoch != 2 {
		t.Fatalf("ack after reload: %+v %v", nw, err)
	}
	if err := store.Write(nw); err != nil {
		t.Fatalf("new leader's write: %v", err)
	}
	if err := store.Write(&model.Write{StateEpoch: 3, LeaderEpoch: 1}); model.CodeOf(err) != model.ErrFencedLeaderEpoch {
		t.Errorf("old leader's write: %v, want FENCED_LEADER_EPOCH", err)
	}
	// Re-initialisation raises the state epoch: writes at 3 are fenced from then on, and
	// the share-partition rebuilt from the new state writes at 4.
	store.Reinitialize(4, 6)
	if err := store.Write(&model.Write{StateEpoch: 3, LeaderEpoch: 2}); model.CodeOf(err) != model.ErrFencedStateEpoch || !model.IsFencingWriteError(err) {
		t.Errorf("write at the old state epoch: %v, want FENCED_STATE_EPOCH", err)
	}
	snap, _ = store.Read(2)
	if snap.StateEpoch != 4 || snap.StartOffset != 6 || snap.DeliveryCompleteCount != -1 || len(snap.Batches) != 0 {
		t.Fatalf("re-initialised snapshot %+v", snap)
	}
	rsp, err := model.Load(cfg, snap, 2, 0)
	if err != nil || rsp.StateEpoch() != 4 || rsp.StartOffset() != 6 {
		t.Fatalf("load after re-initialisation: %v epoch %d spso %d", err, rsp.StateEpoch(), rsp.StartOffset())
	}
	// The state epoch from a non-zero start also goes through the lifecycle path.
	lsp, _ := model.NewUninitialized(cfg, 2)
	lsp.MaybeInitialize()
	if err := lsp.CompleteInitialize(snap, nil, 0); err != nil || lsp.StateEpoch() != 4 || lsp.LeaderEpoch() != 2 {
		t.Fatalf("CompleteInitialize: %v epochs %d/%d", err, lsp.StateEpoch(), lsp.LeaderEpoch())
	}
}
