package testworlds

import (
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Faulty is a small world under kills, failovers, a long pause, write failures, lost
// responses and record deletion: two partitions at 40 records/s, three consumers
// acknowledging explicitly and releasing a twentieth of their records, 90 s and 240 s of
// healing. The faithful core passes every check on it.
func Faulty(version model.Version) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Kafka.Version = version
	cfg.DurationMs, cfg.HealMs = 90_000, 240_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Coordinator.WriteFailPerMillion = 20_000
	cfg.Network.ResponseLossPerMillion = 5_000
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 2, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: 40, BatchRecords: 4, Keys: 10}}
	c := sim.DefaultConsumer("c")
	c.Count = 3
	c.AckMode = sim.AckExplicit
	c.OnFailure, c.OnPoison = sim.FailRelease, sim.FailRelease
	c.FailurePerMillion = 50_000
	c.Processing = dist.Must(dist.Exponential(200))
	c.MaxPollRecords = 20
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}}}
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, AtMs: 10_000, EveryMs: 20_000, RestartAfterMs: 3_000},
		{Kind: sim.FaultLeaderFailover, AtMs: 15_000, EveryMs: 25_000},
		{Kind: sim.FaultPause, AtMs: 30_000, DurationMs: 35_000},
		{Kind: sim.FaultDeleteRecords, Target: "t/0", AtMs: 50_000, ValueMs: 30},
	}
	return cfg
}

// Busy exercises most of the simulator: keys, transactions, compaction, retention, poison
// records, RENEW, record_limit, several consumer kinds, a classic group, and faults of most
// kinds. Tests append the faults they are about (a close, a kill of the classic group, lock
// expiry, a RENEW stall) after these.
func Busy() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = 120_000
	cfg.HealMs = 60_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Kafka.IsolationLevel = model.ReadCommitted
	cfg.Network.Latency = dist.Must(dist.Uniform(1, 5))
	cfg.Network.ResponseLossPerMillion = 2000
	cfg.Coordinator.WriteLatency = dist.Must(dist.Exponential(5))
	cfg.Coordinator.WriteFailPerMillion = 5000
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 3, RetentionMs: 90_000, RetentionRecords: -1, RetentionCheckIntervalMs: 10_000}}
	cfg.Producers = []sim.Producer{
		{Name: "p", Topic: "t", RecordsPerSecond: 60, Rate: sim.RatePoisson, BatchRecords: 5, Keys: 30, PoisonPerMillion: 500, CompactedPerMillion: 20_000},
		{Name: "tx", Topic: "t", RecordsPerSecond: 20, BatchRecords: 5, Transactional: true, TxnBatches: 3, AbortPerMillion: 200_000, TxnCommitDelayMs: 500},
	}
	imp := sim.DefaultConsumer("imp")
	imp.Count = 2
	imp.Processing = dist.Must(dist.LogNormalP50P99(20, 300))
	exp := sim.DefaultConsumer("exp")
	exp.Count = 2
	exp.AckMode = sim.AckExplicit
	exp.Processing = dist.Must(dist.Exponential(30))
	exp.FailurePerMillion = 20_000
	exp.OnFailure = sim.FailRelease
	exp.OnPoison = sim.FailReject
	exp.RenewEveryMs = 10_000
	exp.AcquireMode = model.RecordLimit
	exp.MaxPollRecords = 20
	cls := sim.DefaultConsumer("cls")
	cls.Count = 2
	cls.Processing = dist.Must(dist.Exponential(10))
	cls.OnPoison = sim.FailSkip
	cfg.Groups = []sim.Group{
		{Name: "share", Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{imp, exp}},
		{Name: "classic", Type: sim.ClassicGroup, Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{cls}},
	}
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, Target: "imp", AtMs: 20_000, EveryMs: 30_000, RestartAfterMs: 5_000},
		{Kind: sim.FaultHang, Target: "exp", AtMs: 25_000, RestartAfterMs: 40_000},
		{Kind: sim.FaultNetCut, Target: "imp", AtMs: 50_000, DurationMs: 35_000},
		{Kind: sim.FaultPause, Target: "exp", AtMs: 70_000, DurationMs: 32_000},
		{Kind: sim.FaultLeaderFailover, AtMs: 40_000, EveryMs: 25_000},
		{Kind: sim.FaultWriteFail, AtMs: 60_000, DurationMs: 3_000},
		{Kind: sim.FaultCoordinatorSlow, AtMs: 80_000, DurationMs: 10_000, ValueMs: 200},
		{Kind: sim.FaultDeleteRecords, Target: "t/1", AtMs: 90_000, ValueMs: 50},
	}
	return cfg
}

// Hour is the world of the simulator's performance goal for durationMs: 4 partitions, 1 000
// records/s in batches of 10 over 1 000 keys, 16 share consumers with lognormal processing
// (p50 8 ms, p99 40 ms), no faults, no healing (docs/examples/week-1000.yaml runs it for a
// week).
func Hour(durationMs int64) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = durationMs
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Topics = []sim.Topic{{Name: "orders", Partitions: 4, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "orders", RecordsPerSecond: 1000, BatchRecords: 10, Keys: 1000}}
	cs := sim.DefaultConsumer("worker")
	cs.Count = 16
	cs.Processing = dist.Must(dist.LogNormalP50P99(8, 40))
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"orders"}, Consumers: []sim.ConsumerSpec{cs}}}
	return cfg
}
