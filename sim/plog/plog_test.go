package plog

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/sharesim/sharesim/model"
)

type lb = model.LogBatch

// d and ab build the batches a read is expected to return: plain and aborted.
func d(first, last int64) lb  { return lb{First: first, Last: last} }
func ab(first, last int64) lb { return lb{First: first, Last: last, Aborted: true} }

// op is one step of a scripted log build.
type op struct {
	n      int   // records of a data batch; 0 means a marker
	ts     int64 // timestamp
	txn    int64
	commit bool // for markers
}

func data(n int, ts, txn int64) op         { return op{n: n, ts: ts, txn: txn} }
func marker(ts, txn int64, commit bool) op { return op{ts: ts, txn: txn, commit: commit} }

func build(ops ...op) *Log {
	l := New()
	for _, o := range ops {
		if o.n == 0 {
			l.AppendControl(o.ts, 1, o.txn, o.commit)
		} else {
			l.AppendRecords(o.n, o.ts, 1, o.txn)
		}
	}
	return l
}

// fixture is the log used by most table tests:
//
//	0-2   data            ts 100
//	3-4   txn 7           ts 110  (aborted by 8)
//	5-7   data            ts 120  (compacted)
//	8     abort txn 7     ts 130
//	9-10  txn 9           ts 140
//	11    commit txn 9    ts 150
//	12-14 data            ts 160
//	15-16 txn 11 (open)   ts 170
//	17-19 data            ts 180
func fixture(t testing.TB) *Log {
	l := build(data(3, 100, 0), data(2, 110, 7), data(3, 120, 0), marker(130, 7, false),
		data(2, 140, 9), marker(150, 9, true), data(3, 160, 0), data(2, 170, 11), data(3, 180, 0))
	if !l.Compact(6) {
		t.Fatal("Compact(6) refused")
	}
	return l
}

func TestAppendOffsets(t *testing.T) {
	l := New()
	steps := []struct {
		op          op
		first, last int64
		control     bool
	}{
		{data(1, 5, 0), 0, 0, false},
		{data(4, 6, 0), 1, 4, false},
		{data(2, 7, 3), 5, 6, false},
		{marker(8, 3, true), 7, 7, true},
		{data(10, 9, 0), 8, 17, false},
	}
	for i, s := range steps {
		var b Batch
		if s.op.n == 0 {
			b = l.AppendControl(s.op.ts, 2, s.op.txn, s.op.commit)
		} else {
			b = l.AppendRecords(s.op.n, s.op.ts, 2, s.op.txn)
		}
		want := Batch{First: s.first, Last: s.last, TimestampMs: s.op.ts, Producer: 2, Txn: s.op.txn, Control: s.control}
		if b != want {
			t.Fatalf("step %d: got %+v, want %+v", i, b, want)
		}
		if got, _ := l.BatchAt(s.last); got != want {
			t.Fatalf("step %d: BatchAt(%d) = %+v", i, s.last, got)
		}
		if l.EndOffset() != s.last+1 || l.Records() != s.last+1 || l.Len() != i+1 || l.StartOffset() != 0 {
			t.Fatalf("step %d: end %d records %d len %d start %d", i, l.EndOffset(), l.Records(), l.Len(), l.StartOffset())
		}
	}
}

