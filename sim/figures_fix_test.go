package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Regression tests for figures that were measured wrong (issue 19): each pins the figure on
// a run whose answer follows from the setup.

// A classic group whose consumers process with several threads finishes records out of
// order; without a death or a rebalance nothing is processed twice, so duplicates are 0
// (they were counted as rewinds: 43 % of the processings).
func TestFixClassicThreadsNoPhantomDuplicates(t *testing.T) {
	for _, style := range []sim.ClientStyle{sim.StyleBlocking, sim.StyleContinuous} {
		c := sim.DefaultConsumer("c")
		c.Count, c.Threads, c.MaxPollRecords, c.Style = 5, 4, 100, style
		c.Processing = dist.Must(dist.Exponential(20))
		cfg := ftWorld(3, 500, 0, c)
		cfg.Groups[0].Type = sim.ClassicGroup
		cfg.DurationMs = 60_000
		res := ftRun(t, cfg, 1)
		g := rgGroup(t, res, 0)
		if g.InWindow.ProcessedOK < 20_000 {
			t.Fatalf("%v: setup: only %d processed", style, g.InWindow.ProcessedOK)
		}
		if g.Totals.Duplicates != 0 || g.Totals.ClassicReprocessed != 0 || g.Rates.DuplicatesPerHour != 0 {
			t.Errorf("%v: %d duplicates (%d reprocessed, %.0f/h) with no death and no rebalance, want 0",
				style, g.Totals.Duplicates, g.Totals.ClassicReprocessed, g.Rates.DuplicatesPerHour)
		}
	}
}

// A classic member killed with records processed after its last commit: the next owner
// processes them again, and those are the only duplicates. Each is a record processed
// successfully twice, so duplicates never exceed the records processed more than once, and
// never the redeliveries.
func TestFixClassicThreadsKillStillCountsRewinds(t *testing.T) {
	c := sim.DefaultConsumer("c")
	c.Count, c.Threads, c.MaxPollRecords = 2, 4, 50
	c.Processing = dist.Must(dist.Exponential(10))
	cfg := ftWorld(2, 200, 0, c)
	cfg.Groups[0].Type = sim.ClassicGroup
	cfg.Groups[0].AutoCommitIntervalMs = 5000
	cfg.DurationMs, cfg.HealMs = 60_000, 30_000
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c-0", AtMs: 20_000, RestartAfterMs: 1_000}}
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if g.Totals.Duplicates == 0 {
		t.Fatalf("no duplicates after a kill between auto-commits")
	}
	if g.Totals.Duplicates > g.Totals.Redeliveries {
		t.Errorf("%d duplicates > %d redeliveries: a classic record is processed twice only if a poll returned it twice", g.Totals.Duplicates, g.Totals.Redeliveries)
	}
}

// A consumer killed in the middle of a processing was busy until it died: one consumer
// taking one record at a time, constant 100 s processing, killed at 30 s, in a 60 s window,
// is 50 % busy (its first record was delivered a few ms after 0), not 0 %.
func TestFixKilledConsumerWasBusy(t *testing.T) {
	for _, typ := range []sim.GroupType{sim.ShareGroup, sim.ClassicGroup} {
		c := ftConsumer("c", 1, 100_000, 1)
		c.RestartAfterCrashMs = -1
		cfg := ftWorld(1, 1, 0, c)
		cfg.Groups[0].Type = typ
		cfg.DurationMs = 60_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c", AtMs: 30_000, RestartAfterMs: -1}}
		res := ftRun(t, cfg, 1)
		cs := rgGroup(t, res, 0).Consumers[0]
		if cs.Processed != 0 {
			t.Fatalf("%v: setup: %d processings completed, want 0", typ, cs.Processed)
		}
		// Busy from the delivery (a few hundred ms after 0 at most) to the kill at 30 s.
		if cs.BusyMs < 29_000 || cs.BusyMs > 30_000 || cs.Busy < 0.48 || cs.Busy > 0.5 {
			t.Errorf("%v: killed consumer busy %d ms (%.3f of the window), want ≈ 30000 ms (0.5)", typ, cs.BusyMs, cs.Busy)
		}
	}
}

// A group whose consumers start after production ends did not keep up, and the reason says
// the consumers had not started, not faults or lock expiries.
func TestFixKeepUpConsumersNotStarted(t *testing.T) {
	c := ftConsumer("c", 2, 10, 10)
	c.StartMs = 70_000
	cfg := ftWorld(1, 10, 0, c)
	cfg.DurationMs, cfg.HealMs = 60_000, 60_000
	res := ftRun(t, cfg, 1)
	k := rgGroup(t, res, 0).KeepUp
	if k.KeptUp {
		t.Fatalf("kept up with no consumer running in the window")
	}
	if !strings.Contains(k.Reason, "no consumer of the group ran in the window") || strings.Contains(k.Reason, "fault") {
		t.Errorf("reason %q: want it to say no consumer ran, and not blame faults", k.Reason)
	}
}

