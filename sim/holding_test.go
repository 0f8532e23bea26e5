package sim_test

import (
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// A holding kill waits for its target to hold records: one consumer, a burst of 20 records
// every 10 s (processing 100 ms each, so it holds records 2 s of every 10), killed from 5 s.
// Without holding the kill strikes at 5 s, between bursts, and releases nothing; with it,
// the kill waits for the burst at 10 s and the leader releases what the consumer held.
func TestHoldingFaultWaitsForRecords(t *testing.T) {
	run := func(holding bool) (killMs int64, crashRedeliveries int64) {
		cfg := ftWorld(1, 1, 30000, ftConsumer("c", 1, 100, 5))
		cfg.Producers[0].Rate, cfg.Producers[0].BurstEveryMs, cfg.Producers[0].BurstRecords = sim.RateBursts, 10000, 20
		cfg.DurationMs = 40000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, Target: "c", AtMs: 5000, RestartAfterMs: 1000, Holding: holding}}
		res := ftRun(t, cfg, 1)
		killMs = -1
		for _, e := range ftParse(t, res.Trace) {
			if e.kind == "fault" && e.kv["fault"] == "kill" {
				killMs = e.ms
			}
		}
		return killMs, res.Metrics.RedeliveriesByCause.Crash
	}
	at, crash := run(false)
	if at != 5000 || crash != 0 {
		t.Fatalf("without holding: kill at %d ms, %d redeliveries by crash; want 5000 and 0 (the consumer is idle then)", at, crash)
	}
	at, crash = run(true)
	if at < 10000 || at > 10100 || crash == 0 {
		t.Errorf("holding: kill at %d ms, %d redeliveries by crash; want within 100 ms of the 10 s burst and some released", at, crash)
	}
	cfg := ftWorld(1, 1, 30000, ftConsumer("c", 1, 100, 5))
	cfg.Faults = []sim.Fault{{Kind: sim.FaultNetCut, Target: "c", AtMs: 5000, DurationMs: 1000, RestartAfterMs: -1, Holding: true}}
	if err := cfg.Validate(); err == nil {
		t.Error("holding on a netcut fault accepted")
	}
}
