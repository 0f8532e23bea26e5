package live

import (
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// liveness decides on the end states: drained passes (interrupted or not), undrained fails
// (naming kfake's deviation that can cause it), and it cannot decide when the run was
// interrupted or only acknowledgements whose answers were lost keep a partition from
// draining.
func TestLivenessVerdicts(t *testing.T) {
	drained := sim.FinalState{Group: "g", Partition: "t/0", StartOffset: 10, LogEnd: 10, Loaded: true, Drained: true}
	stuck := sim.FinalState{Group: "g", Partition: "t/1", StartOffset: 4, LogEnd: 10, InFlight: 6, Loaded: true}
	res := &sim.Result{Metrics: sim.Metrics{Groups: []sim.GroupMetrics{{Name: "g", Type: "share"}}}}
	for _, tc := range []struct {
		name        string
		healMs      int64
		a           attempt
		want        Status
		deviationID string
	}{
		{"drained", 1000, attempt{final: []sim.FinalState{drained}}, Pass, ""},
		{"stuck", 1000, attempt{final: []sim.FinalState{drained, stuck}}, Fail, "log-start-not-followed"},
		{"stuck, interrupted", 1000, attempt{final: []sim.FinalState{stuck}, interrupted: true}, Undecided, ""},
		{"drained, interrupted", 1000, attempt{final: []sim.FinalState{drained}, interrupted: true}, Pass, ""},
		{"only lost answers", 1000, attempt{final: []sim.FinalState{drained, stuck}, undecided: []string{"g/t/1"}}, Undecided, ""},
		{"no healing phase", 0, attempt{final: []sim.FinalState{stuck}}, NotRun, ""},
		{"offsets unread", 1000, attempt{}, NotRun, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config{HealMs: tc.healMs}
			cr := liveness(&cfg, "kfake", &tc.a, res)
			if cr.Status != tc.want {
				t.Fatalf("%s (%s), want %s", cr.Status, cr.Detail, tc.want)
			}
			if tc.want == Fail && (len(cr.Violations) != 1 || cr.Violations[0].Partition != "t/1") {
				t.Errorf("violations %v, want t/1 only", cr.Violations)
			}
			if tc.deviationID != "" && (len(cr.Deviations) == 0 || cr.Deviations[0] != tc.deviationID) {
				t.Errorf("deviations %v, want %s", cr.Deviations, tc.deviationID)
			}
		})
	}
}
