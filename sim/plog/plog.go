// Package plog models the log of one Kafka topic-partition at batch granularity, as the
// simulator needs it: offsets, producer batches, transactions and their markers, retention,
// admin DeleteRecords, compaction, and reads shaped like a fetch.
//
// Only batch metadata is kept, never record payloads. Offsets are int64 and times are
// virtual milliseconds (int64). The log starts empty at offset 0.
//
// # Offsets
//
//   - StartOffset is the log start offset: offsets below it are deleted.
//   - EndOffset is the next offset to be written. It is also the high watermark, because
//     replication lag is not modelled.
//   - LastStableOffset is the first offset of the earliest still-open transaction (never
//     below StartOffset), or EndOffset when no transaction is open. read_committed reads stop
//     before it.
//   - KnownFrom is the lowest offset whose batch metadata is still held: StartOffset, unless
//     Forget has been told that no reader needs offsets above it (see Forget).
//
// StartOffset ≤ KnownFrom ≤ EndOffset and StartOffset ≤ LastStableOffset ≤ EndOffset always
// hold.
//
// # Memory
//
// Batches are appended at the end and only ever dropped from the front (retention,
// DeleteRecords, Forget), so the held batches live in one slice with a moving head index. The
// slice is copied down once the head passes half its length, so memory is proportional to the
// batches held (those overlapping [KnownFrom, EndOffset)) plus a constant factor, and once the
// slice has grown to its peak size, appending and dropping allocate nothing. Every lookup by
// offset is a binary search over the held batches.
//
// # Determinism
//
// Nothing here reads a clock, draws a random number or starts a goroutine; the only map (open
// transactions) is used for lookups, never iterated. A Log is not safe for concurrent use.
package plog

import "github.com/sharesim/sharesim/model"

// Batch is the metadata of one producer batch or transaction marker: offsets First..Last
// inclusive.
type Batch struct {
	First, Last int64
	// TimestampMs is the batch timestamp in virtual milliseconds, as the producer passed it;
	// timestamps need not be monotonic.
	TimestampMs int64
	// Producer is the producer that wrote the batch (informational).
	Producer int32
	// Txn is the transaction the batch belongs to; 0 means not transactional.
	Txn int64
	// Control marks a transaction marker (commit or abort): one offset, no deliverable record.
	Control bool
	// Aborted is set on the data batches of a transaction when it aborts; never on markers.
	Aborted bool
	// Compacted marks a data batch removed by compaction: reads skip it.
	Compacted bool
	// Bytes is the batch's size on disk (0 when the writer did not say).
	Bytes int64
}

// Records returns the number of offsets the batch spans.
func (b Batch) Records() int64 { return b.Last - b.First + 1 }

// entry is one held batch with the running maximum of timestamps, which makes the
// time lookup a binary search even when timestamps are not monotonic.
type entry struct {
	Batch
	maxTs int64 // greatest TimestampMs of this batch and every batch appended before it
}

// Log is the log of one topic-partition. The zero value is an empty log ready to use.
type Log struct {
	// bs[head:] are the held batches: ascending, contiguous (each First is the previous
	// Last+1), the last ending at end-1, the first containing KnownFrom() (when not empty).
	bs   []entry
	head int

	start int64 // log start offset
	end   int64 // log end offset

	// forgot is the offset below which Forget dropped metadata (a batch boundary, ≤ end).
	// When forgot > start, [start, forgot) is retained but unknown: retention treats it as
	// one batch with timestamp forgotTs.
	forgot   int64
	forgotTs int64 // maxTs of the last batch dropped by Forget

	maxTs int64 // greatest timestamp appended so far (meaningless while end == 0)

	open       map[int64]int64 // open transaction → offset of its first batch
	openFirsts []int64         // first offsets of the open transactions, ascending

	// Segments (see Segmented): segs[segHead:] are the segments not deleted, oldest first;
	// the last is the active one.
	segBytes, segRollMs int64
	segs                []segment
	segHead             int
	nextBytes           int64 // the size AppendSized passes to AppendRecords

	// perOffset is (len(bs)−head) / (end − bs[head].First), kept by push and drop: ceil's
	// guess of where an offset's batch is (a guess only: ceil checks it).
	perOffset float64
}

// controlBatchBytes is the size of a transaction marker batch.
const controlBatchBytes = 78

