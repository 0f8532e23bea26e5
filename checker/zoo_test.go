package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Workloads for the bug zoo: each is an ordinary faulty world, tuned to make one kind of
// race frequent. The faithful core passes every check on all of them.

// world is one partition, explicit acknowledgements, a fifth of the records failing and
// released, records produced in batches.
func world(consumers int, processingMs float64, maxPoll, batch int, rate float64) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs, cfg.HealMs = 90_000, 240_000
	cfg.Kafka.RecordLockDurationMs = 15_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 1, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: rate, BatchRecords: batch}}
	c := sim.DefaultConsumer("c")
	c.Count = consumers
	c.AckMode = sim.AckExplicit
	c.OnFailure, c.OnPoison = sim.FailRelease, sim.FailRelease
	c.FailurePerMillion = 200_000
	c.Processing = dist.Must(dist.Exponential(processingMs))
	c.MaxPollRecords = maxPoll
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}}}
	return cfg
}

// zooWorlds are the workloads, by name.
var zooWorlds = map[string]func() sim.Config{
	// chaos: two partitions, kills, leader failovers, forced lock expiry, record deletion,
	// random write failures and lost responses.
	"chaos": func() sim.Config {
		cfg := world(5, 40, 10, 4, 40)
		cfg.DurationMs = 120_000
		cfg.Kafka.DeliveryCountLimit = 3
		cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(40))
		cfg.Coordinator.WriteFailPerMillion = 30_000
		cfg.Network.ResponseLossPerMillion = 5_000
		cfg.Topics[0].Partitions = 2
		cfg.Groups[0].Consumers[0].FailurePerMillion = 100_000
		cfg.Faults = []sim.Fault{
			{Kind: sim.FaultKill, AtMs: 10_000, EveryMs: 15_000, RestartAfterMs: 3_000},
			{Kind: sim.FaultLeaderFailover, AtMs: 12_000, EveryMs: 20_000},
			{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 5_000, EveryMs: 7_000},
			{Kind: sim.FaultLockExpiry, Target: "t/1", AtMs: 8_000, EveryMs: 9_000},
			{Kind: sim.FaultDeleteRecords, Target: "t/0", AtMs: 30_000, EveryMs: 30_000, ValueMs: 20},
		}
		return cfg
	},
	// ack-race: slow, often failing state writes and a lock-expiry storm, so locks fire while
	// acknowledgements are being written.
	"ack-race": func() sim.Config {
		cfg := world(3, 30, 4, 4, 30)
		cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(200))
		cfg.Coordinator.WriteFailPerMillion = 300_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 2_000, EveryMs: 1_000}}
		return cfg
	},
	// limit: delivery limit 2 with slow failing writes and frequent lock expiry.
	"limit": func() sim.Config {
		cfg := world(3, 80, 6, 3, 20)
		cfg.Kafka.DeliveryCountLimit = 2
		cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(300))
		cfg.Coordinator.WriteFailPerMillion = 200_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 3_000, EveryMs: 2_000}}
		return cfg
	},
	// cap: the minimum cap (100) with production outrunning five consumers that release
	// almost a third of what they get.
	"cap": func() sim.Config {
		cfg := world(5, 50, 60, 10, 150)
		cfg.DurationMs = 60_000
		cfg.Kafka.PartitionMaxRecordLocks = 100
		cfg.Groups[0].Consumers[0].FailurePerMillion = 300_000
		return cfg
	},
	// log-start: record deletion every 2 s running into the in-flight window held open by a
	// few very slow records, with lock expiry and kills.
	"log-start": func() sim.Config {
		cfg := world(4, 60, 10, 5, 40)
		cfg.Groups[0].Consumers[0].Processing = dist.Must(dist.Bimodal(dist.Must(dist.Exponential(20)), dist.Must(dist.Constant(4000)), 0.05))
		cfg.Faults = []sim.Fault{
			{Kind: sim.FaultDeleteRecords, Target: "t/0", AtMs: 5_000, EveryMs: 2_000, ValueMs: 70},
			{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 4_000, EveryMs: 5_000},
			{Kind: sim.FaultKill, AtMs: 7_000, EveryMs: 9_000, RestartAfterMs: 2_000},
		}
		return cfg
	},
	// leave: slow consumers killed every 2 s while lock expiry hands their released records
	// to others, so batches are split between members.
	"leave": func() sim.Config {
		cfg := world(4, 300, 8, 4, 10)
		cfg.Groups[0].Consumers[0].FailurePerMillion = 300_000
		cfg.Faults = []sim.Fault{
			{Kind: sim.FaultKill, AtMs: 5_000, EveryMs: 2_000, RestartAfterMs: 1_000},
			{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 3_000, EveryMs: 3_000},
		}
		return cfg
	},
	// reload: leader failover every 2.5 s; producer batches of 8 read three records at a time,
	// so the start offset often sits inside a batch when the leader changes.
	"reload": func() sim.Config {
		cfg := world(4, 100, 3, 8, 24)
		cfg.Groups[0].Consumers[0].FailurePerMillion = 300_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLeaderFailover, Target: "t/0", AtMs: 4_000, EveryMs: 2_500}}
		return cfg
	},
}

