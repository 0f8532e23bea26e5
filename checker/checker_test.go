package checker_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

func faultyWorld(version model.Version) sim.Config {
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

func runChecked(t *testing.T, cfg sim.Config, seed uint64) []checker.Violation {
	t.Helper()
	ck, err := checker.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last *sim.World
	opts := sim.Options{Observer: func(w *sim.World) {
		last = w
		ck.Observe(w)
	}}
	ck.Attach(&opts)
	res, err := sim.Run(cfg, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ck.Finish(last, res)
}

// A faithful Kafka 4.2 world under kills, failovers, pauses, write failures, lost responses
// and record deletion passes every check.
func TestCleanRunsPass(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, v := range runChecked(t, faultyWorld(model.Kafka42), seed) {
			t.Errorf("seed %d: %s", seed, v)
		}
	}
}

// The history checks catch an accepted record delivered again and disordered ranges.
func TestHistoryChecksCatchViolations(t *testing.T) {
	cfg := faultyWorld(model.Kafka42)
	ck, _ := checker.New(cfg, []string{"accepted-never-redelivered", "acquired-ranges-ordered"})
	accept := []model.AckType{model.AckAccept}
	res := &sim.Result{History: []sim.Op{
		{Client: "a", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: 0, ReturnMs: 1, Acquired: []model.AcquiredRange{{First: 0, Last: 4, DeliveryCount: 1}}},
		{Client: "a", Group: "g", Partition: "t/0", Kind: "ack", CallMs: 5, ReturnMs: 10, Acks: []model.AckRange{{First: 0, Last: 4, Types: accept}}, Code: "NONE"},
		{Client: "b", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: 20, ReturnMs: 21, Acquired: []model.AcquiredRange{{First: 3, Last: 3, DeliveryCount: 2}, {First: 2, Last: 2, DeliveryCount: 1}}},
	}}
	w, _ := sim.New(cfg, 1, sim.Options{})
	got := ck.Finish(w, res)
	var names []string
	for _, v := range got {
		names = append(names, v.Check)
	}
	joined := strings.Join(names, ",")
	if !strings.Contains(joined, "accepted-never-redelivered") || !strings.Contains(joined, "acquired-ranges-ordered") {
		t.Errorf("violations %v, want both history checks to fire", got)
	}
}

func TestUnknownCheckIsAnError(t *testing.T) {
	if _, err := checker.New(sim.DefaultConfig(), []string{"no-such-check"}); err == nil || !strings.Contains(err.Error(), "liveness") {
		t.Errorf("want an error listing the known checks, got %v", err)
	}
}
