package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Regression tests for the figures a run prints (docs/metrics.md): each pins a definition
// on a world small enough that the answer follows from arithmetic.

func rgGroup(t *testing.T, res *sim.Result, i int) *sim.GroupMetrics {
	t.Helper()
	if len(res.Metrics.Groups) <= i {
		t.Fatalf("no group %d in %d", i, len(res.Metrics.Groups))
	}
	return &res.Metrics.Groups[i]
}

// Rates divide by the measurement window, never by the run with its healing phase: 10
// records/s for 60 s, then 60 s of healing.
func TestRegressRatesOverTheProductionWindow(t *testing.T) {
	c := ftConsumer("c", 2, 10, 1)
	cfg := ftWorld(1, 10, 0, c)
	cfg.DurationMs, cfg.HealMs = 60_000, 60_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if g.Window.StartMs != 0 || g.Window.EndMs != 60_000 {
		t.Fatalf("window %+v, want [0, 60000)", g.Window)
	}
	if g.Rates.WindowMs != 60_000 || g.Rates.ArrivalPerSec != float64(g.InWindow.Produced)/60 {
		t.Errorf("arrival %.3f/s over %d ms, want produced-in-window %d / 60 s", g.Rates.ArrivalPerSec, g.Rates.WindowMs, g.InWindow.Produced)
	}
	if g.InWindow.Produced != 600 || g.Totals.Produced != 600 {
		t.Errorf("produced %d in the window, %d in total: want 600 (constant 10/s for 60 s)", g.InWindow.Produced, g.Totals.Produced)
	}
	if want := float64(g.InWindow.Completed) / 60; g.Rates.CompletedPerSec != want {
		t.Errorf("throughput %.4f, want %.4f", g.Rates.CompletedPerSec, want)
	}
	// A warm-up moves the window's start, not its end.
	cfg.WarmupMs = 20_000
	res = ftRun(t, cfg, 1)
	g = rgGroup(t, res, 0)
	if g.Window.StartMs != 20_000 || g.Window.EndMs != 60_000 || g.InWindow.Produced != 400 {
		t.Errorf("with a 20 s warm-up: window %+v, %d produced in it; want [20000, 60000) and 400", g.Window, g.InWindow.Produced)
	}
}

// Duplicates per hour are the window's duplicates over the window: constant 40 s processing
// against a 30 s lock with limit 2 and one record every 10 s for two minutes. Every
// processing is late, each record is processed twice (both succeed), so every record adds
// one duplicate, counted when its second processing ends (at 30 s + 40 s after it was
// produced: the first ends at 40 s).
func TestRegressDuplicatesPerHourWindowed(t *testing.T) {
	c := ftConsumer("c", 12, 40_000, 1) // enough that no delivery waits for a consumer
	cfg := ftWorld(1, 0.1, 0, c)
	cfg.Kafka.DeliveryCountLimit = 2
	cfg.DurationMs, cfg.HealMs = 120_000, 180_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if g.Totals.Produced != 12 {
		t.Fatalf("setup: produced %d, want 12", g.Totals.Produced)
	}
	if g.Totals.Duplicates != 12 || g.Totals.Deliveries != 24 || g.DeliveriesPerRecord != 2 {
		t.Errorf("duplicates %d, deliveries %d (%.2f per record): want 12, 24, 2", g.Totals.Duplicates, g.Totals.Deliveries, g.DeliveriesPerRecord)
	}
	want := float64(g.InWindow.Duplicates) * 3600 / 120
	if g.Rates.DuplicatesPerHour != want {
		t.Errorf("duplicates per hour %.1f, want %d in the window × 3600 / 120 s = %.1f", g.Rates.DuplicatesPerHour, g.InWindow.Duplicates, want)
	}
	// The second processing of a record produced at p ends at p + 30 s (lock) + 40 s: only
	// records produced before 50 s duplicate inside the window.
	if g.InWindow.Duplicates != 5 {
		t.Errorf("%d duplicates in the window, want 5 (records produced at 0, 10, …, 40 s)", g.InWindow.Duplicates)
	}
	if g.Accounting.Finished["limit"] != 12 || !g.Accounting.Balanced {
		t.Errorf("accounting %+v: want 12 archived at the limit, balanced", g.Accounting)
	}
}