// A group that archives everything at the delivery limit (every processing fails and is
// released) leaves no backlog, but it completed nothing: it did not keep up.
func TestFixKeepUpNothingCompleted(t *testing.T) {
	c := ftConsumer("c", 2, 10, 10)
	c.AckMode, c.FailurePerMillion, c.OnFailure = sim.AckExplicit, 1_000_000, sim.FailRelease
	cfg := ftWorld(1, 10, 0, c)
	cfg.DurationMs = 60_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if g.InWindow.Completed != 0 || g.InWindow.Finished["limit"] < 500 {
		t.Fatalf("setup: %d completed, %d archived at the limit in the window", g.InWindow.Completed, g.InWindow.Finished["limit"])
	}
	if g.KeepUp.KeptUp {
		t.Errorf("kept up while completing nothing (backlog %d → %d)", g.KeepUp.BacklogStart, g.KeepUp.BacklogEnd)
	}
	if !strings.Contains(g.KeepUp.Reason, "limit") {
		t.Errorf("reason %q: want the archived records named", g.KeepUp.Reason)
	}
}

// Blocking consumers wait for the slowest record of each poll. Exponential processing with
// mean 80 ms, polls of 8 records on 8 threads: a poll takes E[max of 8] = 80 ms × H(8) =
// 217.4 ms (H the harmonic number), so 4 classic consumers on 4 partitions finish at most
// 4 × 8 / 0.2174 s = 147.2 records/s — far below the processing bound of 32 slots / 80 ms =
// 400/s. The diagnosis names that bound, and the group finishes close to it.
func TestFixKeepUpBlockingStragglerBound(t *testing.T) {
	c := sim.DefaultConsumer("c")
	c.Count, c.Threads, c.MaxPollRecords = 4, 8, 8
	c.Processing = dist.Must(dist.Exponential(80))
	cfg := ftWorld(4, 300, 0, c)
	cfg.Groups[0].Type = sim.ClassicGroup
	cfg.DurationMs = 60_000
	res := ftRun(t, cfg, 1)
	k := rgGroup(t, res, 0).KeepUp
	var got *sim.Limit
	for i := range k.Limits {
		if k.Limits[i].Name == "blocking-straggler" {
			got = &k.Limits[i]
		}
	}
	h8 := 1 + 1/2.0 + 1/3.0 + 1/4.0 + 1/5.0 + 1/6.0 + 1/7.0 + 1/8.0
	want := 4 * 8 / (80 * h8 / 1000)
	if got == nil || got.RecordsPerSec < 0.98*want || got.RecordsPerSec > 1.02*want {
		t.Fatalf("limits %+v: want a blocking-straggler bound of %.1f records/s", k.Limits, want)
	}
	if k.KeptUp || !strings.HasPrefix(k.Reason, "blocking-straggler limits it") {
		t.Errorf("kept up %v, reason %q: want the straggler bound named", k.KeptUp, k.Reason)
	}
	if k.FinishedPerSec > got.RecordsPerSec*1.05 || k.FinishedPerSec < got.RecordsPerSec*0.8 {
		t.Errorf("finished %.1f/s, want close to (and not above) the bound %.1f/s", k.FinishedPerSec, got.RecordsPerSec)
	}
}

// "N records were processed successfully more than once" counts records, not processings:
// constant 40 s processing against the 30 s lock with delivery limit 4, one record every 10
// s for a minute. Every delivery is processed to success after its lock expired, so each
// record is processed 4 times: 3 duplicate processings per record, 1 duplicated record.
func TestFixDuplicatedRecordsCountsRecords(t *testing.T) {
	c := ftConsumer("c", 24, 40_000, 1) // enough that no delivery waits for a consumer
	cfg := ftWorld(1, 0.1, 0, c)
	cfg.Kafka.DeliveryCountLimit = 4
	cfg.DurationMs, cfg.HealMs = 60_000, 300_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	n := g.Totals.Produced
	if n != 6 || g.Totals.Deliveries != 4*n {
		t.Fatalf("setup: %d produced, %d deliveries; want 6 and 24", n, g.Totals.Deliveries)
	}
	if g.Totals.Duplicates != 3*n || g.Totals.DuplicatedRecords != n {
		t.Errorf("%d duplicate processings of %d duplicated records, want %d of %d", g.Totals.Duplicates, g.Totals.DuplicatedRecords, 3*n, n)
	}
}