// segment is one log segment's summary: offsets [base, next segment's base), its size and
// the timestamps of its first and newest batch.
type segment struct {
	base           int64
	bytes          int64
	firstTs, maxTs int64
}

// New returns an empty log whose first offset will be 0.
func New() *Log { return &Log{} }

// StartOffset returns the log start offset: the lowest offset not deleted.
func (l *Log) StartOffset() int64 { return l.start }

// EndOffset returns the log end offset, the offset the next append gets. It is also the high
// watermark.
func (l *Log) EndOffset() int64 { return l.end }

// KnownFrom returns the lowest offset whose metadata is held: max(StartOffset, the boundary
// set by Forget). Read, HasRecord, BatchAt and OffsetForTime know nothing below it.
func (l *Log) KnownFrom() int64 { return max(l.start, l.forgot) }

// LastStableOffset returns the first offset of the earliest open transaction, raised to
// StartOffset if that was deleted, or EndOffset when no transaction is open.
func (l *Log) LastStableOffset() int64 {
	if len(l.openFirsts) == 0 {
		return l.end
	}
	return max(l.start, l.openFirsts[0])
}

// Len returns the number of batches held in memory.
func (l *Log) Len() int { return len(l.bs) - l.head }

// Records returns the number of offsets retained: EndOffset − StartOffset.
func (l *Log) Records() int64 { return l.end - l.start }

// IsOpen reports whether transaction txn has data in the log and no marker yet.
func (l *Log) IsOpen(txn int64) bool {
	_, ok := l.open[txn]
	return ok
}

// OpenTransactions returns the number of open transactions.
func (l *Log) OpenTransactions() int { return len(l.openFirsts) }

// AppendSized is AppendRecords for a batch of the given size in bytes (segments and
// retention by size count it).
func (l *Log) AppendSized(n int, bytes, ts int64, producer int32, txn int64) Batch {
	l.nextBytes = bytes
	defer func() { l.nextBytes = 0 }()
	return l.AppendRecords(n, ts, producer, txn)
}

// AppendRecords appends a data batch of n ≥ 1 records with timestamp ts (ms) and returns it
// as stored: First is the old EndOffset and Last = First+n−1. A non-zero txn puts the batch in
// that transaction; the first batch of a transaction that is not open opens it (Kafka starts
// a transaction on a partition with its first batch there), so a transaction id may be reused
// once its marker is written. It panics if n < 1.
func (l *Log) AppendRecords(n int, ts int64, producer int32, txn int64) Batch {
	if n < 1 {
		panic("plog: AppendRecords needs at least one record")
	}
	b := Batch{First: l.end, Last: l.end + int64(n) - 1, TimestampMs: ts, Producer: producer, Txn: txn, Bytes: l.nextBytes}
	if txn != 0 {
		if _, ok := l.open[txn]; !ok {
			if l.open == nil {
				l.open = make(map[int64]int64)
			}
			l.open[txn] = b.First
			l.openFirsts = append(l.openFirsts, b.First) // b.First exceeds every held first
		}
	}
	l.push(b)
	return b
}

// AppendControl appends a one-offset marker of transaction txn (commit or abort, with
// timestamp ts in ms) and returns it as stored. If txn is open it is closed, and on abort
// every held data batch of it is flagged Aborted. A marker for a transaction that is not
// open is written but changes nothing else. It panics if txn is 0.
func (l *Log) AppendControl(ts int64, producer int32, txn int64, commit bool) Batch {
	if txn == 0 {
		panic("plog: AppendControl needs a transaction id")
	}
	b := Batch{First: l.end, Last: l.end, TimestampMs: ts, Producer: producer, Txn: txn, Control: true}
	first, open := l.open[txn]
	if open {
		delete(l.open, txn)
		i := searchInt64(l.openFirsts, first)
		l.openFirsts = append(l.openFirsts[:i], l.openFirsts[i+1:]...)
		if !commit {
			for i := l.ceil(first); i < len(l.bs); i++ {
				if e := &l.bs[i]; e.Txn == txn && !e.Control {
					e.Aborted = true
				}
			}
		}
	}
	l.push(b)
	return b
}

