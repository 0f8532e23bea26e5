package sim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Statistical sanity checks against closed forms. Every run uses a fixed seed, so each
// test is deterministic; the tolerances are chosen so that another seed (or a change in how
// the PRNG streams are consumed) would still pass with overwhelming probability.

// Processing that always takes longer than the lock: every delivery's lock expires before
// the acknowledgement, so each record is delivered exactly `limit` times and then archived.
func TestStatsSlowProcessingArchivesAtLimit(t *testing.T) {
	const records = 3
	modes := map[sim.AckMode]string{sim.AckImplicit: "implicit", sim.AckExplicit: "explicit"}
	for _, mode := range []sim.AckMode{sim.AckImplicit, sim.AckExplicit} {
		for _, limit := range []int{2, 3, 5} {
			t.Run(fmt.Sprintf("%s/limit=%d", modes[mode], limit), func(t *testing.T) {
				c := ftConsumer("c", 1, 40000, 1) // 40 s a record, lock 30 s
				c.AckMode = mode
				cfg := ftWorld(1, 1, records*1000, c)
				cfg.Kafka.DeliveryCountLimit = limit
				// Each delivery occupies the consumer for 40 s.
				cfg.DurationMs = int64(records*limit)*40000 + 60000
				res := ftRun(t, cfg, 1)
				ftDump(t, res)
				m := res.Metrics
				if m.Produced != records {
					t.Fatalf("setup: produced %d, want %d", m.Produced, records)
				}
				if m.Totals.Finished["limit"] != records || m.Totals.Finished["accepted"] != 0 {
					t.Errorf("finalized %v, want all %d records archived at the limit", m.Totals.Finished, records)
				}
				for dc, n := range m.DeliveryCountHist {
					want := int64(0)
					if dc == limit {
						want = records
					}
					if n != want {
						t.Errorf("delivery count histogram %v: want all %d records at dc %d", m.DeliveryCountHist, records, limit)
						break
					}
				}
				want := int64(records * limit)
				if m.Totals.Deliveries != want || m.Totals.AcquisitionLockTimeouts != want || m.Totals.ProcessedAfterLockExpiry != want {
					t.Errorf("deliveries %d, lock timeouts %d, processed after expiry %d: want %d each", m.Totals.Deliveries, m.Totals.AcquisitionLockTimeouts, m.Totals.ProcessedAfterLockExpiry, want)
				}
			})
		}
	}
}

// Exponential processing times with mean m and a lock of L: a delivery's processing
// outlives its lock with probability P(X > L) = exp(-L/m).
//
// The measure is ProcessedLateLock / Processed: the share of completed processings that
// finished after the lock deadline the client was given (acquisition time + L). Each
// delivery is processed exactly once (explicit acks, no failures, max.poll.records 1 and
// one-record batches so nothing waits in the client's buffer), so this is the per-delivery
// probability. Processing starts one network hop (1 ms) after the acquisition, which shifts
// the threshold to L − 1 ms: exp(1/15000) − 1 ≈ 7e-5 relative, far below the tolerance.
// AcquisitionLockTimeouts / Deliveries is checked too; it counts locks that fired before
// the ACCEPT committed (about 7 ms after processing ends), an equally negligible shift.
func TestStatsLockExpiryFractionExponential(t *testing.T) {
	const meanMs, lockMs = 15000.0, 30000
	c := sim.DefaultConsumer("c")
	c.Count = 40
	c.Processing = dist.Must(dist.Exponential(meanMs))
	c.MaxPollRecords = 1
	c.AckMode = sim.AckExplicit
	// 40 consumers process 40/15 ≈ 2.7 records/s; 3 records/s keeps them all busy.
	cfg := ftWorld(1, 3, 2000000, c)
	cfg.Kafka.RecordLockDurationMs = lockMs
	cfg.DurationMs = 2_200_000
	cfg.MetricsIntervalMs = 600000
	res, err := sim.Run(cfg, 42, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	n := float64(m.Totals.Processed)
	if n < 5000 {
		t.Fatalf("setup: only %d processings", m.Totals.Processed)
	}
	p := math.Exp(-lockMs / meanMs) // 0.1353
	// Binomial standard error of the observed fraction, times 4 (a 4-sigma miss has
	// probability ~6e-5), plus 0.002 for the millisecond shifts described above.
	tol := 4*math.Sqrt(p*(1-p)/n) + 0.002
	got := float64(m.Totals.ProcessedAfterLockExpiry) / n
	if math.Abs(got-p) > tol {
		t.Errorf("processed after lock expiry: %d of %d = %.4f, want exp(-L/m) = %.4f ± %.4f", m.Totals.ProcessedAfterLockExpiry, m.Totals.Processed, got, p, tol)
	}
	nd := float64(m.Totals.Deliveries)
	tolD := 4*math.Sqrt(p*(1-p)/nd) + 0.002
	gotD := float64(m.Totals.AcquisitionLockTimeouts) / nd
	if math.Abs(gotD-p) > tolD {
		t.Errorf("lock timeouts: %d of %d deliveries = %.4f, want %.4f ± %.4f", m.Totals.AcquisitionLockTimeouts, m.Totals.Deliveries, gotD, p, tolD)
	}
	// The only fault is the lock expiring under a slow processing, so every duplicate is
	// a lock-expiry one.
	if m.Totals.Duplicates == 0 || m.Totals.DuplicatesByCause["lock_expiry"] != m.Totals.Duplicates {
		t.Errorf("duplicates %v: want all %d attributed to lock_expiry, and some", m.Totals.DuplicatesByCause, m.Totals.Duplicates)
	}
	t.Logf("late %.4f (n=%d), lock timeouts %.4f (n=%d), closed form %.4f, tolerance %.4f", got, m.Totals.Processed, gotD, m.Totals.Deliveries, p, tol)
}

// Throughput: with more records than they can handle, N consumers needing t ms a record
// process N × 1000 / t records a second. Polls of 100 records make the per-poll overhead
// (a fetch round trip and the acknowledgement write, about 7 ms) negligible.
func TestStatsThroughput(t *testing.T) {
	cases := []struct {
		consumers, parts int
		procMs           int64
	}{
		{1, 1, 10},
		{4, 2, 50},
		{8, 2, 200},
		{6, 4, 20},
	}
	const durMs = 60000
	for _, tc := range cases {
		t.Run(fmt.Sprintf("n=%d/t=%dms", tc.consumers, tc.procMs), func(t *testing.T) {
			want := float64(tc.consumers) * 1000 / float64(tc.procMs)
			cfg := ftWorld(tc.parts, 2*want+10, 0, ftConsumer("c", tc.consumers, tc.procMs, 100))
			cfg.Producers[0].BatchRecords = 10
			cfg.DurationMs = durMs
			res := ftRun(t, cfg, 3)
			got := float64(res.Metrics.Totals.ProcessedOK) / (durMs / 1000)
			if math.Abs(got-want) > 0.05*want {
				t.Errorf("throughput %.1f records/s, want %.1f ± 5%%", got, want)
			}
			if res.Metrics.Totals.Duplicates != 0 || res.Metrics.Totals.AcquisitionLockTimeouts != 0 {
				t.Errorf("duplicates %d, lock timeouts %d: want none", res.Metrics.Totals.Duplicates, res.Metrics.Totals.AcquisitionLockTimeouts)
			}
			t.Logf("%d consumers × %d ms: %.1f records/s (closed form %.1f)", tc.consumers, tc.procMs, got, want)
		})
	}
}
