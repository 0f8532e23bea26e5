package sim_test

import (
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The share consumer like KafkaShareConsumer 4.2: poll() serves records from the fetch
// buffer and sends the previous poll's acknowledgements alone (ShareAcknowledge); only when
// the buffer is empty does it fetch, with the acknowledgements piggy-backed on the ShareFetch.
// One partition, producer batches of 10 records, max.poll.records 2, records plentiful:
// batch_optimized acquires whole batches, so each ShareFetch fills the buffer with 10
// records, served by 5 polls: 4 from the buffer (4 ShareAcknowledge), 1 fetching. With
// record_limit a fetch acquires only 2, the buffer never holds a second poll, and every
// acknowledgement rides on a ShareFetch.
func TestShareAcksPiggybackedOrAlone(t *testing.T) {
	for _, tc := range []struct {
		mode   model.AcquireMode
		lo, hi float64
	}{{model.BatchOptimized, 3.5, 4.5}, {model.RecordLimit, 0, 0.05}} {
		c := ftConsumer("c", 1, 1, 2)
		c.AcquireMode = tc.mode
		cfg := ftWorld(1, 5000, 0, c)
		cfg.Producers[0].BatchRecords = 10
		cfg.DurationMs = 10_000
		res := ftRun(t, cfg, 1)
		m := res.Metrics
		ratio := float64(m.ShareAcknowledgeRequests) / float64(m.ShareFetchRequests)
		if ratio < tc.lo || ratio > tc.hi {
			t.Errorf("%v: %d ShareAcknowledge per %d ShareFetch = %.2f, want in [%.2f, %.2f]", tc.mode, m.ShareAcknowledgeRequests, m.ShareFetchRequests, ratio, tc.lo, tc.hi)
		}
	}
}

// record_limit fetches from one leader per poll (rotating over the partitions): with 3
// partitions on 3 brokers, one consumer and commitSync (so no acknowledgements ride on
// fetches), a poll acquires from one leader and almost nothing waits in the client's buffer
// (only when a fetch opens the share session on another leader does that one get a
// ShareFetch too); batch_optimized fetches from all 3 leaders at once, so two thirds of what
// it acquires waits in the buffer for later polls.
func TestShareRecordLimitOneLeaderPerPoll(t *testing.T) {
	wait := map[model.AcquireMode]int64{}
	for _, mode := range []model.AcquireMode{model.BatchOptimized, model.RecordLimit} {
		c := ftConsumer("c", 1, 1, 5)
		c.AcquireMode = mode
		c.AckMode = sim.AckExplicit
		c.Commit = sim.CommitSync
		cfg := ftWorld(3, 5000, 0, c)
		cfg.DurationMs = 10_000
		res := ftRun(t, cfg, 1)
		wait[mode] = res.Metrics.BufferWaitMs
		if res.Metrics.Groups[0].Totals.Deliveries < 1000 {
			t.Fatalf("%v: only %d deliveries", mode, res.Metrics.Groups[0].Totals.Deliveries)
		}
	}
	if wait[model.BatchOptimized] == 0 || wait[model.RecordLimit]*10 > wait[model.BatchOptimized] {
		t.Errorf("time records waited in the client buffer: record_limit %d ms, batch_optimized %d ms; want record_limit below a tenth", wait[model.RecordLimit], wait[model.BatchOptimized])
	}
}
