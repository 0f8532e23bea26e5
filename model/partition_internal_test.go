package model

import (
	"testing"
	"unsafe"
)

// The per-offset record must stay small: memory grows with the in-flight window.
func TestRecSize(t *testing.T) {
	if s := unsafe.Sizeof(rec{}); s != 24 {
		t.Errorf("rec is %d bytes, want 24", s)
	}
}

// manyLocks is a share-partition holding n locks, each over one record of its own batch.
func manyLocks(t *testing.T, n int) *SharePartition {
	t.Helper()
	sp, err := New(DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var log []LogBatch
	for i := 0; i < n; i++ {
		log = append(log, LogBatch{First: int64(i), Last: int64(i)})
	}
	for i := 0; i < n; i++ {
		if _, err := sp.Acquire(0, "m1", FetchParams{MaxRecords: 1, BatchSize: 1}, log[i:], nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.CheckConsistency(); err != nil {
		t.Fatalf("consistent share-partition: %v", err)
	}
	return sp
}

// With more locks than the small table holds, CheckConsistency counts instead, and still
// catches a record whose lock has another deadline than its heap entry, or no entry.
func TestCheckConsistencyCountsManyLocks(t *testing.T) {
	sp := manyLocks(t, 40)
	sp.batches[7].whole.deadline++
	if sp.batches[7].recs != nil {
		sp.batches[7].recs[0].deadline++
	}
	if err := sp.CheckConsistency(); err == nil {
		t.Fatal("a lock with another deadline than its heap entry passed")
	}
	sp = manyLocks(t, 40)
	sp.locks = sp.locks[1:] // an entry lost: its record's lock has no heap entry
	if err := sp.CheckConsistency(); err == nil {
		t.Fatal("a live lock without a heap entry passed")
	}
}

// Stale heap entries are compacted away, so the heap follows the live locks, not the
// acquisitions made within one lock duration; the live ones still fire.
func TestStaleLockEntriesCompacted(t *testing.T) {
	sp, err := New(DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 10_000; i++ {
		log := []LogBatch{{First: i, Last: i}}
		if _, err := sp.Acquire(0, "m1", FetchParams{MaxRecords: 1, BatchSize: 1}, log, nil); err != nil {
			t.Fatal(err)
		}
		w, err := sp.Acknowledge(0, "m1", []AckRange{{First: i, Last: i, Types: []AckType{AckAccept}}})
		if err != nil {
			t.Fatalf("ack %d: %v", i, err)
		}
		if w != nil {
			if err := sp.CompleteWrite(0, w.ID, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(sp.locks); n > 4*minLockCompaction {
		t.Fatalf("%d heap entries after 10000 acquire-and-accept rounds with time standing still", n)
	}
	if err := sp.CheckConsistency(); err != nil {
		t.Fatal(err)
	}
}
