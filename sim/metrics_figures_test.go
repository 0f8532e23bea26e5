package sim_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// Tests of the per-group figures (figures.go, counters.go) against answers that follow from
// arithmetic or closed forms. The worlds are small; the statistical ones pool a few seeds and
// hold each figure to three standard errors of its closed form (plus, where stated, the
// millisecond shifts of the network hop, which are computed, not guessed).

// figConsumer is count instances processing each record for a time drawn from proc,
// max.poll.records maxPoll.
func figConsumer(name string, count int, proc dist.Dist, maxPoll int) sim.ConsumerSpec {
	c := sim.DefaultConsumer(name)
	c.Count = count
	c.Processing = proc
	c.MaxPollRecords = maxPoll
	return c
}

func figConst(ms int64) dist.Dist { return dist.Must(dist.Constant(ms)) }

// figClock adds an unread topic with a producer that runs to the end of the main phase, so
// the measurement window (which ends at the last producer stop) covers the drain of records
// produced on "t" before its producer stopped. Nothing reads "clock": the group's figures
// see only "t".
func figClock(cfg *sim.Config) {
	cfg.Topics = append(cfg.Topics, sim.Topic{Name: "clock", Partitions: 1, RetentionMs: -1, RetentionRecords: -1})
	cfg.Producers = append(cfg.Producers, sim.Producer{Name: "clock", Topic: "clock", RecordsPerSecond: 1, BatchRecords: 1})
}

