package live

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// predictionOf is a simulator result whose only group "g" has these redeliveries.
func predictionOf(redeliveries int64) *sim.Result {
	r := &sim.Result{}
	r.Metrics.Window = sim.Window{StartMs: 0, EndMs: 10_000}
	r.Metrics.Groups = []sim.GroupMetrics{{Name: "g", Window: r.Metrics.Window, Totals: sim.Counts{Redeliveries: redeliveries}}}
	return r
}

// A measurement is flagged only when it lies outside the spread of the predictions over
// the seeds by more than the tolerance (25 %, or three times the noise) and the floor; the
// ratio is against the run's seed.
func TestCompareFlagsOnlyOutsideThePredictedSpread(t *testing.T) {
	cfg := sim.Config{Groups: []sim.Group{{Name: "g", Type: sim.ShareGroup}}}
	preds := []*sim.Result{predictionOf(40), predictionOf(2180), predictionOf(130), predictionOf(70)}
	for _, tc := range []struct {
		name     string
		runs     []float64
		flagged  bool
		why      string
		ratio    float64
		low, hig float64
	}{
		{"inside the spread, far from the seed's", []float64{560}, false, "", 14, 40, 2180},
		{"just below the lowest, within 25 %", []float64{31}, false, "", 31.0 / 40, 40, 2180},
		{"far below the lowest", []float64{10}, true, "outside the 4 seeds' 40.0–2180", 0.25, 40, 2180},
		{"far above the highest", []float64{5000}, true, "outside the 4 seeds' 40.0–2180", 125, 40, 2180},
		{"above, but within three times the noise", []float64{1000, 5000, 9000}, false, "", 125, 40, 2180},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var figs [][]Figures
			for _, v := range tc.runs {
				figs = append(figs, []Figures{{Group: "g", Redeliveries: v}})
			}
			var row Row
			for _, r := range compare(cfg, preds, figs) {
				if r.Figure == "redeliveries" {
					row = r
				}
			}
			if row.Flagged != tc.flagged || !strings.Contains(row.Why, tc.why) {
				t.Errorf("flagged %v (%q), want %v (%q)", row.Flagged, row.Why, tc.flagged, tc.why)
			}
			if *row.PredictedLow != tc.low || *row.PredictedHigh != tc.hig || *row.Predicted != 40 {
				t.Errorf("predicted %v, spread %v–%v; want 40, %v–%v", *row.Predicted, *row.PredictedLow, *row.PredictedHigh, tc.low, tc.hig)
			}
			if row.Ratio == nil || *row.Ratio != tc.ratio {
				t.Errorf("ratio %v, want %v", row.Ratio, tc.ratio)
			}
		})
	}
}
