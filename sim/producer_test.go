package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Producers: rates honoured without a cap, KafkaProducer-style batching (batch.size in
// bytes, linger.ms, max.in.flight.requests.per.connection), keyed and sticky partitioning,
// and the settings the simulator refuses.

// prodWorld is a world with one topic of parts partitions and one producer, no groups.
func prodWorld(parts int, p sim.Producer, durationMs int64) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = durationMs
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: parts, RetentionMs: -1, RetentionRecords: -1}}
	p.Name, p.Topic = "p", "t"
	cfg.Producers = []sim.Producer{p}
	return cfg
}

func accProducer(rate float64, batchBytes, lingerMs, recordBytes int64) sim.Producer {
	return sim.Producer{RecordsPerSecond: rate, BatchBytes: batchBytes, LingerMs: lingerMs,
		RecordSize: dist.Must(dist.Constant(recordBytes))}
}

// produceLines returns the produce trace lines as (partition, records, ms).
type produced struct {
	part    string
	records int64
	ms      int64
}

func producedBatches(t *testing.T, res *sim.Result) []produced {
	t.Helper()
	var out []produced
	for _, e := range ftParse(t, res.Trace) {
		if e.kind == "produce" {
			out = append(out, produced{e.kv["p"], e.num("last") - e.num("first") + 1, e.ms})
		}
	}
	return out
}

// Every rate from 1 000 to 1 000 000 records/s is produced within 1 %, in fixed-batch and in
// accumulator mode, constant and Poisson. (The old producer wrote at most one batch per ms:
// 25 000/s with 10-record batches came out as 10 000/s.) Every run is long enough for 200 000
// records, so a Poisson count's standard deviation is below 0.25 %.
func TestProducerRateHonoured(t *testing.T) {
	for _, rate := range []float64{1000, 25_000, 100_000, 1_000_000} {
		for _, arrival := range []sim.RateKind{sim.RateConstant, sim.RatePoisson} {
			for _, mode := range []string{"batch_records", "batch.size"} {
				name := fmt.Sprintf("%.0f/%d/%s", rate, arrival, mode)
				t.Run(name, func(t *testing.T) {
					var p sim.Producer
					if mode == "batch_records" {
						p = sim.Producer{RecordsPerSecond: rate, BatchRecords: 10}
					} else {
						p = accProducer(rate, 16384, 5, 100)
					}
					p.Rate = arrival
					dur := int64(max(minProdMs(), 200_000*1000/rate))
					res, err := sim.Run(prodWorld(4, p, dur), 3, sim.Options{})
					if err != nil {
						t.Fatal(err)
					}
					got := float64(res.Metrics.Produced) * 1000 / float64(dur)
					if math.Abs(got-rate) > 0.01*rate {
						t.Errorf("produced %.1f records/s over %d ms, want %.0f within 1 %%", got, dur, rate)
					}
				})
			}
		}
	}
}