func figRun(t *testing.T, cfg sim.Config, seed uint64, trace bool) *sim.Result {
	t.Helper()
	res, err := sim.Run(cfg, seed, sim.Options{KeepTrace: trace})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func figGroup(t *testing.T, res *sim.Result, name string) sim.GroupMetrics {
	t.Helper()
	for _, g := range res.Metrics.Groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q in %d groups", name, len(res.Metrics.Groups))
	return sim.GroupMetrics{}
}

// figNear reports |got − want| ≤ tol.
func figNear(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// figTruncGeom are the moments of the delivery count D of a record whose every delivery
// independently outlives its lock with probability p, under a delivery count limit:
// P(D ≥ k) = p^(k−1) for k = 1..limit, so E[D] = Σ_{k=0}^{limit−1} p^k and
// E[D²] = Σ_{k=1}^{limit} (2k − 1) p^(k−1).
func figTruncGeom(p float64, limit int) (mean, variance float64) {
	var m1, m2 float64
	for k := 1; k <= limit; k++ {
		tail := math.Pow(p, float64(k-1))
		m1 += tail
		m2 += float64(2*k-1) * tail
	}
	return m1, m2 - m1*m1
}

// ---------------------------------------------------------------------------------------
// 1. The measurement window.

// A constant producer writes one record every 1000/rate ms from its start (batch k at
// start + k × 10 ms for 100 records/s) until its stop, so the window [start + warm-up, stop)
// holds exactly (stop − start − warm-up) / 10 records and the whole run (stop − start) / 10.
// Two consumers at 5 ms a record have 4× the capacity needed: everything completes within
// a few ms of its production, so the completion rate equals the arrival rate up to the
// records straddling the window's ends.
func TestFiguresWindowArithmetic(t *testing.T) {
	cases := []struct {
		name                      string
		startMs, stopMs, warmupMs int64
		wantStart, wantEnd, inWin int64
		total                     int64
	}{
		{"whole-run", 0, 0, 0, 0, 60000, 6000, 6000},
		{"warmup-20s", 0, 0, 20000, 20000, 60000, 4000, 6000},
		{"late-start-early-stop", 10000, 50000, 5000, 15000, 50000, 3500, 4000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ftWorld(1, 100, tc.stopMs, figConsumer("c", 2, figConst(5), 50))
			cfg.Producers[0].StartMs = tc.startMs
			cfg.DurationMs, cfg.HealMs, cfg.WarmupMs = 60000, 60000, tc.warmupMs
			res := figRun(t, cfg, 1, false)
			g := figGroup(t, res, "g")
			if g.Window.StartMs != tc.wantStart || g.Window.EndMs != tc.wantEnd || g.Window.WarmupMs != tc.warmupMs {
				t.Errorf("window %+v, want [%d, %d) warm-up %d", g.Window, tc.wantStart, tc.wantEnd, tc.warmupMs)
			}
			if res.Metrics.Window != g.Window {
				t.Errorf("world window %+v differs from the group's %+v", res.Metrics.Window, g.Window)
			}
			if want := tc.wantEnd - tc.wantStart; g.Rates.WindowMs != want {
				t.Errorf("Rates.WindowMs %d, want %d", g.Rates.WindowMs, want)
			}
			if g.Totals.Produced != tc.total || g.InWindow.Produced != tc.inWin {
				t.Errorf("produced: total %d (want %d), in window %d (want %d)", g.Totals.Produced, tc.total, g.InWindow.Produced, tc.inWin)
			}
			if tc.warmupMs == 0 && tc.startMs == 0 && tc.stopMs == 0 && g.InWindow.Produced != g.Totals.Produced {
				t.Errorf("the window is the whole production: in window %d != total %d", g.InWindow.Produced, g.Totals.Produced)
			}
			if !figNear(g.Rates.ArrivalPerSec, 100, 1) {
				t.Errorf("ArrivalPerSec %.3f, want 100 ± 1%%", g.Rates.ArrivalPerSec)
			}
			if !figNear(g.Rates.CompletedPerSec, 100, 1) {
				t.Errorf("CompletedPerSec %.3f, want 100 ± 1%% (capacity 400/s)", g.Rates.CompletedPerSec)
			}
			if g.Rates.DuplicatesPerHour != 0 || g.Rates.LockTimeoutsPerHour != 0 || g.Rates.RedeliveriesPerHour != 0 {
				t.Errorf("rates %+v: want no duplicates, redeliveries or lock timeouts", g.Rates)
			}
			if g.Totals.Completed != g.Totals.Produced || !g.Accounting.Balanced || !g.KeepUp.KeptUp {
				t.Errorf("completed %d of %d, accounting balanced %v, kept up %v (%s): want all completed, balanced, kept up",
					g.Totals.Completed, g.Totals.Produced, g.Accounting.Balanced, g.KeepUp.KeptUp, g.KeepUp.Reason)
			}
			if g.DeliveriesPerRecord != 1 {
				t.Errorf("DeliveriesPerRecord %v, want 1", g.DeliveriesPerRecord)
			}
			t.Logf("window [%d, %d): produced %d in window of %d, arrival %.3f/s, completed %.3f/s",
				g.Window.StartMs, g.Window.EndMs, g.InWindow.Produced, g.Totals.Produced, g.Rates.ArrivalPerSec, g.Rates.CompletedPerSec)
		})
	}
}

// ---------------------------------------------------------------------------------------
// 2. Duplicates under a fixed processing time above the lock.

// R records are produced at once at t = 0 and read by enough single-record consumers that
// every redelivery finds an idle one. Processing takes P > lock (30 s), so every delivery's
// lock expires before its acknowledgement: delivery k starts about (k − 1) × 30 s after the
// first, the record is delivered exactly `limit` times and archived when the last lock
// expires (about limit × 30 s). Every delivery is still processed to its end, successfully
// as far as the application knows, so each record is processed `limit` times; duplicates
// are successful processings beyond a record's first (counters.go), limit − 1 a record.
// The window is [0, DurationMs) (the burst producer runs to the end of the main phase) and
// holds every processing, so
//
//	DuplicatesPerHour   = R × (limit − 1) × 3 600 000 / DurationMs
//	LockTimeoutsPerHour = R × limit × 3 600 000 / DurationMs
//	DuplicateFraction   = (limit − 1) / limit.
//
// With P = 40 s the first processing ends (at 40 s) before the archive (limit × 30 s ≥ 60 s).
// With P = 100 s and limit 2 every processing ends after the record was archived (at 60 s):
// the definition still gives limit − 1 duplicates a record, the first of its processings
// to end being its first successful one.
func TestFiguresDuplicatesFixedProcessing(t *testing.T) {
	const records, lockMs = 4, 30000
	cases := []struct {
		procMs int64
		limit  int
	}{
		{40000, 2}, {40000, 3}, {40000, 5}, {100000, 2},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("proc=%ds/limit=%d", tc.procMs/1000, tc.limit), func(t *testing.T) {
			// A record's deliveries overlap in time: ceil(P/lock)+1 of them at once at most.
			overlap := int((tc.procMs+lockMs-1)/lockMs) + 1
			c := figConsumer("c", records*overlap, figConst(tc.procMs), 1)
			c.AckMode = sim.AckExplicit
			cfg := ftWorld(1, 1, 0, c)
			p := &cfg.Producers[0]
			p.Rate, p.BurstEveryMs, p.BurstRecords = sim.RateBursts, 1<<40, records
			cfg.Kafka.RecordLockDurationMs = lockMs
			cfg.Kafka.DeliveryCountLimit = tc.limit
			// The last delivery starts about (limit − 1) × 30 s in and takes P; 30 s spare.
			cfg.DurationMs = int64(tc.limit-1)*lockMs + tc.procMs + 30000
			res := figRun(t, cfg, 1, false)
			g := figGroup(t, res, "g")
			win := float64(cfg.DurationMs)
			if g.Window.StartMs != 0 || g.Window.EndMs != cfg.DurationMs {
				t.Fatalf("window %+v, want [0, %d)", g.Window, cfg.DurationMs)
			}
			if g.Totals.Produced != records || g.InWindow.Processed != g.Totals.Processed {
				t.Fatalf("setup: produced %d (want %d), processed in window %d of %d (want all)", g.Totals.Produced, records, g.InWindow.Processed, g.Totals.Processed)
			}
			lim := int64(tc.limit)
			if g.DeliveriesPerRecord != float64(tc.limit) || g.Totals.Deliveries != records*lim {
				t.Errorf("deliveries %d, per record %v: want %d, exactly %d", g.Totals.Deliveries, g.DeliveriesPerRecord, records*lim, tc.limit)
			}
			if g.Accounting.Finished["limit"] != records || g.Totals.Finished["limit"] != records || g.Totals.Completed != 0 {
				t.Errorf("accounting finished %v, totals finished %v, completed %d: want all %d archived at the limit, none completed",
					g.Accounting.Finished, g.Totals.Finished, g.Totals.Completed, records)
			}
			if !g.Accounting.Balanced {
				t.Errorf("accounting %+v not balanced", g.Accounting)
			}
			if g.Totals.ProcessedOK != records*lim || g.Totals.AcquisitionLockTimeouts != records*lim || g.Totals.ProcessedAfterLockExpiry != records*lim {
				t.Errorf("processed OK %d, lock timeouts %d, processed after expiry %d: want %d each",
					g.Totals.ProcessedOK, g.Totals.AcquisitionLockTimeouts, g.Totals.ProcessedAfterLockExpiry, records*lim)
			}
			wantLT := float64(records*lim) * 3.6e6 / win
			if !figNear(g.Rates.LockTimeoutsPerHour, wantLT, 1e-9*wantLT) {
				t.Errorf("LockTimeoutsPerHour %.3f, want %d × 3.6e6 / %d = %.3f", g.Rates.LockTimeoutsPerHour, records*lim, cfg.DurationMs, wantLT)
			}
			wantDup := records * (lim - 1)
			wantDPH := float64(wantDup) * 3.6e6 / win
			wantFrac := float64(tc.limit-1) / float64(tc.limit)
			t.Logf("duplicates %d (%v), per hour %.3f (want %d → %.3f), fraction %.4f (want %.4f)",
				g.Totals.Duplicates, g.Totals.DuplicatesByCause, g.Rates.DuplicatesPerHour, wantDup, wantDPH, g.Rates.DuplicateFraction, wantFrac)
			if tc.procMs > int64(tc.limit)*lockMs && g.Totals.Duplicates == records*lim {
				t.Fatalf("regression: processing (%d ms) outlives limit × lock (%d ms): every record was archived before any of its processings ended, "+
					"and processed (metrics.go) counts a late processing of a record that already left the cache as a duplicate without "+
					"checking that an earlier processing succeeded; so all %d processings of each record count as duplicates "+
					"(%d, want %d = records × (limit − 1); DuplicatesPerHour %.1f, want %.1f; DuplicateFraction %.3f, want %.3f)",
					tc.procMs, int64(tc.limit)*lockMs, tc.limit, g.Totals.Duplicates, wantDup, g.Rates.DuplicatesPerHour, wantDPH, g.Rates.DuplicateFraction, wantFrac)
			}
			if g.Totals.Duplicates != wantDup || g.Totals.DuplicatesByCause["lock_expiry"] != wantDup {
				t.Errorf("duplicates %d by cause %v: want %d, all lock_expiry", g.Totals.Duplicates, g.Totals.DuplicatesByCause, wantDup)
			}
			if !figNear(g.Rates.DuplicatesPerHour, wantDPH, 1e-9*wantDPH) {
				t.Errorf("DuplicatesPerHour %.3f, want %.3f", g.Rates.DuplicatesPerHour, wantDPH)
			}
			if !figNear(g.Rates.DuplicateFraction, wantFrac, 1e-12) {
				t.Errorf("DuplicateFraction %.4f, want %.4f", g.Rates.DuplicateFraction, wantFrac)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// 3 and 4. Lock expiry under random processing times.

// lockWorld: one partition (so a consumer's fetch goes to one leader and returns at most one
// record: max.poll.records 1, one-record batches), explicit acknowledgement, rate records/s
// for prodMs, lock lockMs, delivery limit limit, and consumers enough that the mean load
// (rate × E[D] × mean processing) uses well under half of them. A clock producer keeps the
// window open until every record has finished. Lock durations are scaled down to the
// broker's minimum, 1 s, and processing times with them, which leaves the ratio
// processing/lock, and with it every closed form here, unchanged (and keeps the worlds small:
// fewer idle polls per record).
func lockWorld(proc dist.Dist, consumers int, rate float64, prodMs, lockMs int64, limit int) sim.Config {
	c := figConsumer("c", consumers, proc, 1)
	c.AckMode = sim.AckExplicit
	// Parked fetches are answered as soon as a record is produced or released by a lock
	// expiry; a long fetch.max.wait.ms only spares the idle consumers' empty re-polls.
	c.MaxWaitMs = 5000
	cfg := ftWorld(1, rate, prodMs, c)
	figClock(&cfg)
	cfg.Kafka.MinRecordLockDurationMs = 1000
	cfg.Kafka.RecordLockDurationMs = lockMs
	cfg.Kafka.DeliveryCountLimit = limit
	cfg.MetricsIntervalMs = 60000
	return cfg
}

// figPooled adds the counts of a group's figures over several seeds.
type figPooled struct {
	records, deliveries, processed, late, lockTimeouts int64
	inDup, inOK                                        int64
	dupPerHour                                         []float64
	perSeed                                            []string
}

// The share of processings that outlive the lock: the client's deadline is the acquisition
// plus the lock, processing starts one network hop (1 ms) after the acquisition and its
// acknowledgement reaches the leader one hop after it ends, and samples are rounded to whole
// ms; so the thresholds the simulator applies lie within 3 ms below L. The tolerance adds
// P(L − 3 < X ≤ L) to three standard errors.
//
// Each delivery outlives its lock independently with probability p (consumers are never
// short, so processing starts as soon as a record is acquired), so a record is delivered D
// times with P(D ≥ k) = p^(k−1), k ≤ limit: E[D] = Σ_{k=0}^{limit−1} p^k.
//
// Duplicates (metrics.go processed): every delivery is processed to its end and succeeds
// (no failures are configured), and every successful processing of a record after the first
// one to end is a duplicate: counted through okCount ≥ 2 while the record is cached, or as a
// lock-expiry duplicate when it ends after the record left the cache. So a record processed
// D times adds D − 1 duplicates and D successful processings, and
//
//	DuplicateFraction = Σ(D − 1) / Σ D → (E[D] − 1) / E[D] = p (1 − p^(limit−1)) / (1 − p^limit) ≈ p,
//
// with the delta-method standard error (1 − f) sd(D) / (E[D] √n) over n records. (The only
// exception, a record archived at the limit before any of its processings ended, needs
// processing k to outlast (limit − k + 1) × L for every k: p^15 ≈ 1e-13 for the exponential
// here, less for the log-normal; TestFiguresArchiveFractionAtLimit meets it.)
// DuplicatesPerHour = n (E[D] − 1) × 3.6e6 / window, standard error √(n Var D) × 3.6e6 / window.
func TestFiguresLockExpiryStatistics(t *testing.T) {
	const lockMs, limit = 1000, 5
	const rate, prodMs = 10.0, 300000
	expo := dist.Must(dist.Exponential(500))
	const p50, p99 = 500.0, 2000.0
	logn := dist.Must(dist.LogNormalP50P99(p50, p99))
	sigma := math.Log(p99/p50) / 2.326
	cases := []struct {
		name string
		proc dist.Dist
		p    float64 // closed form of P(X > L)
	}{
		{"exponential/m=0.5s/L=1s", expo, math.Exp(-lockMs / 500.0)},
		{"lognormal/p50=0.5s/p99=2s/L=1s", logn, 0.5 * math.Erfc(math.Log(lockMs/p50)/sigma/math.Sqrt2)},
	}
	seeds := []uint64{1, 2, 3}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			if d := 1 - tc.proc.CDF(lockMs); math.Abs(d-p) > 1e-3*p {
				t.Fatalf("closed form %.6f differs from the distribution's own tail %.6f", p, d)
			}
			shift := tc.proc.CDF(lockMs) - tc.proc.CDF(lockMs-3)
			eD, varD := figTruncGeom(p, limit)
			// Load: rate × E[D] × mean; twice that many consumers.
			consumers := int(math.Ceil(2 * rate * eD * tc.proc.Mean() / 1000))
			var pool figPooled
			var windowMs int64
			for _, seed := range seeds {
				cfg := lockWorld(tc.proc, consumers, rate, prodMs, lockMs, limit)
				cfg.DurationMs = prodMs + 30000
				res := figRun(t, cfg, seed, false)
				g := figGroup(t, res, "g")
				if g.Accounting.UnfinishedTotal != 0 || g.InWindow.ProcessedOK != g.Totals.ProcessedOK || g.InWindow.Duplicates != g.Totals.Duplicates {
					t.Fatalf("seed %d: setup: unfinished %v, in-window processed %d of %d, duplicates %d of %d: want the window to hold every record's life",
						seed, g.Accounting.Unfinished, g.InWindow.ProcessedOK, g.Totals.ProcessedOK, g.InWindow.Duplicates, g.Totals.Duplicates)
				}
				if g.Totals.FailedProcessing != 0 || g.Totals.Processed != g.Totals.Deliveries {
					t.Fatalf("seed %d: setup: %d failed processings, %d processings of %d deliveries: want every delivery processed once, successfully",
						seed, g.Totals.FailedProcessing, g.Totals.Processed, g.Totals.Deliveries)
				}
				windowMs = g.Window.LengthMs()
				pool.records += g.Totals.Produced
				pool.deliveries += g.Totals.Deliveries
				pool.processed += g.Totals.Processed
				pool.late += g.Totals.ProcessedAfterLockExpiry
				pool.lockTimeouts += g.Totals.AcquisitionLockTimeouts
				pool.inDup += g.InWindow.Duplicates
				pool.inOK += g.InWindow.ProcessedOK
				pool.dupPerHour = append(pool.dupPerHour, g.Rates.DuplicatesPerHour)
				pool.perSeed = append(pool.perSeed, fmt.Sprintf("seed %d: %d records, %.4f deliveries/record, dup fraction %.4f, %.0f dup/h, mean busy %.2f",
					seed, g.Totals.Produced, g.DeliveriesPerRecord, g.Rates.DuplicateFraction, g.Rates.DuplicatesPerHour, g.KeepUp.MeanBusy))
				if g.DeliveriesPerRecord != float64(g.Totals.Deliveries)/float64(g.Totals.Produced) {
					t.Errorf("seed %d: DeliveriesPerRecord %v, want deliveries %d ÷ records %d (every record delivered)", seed, g.DeliveriesPerRecord, g.Totals.Deliveries, g.Totals.Produced)
				}
				// Every delivery is processed once, successfully: Σ(D − 1) duplicates = redeliveries.
				if g.Totals.Duplicates != g.Totals.Redeliveries || g.Totals.Duplicates != g.Totals.DuplicatesByCause["lock_expiry"] {
					t.Errorf("seed %d: duplicates %d (%v), redeliveries %d: want equal, all lock_expiry", seed, g.Totals.Duplicates, g.Totals.DuplicatesByCause, g.Totals.Redeliveries)
				}
				if g.Rates.DuplicateFraction != float64(g.InWindow.Duplicates)/float64(g.InWindow.ProcessedOK) {
					t.Errorf("seed %d: DuplicateFraction %v, want %d / %d", seed, g.Rates.DuplicateFraction, g.InWindow.Duplicates, g.InWindow.ProcessedOK)
				}
			}
			for _, s := range pool.perSeed {
				t.Log(s)
			}
			n := float64(pool.records)
			check := func(what string, got, want, se, extra float64) {
				t.Helper()
				tol := 3*se + extra
				t.Logf("%-28s %.5f, closed form %.5f ± %.5f (3σ = %.5f)", what, got, want, tol, 3*se)
				if !figNear(got, want, tol) {
					t.Errorf("%s = %.5f, want %.5f ± %.5f", what, got, want, tol)
				}
			}
			check("processed after lock expiry", float64(pool.late)/float64(pool.processed), p, math.Sqrt(p*(1-p)/float64(pool.processed)), shift)
			check("lock timeouts per delivery", float64(pool.lockTimeouts)/float64(pool.deliveries), p, math.Sqrt(p*(1-p)/float64(pool.deliveries)), shift)
			// E[D] moves by about (dE[D]/dp) × shift; dE[D]/dp ≤ Σ k p^(k−1) ≤ 1/(1−p)².
			check("deliveries per record", float64(pool.deliveries)/n, eD, math.Sqrt(varD/n), shift/((1-p)*(1-p)))
			f := p * (1 - math.Pow(p, limit-1)) / (1 - math.Pow(p, limit))
			check("duplicate fraction", float64(pool.inDup)/float64(pool.inOK), f, (1-f)*math.Sqrt(varD/n)/eD, shift)
			perSeed := n / float64(len(seeds))
			wantDPH := perSeed * (eD - 1) * 3.6e6 / float64(windowMs)
			var meanDPH float64
			for _, d := range pool.dupPerHour {
				meanDPH += d / float64(len(pool.dupPerHour))
			}
			check("duplicates per hour", meanDPH, wantDPH, math.Sqrt(perSeed*varD/float64(len(seeds)))*3.6e6/float64(windowMs), perSeed*shift/((1-p)*(1-p))*3.6e6/float64(windowMs))
		})
	}
}

// A record is archived at the delivery limit when all `limit` of its deliveries outlive their
// locks: with exponential processing of mean m and lock L, each independently with
// p = exp(−L/m), so the archived fraction is p^limit; every other record is accepted.
// Standard error √(q(1 − q)/n) over n records; the tolerance adds limit × p^(limit−1) ×
// P(L − 3 < X ≤ L), the change of q over the thresholds' 3 ms (see above).
func TestFiguresArchiveFractionAtLimit(t *testing.T) {
	const lockMs, rate, prodMs = 1000, 10.0, 200000
	cases := []struct {
		meanMs float64
		limit  int
	}{
		{1000, 2}, // p = e^−1, q = e^−2 ≈ 0.135
		{2000, 3}, // p = e^−½, q = e^−1.5 ≈ 0.223
	}
	seeds := []uint64{1, 2, 3}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("m=%.0fs/L=1s/limit=%d", tc.meanMs/1000, tc.limit), func(t *testing.T) {
			proc := dist.Must(dist.Exponential(tc.meanMs))
			p := math.Exp(-lockMs / tc.meanMs)
			q := math.Pow(p, float64(tc.limit))
			eD, _ := figTruncGeom(p, tc.limit)
			consumers := int(math.Ceil(2 * rate * eD * tc.meanMs / 1000))
			var records, archived, accepted, dups, redeliveries int64
			for _, seed := range seeds {
				cfg := lockWorld(proc, consumers, rate, prodMs, lockMs, tc.limit)
				cfg.DurationMs = prodMs + 30000
				res := figRun(t, cfg, seed, false)
				g := figGroup(t, res, "g")
				if g.Accounting.UnfinishedTotal != 0 || !g.Accounting.Balanced {
					t.Fatalf("seed %d: setup: unfinished %v, balanced %v", seed, g.Accounting.Unfinished, g.Accounting.Balanced)
				}
				if g.DeliveryCountArchived[tc.limit] != g.Accounting.Finished["limit"] {
					t.Errorf("seed %d: %d archived at delivery count %d, but %d finished at the limit", seed, g.DeliveryCountArchived[tc.limit], tc.limit, g.Accounting.Finished["limit"])
				}
				if g.Accounting.Finished["accepted"]+g.Accounting.Finished["limit"] != g.Totals.Produced {
					t.Errorf("seed %d: finished %v: want every one of %d records accepted or archived at the limit", seed, g.Accounting.Finished, g.Totals.Produced)
				}
				records += g.Totals.Produced
				archived += g.Accounting.Finished["limit"]
				accepted += g.Accounting.Finished["accepted"]
				dups += g.Totals.Duplicates
				redeliveries += g.Totals.Redeliveries
				t.Logf("seed %d: %d records, %d archived at the limit (%.4f)", seed, g.Totals.Produced, g.Accounting.Finished["limit"], float64(g.Accounting.Finished["limit"])/float64(g.Totals.Produced))
			}
			n := float64(records)
			got := float64(archived) / n
			shift := float64(tc.limit) * math.Pow(p, float64(tc.limit-1)) * (proc.CDF(lockMs) - proc.CDF(lockMs-3))
			tol := 3*math.Sqrt(q*(1-q)/n) + shift
			t.Logf("archived at the limit %d of %d = %.4f, closed form p^limit = %.4f ± %.4f; accepted %d; duplicates %d, redeliveries %d",
				archived, records, got, q, tol, accepted, dups, redeliveries)
			if !figNear(got, q, tol) {
				t.Errorf("archived fraction %.4f, want p^limit = %.4f ± %.4f", got, q, tol)
			}
			// Every delivery is processed once and succeeds, so a record delivered D times has
			// D − 1 duplicates whatever its end: duplicates = Σ(D − 1) = redeliveries.
			t.Run("duplicates", func(t *testing.T) {
				if dups == redeliveries {
					return
				}
				// Processing k (k = 1..limit) ends about (k − 1) L + X_k after the first
				// acquisition and the record is archived at about limit × L, so all of them end
				// after the archive with probability Π_k exp(−(limit − k + 1) L/m) =
				// p^(limit(limit+1)/2).
				pAll := math.Pow(p, float64(tc.limit*(tc.limit+1)/2))
				if dups > redeliveries && float64(dups-redeliveries) <= n*pAll+3*math.Sqrt(n*pAll) {
					t.Fatalf("regression: duplicates %d > redeliveries %d: %d extra, about the %.0f records (p^%d = %.4f of %d) archived at the limit before any of "+
						"their processings ended; processed (metrics.go) counts a late processing of a record that already left the cache as a "+
						"duplicate even when no processing of it had succeeded before, so such a record counts D duplicates instead of D − 1",
						dups, redeliveries, dups-redeliveries, n*pAll, tc.limit*(tc.limit+1)/2, pAll, records)
				}
				t.Errorf("duplicates %d, redeliveries %d: want equal (Σ(D − 1))", dups, redeliveries)
			})
		})
	}
}

