package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Classic consumers like KafkaConsumer: fetch latency both ways, long poll, prefetch,
// max.poll.records, max.poll.interval.ms, commits that take a network latency, worker
// threads in blocking and continuous style.

// classicWorld is one topic of parts partitions, a constant fixed-batch producer (batches of
// one record) and one classic group with consumer spec c.
func classicWorld(parts int, rate float64, c sim.ConsumerSpec) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: parts, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: rate, BatchRecords: 1}}
	cfg.Groups = []sim.Group{{Name: "g", Type: sim.ClassicGroup, Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}, AutoCommitIntervalMs: 5000}}
	return cfg
}

func classicConsumer(count int, procMs int64, maxPoll int) sim.ConsumerSpec {
	c := sim.DefaultConsumer("c")
	c.Count = count
	c.Processing = dist.Must(dist.Constant(procMs))
	c.MaxPollRecords = maxPoll
	return c
}

func mustRun(t *testing.T, cfg sim.Config, seed uint64) *sim.Result {
	t.Helper()
	res, err := sim.Run(cfg, seed, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// An idle classic consumer waits at the broker (long poll): a record produced while the
// fetch is held is answered at once, so it is delivered one network latency (1 ms) after it
// was appended, at any load, not up to fetch.max.wait.ms later.
func TestClassicLongPollLatency(t *testing.T) {
	for _, rate := range []float64{1, 50, 500} {
		cfg := classicWorld(2, rate, classicConsumer(2, 0, 500))
		cfg.DurationMs = 60_000
		res := mustRun(t, cfg, 1)
		l := res.Metrics.Groups[0].Latency.FirstDelivery
		if l.Count == 0 || *l.P50Ms > 1 || *l.P99Ms > 3 {
			t.Errorf("rate %.0f/s: first delivery p50 %v p99 %v ms over %d records, want ≤ 1 and ≤ 3", rate, l.P50Ms, l.P99Ms, l.Count)
		}
	}
}

// fetch.min.bytes: a fetch asking for 10 records' worth (10 × 1 000 bytes) at one record
// per 100 ms is held until the tenth record, so records wait up to ~900 ms and the median
// one ~450 ms; with a 200 ms fetch.max.wait.ms the wait ends first.
func TestClassicFetchMinBytes(t *testing.T) {
	for _, tc := range []struct {
		maxWait  int64
		lo, hi   int64
		describe string
	}{{5000, 350, 550, "held for 10 records"}, {200, 50, 150, "held for fetch.max.wait.ms"}} {
		c := classicConsumer(1, 0, 500)
		c.FetchMinBytes = 10 * sim.DefaultRecordBytes
		c.MaxWaitMs = tc.maxWait
		cfg := classicWorld(1, 10, c)
		cfg.DurationMs = 60_000
		res := mustRun(t, cfg, 1)
		l := res.Metrics.Groups[0].Latency.FirstDelivery
		if *l.P50Ms < tc.lo || *l.P50Ms > tc.hi {
			t.Errorf("%s: first-delivery p50 %d ms, want in [%d, %d]", tc.describe, *l.P50Ms, tc.lo, tc.hi)
		}
	}
}

// Blocking threads on a classic consumer are honoured: 4 threads, polls of 4 records of
// 10 ms each finish 400 records/s (the prefetched buffer hides the fetch round trip).
func TestClassicBlockingThreads(t *testing.T) {
	for _, threads := range []int{1, 4} {
		c := classicConsumer(1, 10, 4)
		c.Threads = threads
		cfg := classicWorld(1, 5000, c)
		cfg.DurationMs = 30_000
		res := mustRun(t, cfg, 1)
		got := float64(res.Metrics.Groups[0].InWindow.ProcessedOK) / 30
		want := 100 * float64(threads)
		if math.Abs(got-want) > 0.03*want {
			t.Errorf("threads %d: processed %.1f/s, want %.0f within 3 %%", threads, got, want)
		}
	}
}

// max.poll.interval.ms: a poll of 10 records of 10 s each takes 100 s; with a 30 s
// interval the member leaves the group each time, and rejoins at its next poll.
func TestClassicMaxPollInterval(t *testing.T) {
	c := classicConsumer(1, 10_000, 10)
	c.MaxPollIntervalMs = 30_000
	cfg := classicWorld(1, 10, c)
	cfg.DurationMs = 300_000
	res := mustRun(t, cfg, 1)
	if markCount(res, "max-poll-interval-exceeded") < 2 {
		t.Errorf("marks %v: want max-poll-interval-exceeded at least twice", res.Marks)
	}
	c.MaxPollIntervalMs = 0 // 300 s: never exceeded
	res = mustRun(t, classicWorld(1, 10, c), 1)
	if markCount(res, "max-poll-interval-exceeded") != 0 {
		t.Errorf("default interval: marks %v", res.Marks)
	}
}

func markCount(res *sim.Result, name string) int64 {
	for _, m := range res.Marks {
		if m.Name == name {
			return m.Count
		}
	}
	return 0
}

// expectedMax is E[max of n draws of d] = ∫ (1 − F(x)ⁿ) dx, by the trapezoid rule.
func expectedMax(d dist.Dist, n int) float64 {
	hi := d.Quantile(0.999999) * 2
	const steps = 200_000
	h := hi / steps
	var sum float64
	for i := 0; i <= steps; i++ {
		x := float64(i) * h
		f := 1 - math.Pow(d.CDF(x), float64(n))
		if i == 0 || i == steps {
			f /= 2
		}
		sum += f
	}
	return sum * h
}

// Continuous style beats blocking style by the factor arithmetic predicts: with 8 threads
// and polls of 8 records, a blocking poll lasts as long as the slowest of 8 lognormal
// processing times, so it finishes 8 / E[max of 8] records per ms; continuous slots never
// wait for each other and finish 8 / E[X]. The ratio is E[max of 8] / E[X].
func TestClassicContinuousBeatsBlocking(t *testing.T) {
	proc := dist.Must(dist.LogNormalP50P99(50, 500))
	rates := map[sim.ClientStyle]float64{}
	for _, style := range []sim.ClientStyle{sim.StyleBlocking, sim.StyleContinuous} {
		c := classicConsumer(1, 0, 8)
		c.Processing = proc
		c.Threads = 8
		c.Style = style
		cfg := classicWorld(1, 1000, c)
		cfg.DurationMs = 300_000
		res := mustRun(t, cfg, 1)
		rates[style] = float64(res.Metrics.Groups[0].InWindow.ProcessedOK) / 300
	}
	want := expectedMax(proc, 8) / proc.Mean()
	got := rates[sim.StyleContinuous] / rates[sim.StyleBlocking]
	t.Logf("blocking %.1f/s, continuous %.1f/s: ratio %.3f, predicted E[max of 8]/E[X] = %.3f", rates[sim.StyleBlocking], rates[sim.StyleContinuous], got, want)
	if math.Abs(got-want) > 0.05*want {
		t.Errorf("continuous/blocking %.3f, want %.3f within 5 %%", got, want)
	}
	if cont := rates[sim.StyleContinuous]; math.Abs(cont-8000/proc.Mean()) > 0.05*8000/proc.Mean() {
		t.Errorf("continuous %.1f/s, want 8 slots ÷ mean %.1f ms = %.1f/s", cont, proc.Mean(), 8000/proc.Mean())
	}
}

// The completed latency of a classic group ends when a commit reaches the coordinator: with
// commit: sync, after every poll, so one record per 100 ms processed in 5 ms completes about
// 1 (fetch answer) + 5 (processing) + 1 (commit) ms after it was produced.
func TestClassicCommitSyncLatency(t *testing.T) {
	c := classicConsumer(1, 5, 500)
	c.Commit = sim.CommitSync
	cfg := classicWorld(1, 10, c)
	cfg.DurationMs = 60_000
	res := mustRun(t, cfg, 1)
	l := res.Metrics.Groups[0].Latency.Completed
	if l.Count < 500 || *l.P50Ms != 7 {
		t.Errorf("completed latency p50 %v over %d records, want 7 ms", l.P50Ms, l.Count)
	}
}

// Settings a share group cannot honour are refused, naming the key.
func TestClientStyleRefusals(t *testing.T) {
	for _, tc := range []struct {
		typ  sim.GroupType
		mod  func(*sim.ConsumerSpec)
		want string
	}{
		{sim.ShareGroup, func(c *sim.ConsumerSpec) { c.Style = sim.StyleContinuous }, "style: continuous"},
		{sim.ShareGroup, func(c *sim.ConsumerSpec) { c.FetchMinBytes = 10 }, "fetch.min.bytes"},
		{sim.ClassicGroup, func(c *sim.ConsumerSpec) { c.HeldRecords = 10 }, "held_records"},
		{sim.ClassicGroup, func(c *sim.ConsumerSpec) { c.Style, c.Threads, c.HeldRecords = sim.StyleContinuous, 8, 4 }, "held_records 4 below threads 8"},
	} {
		c := classicConsumer(1, 1, 10)
		tc.mod(&c)
		cfg := classicWorld(1, 10, c)
		cfg.Groups[0].Type = tc.typ
		_, err := sim.Run(cfg, 1, sim.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.want, err, tc.want)
		}
	}
}

// A rebalance waits for the slowest member: a member busy with a poll of 10 records of 1 s
// rejoins only when it finishes them. Its first fetch is answered at once (it resolves the
// start offset) with the one record there; later fetches wait for 10 records
// (fetch.min.bytes), so its polls hold 1 record (0–1 s), then 10 (1–11 s, 11–21 s, ...). A
// third member joins at 12 s, so the rebalance ends when the slow member's poll ends at
// about 21 s: it waits about 9 s.
func TestClassicRebalanceWaitsForSlowest(t *testing.T) {
	slow := classicConsumer(1, 1000, 10)
	slow.Name = "slow"
	slow.FetchMinBytes = 10 * sim.DefaultRecordBytes
	fast := classicConsumer(1, 1, 10)
	fast.Name = "fast"
	late := classicConsumer(1, 1, 10)
	late.Name, late.StartMs = "late", 12_000
	cfg := classicWorld(3, 300, slow)
	cfg.Groups[0].Consumers = []sim.ConsumerSpec{slow, fast, late}
	cfg.DurationMs = 40_000
	res, err := sim.Run(cfg, 1, sim.Options{KeepTrace: true})
	if err != nil {
		t.Fatal(err)
	}
	var waited, at int64 = -1, 0
	for _, e := range ftParse(t, res.Trace) {
		if e.kind == "assign" && e.ms >= 12_000 && waited < 0 {
			waited, at = e.num("waited"), e.ms
		}
	}
	if waited < 8500 || waited > 9500 {
		t.Errorf("the rebalance after the join at 12 s ended at %d ms after waiting %d ms; want about 9 s (the slow member's poll ends first)", at, waited)
	}
	if markCount(res, "classic-rebalance-waited") == 0 {
		t.Errorf("no classic-rebalance-waited mark: %v", res.Marks)
	}
}
