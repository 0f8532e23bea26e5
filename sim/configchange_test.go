package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// ccWorld is a share group whose processing fails for the whole run and whose consumers
// RELEASE what fails, so every record climbs to the delivery count limit (8); at 20 s a
// config-change fault lowers the limit to 3.
func ccWorld(v model.Version) sim.Config {
	c := ftConsumer("c", 2, 5, 10)
	c.AckMode = sim.AckExplicit
	c.OnFailure = sim.FailRelease
	cfg := ftWorld(1, 20, 50000, c)
	cfg.Kafka.Version = v
	cfg.Kafka.DeliveryCountLimit = 8
	cfg.DurationMs = 60000
	cfg.Faults = []sim.Fault{
		{Kind: sim.FaultDownstreamOutage, AtMs: 0, DurationMs: 60000, RestartAfterMs: -1},
		{Kind: sim.FaultConfigChange, AtMs: 20000, RestartAfterMs: -1, Group: "g",
			Set: []model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "3"}}},
	}
	return cfg
}

// maxCountAfter is the greatest delivery count of a record first delivered after atMs.
func maxCountAfter(res *sim.Result, atMs int64) int16 {
	first := map[int64]int64{}
	var top int16
	for _, op := range res.History {
		if op.Kind != "fetch" {
			continue
		}
		for _, r := range op.Acquired {
			for off := r.First; off <= r.Last; off++ {
				if _, ok := first[off]; !ok {
					first[off] = op.CallMs
				}
				if first[off] > atMs {
					top = max(top, r.DeliveryCount)
				}
			}
		}
	}
	return top
}

// Kafka 4.3 reads the lowered limit at the next transition: records first delivered after
// the change are archived at 3 deliveries. The same run with the change ignored climbs to
// 8; on 4.2 the change is refused (INVALID_CONFIG, traced and reported) and 8 stays.
func TestConfigChangeLowersLimit(t *testing.T) {
	res := ftRun(t, ccWorld(model.Kafka43), 1)
	if got := maxCountAfter(res, 20000); got != 3 {
		t.Errorf("4.3: records first delivered after the change reached delivery count %d, want 3", got)
	}
	if len(res.ConfigChanges) != 1 || res.ConfigChanges[0].Error != "NONE" || res.ConfigChanges[0].DeliveryCountLimit != 3 {
		t.Errorf("4.3: config changes %+v", res.ConfigChanges)
	}
	traced := false
	for _, l := range res.Trace {
		traced = traced || (strings.Contains(l, "config-change") && strings.Contains(l, "share.delivery.count.limit=3") && strings.Contains(l, "NONE"))
	}
	if !traced {
		t.Error("4.3: the accepted change is not in the trace")
	}
	again := ftRun(t, ccWorld(model.Kafka43), 1)
	if again.TraceSHA256 != res.TraceSHA256 {
		t.Error("4.3: the same seed gave two traces")
	}

	ignored, err := sim.Run(ccWorld(model.Kafka43), 1, sim.Options{RecordHistory: true, IgnoreConfigChanges: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := maxCountAfter(ignored, 20000); got != 8 {
		t.Errorf("4.3, change ignored: delivery count reached %d, want 8", got)
	}

	old := ftRun(t, ccWorld(model.Kafka42), 1)
	if got := maxCountAfter(old, 20000); got != 8 {
		t.Errorf("4.2: delivery count reached %d, want 8 (the change is refused)", got)
	}
	if len(old.ConfigChanges) != 1 || old.ConfigChanges[0].Error != "INVALID_CONFIG" || !strings.Contains(old.ConfigChanges[0].Reason, "unknown group config name") {
		t.Errorf("4.2: config changes %+v", old.ConfigChanges)
	}
	for _, m := range old.Marks {
		if m.Name == "config-change-refused" && m.Count != 1 {
			t.Errorf("4.2: config-change-refused counted %d", m.Count)
		}
	}
}

// A config change that falls outside the broker bounds in force is refused when it fires;
// one that raises the bound first is accepted, so the order of the faults decides.
func TestConfigChangeBoundsOrder(t *testing.T) {
	cfg := ccWorld(model.Kafka43)
	cfg.Faults[1].Set = []model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "15"}}
	cfg.Faults = append(cfg.Faults, sim.Fault{Kind: sim.FaultConfigChange, AtMs: 30000, RestartAfterMs: -1,
		Set: []model.ConfigEntry{{Key: "group.share.max.delivery.count.limit", Value: "20"}}},
		sim.Fault{Kind: sim.FaultConfigChange, AtMs: 40000, RestartAfterMs: -1,
			Set: []model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "15"}}})
	steps := cfg.ConfigSteps()
	want := []string{"INVALID_CONFIG", "NONE", "NONE"}
	res := ftRun(t, cfg, 1)
	if len(steps) != 3 || len(res.ConfigChanges) != 3 {
		t.Fatalf("steps %d, fired %d, want 3", len(steps), len(res.ConfigChanges))
	}
	for i, w := range want {
		if res.ConfigChanges[i].Error != w || steps[i].Accepted() != (w == "NONE") {
			t.Errorf("change %d: %+v, want %s", i, res.ConfigChanges[i], w)
		}
	}
	if steps[2].After.DeliveryCountLimit != 15 {
		t.Errorf("limit after the last change %d, want 15", steps[2].After.DeliveryCountLimit)
	}
}
