// Package testworlds holds the simulator worlds that tests of several packages share: the
// bug zoo's workloads (each an ordinary faulty world tuned to make one kind of race
// frequent; the faithful core passes every check on all of them), the cases that pair
// each of model's bugs with the workload and the check that catch it, and the general
// worlds of worlds.go (Faulty, Busy, and Hour, the benchmark world).
package testworlds

import (
	"sort"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Base is one partition, explicit acknowledgements, a fifth of the records failing and
// released, records produced in batches.
func Base(consumers int, processingMs float64, maxPoll, batch int, rate float64) sim.Config {
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

// Zoo is the bug zoo's workloads, by name.
var Zoo = map[string]func() sim.Config{
	// chaos: two partitions, kills, leader failovers, forced lock expiry, record deletion,
	// random write failures and lost responses.
	"chaos": func() sim.Config {
		cfg := Base(5, 40, 10, 4, 40)
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
		cfg := Base(3, 30, 4, 4, 30)
		cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(200))
		cfg.Coordinator.WriteFailPerMillion = 300_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 2_000, EveryMs: 1_000}}
		return cfg
	},
	// limit: delivery limit 2 with slow failing writes and frequent lock expiry.
	"limit": func() sim.Config {
		cfg := Base(3, 80, 6, 3, 20)
		cfg.Kafka.DeliveryCountLimit = 2
		cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(300))
		cfg.Coordinator.WriteFailPerMillion = 200_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLockExpiry, Target: "t/0", AtMs: 3_000, EveryMs: 2_000}}
		return cfg
	},
	// cap: the minimum cap (100) with production outrunning five consumers that release
	// almost a third of what they get.
	"cap": func() sim.Config {
		cfg := Base(5, 50, 60, 10, 150)
		cfg.DurationMs = 60_000
		cfg.Kafka.PartitionMaxRecordLocks = 100
		cfg.Groups[0].Consumers[0].FailurePerMillion = 300_000
		return cfg
	},
	// log-start: record deletion every 2 s running into the in-flight window held open by a
	// few very slow records, with lock expiry and kills.
	"log-start": func() sim.Config {
		cfg := Base(4, 60, 10, 5, 40)
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
		cfg := Base(4, 300, 8, 4, 10)
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
		cfg := Base(4, 100, 3, 8, 24)
		cfg.Groups[0].Consumers[0].FailurePerMillion = 300_000
		cfg.Faults = []sim.Fault{{Kind: sim.FaultLeaderFailover, Target: "t/0", AtMs: 4_000, EveryMs: 2_500}}
		return cfg
	},
}

// simZooCase is how the simulator's checks catch one bug of the zoo.
// ZooCase is one bug of the zoo, the workload that makes it frequent, the check that must
// catch it and within how many seeds (from seed 1).
type ZooCase struct {
	Bug, World, Check string
	MaxSeeds          uint64
}

// ZooCases lists one case for every bug of model.BugNames.
var ZooCases = []ZooCase{
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

// ZooNames is the zoo's workload names in sorted order (ranging over Zoo is unordered).
func ZooNames() []string {
	names := make([]string, 0, len(Zoo))
	for n := range Zoo {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
