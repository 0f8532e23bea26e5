package proptest

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// Minimal reproductions of core/spec disagreements found by the property tests. Each
// runs the same script on both and fails when they disagree; the comment names the
// semantics doc section (or Kafka source) that decides it. While a disagreement is
// listed in openBugs (known_test.go) its script is skipped; run with
// -proptest.strict to see them fail, and delete the openBugs entry once fixed.

// §3.4 / Kafka 4.2: the throttle limit is N >> (d−T+1) with d taken from the first
// acquirable offset whose dc ≥ T. With limit 5 (T=3), offsets 0 (dc 1, AVAILABLE) and
// 2 (dc 3, AVAILABLE) in one per-offset batch, the core used offset 0's dc and shifted
// by a negative amount: runtime panic.
func TestScriptThrottleFirstOffsetBelowT(t *testing.T) {
	skipIfOpen(t, bugThrottlePanic)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(0, 2)))
	d.complete(d.ackTypes("m1", 1, 2, model.AckAccept, model.AckRelease), true)
	held := d.ackTypes("m1", 0, 0, model.AckRelease) // offset 0 stays pending, dc 1
	for i := 0; i < 2; i++ {                         // offset 2 goes to dc 3
		d.mustAgree(d.acquire("m1", 1, 1, model.RecordLimit, lb(0, 2)))
		d.complete(d.ackTypes("m1", 2, 2, model.AckRelease), true)
	}
	d.complete(held, true)
	d.mustAgree(d.safeAcquire("m2", 10, 10, model.BatchOptimized, lb(0, 2)))
}

// §4.4 + Kafka's lastOffsetFromBatchWithRequestOffset: a budget cut whose target
// offset lies in a compaction gap ends at that offset (the doc: "round up"), it does
// not round down to the previous log batch. Log [1],[3]; budget 2 from 1 → [1,2].
func TestScriptCutInCompactionGap(t *testing.T) {
	skipIfOpen(t, bugCutRoundsDownInGap)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 2, 10, model.BatchOptimized, lb(1, 1), lb(3, 3)))
}

// §2.2 T-EXPIRE, §7.2: one write per firing timer; a whole batch containing SPSO is
// split first, but its firing still issues a single write.
func TestScriptExpiryStraddlingSPSOOneWrite(t *testing.T) {
	skipIfOpen(t, bugExpirySplitWrites)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(0, 1)))
	d.moveLogStart(1)
	_, ok := d.expire(lockMs)
	d.mustAgree(ok)
}

// §4.3 / KAFKA-19957 (apache/kafka#21064): equal-dc per-offset acquisitions are merged
// only within one cached batch; a whole batch [0] and offset 1 of batch [1-2] stay apart.
func TestScriptNoMergeAcrossCachedBatches(t *testing.T) {
	skipIfOpen(t, bugMergeAcrossBatches)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 1, 1, model.BatchOptimized, lb(0, 0)))
	d.mustAgree(d.acquire("m1", 1, 1, model.RecordLimit, lb(1, 2)))
	_, ok := d.expire(lockMs)
	d.mustAgree(ok)
	d.mustAgree(d.acquire("m1", 2, 2, model.RecordLimit, lb(0, 0), lb(1, 2)))
}

// §4.4: "SPSO := a if the new batch became the first cache entry" also when the new
// span is cut into several cache batches (log [1],[2] after a gap at 0, BatchSize 1).
func TestScriptSPSOMovesForCutNewSpan(t *testing.T) {
	skipIfOpen(t, bugSPSOSplitSpan)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 2, 1, model.BatchOptimized, lb(1, 1), lb(2, 2)))
}

// §5.2 step 3 has no "if larger": after the log start jumped past the whole cache, the
// last cached offset becoming terminal sets SPSO := SPEO := X+1 (Kafka 4.2's code does
// the same; the next fetch re-applies T-LSO).
func TestScriptHeadStep3Unconditional(t *testing.T) {
	skipIfOpen(t, bugHeadStep3Max)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 1, 1, model.BatchOptimized, lb(0, 0)))
	d.moveLogStart(2)
	ws, ok := d.expire(lockMs)
	d.mustAgree(ok)
	d.complete(ws[0], true)
	d.mustAgree(true)
}

// §2.1 tags "a later rollback cannot revive it" as 4.2+: in 4.1 a failed session
// release restores an offset force-archived by T-LSO meanwhile (Kafka 4.1's
// InFlightState rollback restores unconditionally).
func TestScriptKafka41RollbackRevivesForcedArchive(t *testing.T) {
	skipIfOpen(t, bugForcedRevived41)
	d := newDuo(t, model.Kafka41, 5, 100, false)
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(0, 1)))
	w, ok := d.release("m1")
	d.mustAgree(ok)
	d.moveLogStart(1)
	d.complete(w, false)
	d.mustAgree(true)
}

// §4.4 (and Kafka 4.1's code): a new batch that becomes the first cache entry sets
// SPSO to its start, even below the loaded SPSO (4.1 has no step-4 adjustment).
func TestScriptKafka41NewFirstBatchSetsSPSO(t *testing.T) {
	skipIfOpen(t, bugNewFirstBatch41)
	d := loadDuo(t, model.Kafka41, 5, 100, 2, model.PersistedBatch{First: 3, Last: 3, State: model.Available, DeliveryCount: 1})
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(1, 2)))
}

