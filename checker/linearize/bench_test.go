package linearize

import (
	"runtime"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// benchConfig is a long, busy world with few faults: 8 partitions at 1 000 records/s, 16
// consumers acknowledging explicitly, a kill every five minutes, a leader failover every
// seven, rare lost responses and failed writes. Fifty minutes of it give about one million
// client operations.
func benchConfig(durationMs int64) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = durationMs
	cfg.HealMs = 60_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Network.ResponseLossPerMillion = 200
	cfg.Coordinator.WriteFailPerMillion = 500
	cfg.Topics = []sim.Topic{{Name: "orders", Partitions: 8, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "orders", RecordsPerSecond: 1000, BatchRecords: 5, Keys: 1000}}
	cs := sim.DefaultConsumer("worker")
	cs.Count = 16
	cs.AckMode = sim.AckExplicit
	cs.MaxPollRecords = 10
	cs.FailurePerMillion = 5_000
	cs.OnFailure = sim.FailRelease
	cs.RenewEveryMs = 20_000
	cs.Processing = dist.Must(dist.LogNormalP50P99(4, 30))
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"orders"}, Consumers: []sim.ConsumerSpec{cs}}}
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultKill, AtMs: 60_000, EveryMs: 300_000, RestartAfterMs: 3_000},
		{Kind: sim.FaultLeaderFailover, AtMs: 200_000, EveryMs: 420_000},
	}
	return cfg
}

var bench struct {
	once sync.Once
	cfg  sim.Config
	res  *sim.Result
	err  error
}

// millionOps runs the benchmark world once per test binary.
func millionOps(b *testing.B) (sim.Config, *sim.Result) {
	bench.once.Do(func() {
		bench.cfg = benchConfig(3_000_000)
		bench.res, bench.err = sim.Run(bench.cfg, 1, sim.Options{RecordHistory: true})
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.cfg, bench.res
}

// BenchmarkCheckMillion checks a simulated history of about one million client operations
// on one core (GOMAXPROCS=1). Goal: under 10 s per check. Run it with
//
//	go test ./checker/linearize -run - -bench CheckMillion -benchtime 3x
func BenchmarkCheckMillion(b *testing.B) {
	cfg, res := millionOps(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	o := OptionsFor(cfg)
	o.TimeLimit = 60e9
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testmode.CPUSeconds()
	var r *Result
	for i := 0; i < b.N; i++ {
		r = Check(res.History, res.HiddenEvents, o)
		if r.Verdict != "Ok" {
			b.Fatalf("verdict %s: %v", r.Verdict, r.Failures())
		}
	}
	b.ReportMetric(float64(len(res.History)), "ops")
	b.ReportMetric(float64(r.OffsetOps), "offset-ops")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
	// CPU time is the honest one-core figure on a busy machine, where wall time includes
	// waiting for the CPU.
	b.ReportMetric((testmode.CPUSeconds()-cpu)/float64(b.N), "cpu-s/check")
}
