package plog

import "testing"

// Segments: rolled by size and by time on append; retention deletes closed segments only.

func TestSegmentsRollBySize(t *testing.T) {
	l := New()
	l.Segmented(1000, -1)
	for i := 0; i < 10; i++ {
		l.AppendSized(10, 300, int64(i), 0, 0) // 300 bytes: three batches fit in 1000
	}
	if got := l.SegmentBases(); len(got) != 4 || got[0] != 0 || got[1] != 30 || got[2] != 60 || got[3] != 90 {
		t.Errorf("segment bases %v, want [0 30 60 90]", got)
	}
	if l.Size() != 3000 {
		t.Errorf("size %d, want 3000", l.Size())
	}
}

func TestSegmentsRollByTime(t *testing.T) {
	l := New()
	l.Segmented(1<<30, 100)
	for ts := int64(0); ts < 350; ts += 50 {
		l.AppendSized(1, 10, ts, 0, 0)
	}
	// Batches at 0, 50 | 100, 150 | 200, 250 | 300: a batch 100 ms after a segment's first rolls.
	if got := l.SegmentBases(); len(got) != 4 || got[1] != 2 || got[2] != 4 || got[3] != 6 {
		t.Errorf("segment bases %v, want [0 2 4 6]", got)
	}
}

// Retention by time deletes closed segments whose newest batch is older than retention.ms,
// never the active segment, however old.
func TestSegmentRetentionByTime(t *testing.T) {
	l := New()
	l.Segmented(25, -1)
	for ts := int64(0); ts < 10; ts++ {
		l.AppendSized(1, 10, ts*1000, 0, 0) // two batches per segment
	}
	// Segments [0,2) ts≤1000, [2,4) ≤3000, [4,6) ≤5000, [6,8) ≤7000, [8,10) active.
	start, del := l.ApplySegmentRetention(6500, 2000, -1)
	if start != 4 || del != 4 {
		t.Errorf("start %d deleted %d, want 4 and 4 (segments with newest < 4500)", start, del)
	}
	start, _ = l.ApplySegmentRetention(1_000_000, 0, -1)
	if start != 8 || l.Segments() != 1 {
		t.Errorf("start %d with %d segments, want 8 and only the active segment left", start, l.Segments())
	}
	if b, ok := l.BatchAt(8); !ok || b.First != 8 {
		t.Errorf("batch 8 gone after retention")
	}
}

// Retention by size deletes the oldest closed segments while what remains stays at or above
// retention.bytes.
func TestSegmentRetentionBySize(t *testing.T) {
	l := New()
	l.Segmented(100, -1)
	for i := 0; i < 10; i++ {
		l.AppendSized(5, 50, int64(i), 0, 0) // segments of 2 batches, 100 bytes each
	}
	start, _ := l.ApplySegmentRetention(0, -1, 250)
	// 500 bytes in 5 segments: deleting two leaves 300 ≥ 250, a third would leave 200.
	if start != 20 || l.Size() != 300 {
		t.Errorf("start %d size %d, want 20 and 300", start, l.Size())
	}
}

// DeleteRecords stays exact at any offset; the segments it passes wholly are then removed.
func TestSegmentDeleteRecords(t *testing.T) {
	l := New()
	l.Segmented(100, -1)
	for i := 0; i < 6; i++ {
		l.AppendSized(5, 50, int64(i), 0, 0)
	}
	if got := l.DeleteRecords(13); got != 13 || l.StartOffset() != 13 {
		t.Fatalf("DeleteRecords(13) = %d", got)
	}
	start, _ := l.ApplySegmentRetention(0, -1, -1)
	if start != 13 || l.Segments() != 2 {
		t.Errorf("start %d, %d segments; want 13 and 2 (segment [0,10) removed, [10,20) keeps offsets 13..19)", start, l.Segments())
	}
}

// Retention never passes the last stable offset.
func TestSegmentRetentionStopsAtLSO(t *testing.T) {
	l := New()
	l.Segmented(10, -1)
	l.AppendSized(1, 10, 0, 0, 7) // an open transaction at offset 0
	for i := 1; i < 5; i++ {
		l.AppendSized(1, 10, int64(i), 0, 0)
	}
	if start, _ := l.ApplySegmentRetention(1000, 0, -1); start != 0 {
		t.Errorf("start %d, want 0: the open transaction holds retention back", start)
	}
}
