package checker_test

import (
	"runtime"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
)

// liveHeap is the live heap after a collection, in bytes.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// heapGrowth runs cfg with every check, measuring the live heap (the checker's state
// included) at virtual times a and b, and returns the growth from a to b, with the history
// streamed to the checker (Attach) or kept in the result as before (RecordHistory).
func heapGrowth(t *testing.T, cfg sim.Config, a, b int64, streamed bool) (int64, []checker.Violation) {
	t.Helper()
	ck, err := checker.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last *sim.World
	var atA, atB int64
	opts := sim.Options{Observer: func(w *sim.World) {
		last = w
		ck.Observe(w)
		switch {
		case atA == 0 && w.NowMs() >= a:
			checker.WaitHistory(ck)
			atA = liveHeap()
		case atB == 0 && w.NowMs() >= b:
			checker.WaitHistory(ck)
			atB = liveHeap()
		}
	}}
	if streamed {
		ck.Attach(&opts)
	} else {
		opts.RecordHistory = true
	}
	res, err := sim.Run(cfg, 1, opts)
	if err != nil {
		t.Fatal(err)
	}
	return atB - atA, ck.Finish(last, res)
}

// With every check on (the history checks included), the live heap does not grow with the
// length of the run: the history checks keep state only for offsets that can still change.
// The same measurement with the whole history kept grows by tens of bytes a record, which
// shows the measurement can fail.
func TestMemoryWithEveryCheckDoesNotGrowWithTheRun(t *testing.T) {
	minutes, rate := int64(3), 250.0
	if testmode.Long {
		minutes, rate = 30, 500
	}
	cfg := testworlds.Base(4, 5, 20, 10, rate)
	cfg.DurationMs, cfg.HealMs = minutes*60_000, 30_000
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, AtMs: 20_000, EveryMs: 60_000, RestartAfterMs: 2_000},
		{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 30_000, EveryMs: 45_000},
	}
	a, b := int64(45_000), minutes*60_000
	records := float64(b-a) / 1000 * rate
	kept, _ := heapGrowth(t, cfg, a, b, false)
	streamed, vs := heapGrowth(t, cfg, a, b, true)
	for _, v := range vs {
		t.Errorf("violation: %s", v)
	}
	t.Logf("live heap growth over %.0f records: %.2f MB streamed (%.1f B/record), %.2f MB with the history kept (%.1f B/record)",
		records, float64(streamed)/1e6, float64(streamed)/records, float64(kept)/1e6, float64(kept)/records)
	if kept < int64(20*records) {
		t.Errorf("keeping the history grew the heap by only %d bytes for %.0f records: the measurement cannot tell", kept, records)
	}
	if streamed > int64(max(1.5e6, 3*records)) {
		t.Errorf("the live heap grew by %d bytes (%.1f B/record) with every check on; it should follow the records in flight, not the run", streamed, float64(streamed)/records)
	}
}
