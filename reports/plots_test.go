package reports

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// No data series is drawn in the red that marks faults, crashes and caps.
func TestSeriesPaletteAvoidsRed(t *testing.T) {
	for i := 0; i < 3*len(palette); i++ {
		if pal(i) == colRed {
			t.Fatalf("series colour %d is the fault red", i)
		}
	}
}

// A sweep metric with one value in every run is said in words, not drawn as a flat line.
func TestFlatSweepMetricIsText(t *testing.T) {
	tab := &SweepTable{Scenario: "s", Seeds: "1..2", Grid: []Axis{{Path: "heal", Values: []string{"20s", "30s"}}}}
	for p, v := range []string{"20s", "30s"} {
		for seed := uint64(1); seed <= 2; seed++ {
			r := SweepRow{Point: p, Params: []Param{{Path: "heal", Value: v}}, Seed: seed, Verdict: "pass"}
			r.ThroughputPerSec = float64(10 + p + int(seed))
			tab.Rows = append(tab.Rows, r)
		}
	}
	if _, flat := constantMetric(tab, "duplicates_per_hour"); !flat {
		t.Fatal("duplicates_per_hour is 0 everywhere but not flat")
	}
	if _, flat := constantMetric(tab, "throughput_per_sec"); flat {
		t.Fatal("throughput_per_sec varies but is flat")
	}
	var text, plotted bool
	for _, f := range sweepFigures(tab) {
		if strings.HasPrefix(f.Caption, "Duplicates per hour is 0 in every run: it does not vary with heal") {
			text = true
		}
		if f.Name == "sweep-throughput-per-sec" && !strings.Contains(f.Caption, "in every run") {
			plotted = true
		}
	}
	if !text || !plotted {
		t.Fatalf("flat metric as text: %v, varying metric plotted: %v", text, plotted)
	}
}

// A vertical mark's label near the right edge is drawn to the left of its line, inside.
func TestVMarkLabelStaysInside(t *testing.T) {
	ch := newChart("t", "x", "y")
	ch.p.X.Min, ch.p.X.Max, ch.p.Y.Min, ch.p.Y.Max = 0, 10, 0, 1
	m := newVMarks(colBlack)
	const label = "delivery count limit 5"
	m.xs, m.labels = []float64{9.9}, []string{label}
	ch.p.Add(m)
	w := 4 * vg.Inch
	c := &recorder.Canvas{}
	ch.draw(draw.NewCanvas(c, w, 2*vg.Inch))
	found := false
	for _, a := range c.Actions {
		if fs, ok := a.(*recorder.FillString); ok && fs.String == label {
			found = true
			width := m.text.Width(label)
			if fs.Point.X+width > w || fs.Point.X < 0 {
				t.Errorf("label from x=%.1f to %.1f, canvas width %.1f", fs.Point.X, fs.Point.X+width, w)
			}
		}
	}
	if !found {
		t.Fatal("the label was not drawn")
	}
}

// Violations of one check make one card: the count, first and last time formatted, each
// distinct message once with its time, the rest counted.
func TestGroupViolations(t *testing.T) {
	var vs []Violation
	for i := 0; i < 7; i++ {
		vs = append(vs, Violation{Check: "liveness", TimeMs: 2_160_000, Event: 9,
			Message: fmt.Sprintf("liveness at 2160000 ms (event 9) on g/t/%d: not drained", i%6), Reproduce: "sharesim run x"})
	}
	vs = append(vs, Violation{Check: "spso-monotonic", TimeMs: 1500, Message: "spso-monotonic at 1500 ms on g/t/0: SPSO moved back"})
	cards := groupViolations(vs)
	if len(cards) != 2 {
		t.Fatalf("%d cards, want 2", len(cards))
	}
	l := cards[0]
	if l.Check != "liveness" || l.Count != 7 || l.When != "at 36 min 00 s" || len(l.Lines) != maxCardLines || l.More != 6-maxCardLines {
		t.Fatalf("liveness card %+v", l)
	}
	if l.Lines[0] != "at 36 min 00 s: g/t/0: not drained" {
		t.Errorf("line %q", l.Lines[0])
	}
	if s := cards[1]; s.Count != 1 || s.When != "at 1.5 s" || s.Lines[0] != "at 1.5 s: g/t/0: SPSO moved back" {
		t.Errorf("spso card %+v", s)
	}
}

// drawnStrings draws a figure on a recording canvas and returns every string it wrote.
func drawnStrings(f figure) []string {
	c := &recorder.Canvas{}
	f.Draw(draw.NewCanvas(c, f.W, f.H))
	var out []string
	for _, a := range c.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, fs.String)
		}
	}
	return out
}

// The plots draw the configuration in force: config-change-in-flight lowers the delivery
// count limit from 8 to 3 at 2m, so the delivery-count histogram marks both limits; with
// the record-lock cap lowered as well, the in-flight plot draws the cap in force as a step
// line (named with each value and its start) instead of the initial cap.
func TestPlotsDrawTheConfigurationInForce(t *testing.T) {
	s, res, yml, err := runScenario("config-change-in-flight", 1, "duration=3m", "heal=30s",
		"faults[1].set={share.delivery.count.limit: 3, share.partition.max.record.locks: 150}")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteRun(dir, s, res, yml); err != nil {
		t.Fatal(err)
	}
	d, err := loadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(drawnStrings(deliveryCountFigure(d)), "|")
	for _, want := range []string{"delivery count limit 8", "delivery count limit 3 from 2m00s"} {
		if !strings.Contains(got, want) {
			t.Errorf("delivery-count figure lacks %q: %s", want, got)
		}
	}
	got = strings.Join(drawnStrings(inFlightFigure(d)), "|")
	if want := "cap in force, senders (group.share.partition.max.record.locks: 2000 from 0ms, 150 from 2m00s)"; !strings.Contains(got, want) {
		t.Errorf("in-flight figure lacks %q: %s", want, got)
	}
	if strings.Contains(got, "cap 2000 (") {
		t.Errorf("in-flight figure still draws the initial cap as the cap: %s", got)
	}
}