func TestRead(t *testing.T) {
	l := fixture(t)
	end, lso := l.EndOffset(), l.LastStableOffset()
	if end != 20 || lso != 15 {
		t.Fatalf("end %d lso %d, want 20 15", end, lso)
	}
	cases := []struct {
		name            string
		from, max, upTo int64
		want            []lb
	}{
		{"from batch start", 0, 1, end, []lb{d(0, 2)}},
		{"from inside batch", 1, 1, end, []lb{d(0, 2)}},
		{"covers from inside", 1, 2, end, []lb{d(0, 2)}},
		{"needs second batch", 1, 3, end, []lb{d(0, 2), ab(3, 4)}},
		{"max 0 still one batch", 3, 0, end, []lb{ab(3, 4)}},
		{"aborted data and its marker", 3, 6, end, []lb{ab(3, 4), d(8, 8)}},
		{"from compaction gap", 6, 1, end, []lb{d(8, 8)}},
		{"gap counts toward max", 5, 4, end, []lb{d(8, 8)}},
		{"committed txn and marker", 9, 3, end, []lb{d(9, 10), d(11, 11)}},
		{"whole log uncommitted", 0, 100, end, []lb{d(0, 2), ab(3, 4), d(8, 8),
			d(9, 10), d(11, 11), d(12, 14), d(15, 16), d(17, 19)}},
		{"read_committed stops at open txn", 12, 100, lso, []lb{d(12, 14)}},
		{"read_committed at LSO is empty", 15, 100, lso, nil},
		{"read_uncommitted past open txn", 15, 3, end, []lb{d(15, 16), d(17, 19)}},
		{"at end", 20, 5, end, nil},
		{"beyond end", 25, 5, end, nil},
		{"upTo cuts mid batch", 0, 100, 4, []lb{d(0, 2)}},
	}
	for _, c := range cases {
		got := l.Read(c.from, c.max, c.upTo, nil)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Read(%d,%d,%d) = %v, want %v", c.name, c.from, c.max, c.upTo, got, c.want)
		}
	}
	// Appending: what is in out is kept.
	out := l.Read(0, 1, end, []lb{d(-5, -5)})
	if !reflect.DeepEqual(out, []lb{d(-5, -5), d(0, 2)}) {
		t.Errorf("Read does not append: %v", out)
	}
	// Closing txn 11 by abort unblocks read_committed and flags its data.
	l.AppendControl(190, 1, 11, false)
	if l.LastStableOffset() != 21 || l.IsOpen(11) {
		t.Fatalf("after abort: lso %d open %v", l.LastStableOffset(), l.IsOpen(11))
	}
	got := l.Read(12, 100, l.LastStableOffset(), nil)
	want := []lb{d(12, 14), ab(15, 16), d(17, 19), d(20, 20)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after abort: %v, want %v", got, want)
	}
}

func TestTransactions(t *testing.T) {
	// Interleaved transactions: the LSO is the first offset of the earliest open one.
	l := build(data(2, 1, 1), data(2, 2, 2), data(2, 3, 1), data(1, 4, 0))
	steps := []struct {
		op      op
		lso     int64
		open1   bool
		open2   bool
		aborted []int64 // offsets of batches flagged Aborted afterwards
	}{
		{marker(5, 2, false), 0, true, false, []int64{2}},
		{marker(6, 1, true), 9, false, false, []int64{2}},
		{data(1, 7, 2), 9, false, true, []int64{2}}, // txn 2 reused: a new transaction
		{marker(8, 2, false), 11, false, false, []int64{2, 9}},
		{marker(9, 1, false), 12, false, false, []int64{2, 9}}, // not open: just a marker
	}
	for i, s := range steps {
		if s.op.n == 0 {
			l.AppendControl(s.op.ts, 1, s.op.txn, s.op.commit)
		} else {
			l.AppendRecords(s.op.n, s.op.ts, 1, s.op.txn)
		}
		if l.LastStableOffset() != s.lso || l.IsOpen(1) != s.open1 || l.IsOpen(2) != s.open2 {
			t.Fatalf("step %d: lso %d open1 %v open2 %v", i, l.LastStableOffset(), l.IsOpen(1), l.IsOpen(2))
		}
		var aborted []int64
		for off := int64(0); off < l.EndOffset(); off++ {
			if b, _ := l.BatchAt(off); b.Aborted && b.First == off {
				aborted = append(aborted, off)
			}
		}
		if !reflect.DeepEqual(aborted, s.aborted) {
			t.Fatalf("step %d: aborted batches at %v, want %v", i, aborted, s.aborted)
		}
	}
}

