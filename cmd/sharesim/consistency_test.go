package main

import (
	"math"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// No printed figure contradicts another: on every built-in workload, each group's figures
// obey the relations their definitions imply (docs/metrics.md). The default run checks the
// runs TestBuiltinScenariosPassTheirChecks makes (main phase cut to a minute, big worlds
// scaled down; whichever test comes first makes them); with -tags long every built-in runs
// here at full size, without checks.
func TestFiguresConsistentOnEveryBuiltin(t *testing.T) {
	for _, in := range scenarios.List() {
		if in.Kind != scenarios.KindWorkload {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			t.Parallel()
			if !testmode.Long {
				r := builtinRunOf(t, in.Name, builtinsMainPhase)
				for i := range r.groups {
					checkGroupConsistent(t, r.cfg, &r.groups[i], i)
				}
				return
			}
			sc, err := loadScenario(in.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			o, err := simulate(sc, 1, simOpts{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range o.res.Metrics.Groups {
				checkGroupConsistent(t, o.cfg, &o.res.Metrics.Groups[i], i)
			}
		})
	}
}

// checkGroupConsistent reports every relation between a group's figures that fails.
func checkGroupConsistent(t *testing.T, cfg sim.Config, g *sim.GroupMetrics, gi int) {
	t.Helper()
	bad := func(format string, args ...any) { t.Errorf("group %s: "+format, append([]any{g.Name}, args...)...) }
	tot, in, k, r := g.Totals, g.InWindow, g.KeepUp, g.Rates
	secs := float64(g.Window.LengthMs()) / 1000
	// Counts.
	if tot.Completed > tot.Produced {
		bad("completed %d records of %d produced", tot.Completed, tot.Produced)
	}
	if in.Completed > in.Produced+k.BacklogStart {
		bad("completed %d in the window, more than the %d that arrived plus the %d waiting at its start", in.Completed, in.Produced, k.BacklogStart)
	}
	if tot.Duplicates > tot.ProcessedOK || in.Duplicates > in.ProcessedOK {
		bad("duplicates %d (window %d) above successful processings %d (%d)", tot.Duplicates, in.Duplicates, tot.ProcessedOK, in.ProcessedOK)
	}
	if tot.DuplicatedRecords > tot.Duplicates || (tot.Duplicates > 0 && tot.DuplicatedRecords == 0) {
		bad("%d records processed more than once for %d duplicate processings", tot.DuplicatedRecords, tot.Duplicates)
	}
	var byCause int64
	for _, n := range in.DuplicatesByCause {
		byCause += n
	}
	if byCause != in.Duplicates {
		bad("duplicates by cause add up to %d, not %d", byCause, in.Duplicates)
	}
	if tot.ProcessedOK+tot.FailedProcessing != tot.Processed {
		bad("processed %d ≠ ok %d + failed %d", tot.Processed, tot.ProcessedOK, tot.FailedProcessing)
	}
	if tot.Redeliveries > tot.Deliveries || (tot.Deliveries > 0 && g.DeliveriesPerRecord < 1) {
		bad("deliveries %d, redeliveries %d, %.3f per record", tot.Deliveries, tot.Redeliveries, g.DeliveriesPerRecord)
	}
	if !g.Accounting.Balanced {
		bad("accounting: %d offsets, %d accounted for", g.Accounting.Offsets, g.Accounting.Sum)
	}
	// Rates are the window's counts over the window.
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	if secs > 0 && (!near(r.CompletedPerSec*secs, float64(in.Completed)) || !near(r.ArrivalPerSec*secs, float64(in.Produced)) ||
		!near(r.DuplicatesPerHour*secs/3600, float64(in.Duplicates))) {
		bad("rates %.3f/s completed, %.3f/s arrived, %.3f duplicates/h over %.0f s; the window counts %d, %d, %d",
			r.CompletedPerSec, r.ArrivalPerSec, r.DuplicatesPerHour, secs, in.Completed, in.Produced, in.Duplicates)
	}
	// The keep-up verdict and its reason.
	var slack int64
	for _, cs := range cfg.Groups[gi].Consumers {
		slack += int64(max(cs.Count, 1) * cs.MaxPollRecords)
	}
	if k.KeptUp {
		if float64(k.BacklogEnd-k.BacklogMid) > 0.05*float64(in.Produced)+float64(slack) {
			bad("kept up while the backlog grew from %d to %d in the second half", k.BacklogMid, k.BacklogEnd)
		}
		if 2*(in.Completed+slack) < in.Produced {
			bad("kept up while completing %d of %d", in.Completed, in.Produced)
		}
		if k.Reason != "" {
			bad("kept up with a reason: %q", k.Reason)
		}
	} else if k.Reason == "" {
		bad("did not keep up, and no reason")
	}
	for _, l := range k.Limits {
		if l.RecordsPerSec < k.ArrivalPerSec && strings.Contains(k.Reason, "no capacity bound is below") {
			bad("the reason says no bound is below the arrival rate %.1f/s, but %s allows %.1f/s", k.ArrivalPerSec, l.Name, l.RecordsPerSec)
		}
	}
	for _, l := range k.Limits {
		// Bounds that hold for any poll size: the group cannot finish faster (10 % for the
		// estimate from mean processing times).
		if (l.Name == "processing" || l.Name == "blocking-straggler" || l.Name == "partitions") && r.CompletedPerSec > 1.1*l.RecordsPerSec {
			bad("completed %.1f/s, above the %s bound of %.1f/s", r.CompletedPerSec, l.Name, l.RecordsPerSec)
		}
	}
	started := false
	for _, cs := range cfg.Groups[gi].Consumers {
		started = started || cs.StartMs < g.Window.EndMs
	}
	if !started && !k.KeptUp && !strings.Contains(k.Reason, "no consumer") {
		bad("no consumer ran in the window, but the reason is %q", k.Reason)
	}
	// Kafka's figures against sharesim's.
	if kf := g.Kafka; kf != nil {
		if kf.SharePartition.AcquisitionLockTimeoutCount < tot.AcquisitionLockTimeouts {
			bad("Kafka's AcquisitionLockTimeoutPerSec count %d below the %d records locks released (Kafka counts every offset of a firing timer)",
				kf.SharePartition.AcquisitionLockTimeoutCount, tot.AcquisitionLockTimeouts)
		}
		var counted int64
		for _, n := range kf.ShareGroup.RecordAcknowledgementsCount {
			counted += n
		}
		if counted+tot.GapAcknowledgements > kf.Consumer.AcknowledgementsSendTotal {
			bad("%d acknowledgements counted at the broker (%d GAP), only %d sent", counted, tot.GapAcknowledgements, kf.Consumer.AcknowledgementsSendTotal)
		}
		if kf.ShareGroup.RecordAcknowledgementsCount["Accept"] != tot.RecordAcknowledgements["ACCEPT"] {
			bad("RecordAcknowledgementsPerSec Accept %d, totals ACCEPT %d", kf.ShareGroup.RecordAcknowledgementsCount["Accept"], tot.RecordAcknowledgements["ACCEPT"])
		}
		if kf.Consumer.AcknowledgementsErrorTotal != tot.AckErrors+tot.AcksLost {
			bad("acknowledgements-error-total %d ≠ failed %d + lost %d", kf.Consumer.AcknowledgementsErrorTotal, tot.AckErrors, tot.AcksLost)
		}
		parts := 0
		for _, tp := range cfg.Topics {
			for _, name := range cfg.Groups[gi].Topics {
				if tp.Name == name {
					parts += tp.Partitions
				}
			}
		}
		if sp := kf.SharePartition; sp.InFlightMessageCountEnd > sp.InFlightMessageCountMax*int64(parts) || sp.InFlightBatchCountEnd > sp.InFlightBatchCountMax*int64(parts) {
			bad("in flight at the end %d (batches %d) above %d partitions × the largest any reached, %d (%d)",
				sp.InFlightMessageCountEnd, sp.InFlightBatchCountEnd, parts, sp.InFlightMessageCountMax, sp.InFlightBatchCountMax)
		}
		if kf.Lag.End < 0 || kf.Lag.Max < kf.Lag.End {
			bad("share-partition lag %d at the end, %d at most", kf.Lag.End, kf.Lag.Max)
		}
	}
}
