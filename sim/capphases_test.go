package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// capDropWorld is one partition read by 40 consumers of 50 ms per record and 10 records a
// poll (processing bound 800/s; a poll is held ≈ 500 ms), 600 records/s arriving for 2 m in
// batches of 10,
// on Kafka 4.3 with the record-lock cap at 2 000 (in-flight bound 4 000/s) lowered at 30 s
// to 100 (200/s) by a config-change fault.
func capDropWorld() sim.Config {
	cfg := ftWorld(1, 600, 0, ftConsumer("c", 40, 50, 10))
	cfg.Producers[0].BatchRecords = 10 // whole batches are acquired: every poll holds 10 records
	cfg.Kafka.Version = model.Kafka43
	cfg.Kafka.PartitionMaxRecordLocks = 2000
	cfg.DurationMs = 120000
	cfg.Faults = []sim.Fault{{Kind: sim.FaultConfigChange, AtMs: 30000, RestartAfterMs: -1, Group: "g",
		Set: []model.ConfigEntry{{Key: "share.partition.max.record.locks", Value: "100"}}}}
	return cfg
}

// The capacity bounds read the configuration in force: the in-flight-cap bound is the
// time-weighted mean of the phases' bounds, (4 000 × 30 s + 200 × 90 s) ÷ 120 s = 1 150/s,
// the keep-up diagnosis blames the lowered cap's phase (200/s from 30 s), not "no bound
// below the arrival rate", and the summary lists the cap in force per phase.
func TestCapacityBoundsFollowConfigChanges(t *testing.T) {
	res := ftRun(t, capDropWorld(), 1)
	g := res.Metrics.Groups[0]
	k := g.KeepUp
	var inflight *sim.Limit
	for i := range k.Limits {
		if k.Limits[i].Name == "in-flight-cap" {
			inflight = &k.Limits[i]
		}
	}
	win := g.Window
	want := (4000*float64(30000-win.StartMs) + 200*float64(win.EndMs-30000)) / float64(win.EndMs-win.StartMs)
	if inflight == nil || math.Abs(inflight.RecordsPerSec-want) > 1 || !strings.Contains(inflight.Explain, "time-weighted") {
		t.Errorf("in-flight-cap bound %+v, want %.1f/s time-weighted over the window %+v", inflight, want, win)
	}
	if len(k.Phases) != 2 || k.Phases[1].FromMs != 30000 {
		t.Errorf("phases %+v, want two, the second from 30 s", k.Phases)
	}
	if k.KeptUp || !strings.Contains(k.Reason, "in-flight-cap limits it to 200.0 records/s (from 30s to 2m") {
		t.Errorf("kept up %v, reason %q; want the lowered cap's phase named", k.KeptUp, k.Reason)
	}
	if len(g.ConfigInForce) != 2 || g.ConfigInForce[0].PartitionMaxRecordLocks != 2000 || g.ConfigInForce[1].PartitionMaxRecordLocks != 100 ||
		g.ConfigInForce[1].FromMs != 30000 {
		t.Errorf("config in force %+v, want cap 2000 then 100 from 30 s", g.ConfigInForce)
	}
	if res.Metrics.InFlightCap != 2000 {
		t.Errorf("in_flight_cap %d, want the largest in force, 2000", res.Metrics.InFlightCap)
	}

	// Partitions added mid-window count from their addition: 2 partitions at cap 100 for
	// the first half, 4 for the second.
	cfg := capDropWorld()
	cfg.Kafka.PartitionMaxRecordLocks = 100
	cfg.Topics[0].Partitions = 2
	cfg.Faults = []sim.Fault{{Kind: sim.FaultAddPartitions, Target: "t", Count: 2, AtMs: 60000}}
	g = ftRun(t, cfg, 1).Metrics.Groups[0]
	win = g.Window
	want = (400*float64(60000-win.StartMs) + 800*float64(win.EndMs-60000)) / float64(win.EndMs-win.StartMs)
	for _, l := range g.KeepUp.Limits {
		if l.Name == "in-flight-cap" && math.Abs(l.RecordsPerSec-want) > 1 {
			t.Errorf("in-flight-cap with partitions added at 1m: %.1f/s, want %.1f/s (%s)", l.RecordsPerSec, want, l.Explain)
		}
	}
}

// A classic group whose slow consumer owns a partition falls behind with no group-wide
// bound below the arrivals: the reason names what can do that in a classic group (a
// partition goes at its owner's pace), not lock expiries or a start offset, which it has not.
func TestClassicOverloadReasonHasNoLocks(t *testing.T) {
	fast, slow := ftConsumer("fast", 1, 1, 20), ftConsumer("slow", 1, 40, 20)
	cfg := ftWorld(2, 400, 0, fast, slow)
	cfg.Groups[0].Type = sim.ClassicGroup
	cfg.DurationMs = 60000
	k := ftRun(t, cfg, 1).Metrics.Groups[0].KeepUp
	if k.KeptUp {
		t.Fatalf("kept up: %+v", k)
	}
	if strings.Contains(k.Reason, "lock") || strings.Contains(k.Reason, "start offset") || !strings.Contains(k.Reason, "a partition owned by a consumer slower") ||
		!strings.Contains(k.Advice, "committed offsets per partition") {
		t.Errorf("classic reason %q, advice %q: want the slow owner named and no locks", k.Reason, k.Advice)
	}
}