func TestOffsetForTime(t *testing.T) {
	l := fixture(t) // batch 5-7 (ts 120) is compacted
	cases := []struct {
		ms   int64
		want int64
		ok   bool
	}{
		{0, 0, true}, {100, 0, true}, {101, 3, true}, {110, 3, true},
		{111, 8, true}, // 5-7 is compacted, the abort marker at 8 has ts 130
		{130, 8, true}, {131, 9, true}, {180, 17, true}, {181, 20, false},
	}
	for _, c := range cases {
		got, ok := l.OffsetForTime(c.ms)
		if got != c.want || ok != c.ok {
			t.Errorf("OffsetForTime(%d) = %d,%v, want %d,%v", c.ms, got, ok, c.want, c.ok)
		}
	}
	// Non-monotonic timestamps: the first batch with a late enough timestamp wins.
	l = build(data(2, 50, 0), data(2, 10, 0), data(2, 60, 0), data(2, 20, 0))
	for _, c := range []struct{ ms, want int64 }{{10, 0}, {51, 4}, {55, 4}} {
		if got, ok := l.OffsetForTime(c.ms); got != c.want || !ok {
			t.Errorf("non-monotonic OffsetForTime(%d) = %d,%v, want %d", c.ms, got, ok, c.want)
		}
	}
	// The start inside a batch: the answer is not below the start.
	l.DeleteRecords(1)
	if got, _ := l.OffsetForTime(0); got != 1 {
		t.Errorf("after DeleteRecords(1): OffsetForTime(0) = %d, want 1", got)
	}
}

func TestHasRecordAndBatchAt(t *testing.T) {
	l := fixture(t)
	l.DeleteRecords(1)
	cases := []struct {
		off       int64
		has, held bool
		first     int64
	}{
		{-1, false, false, 0},
		{0, false, false, 0}, // deleted by DeleteRecords
		{1, true, true, 0},   // start inside batch 0-2
		{3, true, true, 3},   // aborted data still holds records
		{6, false, true, 5},  // compacted: held, flagged
		{8, false, true, 8},  // abort marker
		{11, false, true, 11},
		{15, true, true, 15}, // open transaction
		{19, true, true, 17},
		{20, false, false, 0},
	}
	for _, c := range cases {
		if got := l.HasRecord(c.off); got != c.has {
			t.Errorf("HasRecord(%d) = %v", c.off, got)
		}
		b, ok := l.BatchAt(c.off)
		if ok != c.held || (ok && b.First != c.first) {
			t.Errorf("BatchAt(%d) = %+v,%v", c.off, b, ok)
		}
	}
	if b, _ := l.BatchAt(6); !b.Compacted {
		t.Errorf("BatchAt(6) not flagged compacted: %+v", b)
	}
	// Compaction refusals.
	for _, off := range []int64{0, 6, 8, 15, 17, 20} {
		if l.Compact(off) {
			t.Errorf("Compact(%d) accepted", off)
		}
	}
	if !l.Compact(12) || l.HasRecord(13) {
		t.Error("Compact(12) failed")
	}
}

func TestRetention(t *testing.T) {
	// Batches: 0-3 ts 10, 4-5 ts 20 txn 5, 6 commit ts 30, 7-9 ts 40, 10-11 ts 50 txn 6 (open),
	// 12-14 ts 60. LSO = 10.
	mk := func() *Log {
		return build(data(4, 10, 0), data(2, 20, 5), marker(30, 5, true), data(3, 40, 0),
			data(2, 50, 6), data(3, 60, 0))
	}
	cases := []struct {
		name                 string
		now, ms, recs        int64
		wantStart, wantDel   int64
		wantLen              int
		wantFirstReadFrom    int64
		wantFirstBatchOfRead int64
	}{
		{"disabled", 1000, -1, -1, 0, 0, 6, 0, 0},
		{"time nothing expired", 100, 95, -1, 0, 0, 6, 0, 0},
		{"time expires first", 100, 85, -1, 4, 4, 5, 4, 4},
		{"time boundary is strict", 100, 90, -1, 0, 0, 6, 0, 0},
		{"time expires up to marker", 100, 65, -1, 7, 7, 3, 7, 7},
		{"time stops at open txn", 1000, 0, -1, 10, 10, 2, 10, 10},
		{"records keeps at least limit", 0, -1, 10, 4, 4, 5, 4, 4},
		{"records exact fit", 0, -1, 11, 4, 4, 5, 4, 4},
		{"records 9", 0, -1, 9, 6, 6, 4, 6, 6},
		{"records 8", 0, -1, 8, 7, 7, 3, 7, 7},
		{"records 0 stops at open txn", 0, -1, 0, 10, 10, 2, 10, 10},
		{"either limit", 100, 85, 8, 7, 7, 3, 7, 7},
	}
	for _, c := range cases {
		l := mk()
		start, del := l.ApplyRetention(c.now, c.ms, c.recs)
		if start != c.wantStart || del != c.wantDel || l.StartOffset() != c.wantStart || l.Len() != c.wantLen {
			t.Errorf("%s: got start %d deleted %d len %d, want %d %d %d", c.name, start, del, l.Len(), c.wantStart, c.wantDel, c.wantLen)
			continue
		}
		if got := l.Read(c.wantFirstReadFrom, 1, l.EndOffset(), nil); len(got) != 1 || got[0].First != c.wantFirstBatchOfRead {
			t.Errorf("%s: read after retention %v", c.name, got)
		}
		if c.wantStart > 0 && l.Read(c.wantStart-1, 1, l.EndOffset(), nil) != nil {
			t.Errorf("%s: read below start returned data", c.name)
		}
	}
	// Once the transaction commits, retention may pass it.
	l := mk()
	l.AppendControl(70, 1, 6, true)
	if start, _ := l.ApplyRetention(1000, 0, -1); start != 16 || l.Len() != 0 || l.Records() != 0 {
		t.Fatalf("after commit: start %d len %d", start, l.Len())
	}
	// The log can be reused after it was emptied.
	if b := l.AppendRecords(2, 80, 1, 0); b.First != 16 || l.Read(16, 1, 18, nil)[0] != (d(16, 17)) {
		t.Fatalf("append after empty: %+v", b)
	}
}