// §5.2 step 1 with SPSO past every cached batch (reading difference, 4.1): Kafka checks
// the batch just below SPSO (still ACQUIRED here) and stops; the core runs step 4 and
// moves SPSO back to 1.
func TestScriptKafka41HeadStep1UncachedSPSO(t *testing.T) {
	skipIfOpen(t, readingHeadStep1_41)
	d := newDuo(t, model.Kafka41, 5, 100, false)
	d.mustAgree(d.acquire("m1", 1, 1, model.BatchOptimized, lb(0, 0)))
	d.now = 1
	d.mustAgree(d.acquire("m1", 1, 1, model.BatchOptimized, lb(1, 1)))
	d.moveLogStart(2)
	ws, ok := d.expire(lockMs)
	d.mustAgree(ok)
	d.complete(ws[0], true)
	d.mustAgree(true)
}

// §7.5 (KAFKA-19953, fixed in 4.2 only): in 4.1 an offset of a per-offset batch held by
// another member stops the release of the rest of that batch.
func TestScriptKafka41ReleaseStopsAtForeignOffset(t *testing.T) {
	skipIfOpen(t, bugRelease19953_41)
	d := newDuo(t, model.Kafka41, 5, 100, false)
	d.mustAgree(d.acquire("m3", 10, 10, model.BatchOptimized, lb(0, 1)))
	d.complete(d.ackTypes("m3", 1, 1, model.AckRelease), true)
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(0, 1)))
	_, ok := d.release("m1")
	d.mustAgree(ok)
}

// §6.4 / §7.3 (and Kafka 4.2's InFlightState): a failed write whose lock fired lands
// AVAILABLE (ARCHIVED only at the limit), without looking at SPSO.
func TestScriptRollbackAfterExpiryIgnoresSPSO(t *testing.T) {
	skipIfOpen(t, bugRollbackBelowSPSO)
	d := newDuo(t, model.Kafka42, 5, 100, false)
	d.mustAgree(d.acquire("m1", 1, 1, model.RecordLimit, lb(1, 2)))
	d.moveLogStart(2)
	w, ok := d.release("m1")
	d.mustAgree(ok)
	_, ok = d.expire(lockMs)
	d.mustAgree(ok)
	d.complete(w, false)
	d.mustAgree(true)
}

// §3.4 reading (Kafka 4.2's code): the throttle limit takes d from the first acquirable
// offset with dc ≥ T (limit 4 → T 2: offset 1 at dc 2 gives 6>>1 = 3 offsets), not from
// the first acquirable offset (dc 1 → no limit).
func TestScriptThrottleDFromFirstThrottledOffset(t *testing.T) {
	skipIfOpen(t, readingThrottleD)
	d := newDuo(t, model.Kafka42, 4, 100, false)
	d.mustAgree(d.acquire("m1", 1, 1, model.BatchOptimized, lb(0, 5)))
	d.complete(d.ackTypes("m1", 1, 1, model.AckRelease), true)
	d.mustAgree(d.acquire("m1", 1, 1, model.RecordLimit, lb(0, 5)))
	_, ok := d.expire(lockMs)
	d.mustAgree(ok)
	d.mustAgree(d.safeAcquire("m2", 10, 10, model.BatchOptimized, lb(0, 5)))
}

func (d *duo) mustAgree(ok bool) {
	d.t.Helper()
	if !ok || !d.agree() {
		d.t.Fatalf("core and spec disagree:\n%s", d.dump())
	}
}

// safeAcquire is acquire with a core panic turned into a disagreement.
func (d *duo) safeAcquire(member string, maxRecords, batchSize int, mode model.AcquireMode, log ...model.LogBatch) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			d.t.Logf("core panicked: %v", r)
			ok = false
		}
	}()
	return d.acquire(member, maxRecords, batchSize, mode, log...)
}

func skipIfOpen(t *testing.T, bug string) {
	t.Helper()
	if openBugs[bug] && !*strict {
		t.Skip("open core/spec disagreement " + bug + " (see known_test.go); -proptest.strict runs it")
	}
}

// §8.3 ("once SPEO moves beyond the loaded end the window is dropped") and Kafka 4.1's
// SharePartition.isInitialReadGapOffsetWindowActive, which compares endOffset with the
// loaded end on every use: a log-start jump that raises SPEO past the loaded end ends the
// reload gap window too (updateCacheAndOffsets sets endOffset to the log start). Load
// [0],[1] AVAILABLE and [4] ARCHIVED from SPSO 0 (holes 2-3, loaded end 4); acquire 0-1
// and accept 0; the log start jumps to 10 (SPSO = SPEO = 10); the accept's write
// completes and 4.1's head rule steps SPSO back to 1 (the next cached key), so the cache
// is looked at again. Nothing is AVAILABLE and the window is over, so the next fetch is
// SPEO+1 = 11; the core kept the window and offered hole 2, below the log start.
func TestScriptKafka41LogStartJumpEndsGapWindow(t *testing.T) {
	d := loadDuo(t, model.Kafka41, 5, 100, 0,
		model.PersistedBatch{First: 0, Last: 0, State: model.Available, DeliveryCount: 1},
		model.PersistedBatch{First: 1, Last: 1, State: model.Available, DeliveryCount: 1},
		model.PersistedBatch{First: 4, Last: 4, State: model.Archived, DeliveryCount: 1})
	d.mustAgree(d.acquire("m1", 10, 10, model.BatchOptimized, lb(0, 1)))
	if got := d.core.NextFetchOffset(); got != 2 {
		t.Fatalf("next fetch offset before the jump = %d, want hole 2 of the gap window", got)
	}
	accept := d.ackTypes("m1", 0, 0, model.AckAccept)
	d.moveLogStart(10)
	d.mustAgree(true)
	d.complete(accept, true)
	d.mustAgree(true)
	if spso, next := d.core.StartOffset(), d.core.NextFetchOffset(); spso != 1 || next != 11 {
		t.Fatalf("after the accept: SPSO %d next fetch %d, want 1 (4.1 steps back) and 11 (SPEO 10 + 1)\n%s", spso, next, d.dump())
	}
}