// simZooCase is how the simulator's checks catch one bug of the zoo.
type simZooCase struct {
	bug, world, check string
	maxSeeds          uint64
}

var simZooCases = []simZooCase{
	{model.BugExpireDuringAck, "ack-race", "accepted-never-redelivered", 3},
	{model.BugRollbackKeepsAcquired, "ack-race", "core-consistent", 3},
	{model.BugRollbackIgnoresLimit, "limit", "delivery-count-within-limit", 3},
	{model.BugAcquireIgnoresPending, "chaos", "core-consistent", 3},
	{model.BugNoCapTrim, "cap", "inflight-within-cap", 3},
	{model.BugSPSOStepsBack, "log-start", "spso-monotonic", 3},
	{model.BugReleaseStopsAtForeign, "leave", "leave-releases-all", 3},
	{model.BugReloadAcquiresBelow, "reload", "spso-monotonic", 3},
	{model.BugReloadHoleOverlaps, "chaos", "core-consistent", 3},
	{model.BugStoreNoFencing, "chaos", "no-older-epoch-write", 3},
	{model.BugLeaveDecrementsCount, "leave", "delivery-count-monotonic", 3},
	{model.BugHeadPassesPending, "ack-race", "core-consistent", 3},
}

func checkedRun(t *testing.T, cfg sim.Config, seed uint64) []checker.Violation {
	t.Helper()
	return runWith(t, cfg, seed, true, 0)
}

// runWith runs cfg with every check (keeping up to limit violations, 0: the default), the history streamed to the checker (Attach) or kept
// in the result and checked at the end.
func runWith(t *testing.T, cfg sim.Config, seed uint64, streamed bool, limit int) []checker.Violation {
	t.Helper()
	ck, err := checker.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if limit > 0 {
		checker.SetViolationLimit(ck, limit)
	}
	var last *sim.World
	opts := sim.Options{Observer: func(w *sim.World) {
		last = w
		ck.Observe(w)
	}}
	if streamed {
		ck.Attach(&opts)
	} else {
		opts.RecordHistory = ck.NeedsHistory()
	}
	res, err := sim.Run(cfg, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	if streamed && (res.History != nil || res.HiddenEvents != nil) {
		t.Fatalf("the streamed run kept %d operations and %d hidden events", len(res.History), len(res.HiddenEvents))
	}
	return ck.Finish(last, res)
}

// Every variant of the bug zoo is caught by the simulator's checks on its workload within
// the stated number of seeds (counting from seed 1), by the check named in the table.
func TestSimulatorCatchesEveryBug(t *testing.T) {
	covered := map[string]bool{}
	for _, zc := range simZooCases {
		covered[zc.bug] = true
		t.Run(zc.bug, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= zc.maxSeeds; seed++ {
				cfg := zooWorlds[zc.world]()
				cfg.Kafka.Bug = zc.bug
				for _, v := range checkedRun(t, cfg, seed) {
					if v.Check == zc.check {
						t.Logf("%s: %s on %s with seed %d: %s", zc.bug, zc.check, zc.world, seed, v)
						return
					}
				}
			}
			t.Errorf("%s not caught by %s on %s within %d seeds", zc.bug, zc.check, zc.world, zc.maxSeeds)
		})
	}
	for _, b := range model.BugNames() {
		if !covered[b] {
			t.Errorf("bug %s has no simulator case", b)
		}
	}
}

// The faithful core passes every check on every zoo workload, for the seeds the bug cases
// use: the checks do not fire on correct behaviour.
func TestZooWorldsPassWhenFaithful(t *testing.T) {
	for name, mk := range zooWorlds {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(1); seed <= 3; seed++ {
				var msgs []string
				for _, v := range checkedRun(t, mk(), seed) {
					msgs = append(msgs, v.String())
				}
				if len(msgs) > 0 {
					t.Errorf("seed %d: %s", seed, strings.Join(msgs, "\n"))
				}
			}
		})
	}
}

var _ = fmt.Sprint