func TestDeleteRecordsInsideBatch(t *testing.T) {
	l := build(data(5, 1, 0), data(5, 2, 0), data(5, 3, 0))
	if got := l.DeleteRecords(7); got != 7 || l.StartOffset() != 7 || l.Len() != 2 || l.Records() != 8 {
		t.Fatalf("DeleteRecords(7) = %d, start %d len %d records %d", got, l.StartOffset(), l.Len(), l.Records())
	}
	for off := int64(0); off < 15; off++ {
		if l.HasRecord(off) != (off >= 7) {
			t.Errorf("HasRecord(%d) = %v", off, l.HasRecord(off))
		}
	}
	if got := l.Read(7, 1, 15, nil); !reflect.DeepEqual(got, []lb{d(5, 9)}) {
		t.Errorf("Read(7) = %v, want the whole batch containing it", got)
	}
	if got := l.Read(6, 1, 15, nil); got != nil {
		t.Errorf("Read(6) below start = %v", got)
	}
	if l.DeleteRecords(3) != 7 {
		t.Error("DeleteRecords went backwards")
	}
	if l.DeleteRecords(99) != 15 || l.Len() != 0 || l.LastStableOffset() != 15 {
		t.Error("DeleteRecords past the end not capped")
	}
	// An open transaction whose start is deleted: the LSO follows the start.
	l = build(data(2, 1, 4), data(2, 2, 0))
	l.DeleteRecords(3)
	if l.LastStableOffset() != 3 {
		t.Errorf("LSO %d, want 3", l.LastStableOffset())
	}
	// Time retention uses the whole batch, even if its start is already deleted.
	l = build(data(5, 10, 0), data(5, 20, 0))
	l.DeleteRecords(2)
	if s, d := l.ApplyRetention(100, 85, -1); s != 5 || d != 3 {
		t.Errorf("retention after DeleteRecords: start %d deleted %d", s, d)
	}
}

