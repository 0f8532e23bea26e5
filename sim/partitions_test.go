package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// growWorld is ftWorld with two partitions added to topic t at addMs, the producer running
// until stopMs and the run lasting durMs with a 30 s heal.
func growWorld(typ sim.GroupType, addMs, stopMs, durMs int64, faults ...sim.Fault) sim.Config {
	cfg := ftWorld(2, 200, stopMs, ftConsumer("c", 4, 2, 20))
	cfg.Groups[0].Type = typ
	cfg.DurationMs, cfg.HealMs = durMs, 30000
	cfg.Faults = append([]sim.Fault{{Kind: sim.FaultAddPartitions, Target: "t", Count: 2, AtMs: addMs}}, faults...)
	return cfg
}

// A fault may target a partition an add-partitions fault adds, from its addition on; a
// target that does not exist yet when the fault first fires, or never, is refused.
func TestFaultsTargetAddedPartitions(t *testing.T) {
	cfg := growWorld(sim.ShareGroup, 20000, 80000, 90000,
		sim.Fault{Kind: sim.FaultDeleteRecords, Target: "t/3", AtMs: 50000, ValueMs: 5},
		sim.Fault{Kind: sim.FaultLeaderFailover, Target: "t/2", AtMs: 50000})
	res := ftRun(t, cfg, 1)
	var deleted, failover bool
	for _, e := range ftParse(t, res.Trace) {
		if e.kind == "fault" && e.kv["fault"] == "delete-records" && e.kv["p"] == "t/3" && e.num("start") > 0 {
			deleted = true
		}
		if e.kind == "fault" && e.kv["fault"] == "leader-failover" && e.kv["p"] == "t/2" {
			failover = true
		}
	}
	if !deleted || !failover {
		t.Errorf("faults on added partitions: delete-records on t/3 %v, leader-failover on t/2 %v; want both", deleted, failover)
	}

	for _, tc := range []struct {
		name  string
		fault sim.Fault
		want  string
	}{
		{"before its addition", sim.Fault{Kind: sim.FaultLockExpiry, Target: "t/2", AtMs: 10000}, `partition "t/2" does not exist yet at 10s`},
		{"never added", sim.Fault{Kind: sim.FaultLockExpiry, Target: "t/4", AtMs: 30000}, `no partition "t/4"`},
		{"not a number", sim.Fault{Kind: sim.FaultLockExpiry, Target: "t/x", AtMs: 30000}, `no partition "t/x"`},
	} {
		_, err := sim.New(growWorld(sim.ShareGroup, 20000, 80000, 90000, tc.fault), 1, sim.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// A classic group rebalances onto partitions added to its topic at once: every record of
// the new partitions is committed by the end and none is left uncommitted. No member joins
// or leaves after the start, so without that rebalance the new partitions are never read.
func TestClassicGroupReadsAddedPartitions(t *testing.T) {
	res := ftRun(t, growWorld(sim.ClassicGroup, 20000, 60000, 90000), 1)
	g := res.Metrics.Groups[0]
	if g.Accounting.UnfinishedTotal != 0 || !g.Accounting.Balanced || g.Accounting.Finished["committed"] < res.Metrics.Produced {
		t.Errorf("classic group with added partitions: finished %v, unfinished %v (total %d), balanced %v, produced %d; want all committed",
			g.Accounting.Finished, g.Accounting.Unfinished, g.Accounting.UnfinishedTotal, g.Accounting.Balanced, res.Metrics.Produced)
	}
}
