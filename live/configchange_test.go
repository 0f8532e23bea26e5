package live

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// A config-change fault is refused on the embedded kfake cluster, naming why (its share
// groups never read group configs), and for broker bounds on any cluster; a group config
// change is accepted for a real cluster, where it becomes IncrementalAlterConfigs.
func TestConfigChangeSupport(t *testing.T) {
	s, err := scenarios.Builtin("config-change-in-flight")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("kafka.version", "4.2"); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	var ue *UnsupportedError
	_, err = support(&cfg, Target{})
	if !errors.As(err, &ue) || ue.Key != "faults[kind=config-change]" || !strings.Contains(ue.Why, "shareRecordLockDurationMs") {
		t.Fatalf("embedded: got %v, want the kfake refusal", err)
	}
	real := Target{Bootstrap: []string{"broker:9092"}}
	if _, err := support(&cfg, real); err != nil {
		t.Fatalf("real cluster: %v", err)
	}
	cfg.Faults = append(cfg.Faults, sim.Fault{Kind: sim.FaultConfigChange, AtMs: 1000, RestartAfterMs: -1,
		Set: []model.ConfigEntry{{Key: "group.share.max.delivery.count.limit", Value: "20"}}})
	if _, err := support(&cfg, real); !errors.As(err, &ue) || !strings.Contains(ue.Key, "group.share.max.delivery.count.limit") {
		t.Fatalf("broker bound: got %v, want a refusal naming the key", err)
	}
}

// Scaling a live run shrinks a lock duration set at run time like the scenario's lock.
func TestScaleConfigChangeLock(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Faults = []sim.Fault{{Kind: sim.FaultConfigChange, AtMs: 60000, RestartAfterMs: -1,
		Set: []model.ConfigEntry{{Key: "share.record.lock.duration.ms", Value: "40000"}}}}
	cfg.Groups = []sim.Group{{Name: "g", Type: sim.ShareGroup}}
	out, _, _ := Scale(cfg, 0.1, Floors{})
	if got := out.Faults[0].Set[0].Value; got != "4000" {
		t.Errorf("scaled lock %s, want 4000", got)
	}
	if cfg.Faults[0].Set[0].Value != "40000" {
		t.Errorf("Scale changed its input: %s", cfg.Faults[0].Set[0].Value)
	}
}