func TestForget(t *testing.T) {
	// 0-3 ts 10, 4-7 ts 20, 8-11 ts 5, 12-15 ts 30.
	l := build(data(4, 10, 0), data(4, 20, 0), data(4, 5, 0), data(4, 30, 0))
	l.DeleteRecords(2)
	l.Forget(1) // below the start: nothing to drop
	if l.Len() != 4 || l.KnownFrom() != 2 {
		t.Fatalf("Forget(1): len %d known %d", l.Len(), l.KnownFrom())
	}
	l.Forget(6) // drops 0-3 only (4-7 is not wholly below 6)
	if l.Len() != 3 || l.KnownFrom() != 4 || l.StartOffset() != 2 || l.Records() != 14 {
		t.Fatalf("Forget(6): len %d known %d start %d", l.Len(), l.KnownFrom(), l.StartOffset())
	}
	l.Forget(12) // drops 4-7 and 8-11
	if l.Len() != 1 || l.KnownFrom() != 12 || l.StartOffset() != 2 {
		t.Fatalf("Forget(12): len %d known %d start %d", l.Len(), l.KnownFrom(), l.StartOffset())
	}
	for off := int64(0); off < 16; off++ {
		_, held := l.BatchAt(off)
		read := l.Read(off, 1, 16, nil)
		if want := off >= 12; l.HasRecord(off) != want || held != want || (len(read) == 1) != want {
			t.Errorf("off %d: HasRecord %v BatchAt %v Read %v", off, l.HasRecord(off), held, read)
		}
	}
	if got, ok := l.OffsetForTime(0); got != 12 || !ok {
		t.Errorf("OffsetForTime(0) = %d,%v, want 12 (forgotten offsets are not searched)", got, ok)
	}
	// Retention treats [2,12) as one batch with timestamp 20 (the greatest before 12).
	if s, d := l.ApplyRetention(100, 81, -1); s != 2 || d != 0 {
		t.Errorf("retention kept nothing young: start %d deleted %d", s, d)
	}
	if s, d := l.ApplyRetention(100, 79, -1); s != 12 || d != 10 || l.Len() != 1 {
		t.Errorf("retention of the forgotten range: start %d deleted %d", s, d)
	}
	if l.KnownFrom() != 12 || !l.HasRecord(12) {
		t.Error("known range changed")
	}
	l.Forget(100)
	if l.Len() != 0 || l.KnownFrom() != 16 || l.StartOffset() != 12 {
		t.Errorf("Forget(100): len %d known %d start %d", l.Len(), l.KnownFrom(), l.StartOffset())
	}
}

// TestMemoryIsBounded appends and forgets in a long steady state: the slice stays small and
// no allocation happens once it has grown.
func TestMemoryIsBounded(t *testing.T) {
	l := New()
	for i := 0; i < 1000; i++ {
		l.AppendRecords(3, int64(i), 1, 0)
	}
	l.Forget(l.EndOffset() - 300)
	allocs := testing.AllocsPerRun(100, func() {
		for i := 0; i < 1000; i++ {
			l.AppendRecords(3, int64(i), 1, int64(i%3))
			if i%3 == 2 {
				l.AppendControl(int64(i), 1, 1, i%2 == 0)
				l.AppendControl(int64(i), 1, 2, true)
			}
			l.Forget(l.EndOffset() - 300)
			l.ApplyRetention(int64(i), -1, 600)
		}
	})
	if allocs != 0 {
		t.Errorf("steady state allocates: %v per run", allocs)
	}
	if l.Len() > 200 || cap(l.bs) > 2048 {
		t.Errorf("memory grew: len %d cap %d", l.Len(), cap(l.bs))
	}
}

// xorshift is a tiny deterministic generator for the randomized test.
type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return uint64(*x)
}

// intn returns a number in [0, n).
func (x *xorshift) intn(n int) int { return int(x.next() % uint64(n)) }

// ref is a naive model of the log: every batch ever appended stays in all, and of maps each
// offset to its batch. Lookups walk offsets one by one.
type ref struct {
	all                []Batch
	of                 []int
	start, end, forgot int64
	open               map[int64]int64
}

func (r *ref) known() int64 { return max(r.start, r.forgot) }

func (r *ref) lso() int64 {
	lso := r.end
	for _, first := range r.open { // a minimum: independent of order
		lso = min(lso, max(first, r.start))
	}
	return lso
}

func (r *ref) append(b Batch) {
	b.First, b.Last = r.end, r.end+b.Last
	if b.Txn != 0 && !b.Control {
		if _, ok := r.open[b.Txn]; !ok {
			r.open[b.Txn] = b.First
		}
	}
	if b.Control {
		if first, ok := r.open[b.Txn]; ok {
			delete(r.open, b.Txn)
			if b.Aborted {
				for i := range r.all {
					if r.all[i].Txn == b.Txn && !r.all[i].Control && r.all[i].First >= first {
						r.all[i].Aborted = true
					}
				}
			}
		}
		b.Aborted = false
	}
	r.all = append(r.all, b)
	for off := b.First; off <= b.Last; off++ {
		r.of = append(r.of, len(r.all)-1)
	}
	r.end = b.Last + 1
}

