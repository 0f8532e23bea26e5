package model

import "testing"

// Kafka's AcquisitionLockTimeoutPerSec is marked with a firing timer's whole range, before
// the timeout handler looks at the records (AcquisitionLockTimerTask.run); the timer is
// cancelled only when an acknowledgement's write commits. One batch of 10 offsets is
// acquired; offsets 0–4 are accepted with the write still outstanding and 5–9 are untouched
// when the lock fires: Kafka counts 10, the records a firing lock releases are 5 (the other
// five wait for their write). A second batch whose acceptance committed before its lock
// fires counts nothing: its timer was cancelled.
func TestLockTimerOffsetsCountTheTimersRange(t *testing.T) {
	cfg := DefaultConfig()
	sp, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := FetchParams{MaxRecords: 10, BatchSize: 10}
	if _, err := sp.Acquire(0, "m", p, []LogBatch{{First: 0, Last: 9}}, nil); err != nil {
		t.Fatal(err)
	}
	w, err := sp.Acknowledge(10, "m", []AckRange{{First: 0, Last: 4, Types: []AckType{AckAccept}}})
	if err != nil || w == nil {
		t.Fatalf("ack: %v, write %v", err, w)
	}
	ws := sp.ExpireLocks(cfg.RecordLockDurationMs, nil)
	st := sp.Stats()
	if st.LockTimerOffsets != 10 || st.AcquisitionLockTimeouts != 5 {
		t.Fatalf("Kafka's timer count %d (want 10), released by the lock %d (want 5)", st.LockTimerOffsets, st.AcquisitionLockTimeouts)
	}
	for _, x := range append(ws, w) {
		if err := sp.CompleteWrite(cfg.RecordLockDurationMs, x.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Second batch: accepted and written before its lock's deadline.
	now := cfg.RecordLockDurationMs + 1
	if _, err := sp.Acquire(now, "m", p, []LogBatch{{First: 10, Last: 19}}, nil); err != nil {
		t.Fatal(err)
	}
	w, err = sp.Acknowledge(now+1, "m", []AckRange{{First: 10, Last: 19, Types: []AckType{AckAccept}}})
	if err != nil || w == nil {
		t.Fatalf("ack: %v", err)
	}
	if err := sp.CompleteWrite(now+2, w.ID, nil); err != nil {
		t.Fatal(err)
	}
	sp.ExpireLocks(now+cfg.RecordLockDurationMs, nil)
	if got := sp.Stats().LockTimerOffsets; got != 10 {
		t.Errorf("after a committed acceptance the timer count went to %d, want it to stay 10 (the timer was cancelled)", got)
	}
}
