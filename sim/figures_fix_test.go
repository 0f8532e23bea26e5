package sim_test

import (
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
