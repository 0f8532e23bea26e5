package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The live page shows the verdict first, says what the columns mean, and escapes what it
// prints; its plots are written beside it.
func TestWriteLivePage(t *testing.T) {
	dir := t.TempDir()
	p := LivePage{
		Title: "sharesim live quickstart on kfake", Verdict: "Verdict: a check failed (exit 1): 1 FAIL.",
		Caption: "predicted: the simulator with seed 1", Notes: []string{"3000 ms: kill <worker-1>"},
		Predicted: []LivePoint{{TimeMs: 0}, {TimeMs: 1000, Completed: 10, Backlog: 2, Delivered: 12}},
		Measured:  []LivePoint{{TimeMs: 0}, {TimeMs: 1000, Completed: 9, Backlog: 3, Delivered: 11}},
		Rows:      []LiveRow{{Group: "workers", Figure: "redeliveries", Predicted: "40.0", Spread: "40.0–2180", Measured: "5000", Noise: "–", Ratio: "125", Flagged: true, Why: "outside"}},
		Checks:    []LiveCheck{{Check: "linearizable", Status: "FAIL", Lines: []string{"known kfake deviation x"}}},
	}
	if err := WriteLivePage(dir, p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"Verdict: a check failed (exit 1)", "predicted: the simulator with seed 1", "<th>spread over seeds</th>", "<th>noise</th>",
		"40.0–2180", "differs: outside", "kill &lt;worker-1&gt;", "known kfake deviation x", `class="st FAIL"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Index(page, "Verdict:") > strings.Index(page, "<h2>") {
		t.Error("the verdict is not above the table")
	}
	for _, f := range []string{"live-completed.svg", "live-backlog.png", "live-deliveries.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
}

// With repeated runs every run is drawn, each with its own legend entry.
func TestWriteLivePageDrawsEveryRun(t *testing.T) {
	dir := t.TempDir()
	run := func(k float64) []LivePoint {
		return []LivePoint{{TimeMs: 0}, {TimeMs: 1000, Completed: 9 + k, Backlog: 3, Delivered: 11 + k}}
	}
	p := LivePage{Title: "t", Predicted: run(1), Measured: run(0), MeasuredRuns: [][]LivePoint{run(0), run(1), run(2)}}
	if err := WriteLivePage(dir, p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "live-completed.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run 1", "run 2", "run 3", "predicted (simulator)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the plot lacks the legend entry %q", want)
		}
	}
	one := t.TempDir()
	p.MeasuredRuns = p.MeasuredRuns[:1]
	if err := WriteLivePage(one, p); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(one, "live-completed.svg")); strings.Contains(string(b), "run 1") || !strings.Contains(string(b), "measured (live)") {
		t.Error("one run: want the single measured line")
	}
}