// The completion latency ends when the ACCEPT's state write commits at the leader, not when
// the response of the fetch that carried it reaches the client (that fetch may park for
// fetch.max.wait.ms).
func TestRegressCompletionLatencyEndsAtTheWrite(t *testing.T) {
	c := ftConsumer("c", 1, 100, 1)
	c.MaxWaitMs = 5_000
	c.AckMode = sim.AckExplicit
	cfg := ftWorld(1, 0.1, 0, c)
	cfg.DurationMs, cfg.HealMs = 60_000, 20_000
	cfg.Network.Latency = dist.Must(dist.Constant(1))
	cfg.Coordinator.WriteLatency = dist.Must(dist.Constant(2))
	res := ftRun(t, cfg, 1)
	l := rgGroup(t, res, 0).Latency
	if l.Completed.Count == 0 || l.Processed.Count == 0 || l.FirstDelivery.Count == 0 {
		t.Fatalf("latencies %+v", l)
	}
	// Acquired at the produce time (a parked fetch wakes), the response takes 1 ms, processing
	// 100 ms, the acknowledgement rides the next fetch (1 ms) and its write takes 2 ms.
	if got := *l.FirstDelivery.P50Ms; got != 0 {
		t.Errorf("first delivery p50 %d ms, want 0 (acquired when produced)", got)
	}
	if got := *l.Processed.P50Ms; got != 101 {
		t.Errorf("processed p50 %d ms, want 101 (1 ms response + 100 ms processing)", got)
	}
	if got := *l.Completed.P50Ms; got != 104 || *l.Completed.MaxMs > 1_000 {
		t.Errorf("completed p50 %d ms, max %d: want 104 (+1 ms request, +2 ms write), nothing near the 5 s fetch wait", got, *l.Completed.MaxMs)
	}
}

// Records retention removes before the group's first fetch are counted as deleted before
// the first load (they were counted nowhere once), and the accounting adds up.
func TestRegressDeletedBeforeFirstLoad(t *testing.T) {
	c := ftConsumer("c", 1, 10, 10)
	c.StartMs = 100_000
	cfg := ftWorld(1, 10, 0, c)
	cfg.Topics[0].RetentionMs = 30_000
	cfg.Topics[0].RetentionCheckIntervalMs = 10_000
	cfg.DurationMs, cfg.HealMs = 120_000, 30_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	a := g.Accounting
	if a.DeletedBeforeFirstLoad == 0 || a.DeletedBeforeFirstLoad != a.DeletedUndelivered {
		t.Errorf("deleted before first load %d of %d deleted: want > 0, all of them", a.DeletedBeforeFirstLoad, a.DeletedUndelivered)
	}
	if !a.Balanced || a.Offsets != g.Totals.Produced || g.Totals.Completed+a.DeletedUndelivered+a.SkippedByOffsetReset+a.UnfinishedTotal != g.Totals.Produced {
		t.Errorf("produced %d; accounting %+v", g.Totals.Produced, a)
	}
}

// Kafka's RecordAcknowledgementsPerSec counts an acknowledgement only when it completes
// without error, after its state write: with every write failing, nothing is counted.
func TestRegressAcknowledgementsCountedAfterTheWrite(t *testing.T) {
	c := ftConsumer("c", 1, 10, 5)
	cfg := ftWorld(1, 10, 0, c)
	cfg.DurationMs, cfg.HealMs = 20_000, 0
	cfg.Coordinator.WriteFailPerMillion = 1_000_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if n := g.Totals.RecordAcknowledgements[model.AckAccept.String()]; n != 0 {
		t.Errorf("RecordAcknowledgements ACCEPT %d with every state write failing, want 0", n)
	}
	if g.Totals.Completed != 0 || g.Latency.Completed.Count != 0 || g.Latency.Completed.P50Ms != nil {
		t.Errorf("completed %d, latency %+v: want nothing completed and no median", g.Totals.Completed, g.Latency.Completed)
	}
	if g.Totals.ProcessedOK == 0 || g.Totals.AckErrors == 0 {
		t.Errorf("processed ok %d, failed acknowledgements %d: want both > 0", g.Totals.ProcessedOK, g.Totals.AckErrors)
	}
	// With writes succeeding, every record's ACCEPT is counted once.
	cfg.Coordinator.WriteFailPerMillion = 0
	cfg.HealMs = 10_000
	res = ftRun(t, cfg, 1)
	g = rgGroup(t, res, 0)
	if n := g.Totals.RecordAcknowledgements[model.AckAccept.String()]; n != g.Totals.Completed || n != g.Totals.Produced-g.Accounting.SkippedByOffsetReset {
		t.Errorf("ACCEPT %d, completed %d, produced %d: want equal", n, g.Totals.Completed, g.Totals.Produced)
	}
}

