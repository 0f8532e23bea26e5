package sim_test

import (
	"testing"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// A scripted run whose Kafka figures follow by hand. The share coordinator takes 5 s per
// write; one consumer takes one record per millisecond and fetches up to 500. First a
// producer batch of 100 records arrives at 0 ms: they are processed and acknowledged at once,
// and the write that persists them commits at about 5 s. Then N = 100 more arrive at 8 s, are
// processed by about 8.1 s, and their write commits at about 13.1 s. Kafka's lag is computed
// from the persisted state, so between 9 s and 12 s it is N although every record is
// processed, while sharesim's backlog, from the leader's state (which counts the records
// delivery-complete as soon as the acknowledgement is applied, as Kafka's leader does), is 0:
// the lag trails the leader by that write (before the first write commits it is unknown). InFlightMessageCount (SPEO − SPSO + 1) is N meanwhile and 0 once the write
// committed. RecordAcknowledgementsPerSec counts the second batch's N Accepts only after its
// write; the client's acknowledgements-send-total counted them when it sent them.
func TestKafkaMetricsByHand(t *testing.T) {
	c := ftConsumer("c", 1, 1, 500)
	cfg := ftWorld(1, 100, 1, c)
	cfg.Producers[0].BatchRecords = 100 // one batch of 100 at 0 ms
	second := cfg.Producers[0]
	second.Name, second.StartMs, second.StopMs = "p2", 8_000, 8_001 // and one at 8 s
	cfg.Producers = append(cfg.Producers, second)
	cfg.Coordinator.WriteLatency = dist.Must(dist.Constant(5_000))
	cfg.DurationMs, cfg.HealMs = 20_000, 0
	cfg.MetricsIntervalMs = 1_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	total := g.Totals.Produced
	var first int64 // records of the first burst: produced by the 2 s sample
	for _, s := range res.Metrics.Series {
		if s.TimeMs == 2_000 {
			first = s.Groups[0].Produced
		}
	}
	n := total - first
	if first != 100 || n != 100 || g.Totals.Completed != total || g.Totals.Deliveries != total {
		t.Fatalf("setup: produced %d then %d, delivered %d, completed %d; want 100 twice, each delivered once and completed", first, n, g.Totals.Deliveries, g.Totals.Completed)
	}
	var k *sim.KafkaMetrics = g.Kafka
	if k == nil {
		t.Fatal("no Kafka figures for a share group")
	}
	if k.SharePartition.InFlightMessageCountMax != max(first, n) || k.SharePartition.InFlightMessageCountEnd != 0 {
		t.Errorf("InFlightMessageCount max %d, end %d; want %d and 0", k.SharePartition.InFlightMessageCountMax, k.SharePartition.InFlightMessageCountEnd, max(first, n))
	}
	if got := k.ShareGroup.RecordAcknowledgementsCount["Accept"]; got != total {
		t.Errorf("RecordAcknowledgementsPerSec Accept count %d, want %d", got, total)
	}
	if k.Consumer.AcknowledgementsSendTotal != total || k.Consumer.AcknowledgementsErrorTotal != 0 {
		t.Errorf("acknowledgements-send-total %d, -error-total %d; want %d and 0", k.Consumer.AcknowledgementsSendTotal, k.Consumer.AcknowledgementsErrorTotal, total)
	}
	if k.Lag.End != 0 || k.Lag.Max != n || k.Lag.Unknown != 0 {
		t.Errorf("lag end %d, max %d, unknown %d; want 0, %d, 0", k.Lag.End, k.Lag.Max, k.Lag.Unknown, n)
	}
	seen := map[string]bool{}
	for _, s := range res.Metrics.Series {
		ks, p := s.Groups[0].Kafka, s.Partitions[0]
		switch {
		case s.TimeMs >= 2_000 && s.TimeMs <= 4_000: // the first write outstanding
			seen["first"] = true
			if p.Lag != -1 || ks.AcceptCount != 0 || ks.AcksSentTotal != first || ks.InFlightMessageCount != first {
				t.Errorf("at %d ms: lag %d (want -1, nothing persisted yet), Accept %d (want 0), sent %d (want %d), in flight %d (want %d)",
					s.TimeMs, p.Lag, ks.AcceptCount, ks.AcksSentTotal, first, ks.InFlightMessageCount, first)
			}
		case s.TimeMs >= 6_000 && s.TimeMs <= 7_000: // persisted, nothing new
			seen["between"] = true
			if p.Lag != 0 || ks.AcceptCount != first || ks.InFlightMessageCount != 0 {
				t.Errorf("at %d ms: lag %d, Accept %d, in flight %d; want 0, %d, 0", s.TimeMs, p.Lag, ks.AcceptCount, ks.InFlightMessageCount, first)
			}
		case s.TimeMs >= 9_000 && s.TimeMs <= 12_000: // the second write outstanding
			seen["second"] = true
			if ks.InFlightBatchCount != 1 {
				t.Errorf("at %d ms: InFlightBatchCount %d, want 1 (the producer batch was acquired whole)", s.TimeMs, ks.InFlightBatchCount)
			}
			if p.Lag != n || p.Backlog != 0 || ks.AcceptCount != first || ks.AcksSentTotal != total || ks.InFlightMessageCount != n {
				t.Errorf("at %d ms: lag %d, backlog %d, Accept %d, sent %d, in flight %d; want %d, 0, %d, %d, %d",
					s.TimeMs, p.Lag, p.Backlog, ks.AcceptCount, ks.AcksSentTotal, ks.InFlightMessageCount, n, first, total, n)
			}
		case s.TimeMs >= 14_000:
			seen["after"] = true
			if ks.Lag != 0 || ks.InFlightMessageCount != 0 || ks.AcceptCount != total {
				t.Errorf("at %d ms: lag %d, in flight %d, Accept %d; want 0, 0, %d", s.TimeMs, ks.Lag, ks.InFlightMessageCount, ks.AcceptCount, total)
			}
		}
	}
	if len(seen) != 4 {
		t.Fatalf("samples cover only %v", seen)
	}
}

// A lock that fires while an acknowledgement's write is outstanding: Kafka's
// AcquisitionLockTimeoutPerSec counts the timer's offsets, sharesim's lock_timeouts does not
// (nothing came back). One record, processed in 1 ms, the write takes 40 s against the 30 s
// lock.
func TestKafkaLockTimeoutsCountTimersDuringWrites(t *testing.T) {
	c := ftConsumer("c", 1, 1, 10)
	cfg := ftWorld(1, 1, 1_000, c) // one record at 0 ms
	cfg.Coordinator.WriteLatency = dist.Must(dist.Constant(40_000))
	cfg.DurationMs, cfg.HealMs = 60_000, 30_000
	res := ftRun(t, cfg, 1)
	g := rgGroup(t, res, 0)
	if g.Totals.Produced != 1 || g.Totals.Completed != 1 {
		t.Fatalf("setup: produced %d, completed %d", g.Totals.Produced, g.Totals.Completed)
	}
	if g.Totals.AcquisitionLockTimeouts != 0 || g.Kafka.SharePartition.AcquisitionLockTimeoutCount != 1 {
		t.Errorf("sharesim lock timeouts %d (want 0), Kafka's AcquisitionLockTimeoutPerSec count %d (want 1)",
			g.Totals.AcquisitionLockTimeouts, g.Kafka.SharePartition.AcquisitionLockTimeoutCount)
	}
}

// PartitionLoadTimeMs: the share coordinator's read takes 700 ms; three consumers' first
// fetches find the share-partition loading and wait for it (fetch.max.wait.ms 2 s), so
// Kafka adds three samples of at most 700 ms (from the share-partition's creation by the
// first fetch to the load's end). With the default 500 ms wait each consumer fetches again
// while the load runs, and each of those fetches adds a sample too.
func TestKafkaPartitionLoadTime(t *testing.T) {
	c := ftConsumer("c", 3, 1, 10)
	c.MaxWaitMs = 2_000
	cfg := ftWorld(1, 10, 0, c)
	cfg.Coordinator.ReadLatency = dist.Must(dist.Constant(700))
	cfg.DurationMs = 10_000
	res := ftRun(t, cfg, 1)
	h := rgGroup(t, res, 0).Kafka.ShareGroup.PartitionLoadTimeMs
	if h.Count < 1 || h.Max == nil || *h.Max > 700 || *h.P50 < 600 {
		t.Fatalf("PartitionLoadTimeMs %+v: want samples of at most 700 ms", h)
	}
	if h.Count != 3 {
		t.Errorf("PartitionLoadTimeMs has %d samples, want 3 (one per fetch that waited for the load)", h.Count)
	}
}

// FetchLockTimeMs with a 50 ms log read: every hold that read the log lasts 50 ms.
func TestKafkaFetchLockTime(t *testing.T) {
	c := ftConsumer("c", 2, 5, 10)
	cfg := ftWorld(1, 50, 0, c)
	cfg.LogReadLatency = dist.Must(dist.Constant(50))
	cfg.DurationMs = 20_000
	res := ftRun(t, cfg, 1)
	h := rgGroup(t, res, 0).Kafka.SharePartition.FetchLockTimeMs
	if h.Count == 0 || h.Max == nil || *h.Max != 50 || *h.P99 != 50 {
		t.Errorf("FetchLockTimeMs %+v: want holds of 50 ms (and 0 ms for fetches that found nothing to read)", h)
	}
	r := rgGroup(t, res, 0).Kafka.SharePartition.FetchLockRatio
	if r.Count != h.Count || r.Max == nil || *r.Max > 100 {
		t.Errorf("FetchLockRatio %+v: want one sample per hold, in percent", r)
	}
}