func (r *ref) batchAt(off int64) (Batch, bool) {
	if off < r.known() || off >= r.end {
		return Batch{}, false
	}
	return r.all[r.of[off]], true
}

func (r *ref) hasRecord(off int64) bool {
	b, ok := r.batchAt(off)
	return ok && !b.Control && !b.Compacted
}

func (r *ref) read(from, maxOffsets, upTo int64) []lb {
	if from < r.known() {
		return nil
	}
	var out []lb
	for off := from; off < r.end; {
		b := r.all[r.of[off]]
		off = b.Last + 1
		if b.Last >= upTo {
			break
		}
		if b.Compacted {
			continue
		}
		out = append(out, lb{First: b.First, Last: b.Last, Aborted: b.Aborted})
		if b.Last-from+1 >= maxOffsets {
			break
		}
	}
	return out
}

func (r *ref) offsetForTime(ms int64) (int64, bool) {
	for off := r.known(); off < r.end; {
		b := r.all[r.of[off]]
		if !b.Compacted && b.TimestampMs >= ms {
			return off, true
		}
		off = b.Last + 1
	}
	return r.end, false
}

func (r *ref) compact(off int64) bool {
	b, ok := r.batchAt(off)
	if !ok || b.Control || b.Compacted || b.Last >= r.lso() {
		return false
	}
	r.all[r.of[off]].Compacted = true
	return true
}

func (r *ref) retention(now, ms, recs int64) {
	lso := r.lso()
	del := func(ts, last int64) bool {
		span := last - r.start + 1
		return last < lso && ((ms >= 0 && ts < now-ms) || (recs >= 0 && r.end-r.start-span >= recs))
	}
	if r.forgot > r.start {
		ts := r.all[0].TimestampMs
		for _, b := range r.all {
			if b.Last < r.forgot {
				ts = max(ts, b.TimestampMs)
			}
		}
		if !del(ts, r.forgot-1) {
			return
		}
		r.start = r.forgot
	}
	for r.start < r.end {
		b := r.all[r.of[r.start]]
		if !del(b.TimestampMs, b.Last) {
			return
		}
		r.start = b.Last + 1
	}
}

func (r *ref) forget(below int64) {
	below = min(below, r.end)
	if below <= r.known() {
		return
	}
	b := r.all[r.of[below-1]]
	f := b.First // the batch holding below-1 is kept unless it ends there
	if b.Last == below-1 {
		f = below
	}
	if f > r.known() {
		r.forgot = f
	}
}

func (r *ref) heldBatches() int {
	n := 0
	for _, b := range r.all {
		if b.Last >= r.known() {
			n++
		}
	}
	return n
}

func TestAgainstReference(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runReference(t, seed) })
	}
}

