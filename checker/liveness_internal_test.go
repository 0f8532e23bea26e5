package checker

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// In a group that did not keep up, partitions still being worked on are covered by one
// overload line; a partition with unfinished records and nothing in flight is stuck and is
// reported on its own, overload or not.
func TestLivenessSeparatesStuckFromBehind(t *testing.T) {
	res := &sim.Result{EndMs: 1000, Events: 10,
		Metrics: sim.Metrics{Groups: []sim.GroupMetrics{{Name: "g", KeepUp: sim.KeepUp{KeptUp: false, Reason: "processing limits it"}}}},
		Final: []sim.FinalState{
			{Group: "g", Partition: "t/0", StartOffset: 10, LogEnd: 90, InFlight: 5, Acquired: 5, Loaded: true, ProgressedWhileHealing: true},
			{Group: "g", Partition: "t/1", StartOffset: 10, LogEnd: 90, InFlight: 5, Acquired: 5, Loaded: true, ProgressedWhileHealing: true},
			{Group: "g", Partition: "t/2", StartOffset: 40, LogEnd: 90, Loaded: true, ProgressedWhileHealing: true},
			{Group: "g", Partition: "t/3", StartOffset: 90, LogEnd: 90, Loaded: true, Drained: true},
		}}
	c := &Checker{limit: 100}
	c.checkLiveness(res)
	if len(c.out) != 2 {
		t.Fatalf("%d violations: %v", len(c.out), c.out)
	}
	if v := c.out[0]; v.Partition != "" || !strings.Contains(v.Message, "did not drain 2 of 4 partitions") || !strings.Contains(v.Message, "processing limits it") {
		t.Errorf("overload line: %s", v)
	}
	if v := c.out[1]; v.Partition != "t/2" || !strings.Contains(v.Message, "0 in flight") {
		t.Errorf("stuck partition: %s", v)
	}
	// A group that kept up has no overload line: every undrained partition is reported.
	res.Metrics.Groups[0].KeepUp.KeptUp = true
	c = &Checker{limit: 100}
	c.checkLiveness(res)
	if len(c.out) != 3 {
		t.Fatalf("kept up: %d violations, want 3", len(c.out))
	}
}