// With a share group and a classic group on one topic, each group's figures are its own.
func TestRegressFiguresArePerGroup(t *testing.T) {
	share := ftConsumer("s", 4, 20, 10)
	classic := ftConsumer("k", 1, 100, 10)
	cfg := ftWorld(2, 40, 0, share)
	cfg.Groups = append(cfg.Groups, sim.Group{Name: "classic", Type: sim.ClassicGroup, Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{classic}})
	cfg.DurationMs, cfg.HealMs = 60_000, 0
	res := ftRun(t, cfg, 1)
	s, k := rgGroup(t, res, 0), rgGroup(t, res, 1)
	if s.Totals.Produced != 2400 || k.Totals.Produced != 2400 {
		t.Fatalf("each group reads every record: %d and %d, want 2400", s.Totals.Produced, k.Totals.Produced)
	}
	// One classic consumer at 100 ms a record finishes at most 10/s; the share group keeps up.
	if k.Rates.CompletedPerSec > 10.01 || s.Rates.CompletedPerSec < 38 {
		t.Errorf("throughput share %.1f/s, classic %.1f/s: want ≈40 and ≤ 10", s.Rates.CompletedPerSec, k.Rates.CompletedPerSec)
	}
	if k.KeepUp.KeptUp || !s.KeepUp.KeptUp {
		t.Errorf("kept up: share %v, classic %v (%s)", s.KeepUp.KeptUp, k.KeepUp.KeptUp, k.KeepUp.Reason)
	}
	if res.Metrics.Produced != 2400 {
		t.Errorf("world produced %d", res.Metrics.Produced)
	}
	if !s.Accounting.Balanced || !k.Accounting.Balanced {
		t.Errorf("accounting share %+v classic %+v", s.Accounting, k.Accounting)
	}
}

// When a group cannot keep up, the figures say so and name the bound: processing capacity,
// the lock (a blocking poll that outlasts it), or the in-flight cap.
func TestRegressKeepUpNamesTheBound(t *testing.T) {
	cases := []struct {
		name      string
		consumers int
		maxPoll   int
		procMs    int64
		rate      float64
		durMs     int64
		bound     string // "" keeps up
	}{
		{"keeps-up", 4, 10, 10, 100, 120_000, ""},
		// 2 consumers × 1 000/100 ms = 20 records/s against 100 arriving.
		{"processing", 2, 1, 100, 100, 120_000, "processing"},
		// Full polls of 50 records × 1 s = 50 s each, longer than the 30 s lock (processing
		// alone would allow 8/s).
		{"lock", 8, 50, 1_000, 100, 120_000, "lock-duration"},
		// 1 partition, cap 200, producer batches of 100 acquired whole (batch_optimized), so
		// every poll holds 100 records for 1 s: at most 200 records/s (processing alone would
		// allow 2 000/s).
		{"in-flight-cap", 20, 100, 10, 1_000, 20_000, "in-flight-cap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ftConsumer("c", tc.consumers, tc.procMs, tc.maxPoll)
			cfg := ftWorld(1, tc.rate, 0, c)
			cfg.Producers[0].BatchRecords = max(1, tc.maxPoll)
			cfg.Kafka.PartitionMaxRecordLocks = 200
			cfg.DurationMs, cfg.HealMs = tc.durMs, 0
			res := ftRun(t, cfg, 1)
			k := rgGroup(t, res, 0).KeepUp
			if tc.bound == "" {
				if !k.KeptUp {
					t.Fatalf("did not keep up: %s", k.Reason)
				}
				return
			}
			if k.KeptUp {
				t.Fatalf("kept up (backlog %d → %d → %d)", k.BacklogStart, k.BacklogMid, k.BacklogEnd)
			}
			if !strings.HasPrefix(k.Reason, tc.bound+" limits it to") || k.Advice == "" {
				t.Errorf("reason %q, advice %q: want the %s bound named", k.Reason, k.Advice, tc.bound)
			}
			if k.FinishedPerSec >= k.ArrivalPerSec || k.BacklogGrowthPerSec <= 0 {
				t.Errorf("finished %.1f/s of %.1f/s, backlog growth %.1f/s", k.FinishedPerSec, k.ArrivalPerSec, k.BacklogGrowthPerSec)
			}
		})
	}
}
