package model_test

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Kafka's SharePartitionState answers (initializedOrThrowException, maybeInitialize).
func TestLifecycle(t *testing.T) {
	cfg := model.DefaultConfig()
	sp, err := model.NewUninitialized(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	if sp.State() != model.PartitionEmpty || sp.CanAcquire() {
		t.Fatalf("new: %v, can acquire %v", sp.State(), sp.CanAcquire())
	}
	// An acknowledgement finds an empty cache: INVALID_RECORD_STATE.
	if _, err := sp.Acknowledge(0, "c1", []model.AckRange{{First: 0, Last: 0, Types: []model.AckType{model.AckAccept}}}); model.CodeOf(err) != model.ErrInvalidRecordState {
		t.Errorf("ack while EMPTY: %v", err)
	}
	if _, err := sp.BeginFetch(); model.CodeOf(err) != model.ErrLeaderNotAvailable {
		t.Errorf("BeginFetch while EMPTY: %v", err)
	}
	read, err := sp.MaybeInitialize()
	if !read || err != nil || sp.State() != model.PartitionInitializing {
		t.Fatalf("first MaybeInitialize: %v %v %v", read, err, sp.State())
	}
	if read, err := sp.MaybeInitialize(); read || model.CodeOf(err) != model.ErrLeaderNotAvailable {
		t.Errorf("MaybeInitialize while INITIALIZING: %v %v, want LEADER_NOT_AVAILABLE", read, err)
	}
	if _, err := sp.Acquire(0, "c1", model.FetchParams{MaxRecords: 5, BatchSize: 5}, []model.LogBatch{{First: 0, Last: 4}}, nil); model.CodeOf(err) != model.ErrLeaderNotAvailable {
		t.Errorf("Acquire while INITIALIZING: %v", err)
	}
	// A failed read: FAILED, with the persister's error mapped.
	cases := []struct{ persister, want model.ErrorCode }{
		{model.ErrNotCoordinator, model.ErrCoordinatorNotAvailable},
		{model.ErrCoordinatorLoadInProgress, model.ErrCoordinatorNotAvailable},
		{model.ErrCoordinatorNotAvailable, model.ErrCoordinatorNotAvailable},
		{model.ErrGroupIDNotFound, model.ErrGroupIDNotFound},
		{model.ErrUnknownTopicOrPartition, model.ErrUnknownTopicOrPartition},
		{model.ErrFencedLeaderEpoch, model.ErrNotLeaderOrFollower},
		{model.ErrFencedStateEpoch, model.ErrNotLeaderOrFollower},
		{model.ErrSaslAuthenticationFailed, model.ErrUnknownServerError},
		{model.ErrUnsupportedVersion, model.ErrUnknownServerError},
		{model.ErrInvalidRequest, model.ErrUnknownServerError},
	}
	for _, c := range cases {
		if err := sp.Reset(7); err != nil && sp.State() != model.PartitionInitializing {
			t.Fatalf("Reset: %v", err)
		}
		if sp.State() == model.PartitionEmpty {
			sp.MaybeInitialize()
		}
		err := sp.CompleteInitialize(model.Snapshot{}, &model.Error{Code: c.persister, Offset: -1}, 0)
		if got := model.CodeOf(err); got != c.want || sp.State() != model.PartitionFailed {
			t.Errorf("read failing with %v: %v in %v, want %v in FAILED", c.persister, got, sp.State(), c.want)
		}
		if _, err := sp.MaybeInitialize(); model.CodeOf(err) != model.ErrUnknownServerError {
			t.Errorf("MaybeInitialize when FAILED: %v, want UNKNOWN_SERVER_ERROR", err)
		}
	}
	// A malformed snapshot also fails (Kafka's IllegalStateException).
	if err := sp.Reset(8); err != nil {
		t.Fatal(err)
	}
	sp.MaybeInitialize()
	bad := model.Snapshot{StateEpoch: 2, StartOffset: 10, Batches: []model.PersistedBatch{{First: 5, Last: 6, State: model.Archived, DeliveryCount: 1}}}
	if err := sp.CompleteInitialize(bad, nil, 0); model.CodeOf(err) != model.ErrUnknownServerError || sp.State() != model.PartitionFailed {
		t.Errorf("malformed snapshot: %v %v", err, sp.State())
	}
	// Re-initialisation of the same value: EMPTY again, then ACTIVE with the stored epochs.
	if err := sp.Reset(9); err != nil || sp.State() != model.PartitionEmpty || sp.LeaderEpoch() != 9 {
		t.Fatalf("Reset: %v %v", err, sp.State())
	}
	sp.MaybeInitialize()
	good := model.Snapshot{StateEpoch: 5, LeaderEpoch: 8, StartOffset: 3, DeliveryCompleteCount: 1,
		Batches: []model.PersistedBatch{{First: 3, Last: 4, State: model.Available, DeliveryCount: 2}, {First: 5, Last: 5, State: model.Acknowledged, DeliveryCount: 1}}}
	if err := sp.CompleteInitialize(good, nil, 0); err != nil || sp.State() != model.PartitionActive {
		t.Fatalf("CompleteInitialize: %v %v", err, sp.State())
	}
	if sp.StateEpoch() != 5 || sp.LeaderEpoch() != 9 || sp.StartOffset() != 3 || sp.NextFetchOffset() != 3 {
		t.Errorf("loaded: state epoch %d leader epoch %d spso %d next %d", sp.StateEpoch(), sp.LeaderEpoch(), sp.StartOffset(), sp.NextFetchOffset())
	}
	if err := sp.CompleteInitialize(good, nil, 0); model.CodeOf(err) != model.ErrInvalidArgument {
		t.Errorf("CompleteInitialize when ACTIVE: %v", err)
	}
	if err := sp.Reset(10); model.CodeOf(err) != model.ErrInvalidArgument {
		t.Errorf("Reset when ACTIVE: %v", err)
	}
	// FENCED: operations answer NOT_LEADER_OR_FOLLOWER, MaybeInitialize LEADER_NOT_AVAILABLE.
	sp.Fence()
	if _, err := sp.MaybeInitialize(); model.CodeOf(err) != model.ErrLeaderNotAvailable {
		t.Errorf("MaybeInitialize when FENCED: %v", err)
	}
	if _, err := sp.Acknowledge(0, "c1", []model.AckRange{{First: 3, Last: 3, Types: []model.AckType{model.AckAccept}}}); model.CodeOf(err) != model.ErrNotLeaderOrFollower {
		t.Errorf("ack when FENCED: %v", err)
	}
}

// Kafka's SharePartition.fetchPersisterError and SharePartitionManager's fencing handler.
func TestPersisterErrorMapping(t *testing.T) {
	cases := []struct {
		code    model.ErrorCode
		want    model.ErrorCode
		fencing bool
	}{
		{model.ErrNotCoordinator, model.ErrCoordinatorNotAvailable, false},
		{model.ErrCoordinatorNotAvailable, model.ErrCoordinatorNotAvailable, false},
		{model.ErrCoordinatorLoadInProgress, model.ErrCoordinatorNotAvailable, false},
		{model.ErrGroupIDNotFound, model.ErrGroupIDNotFound, true},
		{model.ErrUnknownTopicOrPartition, model.ErrUnknownTopicOrPartition, true},
		{model.ErrFencedLeaderEpoch, model.ErrNotLeaderOrFollower, true},
		{model.ErrFencedStateEpoch, model.ErrNotLeaderOrFollower, true},
		{model.ErrSaslAuthenticationFailed, model.ErrUnknownServerError, false},
		{model.ErrUnsupportedVersion, model.ErrUnknownServerError, false},
		{model.ErrInvalidRequest, model.ErrUnknownServerError, false},
		{model.ErrUnknownServerError, model.ErrUnknownServerError, false},
		{model.ErrNotLeaderOrFollower, model.ErrUnknownServerError, false}, // not a persister code: unnamed
	}
	seen := map[model.ErrorCode]bool{}
	for _, c := range cases {
		err := &model.Error{Code: c.code, Offset: -1}
		seen[c.code] = true
		if got := model.PersisterError(err); got != c.want {
			t.Errorf("%v → %v, want %v", c.code, got, c.want)
		}
		if got := model.IsFencingWriteError(err); got != c.fencing {
			t.Errorf("%v fencing = %v, want %v", c.code, got, c.fencing)
		}
		if n, ok := model.ParseErrorCode(c.code.String()); !ok || n != c.code {
			t.Errorf("ParseErrorCode(%s) = %v %v", c.code, n, ok)
		}
	}
	for _, c := range model.PersisterErrors {
		if !seen[c] {
			t.Errorf("persister error %v has no case", c)
		}
	}
	if model.PersisterError(nil) != model.ErrNone || model.IsFencingWriteError(nil) {
		t.Error("nil error")
	}
}