// ---------------------------------------------------------------------------------------
// 5. Retention before the group first reads.

// figLoadMs is the time of the first "load" trace line of partition p (-1: none).
func figLoadMs(t *testing.T, res *sim.Result, p string) int64 {
	t.Helper()
	for _, l := range res.Trace {
		f := strings.Fields(l)
		if len(f) >= 3 && f[1] == "load" && f[2] == "p="+p {
			ms, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatalf("bad trace line %q", l)
			}
			return ms
		}
	}
	return -1
}

// The producer writes 10 records/s (one at every multiple of 100 ms) for 30 s: 300 records.
// Retention (10 s) runs every 5 s, from 5 s on; the check at time k × 5 s deletes the records
// stamped before k × 5 s − 10 s. The group's only consumer starts at startMs, and the
// share-partition first loads shortly after (asserted: before the next check). So the
// records deleted before the first load are those stamped before c − 10 s, c the last check
// at or before the load: with the consumer starting at 22 s, c = 20 s, 100 records; at
// 42 s, c = 40 s, all 300. With reset latest the load skips what remains of the log at that
// moment (the records stamped at or before the load). A consumer at 10 ms a record reads
// everything before the next check; one at 1 s a record (max.poll.records 1) cannot, so
// retention deletes undelivered records after the first load too, and those are not
// "before the first load".
func TestFiguresRetentionBeforeFirstLoad(t *testing.T) {
	const retMs, checkMs, stopMs, perRecMs = 10000, 5000, 30000, 100
	cases := []struct {
		name    string
		startMs int64
		procMs  int64
		reset   model.OffsetResetKind
		after   bool // retention also deletes undelivered records after the first load
	}{
		{"start=22s/earliest", 22000, 10, model.ResetEarliest, false},
		{"start=42s/earliest", 42000, 10, model.ResetEarliest, false},
		{"start=22s/latest", 22000, 10, model.ResetLatest, false},
		{"start=22s/earliest/slow", 22000, 1000, model.ResetEarliest, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := figConsumer("c", 1, figConst(tc.procMs), 1)
			c.StartMs = tc.startMs
			cfg := ftWorld(1, 1000/perRecMs, stopMs, c)
			cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: tc.reset}
			cfg.Topics[0].RetentionMs, cfg.Topics[0].RetentionCheckIntervalMs = retMs, checkMs
			cfg.DurationMs, cfg.HealMs = 120000, 30000
			res := figRun(t, cfg, 1, true)
			g := figGroup(t, res, "g")
			load := figLoadMs(t, res, "t/0")
			lastCheck := load / checkMs * checkMs
			if load < tc.startMs || load == lastCheck || load-tc.startMs >= checkMs {
				t.Fatalf("setup: first load at %d ms, consumer start %d: want it after the start, strictly between two retention checks", load, tc.startMs)
			}
			records := int64(stopMs / perRecMs)
			// Records stamped k × 100 ms with k × 100 < lastCheck − retention, capped at all.
			wantDeleted := min(records, max(0, (lastCheck-retMs+perRecMs-1)/perRecMs))
			var wantSkipped int64
			if tc.reset == model.ResetLatest {
				wantSkipped = min(records, load/perRecMs+1) - wantDeleted
			}
			a := g.Accounting
			t.Logf("load at %d ms (last check %d): deleted before first load %d (want %d), deleted undelivered %d, skipped %d (want %d), finished %v",
				load, lastCheck, a.DeletedBeforeFirstLoad, wantDeleted, a.DeletedUndelivered, a.SkippedByOffsetReset, wantSkipped, a.Finished)
			if g.Totals.Produced != records {
				t.Fatalf("setup: produced %d, want %d", g.Totals.Produced, records)
			}
			if a.DeletedBeforeFirstLoad != wantDeleted || g.Totals.DeletedBeforeFirstLoad != wantDeleted {
				t.Errorf("deleted before first load: accounting %d, totals %d; want %d", a.DeletedBeforeFirstLoad, g.Totals.DeletedBeforeFirstLoad, wantDeleted)
			}
			if a.SkippedByOffsetReset != wantSkipped || g.Totals.SkippedByOffsetReset != wantSkipped {
				t.Errorf("skipped by offset reset: accounting %d, totals %d; want %d", a.SkippedByOffsetReset, g.Totals.SkippedByOffsetReset, wantSkipped)
			}
			if tc.after != (a.DeletedUndelivered > a.DeletedBeforeFirstLoad) {
				t.Errorf("deleted undelivered %d, before the first load %d: want more after the load %v", a.DeletedUndelivered, a.DeletedBeforeFirstLoad, tc.after)
			}
			if !a.Balanced || a.Sum != a.Offsets || a.Offsets != records {
				t.Errorf("accounting %+v: want balanced over %d offsets", a, records)
			}
			if got := a.Finished["accepted"] + a.Finished["log-start"] + a.DeletedUndelivered + a.SkippedByOffsetReset; got != g.Totals.Produced {
				t.Errorf("accepted %d + archived by retention %d + deleted %d + skipped %d = %d, want produced %d",
					a.Finished["accepted"], a.Finished["log-start"], a.DeletedUndelivered, a.SkippedByOffsetReset, got, g.Totals.Produced)
			}
			if a.UnfinishedTotal != 0 {
				t.Errorf("unfinished %v at the end", a.Unfinished)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// 6. Share versus classic throughput when partitions limit the classic group.

// P = 2 partitions, N = 4 consumers in each group, 100 ms a record, 30 records/s arriving.
// A classic group uses at most one consumer per partition: 2 × 1000/100 = 20 records/s, so it
// falls behind by 10/s and the tightest bound, "partitions" (20/s, below the processing bound
// 4 × 10 = 40/s), is the reason. The share group spreads both partitions over all four:
// capacity 40/s > 30/s, so it completes what arrives, 30/s. The warm-up skips the joins;
// small polls and a 1 s auto-commit keep the classic group's commits fine-grained.
func TestFiguresShareVersusClassic(t *testing.T) {
	const parts, consumers, procMs, rate = 2, 4, 100, 30.0
	share := figConsumer("s", consumers, figConst(procMs), 10)
	classic := figConsumer("k", consumers, figConst(procMs), 10)
	cfg := ftWorld(parts, rate, 0, share)
	cfg.Groups = append(cfg.Groups, sim.Group{Name: "classic", Type: sim.ClassicGroup, Topics: []string{"t"},
		Consumers: []sim.ConsumerSpec{classic}, AutoCommitIntervalMs: 1000})
	cfg.DurationMs, cfg.WarmupMs = 130000, 10000
	res := figRun(t, cfg, 1, false)
	gs, gc := figGroup(t, res, "g"), figGroup(t, res, "classic")
	wantClassic := float64(parts) * 1000 / procMs
	wantShare := math.Min(rate, float64(consumers)*1000/procMs)
	t.Logf("share: %.2f/s (want %.2f), kept up %v; classic: %.2f/s (want %.2f), kept up %v, reason %q, limits %+v",
		gs.Rates.CompletedPerSec, wantShare, gs.KeepUp.KeptUp, gc.Rates.CompletedPerSec, wantClassic, gc.KeepUp.KeptUp, gc.KeepUp.Reason, gc.KeepUp.Limits)
	for _, g := range []sim.GroupMetrics{gs, gc} {
		if !figNear(g.Rates.ArrivalPerSec, rate, 0.01*rate) {
			t.Errorf("%s: ArrivalPerSec %.2f, want %.2f", g.Name, g.Rates.ArrivalPerSec, rate)
		}
	}
	if !figNear(gc.Rates.CompletedPerSec, wantClassic, 0.05*wantClassic) {
		t.Errorf("classic CompletedPerSec %.2f, want P × 1000/d = %.2f ± 5%%", gc.Rates.CompletedPerSec, wantClassic)
	}
	if !figNear(gs.Rates.CompletedPerSec, wantShare, 0.05*wantShare) {
		t.Errorf("share CompletedPerSec %.2f, want min(arrival, N × 1000/d) = %.2f ± 5%%", gs.Rates.CompletedPerSec, wantShare)
	}
	if gc.KeepUp.KeptUp || !strings.HasPrefix(gc.KeepUp.Reason, "partitions") {
		t.Errorf("classic kept up %v, reason %q: want not kept up, for partitions", gc.KeepUp.KeptUp, gc.KeepUp.Reason)
	}
	var found bool
	for _, l := range gc.KeepUp.Limits {
		if l.Name == "partitions" {
			found = true
			if !figNear(l.RecordsPerSec, wantClassic, 1e-9) {
				t.Errorf("classic partitions limit %.4f/s, want %.4f", l.RecordsPerSec, wantClassic)
			}
		}
	}
	if !found {
		t.Errorf("classic limits %+v: no partitions limit", gc.KeepUp.Limits)
	}
	if !gs.KeepUp.KeptUp || gs.KeepUp.Reason != "" {
		t.Errorf("share kept up %v, reason %q: want kept up", gs.KeepUp.KeptUp, gs.KeepUp.Reason)
	}
	if gc.KeepUp.ConsumersWithWork != parts || gs.KeepUp.ConsumersWithWork != consumers {
		t.Errorf("consumers with work: classic %d (want %d), share %d (want %d)", gc.KeepUp.ConsumersWithWork, parts, gs.KeepUp.ConsumersWithWork, consumers)
	}
}

// ---------------------------------------------------------------------------------------
// 7. The three latencies.

// One consumer, 100 ms a record, one record a second, constant network latency n and state
// write latency w. The record is acquired by the consumer's parked fetch when it is produced
// (first delivery), reaches the consumer n later and is processed for 100 ms (processed);
// its ACCEPT rides on the next fetch, reaches the leader n later and commits w after that
// (completed). Every record sees the same times, so each distribution is one point:
// Processed − FirstDelivery = 100 + n and Completed − Processed = n + w, at every quantile.
// The producer starts at 5 s, after the consumer joined; the window starts there too.
func TestFiguresLatencyDefinitions(t *testing.T) {
	cases := []struct{ netMs, writeMs int64 }{{0, 0}, {1, 5}, {3, 7}}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("net=%dms/write=%dms", tc.netMs, tc.writeMs), func(t *testing.T) {
			cfg := ftWorld(1, 1, 0, figConsumer("c", 1, figConst(100), 10))
			cfg.Producers[0].StartMs = 5000
			cfg.Network.Latency = figConst(tc.netMs)
			cfg.Coordinator.WriteLatency = figConst(tc.writeMs)
			cfg.Coordinator.ReadLatency = figConst(tc.writeMs)
			cfg.DurationMs, cfg.HealMs = 25000, 5000
			res := figRun(t, cfg, 1, false)
			g := figGroup(t, res, "g")
			l := g.Latency
			if l.FirstDelivery.Count != 20 || l.Processed.Count != 20 || l.Completed.Count != 20 {
				t.Fatalf("counts: first delivery %d, processed %d, completed %d; want the 20 records of the window", l.FirstDelivery.Count, l.Processed.Count, l.Completed.Count)
			}
			q := func(x *int64) int64 { return *x }
			for _, d := range []struct {
				name string
				l    sim.Latency
			}{{"first delivery", l.FirstDelivery}, {"processed", l.Processed}, {"completed", l.Completed}} {
				t.Logf("%-15s p50 %d p90 %d p99 %d max %d mean %.2f", d.name, q(d.l.P50Ms), q(d.l.P90Ms), q(d.l.P99Ms), q(d.l.MaxMs), *d.l.MeanMs)
				if q(d.l.P50Ms) != q(d.l.MaxMs) || q(d.l.P99Ms) != q(d.l.MaxMs) || *d.l.MeanMs != float64(q(d.l.MaxMs)) {
					t.Errorf("%s: p50 %d, p99 %d, max %d, mean %v: want one point", d.name, q(d.l.P50Ms), q(d.l.P99Ms), q(d.l.MaxMs), *d.l.MeanMs)
				}
			}
			if got, want := q(l.Processed.P50Ms)-q(l.FirstDelivery.P50Ms), 100+tc.netMs; got != want {
				t.Errorf("processed − first delivery = %d ms, want 100 + %d", got, tc.netMs)
			}
			if got, want := q(l.Completed.P50Ms)-q(l.Processed.P50Ms), tc.netMs+tc.writeMs; got != want {
				t.Errorf("completed − processed = %d ms, want n + w = %d", got, want)
			}
			if q(l.FirstDelivery.MaxMs) != 0 {
				t.Errorf("first delivery %d ms, want 0 (a fetch is parked when each record arrives)", q(l.FirstDelivery.MaxMs))
			}
			if q(l.Completed.P50Ms) < q(l.Processed.P50Ms) || q(l.Completed.P99Ms) < q(l.Processed.P99Ms) {
				t.Errorf("completed before processed")
			}
			if g.E2EP50Ms != q(l.Completed.P50Ms) {
				t.Errorf("E2EP50Ms %d, want Latency.Completed.P50Ms %d", g.E2EP50Ms, q(l.Completed.P50Ms))
			}
		})
	}
}