// A constant producer in fixed mode writes batch k at round(k × interval): 25 000 records/s
// in batches of 10 is a batch every 0.4 ms, so in 10 s the batches k = 0 … 24 998 (batch
// 24 999 falls at 9 999.6 ms, rounded to 10 000, the end): 24 999 batches, several per ms.
func TestProducerFixedExact(t *testing.T) {
	res, err := sim.Run(prodWorld(3, sim.Producer{RecordsPerSecond: 25_000, BatchRecords: 10}, 10_000), 1, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Produced != 249_990 || res.Metrics.ProducedBatches != 24_999 {
		t.Errorf("produced %d records in %d batches, want 249990 in 24999", res.Metrics.Produced, res.Metrics.ProducedBatches)
	}
}

// linger.ms: 100 records/s (one every 10 ms) with room for thousands per batch and linger
// 50 ms: a batch is created by a record at t and sent at t+50 with the records of t, t+10,
// ..., t+50, so every batch but the last holds 6 records and is appended one network latency
// (1 ms) after it was sent.
func TestProducerLinger(t *testing.T) {
	cfg := prodWorld(1, accProducer(100, 16384, 50, 100), 10_000)
	cfg.Brokers, cfg.HealMs = 1, 1000
	res, err := sim.Run(cfg, 1, sim.Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	bs := producedBatches(t, res)
	if len(bs) < 10 {
		t.Fatalf("only %d batches", len(bs))
	}
	for i, b := range bs[:len(bs)-1] {
		if b.records != 6 || b.ms != int64(i)*60+51 {
			t.Fatalf("batch %d: %d records appended at %d ms, want 6 at %d", i, b.records, b.ms, i*60+51)
		}
	}
	if res.Metrics.Produced != 1000 {
		t.Errorf("produced %d, want 1000 (the last batch is flushed at the stop)", res.Metrics.Produced)
	}
}

// batch.size in bytes: 1 061 bytes hold the 61-byte header and ten 100-byte records, so with
// a long linger every batch holds exactly 10 records; one byte less holds 9.
func TestProducerBatchSizeBytes(t *testing.T) {
	for _, tc := range []struct {
		batchBytes int64
		want       int64
	}{{1061, 10}, {1060, 9}, {161, 1}} {
		cfg := prodWorld(1, accProducer(1000, tc.batchBytes, 10_000, 100), 5_000)
		res, err := sim.Run(cfg, 1, sim.Options{KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		bs := producedBatches(t, res)
		for i, b := range bs[:len(bs)-1] {
			if b.records != tc.want {
				t.Fatalf("batch.size %d: batch %d holds %d records, want %d", tc.batchBytes, i, b.records, tc.want)
			}
		}
	}
}

// max.in.flight.requests.per.connection: one partition on one broker, 50 ms each way, linger
// 0 and room for everything: with one request in flight the producer sends one batch per
// 100 ms round trip, each holding the ~100 records sent meanwhile; with five in flight,
// batches are five times smaller. Either way the rate is honoured.
func TestProducerMaxInFlight(t *testing.T) {
	for _, tc := range []struct {
		inflight int
		perBatch float64
	}{{1, 100}, {5, 20}} {
		p := accProducer(1000, 1<<20, 0, 100)
		p.MaxInFlight = tc.inflight
		cfg := prodWorld(1, p, 20_000)
		cfg.Brokers, cfg.HealMs = 1, 1000
		cfg.Network.Latency = dist.Must(dist.Constant(50))
		res, err := sim.Run(cfg, 1, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(res.Metrics.Produced) / float64(res.Metrics.ProducedBatches)
		if math.Abs(mean-tc.perBatch) > 0.05*tc.perBatch {
			t.Errorf("max.in.flight %d: %.1f records per batch, want ≈ %.0f", tc.inflight, mean, tc.perBatch)
		}
		if res.Metrics.Produced != 20_000 {
			t.Errorf("max.in.flight %d: produced %d, want 20000", tc.inflight, res.Metrics.Produced)
		}
	}
}

// More than buffer.memory waiting is refused with an error naming the settings, never a
// silently lower rate: 1 000 000 records/s of 1 000 bytes through one request per 100 ms.
func TestProducerBufferMemoryRefused(t *testing.T) {
	p := accProducer(1_000_000, 16384, 5, 1000)
	p.MaxInFlight = 1
	cfg := prodWorld(2, p, 10_000)
	cfg.Network.Latency = dist.Must(dist.Constant(50))
	_, err := sim.Run(cfg, 1, sim.Options{})
	if err == nil {
		t.Fatal("run succeeded; want a buffer.memory error")
	}
	for _, k := range []string{"buffer.memory", "max.in.flight.requests.per.connection", "batch.size", "linger.ms", `producer "p"`} {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("error %q does not name %s", err, k)
		}
	}
}

// Partitioning: keyed records spread over the partitions by key (8 keys on 4 partitions:
// each gets a quarter); unkeyed records stick to one partition for batch.size bytes, so
// batches are full (163 records of 100 bytes in 16 384) and every partition gets its share.
func TestProducerPartitioning(t *testing.T) {
	for _, keyed := range []bool{true, false} {
		p := accProducer(10_000, 16384, 1000, 100)
		if keyed {
			p.Keys = 8
		}
		res, err := sim.Run(prodWorld(4, p, 60_000), 1, sim.Options{KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int64{}
		var full, batches int
		for _, b := range producedBatches(t, res) {
			per[b.part] += b.records
			batches++
			if b.records == 163 {
				full++
			}
		}
		total := res.Metrics.Produced
		for part, n := range per {
			if math.Abs(float64(n)-float64(total)/4) > 0.05*float64(total)/4 {
				t.Errorf("keyed=%v: %s got %d of %d records, want a quarter within 5 %%", keyed, part, n, total)
			}
		}
		if len(per) != 4 {
			t.Errorf("keyed=%v: %d partitions got records, want 4", keyed, len(per))
		}
		if !keyed && float64(full) < 0.95*float64(batches) {
			t.Errorf("sticky: %d of %d batches full, want nearly all", full, batches)
		}
	}
}

// Settings the simulator cannot honour, or that contradict each other, are refused with an
// error naming the key.
func TestProducerRefusals(t *testing.T) {
	for _, tc := range []struct {
		p    sim.Producer
		want string
	}{
		{sim.Producer{RecordsPerSecond: 1000, BatchRecords: 10, BatchBytes: 16384}, "batch_records and batch.size"},
		{sim.Producer{RecordsPerSecond: 1000, BatchRecords: 10, LingerMs: 5}, "linger.ms"},
		{sim.Producer{RecordsPerSecond: 1000, BatchRecords: 10, MaxInFlight: 2}, "max.in.flight.requests.per.connection"},
		{sim.Producer{RecordsPerSecond: 1000}, "batch_records >= 1 or batch.size"},
		{sim.Producer{RecordsPerSecond: 1000, BatchBytes: 16384, Transactional: true, TxnBatches: 1}, "transactional"},
		{sim.Producer{RecordsPerSecond: 2e7, BatchRecords: 10}, "rate"},
		{sim.Producer{RecordsPerSecond: 1000, BatchBytes: 2 << 20}, "max.request.size"},
		{sim.Producer{RecordsPerSecond: 1000, BatchBytes: 16384, RecordSize: dist.Must(dist.Constant(2 << 20))}, "record_size"},
	} {
		_, err := sim.Run(prodWorld(1, tc.p, 1000), 1, sim.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %q", tc.p, err, tc.want)
		}
	}
}

// An accumulator-mode producer is deterministic: one seed, one trace.
func TestProducerDeterministic(t *testing.T) {
	p := accProducer(50_000, 16384, 5, 0)
	p.RecordSize = dist.Must(dist.LogNormalP50P99(200, 2000))
	p.Rate = sim.RatePoisson
	p.Keys = 100
	cfg := prodWorld(6, p, 5_000)
	cfg.Network.Latency = dist.Must(dist.Uniform(1, 10))
	a, err := sim.Run(cfg, 9, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sim.Run(cfg, 9, sim.Options{})
	if a.TraceSHA256 != b.TraceSHA256 {
		t.Errorf("two runs differ")
	}
}

// minProdMs is TestProducerRateHonoured's shortest run: 2 s, which makes the 1 000 000
// records/s runs ten times longer than the others (200 000 records each); under -race without
// -tags long 0.2 s, where they deviate 0.33 % at most (seed 3).
func minProdMs() float64 {
	if testmode.Race && !testmode.Long {
		return 200
	}
	return 2_000
}