func runReference(t *testing.T, seed uint64) {
	x := xorshift(seed * 0x9E3779B97F4A7C15)
	l := New()
	r := &ref{open: map[int64]int64{}}
	now := int64(1000)
	nextTxn := int64(1)
	var open []int64 // open transactions in the order opened, for picking one
	var out []lb
	for step := 0; step < 400; step++ {
		now += int64(x.intn(4))
		ts := now
		if x.intn(10) == 0 {
			ts -= int64(x.intn(30))
		}
		var what string
		switch k := x.intn(100); {
		case k < 45:
			n := 1 + x.intn(5)
			var txn int64
			switch c := x.intn(4); {
			case c == 0 && len(open) < 4:
				txn = nextTxn
				nextTxn++
				open = append(open, txn)
			case c == 1 && len(open) > 0:
				txn = open[x.intn(len(open))]
			}
			what = fmt.Sprintf("append %d txn %d", n, txn)
			got := l.AppendRecords(n, ts, 1, txn)
			r.append(Batch{Last: int64(n) - 1, TimestampMs: ts, Producer: 1, Txn: txn})
			if got != r.all[len(r.all)-1] {
				t.Fatalf("step %d %s: appended %+v, want %+v", step, what, got, r.all[len(r.all)-1])
			}
		case k < 58:
			var txn int64
			if len(open) > 0 && x.intn(5) > 0 {
				i := x.intn(len(open))
				txn = open[i]
				open = append(open[:i], open[i+1:]...)
			} else {
				txn = 1 + int64(x.intn(int(nextTxn)))
			}
			commit := x.intn(2) == 0
			what = fmt.Sprintf("marker txn %d commit %v", txn, commit)
			l.AppendControl(ts, 1, txn, commit)
			r.append(Batch{TimestampMs: ts, Producer: 1, Txn: txn, Control: true, Aborted: !commit})
		case k < 70:
			off := r.start - 2 + int64(x.intn(int(r.end-r.start)+4))
			what = fmt.Sprintf("compact %d", off)
			if got, want := l.Compact(off), r.compact(off); got != want {
				t.Fatalf("step %d %s: %v, want %v", step, what, got, want)
			}
		case k < 80:
			ms, recs := int64(x.intn(60))-1, int64(x.intn(60))-1
			if x.intn(2) == 0 {
				ms = -1
			} else if x.intn(2) == 0 {
				recs = -1
			}
			what = fmt.Sprintf("retention %d %d", ms, recs)
			old := r.start
			r.retention(now, ms, recs)
			if s, d := l.ApplyRetention(now, ms, recs); s != r.start || d != r.start-old {
				t.Fatalf("step %d %s: start %d deleted %d, want %d %d", step, what, s, d, r.start, r.start-old)
			}
		case k < 86:
			before := r.start - 2 + int64(x.intn(int(r.end-r.start)/2+4))
			what = fmt.Sprintf("delete records %d", before)
			if before > r.start {
				r.start = min(before, r.end)
			}
			if got := l.DeleteRecords(before); got != r.start {
				t.Fatalf("step %d %s: %d, want %d", step, what, got, r.start)
			}
		default:
			below := r.start - 3 + int64(x.intn(int(r.end-r.start)/3+5))
			what = fmt.Sprintf("forget %d", below)
			l.Forget(below)
			r.forget(below)
		}
		check(t, step, what, l, r, &x, &out)
		if t.Failed() {
			return
		}
	}
}

func check(t *testing.T, step int, what string, l *Log, r *ref, x *xorshift, out *[]lb) {
	t.Helper()
	if l.StartOffset() != r.start || l.EndOffset() != r.end || l.KnownFrom() != r.known() ||
		l.LastStableOffset() != r.lso() || l.Records() != r.end-r.start || l.Len() != r.heldBatches() ||
		l.OpenTransactions() != len(r.open) {
		t.Fatalf("step %d %s: start %d end %d known %d lso %d len %d open %d; want %d %d %d %d %d %d",
			step, what, l.StartOffset(), l.EndOffset(), l.KnownFrom(), l.LastStableOffset(), l.Len(), l.OpenTransactions(),
			r.start, r.end, r.known(), r.lso(), r.heldBatches(), len(r.open))
	}
	for off := r.start - 3; off < r.end+3; off++ {
		if got, want := l.HasRecord(off), r.hasRecord(off); got != want {
			t.Fatalf("step %d %s: HasRecord(%d) = %v, want %v", step, what, off, got, want)
		}
		gb, gok := l.BatchAt(off)
		wb, wok := r.batchAt(off)
		if gb != wb || gok != wok {
			t.Fatalf("step %d %s: BatchAt(%d) = %+v %v, want %+v %v", step, what, off, gb, gok, wb, wok)
		}
		maxOffsets := int64(x.intn(12))
		upTo := r.end
		if x.intn(2) == 0 {
			upTo = r.lso()
		}
		*out = l.Read(off, maxOffsets, upTo, (*out)[:0])
		want := r.read(off, maxOffsets, upTo)
		if len(*out) != len(want) || (len(want) > 0 && !reflect.DeepEqual(*out, want)) {
			t.Fatalf("step %d %s: Read(%d,%d,%d) = %v, want %v", step, what, off, maxOffsets, upTo, *out, want)
		}
	}
	for ms := int64(990); ms < 1000+int64(step)*2+10; ms += 7 {
		g, gok := l.OffsetForTime(ms)
		w, wok := r.offsetForTime(ms)
		if g != w || gok != wok {
			t.Fatalf("step %d %s: OffsetForTime(%d) = %d %v, want %d %v", step, what, ms, g, gok, w, wok)
		}
	}
	for txn := int64(0); txn < 10; txn++ {
		_, want := r.open[txn]
		if l.IsOpen(txn) != want {
			t.Fatalf("step %d %s: IsOpen(%d) = %v", step, what, txn, l.IsOpen(txn))
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	l := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		l.AppendRecords(10, int64(i), 1, 0)
		if i%1024 == 1023 {
			l.Forget(l.EndOffset() - 10000) // steady state: bounded memory
		}
	}
}

func BenchmarkAppendGrowing(b *testing.B) {
	l := New()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		l.AppendRecords(10, int64(i), 1, 0)
	}
}