func (l *Log) push(b Batch) {
	if l.end == 0 || b.TimestampMs > l.maxTs {
		l.maxTs = b.TimestampMs
	}
	if l.segBytes > 0 {
		l.segmentAppend(b)
	}
	l.bs = append(l.bs, entry{Batch: b, maxTs: l.maxTs})
	l.end = b.Last + 1
	l.rescale()
}

// Read returns what a fetch at offset from gets, appended to out: the non-compacted held
// batches starting with the one containing from (or the first one after it, leaving a
// compaction gap), in offset order. It stops after the first batch that brings the offsets
// covered from `from` (Last−from+1) to maxOffsets or more, so at least one batch is returned
// when any qualifies, and it never returns a batch with Last ≥ upTo: pass EndOffset() for
// read_uncommitted and LastStableOffset() for read_committed. Batches are returned whole: the
// first may start below from, or even below StartOffset after a DeleteRecords inside it.
// Markers are returned (the consumer acknowledges them as GAP) with Aborted false; data
// batches of aborted transactions have Aborted true. A read from below KnownFrom() (deleted or
// forgotten offsets) appends nothing; callers detect out-of-range with StartOffset(). Read
// does not allocate when out has room.
func (l *Log) Read(from, maxOffsets, upTo int64, out []model.LogBatch) []model.LogBatch {
	if from < l.KnownFrom() {
		return out
	}
	for i := l.ceil(from); i < len(l.bs); i++ {
		e := &l.bs[i]
		if e.Last >= upTo {
			break
		}
		if e.Compacted {
			continue
		}
		out = append(out, model.LogBatch{First: e.First, Last: e.Last, Aborted: e.Aborted && !e.Control})
		if e.Last-from+1 >= maxOffsets {
			break
		}
	}
	return out
}

// BatchAt returns the held batch containing off, compacted ones included (flagged), and
// false if off is below KnownFrom() or at or above EndOffset().
func (l *Log) BatchAt(off int64) (Batch, bool) {
	i := l.find(off)
	if i < 0 {
		return Batch{}, false
	}
	return l.bs[i].Batch, true
}

// ProducerAt returns the producer of the held data batch containing off (compacted ones
// included), and false for a marker or where BatchAt finds nothing: what BatchAt says of the
// batch's producer, without copying the batch.
func (l *Log) ProducerAt(off int64) (int32, bool) {
	i := l.find(off)
	if i < 0 || l.bs[i].Control {
		return 0, false
	}
	return l.bs[i].Producer, true
}

// RecordsUntil returns the end of the held batch containing off when that batch holds
// deliverable records (neither a marker nor compacted), so HasRecord is true on [off, end);
// otherwise off itself (HasRecord(off) is false).
func (l *Log) RecordsUntil(off int64) int64 {
	i := l.find(off)
	if i < 0 || l.bs[i].Control || l.bs[i].Compacted {
		return off
	}
	return l.bs[i].Last + 1
}

// HasRecord reports whether off holds a deliverable record: it lies in [KnownFrom(),
// EndOffset()) in a batch that is neither a marker nor compacted.
func (l *Log) HasRecord(off int64) bool {
	i := l.find(off)
	return i >= 0 && !l.bs[i].Control && !l.bs[i].Compacted
}

