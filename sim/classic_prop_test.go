package sim

import (
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/dist"
	"pgregory.net/rapid"
)

// A classic consumer in continuous style never commits past an offset it fetched and has
// not finished: after every event, each partition's committed offset is at or below every
// unfinished record its owner holds, and every record below the committed offset was
// processed successfully at least once (or deleted, or has no record). Worlds are drawn:
// threads, held-record bounds, heavy-tailed processing, crashes on failures, kills,
// rebalances from members joining late.
func TestClassicContinuousNeverCommitsPastUnprocessed(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		threads := rapid.IntRange(1, 12).Draw(rt, "threads")
		maxPoll := rapid.IntRange(1, 20).Draw(rt, "max_poll")
		held := rapid.IntRange(threads, threads+40).Draw(rt, "held")
		sigma := rapid.Float64Range(0.1, 1.5).Draw(rt, "sigma")
		consumers := rapid.IntRange(1, 3).Draw(rt, "consumers")
		parts := rapid.IntRange(1, 3).Draw(rt, "partitions")
		failure := rapid.Int64Range(0, 20_000).Draw(rt, "failure_per_million")
		seed := rapid.Uint64().Draw(rt, "seed")

		cfg := DefaultConfig()
		cfg.DurationMs, cfg.HealMs = 25_000, 10_000
		cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
		cfg.Topics = []Topic{{Name: "t", Partitions: parts, RetentionMs: -1, RetentionRecords: -1}}
		cfg.Producers = []Producer{{Name: "p", Topic: "t", RecordsPerSecond: 200, Rate: RatePoisson, BatchRecords: 3}}
		c := DefaultConsumer("c")
		c.Count = consumers
		c.Style, c.Threads, c.HeldRecords, c.MaxPollRecords = StyleContinuous, threads, held, maxPoll
		c.Processing = dist.Must(dist.LogNormal(3, sigma))
		c.FailurePerMillion = failure
		c.RestartAfterCrashMs = 2000
		late := DefaultConsumer("late")
		late.StartMs = 12_000
		late.Style, late.Threads, late.MaxPollRecords = StyleContinuous, threads, maxPoll
		late.Processing = c.Processing
		cfg.Groups = []Group{{Name: "g", Type: ClassicGroup, Topics: []string{"t"}, Consumers: []ConsumerSpec{c, late}, AutoCommitIntervalMs: 1000}}
		cfg.Faults = []Fault{{Kind: FaultKill, Target: "c", AtMs: 6_000, EveryMs: 7_000, RestartAfterMs: 1_000}}
		var bad string
		_, err := Run(cfg, seed, Options{Observer: func(w *World) {
			if bad != "" {
				return
			}
			g := w.groups[0]
			cg := g.classic
			for _, cn := range w.consumers {
				if cn.cl == nil || !cn.alive() {
					continue
				}
				for k := cn.cl.head; k < len(cn.cl.held); k++ {
					if d := cn.cl.held[k]; !cn.cl.done[k] && cg.owner[d.sp] == cn.idx && cg.committed[d.sp] > d.off {
						bad = "committed past a held unfinished record"
					}
				}
			}
			for i := range g.parts {
				if cg.committed[i] > 0 && w.metrics.cls[g.idx].processedMax[i] < cg.committed[i]-1 && w.parts[g.parts[i]].log.HasRecord(cg.committed[i]-1) {
					bad = "committed past the highest processed offset"
				}
			}
		}})
		if err != nil {
			rt.Fatal(err)
		}
		if bad != "" {
			rt.Fatal(bad)
		}
	})
}