func BenchmarkRead(b *testing.B) {
	l := New()
	for i := 0; i < 100000; i++ {
		l.AppendRecords(1+i%20, int64(i), 1, 0)
	}
	end := l.EndOffset()
	out := make([]lb, 0, 64)
	x := xorshift(42)
	b.ReportAllocs()
	for b.Loop() {
		from := int64(x.next() % uint64(end))
		out = l.Read(from, 500, end, out[:0])
	}
}

// ceil's guess from the batches' average size finds the same batch as a plain search, for
// logs of one batch size, of mixed sizes and with one huge batch, at every offset and past
// both ends, and after the front of the log was dropped.
func TestCeilFindsTheBatchOfEveryOffset(t *testing.T) {
	sizes := map[string]func(i int) int{
		"fixed":  func(int) int { return 10 },
		"mixed":  func(i int) int { return 1 + (i*7919)%13 },
		"skewed": func(i int) int { return map[bool]int{true: 500, false: 1}[i == 17] },
	}
	for name, size := range sizes {
		t.Run(name, func(t *testing.T) {
			l := New()
			for i := 0; i < 200; i++ {
				l.AppendRecords(size(i), int64(i), 1, 0)
			}
			for _, below := range []int64{0, 37, 400, l.EndOffset() - 3} {
				l.Forget(below)
				for off := l.bs[l.head].First - 3; off <= l.end+3; off++ {
					want := l.head
					for want < len(l.bs) && l.bs[want].Last < off {
						want++
					}
					if got := l.ceil(off); got != want {
						t.Fatalf("after Forget(%d): ceil(%d) = %d, want %d", below, off, got, want)
					}
				}
			}
		})
	}
}

// mixedLog holds batches of three producers, a transaction marker, a compacted batch and
// forgotten offsets.
func mixedLog() *Log {
	l := New()
	l.AppendRecords(3, 10, 1, 0)
	l.AppendRecords(5, 11, 2, 7)
	l.AppendControl(12, 2, 7, true)
	l.AppendRecords(2, 13, 3, 0)
	l.AppendRecords(4, 14, 3, 0)
	l.Compact(9)
	l.Forget(3)
	return l
}

// ProducerAt says what BatchAt says of a batch's producer, and false for markers.
func TestProducerAtAgreesWithBatchAt(t *testing.T) {
	l := mixedLog()
	for off := int64(-1); off <= l.EndOffset()+1; off++ {
		b, ok := l.BatchAt(off)
		wantOK := ok && !b.Control
		p, gotOK := l.ProducerAt(off)
		if gotOK != wantOK || (ok && wantOK && p != b.Producer) {
			t.Errorf("ProducerAt(%d) = %d, %v; BatchAt gives %+v, %v", off, p, gotOK, b, ok)
		}
	}
}

// RecordsUntil ends a run of offsets HasRecord accepts, and is off where HasRecord refuses.
func TestRecordsUntilAgreesWithHasRecord(t *testing.T) {
	l := mixedLog()
	for off := int64(-1); off <= l.EndOffset()+1; off++ {
		end := l.RecordsUntil(off)
		if !l.HasRecord(off) {
			if end != off {
				t.Errorf("RecordsUntil(%d) = %d for an offset without a record", off, end)
			}
			continue
		}
		if end <= off {
			t.Fatalf("RecordsUntil(%d) = %d for a record", off, end)
		}
		for o := off; o < end; o++ {
			if !l.HasRecord(o) {
				t.Errorf("RecordsUntil(%d) = %d covers %d, which holds no record", off, end, o)
			}
		}
	}
}