// OffsetForTime returns the first offset at or above KnownFrom() in a non-compacted batch
// whose timestamp is ≥ ms (markers count), and true; or EndOffset() and false if there is
// none. Forgotten offsets are not searched.
func (l *Log) OffsetForTime(ms int64) (int64, bool) {
	// The running maximum first reaches ms at the first batch whose own timestamp does, so
	// every batch before the search result has a timestamp below ms.
	lo, hi := l.head, len(l.bs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.bs[m].maxTs < ms {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(l.bs); i++ {
		if e := &l.bs[i]; !e.Compacted && e.TimestampMs >= ms {
			return max(e.First, l.KnownFrom()), true
		}
	}
	return l.end, false
}

// Compact flags the held data batch containing off as Compacted and reports whether it did.
// It refuses (false) markers, batches already compacted, offsets outside [KnownFrom(),
// EndOffset()), and batches reaching the last stable offset, which Kafka's cleaner never
// touches.
func (l *Log) Compact(off int64) bool {
	i := l.find(off)
	if i < 0 {
		return false
	}
	e := &l.bs[i]
	if e.Control || e.Compacted || e.Last >= l.LastStableOffset() {
		return false
	}
	e.Compacted = true
	return true
}

// ApplyRetention deletes whole batches from the front of the log, as Kafka deletes whole
// segments, and returns the new StartOffset and the number of offsets deleted. The leading
// batch is deleted while it ends below LastStableOffset() and either
//   - retentionMs ≥ 0 and its timestamp < nowMs − retentionMs, or
//   - retentionRecords ≥ 0 and Records() minus its retained offsets is still ≥
//     retentionRecords (Kafka's retention.bytes rule: never go below the limit).
//
// −1 disables a limit. A forgotten range [StartOffset, KnownFrom) counts as one batch whose
// timestamp is the greatest timestamp appended before KnownFrom.
func (l *Log) ApplyRetention(nowMs, retentionMs, retentionRecords int64) (newStart, deleted int64) {
	old, lso := l.start, l.LastStableOffset()
	expired := func(ts, last int64) bool {
		if last >= lso {
			return false
		}
		span := last - l.start + 1
		return (retentionMs >= 0 && ts < nowMs-retentionMs) ||
			(retentionRecords >= 0 && l.end-l.start-span >= retentionRecords)
	}
	if l.forgot > l.start {
		if !expired(l.forgotTs, l.forgot-1) {
			return l.start, 0
		}
		l.start = l.forgot
	}
	i := l.head
	for ; i < len(l.bs) && expired(l.bs[i].TimestampMs, l.bs[i].Last); i++ {
		l.start = l.bs[i].Last + 1
	}
	l.drop(i)
	return l.start, l.start - old
}

// DeleteRecords is the admin DeleteRecords: it raises StartOffset to before (capped at
// EndOffset(), where Kafka would answer OFFSET_OUT_OF_RANGE; a lower value changes nothing)
// and returns the new StartOffset. before may fall inside a batch: that batch stays held, and
// its offsets below the start are deleted.
func (l *Log) DeleteRecords(before int64) int64 {
	before = min(before, l.end)
	if before > l.start {
		l.start = before
		l.drop(l.ceil(l.start))
	}
	return l.start
}

// Forget drops the metadata of held batches lying wholly below below, which the caller
// promises no reader needs (the simulator passes the minimum of every group's start offset
// and, while new groups may still read from the earliest offset, StartOffset()). It does not
// change StartOffset(). If it drops retained batches, KnownFrom() rises to the end of the
// last one dropped: Read, HasRecord, BatchAt and OffsetForTime then treat those offsets like
// deleted ones, and retention sees them as one batch (see ApplyRetention).
func (l *Log) Forget(below int64) {
	i := l.ceil(min(below, l.end))
	if i == l.head {
		return
	}
	last := &l.bs[i-1]
	l.forgot, l.forgotTs = last.Last+1, last.maxTs
	l.drop(i)
}

// drop removes bs[head:i], copying the rest down once the head passes half the slice.
func (l *Log) drop(i int) {
	l.head = i
	switch {
	case l.head == len(l.bs):
		l.bs, l.head = l.bs[:0], 0
	case l.head > len(l.bs)/2:
		n := copy(l.bs, l.bs[l.head:])
		l.bs, l.head = l.bs[:n], 0
	}
	l.rescale()
}

// rescale sets perOffset to the held batches per held offset, for ceil's guess.
func (l *Log) rescale() {
	if l.head < len(l.bs) {
		l.perOffset = float64(len(l.bs)-l.head) / float64(l.end-l.bs[l.head].First)
	}
}

// ceil returns the index of the first held batch with Last ≥ off (len(bs) if none).
//
// Held batches are contiguous, so an offset inside them lies in the batch its distance
// from the first held offset suggests when batches are of one size; ceil looks there and
// at the next batch first (O(1) for a producer of fixed-size batches), and otherwise
// binary-searches the side of the guess where off lies.
func (l *Log) ceil(off int64) int {
	lo, hi := l.head, len(l.bs)
	if lo == hi || off <= l.bs[lo].Last {
		return lo
	}
	if off >= l.end {
		return hi
	}
	// bs[lo].Last < off < end = bs[hi-1].Last+1, so the answer lies in (lo, hi).
	first := l.bs[lo].First
	g := lo + int(float64(off-first)*l.perOffset)
	g = min(max(g, lo+1), hi-1)
	if l.bs[g].Last < off {
		if l.bs[g+1].Last >= off { // g+1 < hi: bs[hi-1].Last ≥ off
			return g + 1
		}
		lo = g + 2
	} else {
		if l.bs[g-1].Last < off { // g-1 ≥ lo
			return g
		}
		hi = g - 1
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.bs[m].Last < off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// find returns the index of the held batch containing off, or −1 if off is outside
// [KnownFrom(), EndOffset()). Held batches are contiguous, so ceil finds it.
func (l *Log) find(off int64) int {
	if off < l.KnownFrom() || off >= l.end {
		return -1
	}
	return l.ceil(off)
}

// searchInt64 returns the index of the first element of the ascending s that is ≥ v.
func searchInt64(s []int64, v int64) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// # Segments
//
// A log made Segmented keeps, besides its batches, the summary of its segments as Kafka
// lays them out: a batch goes to the active (last) segment unless that would take it past
// segmentBytes, or the active segment's first batch is rollMs older than this batch; then a
// new segment starts with it (Kafka rolls on append). ApplySegmentRetention deletes whole
// closed segments only, oldest first; the active segment is never deleted.

// Segmented turns on segments of at most segmentBytes bytes (log.segment.bytes), rolled
// after rollMs (log.roll.ms, ≤ 0: never by time). Call it before the first append.
func (l *Log) Segmented(segmentBytes, rollMs int64) {
	l.segBytes, l.segRollMs = max(1, segmentBytes), rollMs
}

// Segments returns the number of segments not deleted.
func (l *Log) Segments() int { return len(l.segs) - l.segHead }

// SegmentBases returns the base offsets of the segments not deleted, oldest first.
func (l *Log) SegmentBases() []int64 {
	out := make([]int64, 0, l.Segments())
	for _, s := range l.segs[l.segHead:] {
		out = append(out, s.base)
	}
	return out
}

// Size returns the bytes of the segments not deleted.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.segs[l.segHead:] {
		n += s.bytes
	}
	return n
}

func (l *Log) segmentAppend(b Batch) {
	if b.Control {
		b.Bytes = controlBatchBytes
	}
	n := len(l.segs)
	if n > l.segHead {
		a := &l.segs[n-1]
		full := a.bytes > 0 && a.bytes+b.Bytes > l.segBytes
		old := l.segRollMs > 0 && b.TimestampMs-a.firstTs >= l.segRollMs
		if !full && !old {
			a.bytes += b.Bytes
			a.maxTs = max(a.maxTs, b.TimestampMs)
			return
		}
	}
	l.segs = append(l.segs, segment{base: b.First, bytes: b.Bytes, firstTs: b.TimestampMs, maxTs: b.TimestampMs})
}

// ApplySegmentRetention deletes closed segments from the front, as Kafka's retention check
// does, and returns the new StartOffset and the offsets deleted. A closed segment is deleted
// while it ends at or below LastStableOffset() and
//   - retentionMs ≥ 0 and its newest timestamp < nowMs − retentionMs, or
//   - retentionBytes ≥ 0 and Size() minus its bytes is still ≥ retentionBytes, or
//   - it lies wholly below StartOffset (DeleteRecords moved the start past it).
//
// −1 disables a limit. The log must be Segmented.
func (l *Log) ApplySegmentRetention(nowMs, retentionMs, retentionBytes int64) (newStart, deleted int64) {
	old, lso := l.start, l.LastStableOffset()
	size := l.Size()
	for l.Segments() > 1 {
		s, next := l.segs[l.segHead], l.segs[l.segHead+1].base
		if next > lso {
			break
		}
		byTime := retentionMs >= 0 && s.maxTs < nowMs-retentionMs
		bySize := retentionBytes >= 0 && size-s.bytes >= retentionBytes
		if !byTime && !bySize && next > l.start {
			break
		}
		size -= s.bytes
		l.segHead++
		l.start = max(l.start, next)
	}
	if l.segHead > 64 && l.segHead > len(l.segs)/2 {
		n := copy(l.segs, l.segs[l.segHead:])
		l.segs, l.segHead = l.segs[:n], 0
	}
	if l.start > old {
		l.drop(l.ceil(l.start))
	}
	return l.start, l.start - old
}
