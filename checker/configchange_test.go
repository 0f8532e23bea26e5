package checker_test

import (
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// runConfigChange runs the built-in config-change-in-flight (the delivery limit lowered
// from 8 to 3 at 2m, during an outage that releases every record) with every history
// check, and returns the checks that failed.
func runConfigChange(t *testing.T, version string, sets map[string]string, ignore bool) map[string]int {
	t.Helper()
	s, err := scenarios.Builtin("config-change-in-flight")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("kafka.version", version); err != nil {
		t.Fatal(err)
	}
	for k, v := range sets {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	names := append([]string{"inflight-within-cap", "core-consistent"}, checker.HistoryChecks()...)
	_, _, vs := runChecks(t, cfg, 1, names, sim.Options{IgnoreConfigChanges: ignore})
	return failedChecks(vs)
}

// Lowering the limit mid-run passes every check on the faithful core, on 4.3 and 4.4; a
// leader that ignores the change (it keeps redelivering up to the old limit) fails
// delivery-count-within-limit. On 4.2 the change is refused, so ignoring it changes
// nothing and the run passes.
func TestConfigChangeLimitChecked(t *testing.T) {
	for _, v := range []string{"4.3", "4.4"} {
		if got := runConfigChange(t, v, nil, false); len(got) != 0 {
			t.Errorf("%s faithful: checks failed: %v", v, got)
		}
		if got := runConfigChange(t, v, nil, true); got["delivery-count-within-limit"] == 0 {
			t.Errorf("%s, change ignored: delivery-count-within-limit passed (failed: %v)", v, got)
		}
	}
	if got := runConfigChange(t, "4.2", nil, true); len(got) != 0 {
		t.Errorf("4.2 (change refused), ignored: checks failed: %v", got)
	}
}

// Raising the limit mid-run (3 to 8) lets records climb past the old limit: the checks
// must accept that, and fail a leader that ignores the change only where it matters (it
// archives at 3, which no check forbids, so it passes too).
func TestConfigChangeRaisedLimitPasses(t *testing.T) {
	sets := map[string]string{
		"kafka.group.share.delivery.count.limit":  "3",
		"faults.1.set.share.delivery.count.limit": "8",
	}
	if got := runConfigChange(t, "4.4", sets, false); len(got) != 0 {
		t.Errorf("raised limit, faithful: checks failed: %v", got)
	}
}

// Lowering the record-lock cap from 2000 to 500 mid-run on in-flight-cap (20 consumers
// on 2 partitions, max.poll.records 500) passes inflight-within-cap on the faithful core:
// the window above the new cap drains, it never grows. A leader that ignores the change
// keeps filling 2000 and fails it.
func TestConfigChangeCapChecked(t *testing.T) {
	run := func(ignore bool) map[string]int {
		s, err := scenarios.Builtin("in-flight-cap")
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"kafka.version": "4.4", "duration": "2m"} {
			if err := s.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := s.SimConfig()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Faults = append(cfg.Faults, sim.Fault{Kind: sim.FaultConfigChange, AtMs: 60000, RestartAfterMs: -1,
			Set: []model.ConfigEntry{{Key: "share.partition.max.record.locks", Value: "500"}}})
		_, _, vs := runChecks(t, cfg, 1, []string{"inflight-within-cap", "core-consistent"}, sim.Options{IgnoreConfigChanges: ignore})
		return failedChecks(vs)
	}
	if got := run(false); len(got) != 0 {
		t.Errorf("faithful: checks failed: %v", got)
	}
	if got := run(true); got["inflight-within-cap"] == 0 {
		t.Errorf("change ignored: inflight-within-cap passed (failed: %v)", got)
	}
}
