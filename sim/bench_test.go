package sim_test

import (
	"runtime"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// BenchmarkHourRun runs the one-hour world; it reports virtual time per wall second
// (speedup, goal ≥ 1000) and events per second.
func BenchmarkHourRun(b *testing.B) {
	cfg := testworlds.Hour(3_600_000)
	b.ReportAllocs()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := sim.Run(cfg, uint64(i+1), sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)*3600/secs, "speedup")
	b.ReportMetric(float64(events)/secs, "events/s")
}

// BenchmarkEvents measures the engine on a five-minute slice of the same world, per event.
func BenchmarkEvents(b *testing.B) {
	cfg := testworlds.Hour(300_000)
	b.ReportAllocs()
	var events int64
	for done := 0; done < b.N; {
		res, err := sim.Run(cfg, uint64(done+1), sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		done += int(res.Events)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// Memory grows with the in-flight work and the recorded history, not with the log: the live
// heap of a world hardly changes between minute 10 and minute 55 of the hour run, while the
// log grows by 2.7 million records. Without -race the test measures the first 25 minutes,
// at minute 5 and minute 22 (1 million more records); the default run (-race, which slows
// this one-goroutine run some ten times and cannot find anything in it) the first 10
// minutes, at minute 2 and minute 9 (420 000 more records: a leak of 20 bytes a record
// still crosses the bound); the build tag long runs the hour.
func TestMemoryDoesNotGrowWithTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs up to an hour of virtual time")
	}
	endMs, fromMs, toMs := int64(1_500_000), int64(300_000), int64(1_320_000)
	switch {
	case testmode.Long:
		endMs, fromMs, toMs = 3_600_000, 600_000, 3_300_000
	case testmode.Race:
		endMs, fromMs, toMs = 600_000, 120_000, 540_000
	}
	cfg := testworlds.Hour(endMs)
	var atFrom, atTo uint64
	measure := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	_, err := sim.Run(cfg, 1, sim.Options{Observer: func(w *sim.World) {
		switch {
		case atFrom == 0 && w.NowMs() >= fromMs:
			atFrom = measure()
		case atTo == 0 && w.NowMs() >= toMs:
			atTo = measure()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	records := float64(toMs-fromMs) / 1000 * 1000 // 1 000 records/s
	growth := int64(atTo) - int64(atFrom)
	t.Logf("live heap at minute %d %.1f MB, at minute %d %.1f MB (growth %.1f MB for %.1fM more records)",
		fromMs/60_000, float64(atFrom)/1e6, toMs/60_000, float64(atTo)/1e6, float64(growth)/1e6, records/1e6)
	if growth > 8<<20 {
		t.Errorf("live heap grew by %d bytes between minute %d and %d; it should not grow with the log", growth, fromMs/60_000, toMs/60_000)
	}
}

// bigConfig is 100 000 records/s for ten minutes (60 M records) from a KafkaProducer-style
// producer (100-byte records, 16 KiB batches, linger 5 ms) on 16 partitions, read by a
// classic group of 16 consumers with no processing time.
func bigConfig() sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = 600_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 16, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: 100_000, BatchBytes: 16384, LingerMs: 5,
		RecordSize: dist.Must(dist.Constant(100))}}
	c := sim.DefaultConsumer("c")
	c.Count = 16
	c.Processing = dist.Must(dist.Constant(0))
	c.MaxPollRecords = 1000
	cfg.Groups = []sim.Group{{Name: "g", Type: sim.ClassicGroup, Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}}}
	return cfg
}

// BenchmarkTenMinutes100k runs bigConfig and reports the live heap at minute 2 and minute 9
// (heap-2m, heap-9m, in MB): memory follows the in-flight work, not the 60 M records.
func BenchmarkTenMinutes100k(b *testing.B) {
	cfg := bigConfig()
	for i := 0; i < b.N; i++ {
		var at2, at9 uint64
		measure := func() uint64 {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			return ms.HeapAlloc
		}
		res, err := sim.Run(cfg, uint64(i+1), sim.Options{Observer: func(w *sim.World) {
			switch {
			case at2 == 0 && w.NowMs() >= 120_000:
				at2 = measure()
			case at9 == 0 && w.NowMs() >= 540_000:
				at9 = measure()
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Metrics.Produced < 59_000_000 {
			b.Fatalf("produced %d, want about 60 M", res.Metrics.Produced)
		}
		b.ReportMetric(float64(at2)/1e6, "heap-2m-MB")
		b.ReportMetric(float64(at9)/1e6, "heap-9m-MB")
		b.ReportMetric(float64(res.Metrics.Produced), "records")
	}
}
