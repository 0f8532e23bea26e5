package reports

import (
	"slices"
	"testing"

	"github.com/sharesim/sharesim/scenarios"
)

// A scenario's focus key accepts exactly the per-group figures the reports can word.
func TestFocusNamesArePerGroupFigures(t *testing.T) {
	if got := GroupMetricNames(); !slices.Equal(got, scenarios.FocusMetrics) {
		t.Fatalf("reports figures %v, scenarios.FocusMetrics %v", got, scenarios.FocusMetrics)
	}
	p50 := int64(1500)
	h := Headline{DuplicatesPerHour: 17364.44, E2EP50Ms: &p50, ArrivalPerSec: 99.96, ReorderedFraction: 0.0123, LockTimeouts: 1721}
	for name, want := range map[string]string{
		// A rate says per what (and is rounded like the other rates); a total says it is one.
		"duplicates_per_hour": "duplicates 17364.4 per hour",
		"lock_timeouts":       "lock timeouts 1721 over the run",
		"e2e_p50_ms":          "median produce-to-completion latency 1.5 s",
		"e2e_p99_ms":          "p99 produce-to-completion latency n/a (nothing completed)",
		"arrival_per_sec":     "arrival rate 100.0 records/s",
		"reordered_fraction":  "same-key records out of order 1.23%",
		"kept_up":             "did not keep up",
	} {
		if got, ok := DescribeFigure(name, &h, nil); !ok || got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
