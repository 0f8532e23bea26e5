package sim_test

import (
	"math"
	"testing"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// The broker cost model: off by default (nothing changes), and when on, a broker's request
// handler threads and network bound what it serves.

// costWorld: one broker, one partition, 20 share consumers polling one record at a time
// (max.poll.records 1, 1 ms processing), 5 000 records/s offered: without a cost model they
// finish far more than 1 000 records/s.
func costWorld(bc *sim.BrokerCost) sim.Config {
	cfg := ftWorld(1, 5_000, 0, ftConsumer("c", 20, 1, 1))
	cfg.Brokers = 1
	cfg.DurationMs = 5_000
	cfg.BrokerCost = bc
	return cfg
}

func completedPerSec(t *testing.T, cfg sim.Config) float64 {
	t.Helper()
	res := mustRun(t, cfg, 1)
	return res.Metrics.Groups[0].Rates.CompletedPerSec
}

// One handler thread and 1 ms per ShareFetch: each poll is one ShareFetch (its
// acknowledgements ride on it), so the broker answers at most 1 000 polls, 1 000 records, a
// second. With 8 threads the bound is 8 000/s, above what the consumers ask: each poll only
// takes 1 ms longer (a cycle of 8 ms becomes 9 ms), so they finish 8/9 of the free rate.
func TestBrokerCostHandlerThreads(t *testing.T) {
	free := completedPerSec(t, costWorld(nil))
	one := completedPerSec(t, costWorld(&sim.BrokerCost{IOThreads: 1, ShareFetchRequestMs: 1}))
	eight := completedPerSec(t, costWorld(&sim.BrokerCost{IOThreads: 8, ShareFetchRequestMs: 1}))
	t.Logf("completed/s: no cost %.0f, 1 thread %.0f, 8 threads %.0f", free, one, eight)
	if one > 1000 || one < 900 {
		t.Errorf("1 thread × 1 ms per fetch: %.0f records/s, want just below 1000", one)
	}
	if free < 2000 || math.Abs(eight-free*8/9) > 0.03*free {
		t.Errorf("no cost %.0f/s, 8 threads %.0f/s: want 8 threads ≈ 8/9 of the free rate", free, eight)
	}
}

// Bandwidth: a classic consumer fetching 1 000-byte records through a broker that moves
// 500 000 bytes/s gets at most 500 records/s.
func TestBrokerCostBandwidth(t *testing.T) {
	c := classicConsumer(1, 0, 500)
	cfg := classicWorld(1, 2000, c)
	cfg.Brokers = 1
	cfg.DurationMs = 20_000
	free := mustRun(t, cfg, 1).Metrics.Groups[0].InWindow.ProcessedOK
	cfg.BrokerCost = &sim.BrokerCost{BandwidthBytesPerSec: 500_000}
	res := mustRun(t, cfg, 1)
	got := float64(res.Metrics.Groups[0].InWindow.ProcessedOK) / 20
	if got > 500 || got < 450 || free < 30_000 {
		t.Errorf("processed %.0f/s through 500 kB/s (without the limit %d in 20 s), want just below 500/s", got, free)
	}
	if res.Metrics.BrokerCostDelayMs == 0 {
		t.Errorf("no broker cost delay recorded")
	}
}

// Produce requests cost too: 1 thread at 0.5 ms per request plus 0.01 ms per record holds a
// KafkaProducer with max.in.flight 1 to what the broker can take; batches grow to carry the
// rate (records per request rise), and the rate is still honoured.
func TestBrokerCostProduce(t *testing.T) {
	p := accProducer(20_000, 1<<20, 0, 100)
	p.MaxInFlight = 1
	cfg := prodWorld(1, p, 10_000)
	cfg.Brokers, cfg.HealMs = 1, 1000
	base := mustRun(t, cfg, 1).Metrics
	cfg.BrokerCost = &sim.BrokerCost{IOThreads: 1, ProduceRequestMs: 0.5, ProduceRecordMs: 0.01}
	m := mustRun(t, cfg, 1).Metrics
	if m.Produced != 200_000 {
		t.Errorf("produced %d, want 200000", m.Produced)
	}
	if !(float64(m.Produced)/float64(m.ProducedBatches) > 1.2*float64(base.Produced)/float64(base.ProducedBatches)) {
		t.Errorf("records per batch %.1f with the cost model, %.1f without: want larger batches", float64(m.Produced)/float64(m.ProducedBatches), float64(base.Produced)/float64(base.ProducedBatches))
	}
}

// Off by default: a world without BrokerCost records no delay.
func TestBrokerCostOffByDefault(t *testing.T) {
	cfg := costWorld(nil)
	cfg.Network.Latency = dist.Must(dist.Uniform(1, 3))
	if d := mustRun(t, cfg, 1).Metrics.BrokerCostDelayMs; d != 0 {
		t.Errorf("delay %d without a cost model", d)
	}
}
