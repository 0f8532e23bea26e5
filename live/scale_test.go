package live

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

func TestScale(t *testing.T) {
	s := builtin(t, "quickstart")
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		f             float64
		floors        Floors
		lockMs, durMs int64
		rate          float64
		floored       bool
	}{
		{"embedded, 0.05", 0.05, Floors{}, 1500, 9000, 2000, false},
		{"unscaled", 1, Floors{}, 30000, 180000, 100, false},
		{"real cluster, lock held at its minimum", 0.1, Target{Bootstrap: []string{"x:9092"}}.FloorsFor(), 15000, 18000, 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, sc, err := Scale(cfg, tc.f, tc.floors)
			if err != nil {
				t.Fatal(err)
			}
			if out.Kafka.RecordLockDurationMs != tc.lockMs || out.DurationMs != tc.durMs || out.Producers[0].RecordsPerSecond != tc.rate {
				t.Errorf("lock %d, duration %d, rate %g; want %d, %d, %g", out.Kafka.RecordLockDurationMs, out.DurationMs, out.Producers[0].RecordsPerSecond, tc.lockMs, tc.durMs, tc.rate)
			}
			if got := len(sc.Floors) > 0; got != tc.floored {
				t.Errorf("floors %v", sc.Floors)
			}
			if tc.f != 1 && !strings.Contains(strings.Join(sc.Scaled, "\n"), "processing") {
				t.Errorf("the processing time is not listed as scaled: %v", sc.Scaled)
			}
			if cfg.Faults[0].AtMs != 60000 {
				t.Error("Scale changed its input")
			}
		})
	}
	if _, _, err := Scale(cfg, 0, Floors{}); err == nil {
		t.Error("a zero factor was accepted")
	}
}

func TestSupportRefusesWhatAClientCannotDo(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Faults = []sim.Fault{{Kind: sim.FaultLeaderFailover}}
	_, err := support(&cfg, Target{})
	ue, ok := err.(*UnsupportedError)
	if !ok || !strings.Contains(ue.Key, "leader-failover") {
		t.Fatalf("leader-failover: %v", err)
	}
}
