package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sharesim/sharesim/live/deviation"
	"github.com/sharesim/sharesim/reports"
)

// writeResult writes the result folder: live.json (the whole result), summary.txt (what
// the command prints), index.html with the plots (reports.WriteLivePage); the history was
// streamed to history.ndjson during the run.
func writeResult(dir string, r *Result) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding live.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "live.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing live.json: %w", err)
	}
	var sum bytes.Buffer
	r.Summary(&sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), sum.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing summary.txt: %w", err)
	}
	page := reports.LivePage{Title: fmt.Sprintf("sharesim live %s on %s (time scale %g, seed %d)", r.Scenario, r.Broker, r.Scaling.Factor, r.Seed),
		Verdict: verdictLine(r)}
	measured := "measured: the live run"
	if r.Runs > 1 {
		measured = fmt.Sprintf("measured: the mean of %d live runs, noise their relative standard deviation (the plots draw every run)", r.Runs)
	}
	page.Caption = fmt.Sprintf("predicted: the simulator with seed %d, the same scaled scenario (the plots' dashed line); spread: lowest–highest over seeds %d–%d; %s; ratio: measured ÷ predicted. A figure is flagged only when the measurement lies outside the spread by more than the noise. The measured lines end when the run stopped (the groups drained or the healing phase ended).",
		r.Seed, r.Seed, r.Seed+PredictionSeeds-1, measured)
	if r.Interrupted {
		page.Notes = append(page.Notes, "The run was interrupted: production stopped early.")
	}
	page.Notes = append(page.Notes, r.Scaling.Floors...)
	for _, n := range r.NotApplied {
		page.Notes = append(page.Notes, "not applied: "+n)
	}
	page.Notes = append(page.Notes, r.Notes...)
	if !r.Drained {
		page.Notes = append(page.Notes, "The groups had not drained when the run ended.")
	}
	if r.predicted != nil {
		for _, s := range r.predicted.Metrics.Series {
			var p reports.LivePoint
			p.TimeMs = s.TimeMs
			for _, g := range s.Groups {
				p.Completed += float64(g.Completed)
				p.Backlog += float64(g.Backlog)
				p.Delivered += float64(g.Deliveries)
			}
			page.Predicted = append(page.Predicted, p)
		}
	}
	livePoints := func(ps []point) []reports.LivePoint {
		out := make([]reports.LivePoint, 0, len(ps))
		for _, s := range ps {
			out = append(out, reports.LivePoint{TimeMs: s.TimeMs, Completed: float64(s.Completed), Backlog: float64(s.Backlog), Delivered: float64(s.Deliveries)})
		}
		return out
	}
	page.Measured = livePoints(r.measured)
	if len(r.measuredRuns) > 1 {
		for _, run := range r.measuredRuns {
			page.MeasuredRuns = append(page.MeasuredRuns, livePoints(run))
		}
	}
	for _, row := range r.Comparison {
		page.Rows = append(page.Rows, reports.LiveRow{Group: row.Group, Figure: row.Figure, Predicted: num(row.Predicted), Spread: spread(row), Measured: num(row.Measured), Noise: noiseCell(row.Noise), Ratio: num(row.Ratio), Flagged: row.Flagged, Why: row.Why})
	}
	// Failures and undecided checks first, then the passes, then what did not run.
	checks := append([]CheckResult(nil), r.Checks...)
	rank := map[Status]int{Fail: 0, Undecided: 1, Deviation: 2, Pass: 3, NotRun: 4}
	sort.SliceStable(checks, func(a, b int) bool { return rank[checks[a].Status] < rank[checks[b].Status] })
	for _, c := range checks {
		lc := reports.LiveCheck{Check: c.Check, Status: string(c.Status), Detail: c.Detail}
		// The known deviations that can explain a failure first, then the violations.
		for _, id := range c.Deviations {
			if d, ok := deviation.ByID(r.Broker, id); ok {
				lc.Lines = append(lc.Lines, "known "+r.Broker+" deviation "+d.ID+": "+d.Title)
			}
		}
		for i, v := range c.Violations {
			if i == 5 {
				lc.Lines = append(lc.Lines, fmt.Sprintf("… %d more", len(c.Violations)-5))
				break
			}
			lc.Lines = append(lc.Lines, v.String())
		}
		page.Checks = append(page.Checks, lc)
	}
	return reports.WriteLivePage(dir, page)
}

// verdictLine says in one line how the run ended and how many checks gave which verdict.
func verdictLine(r *Result) string {
	n := map[Status]int{}
	for _, c := range r.Checks {
		n[c.Status]++
	}
	var parts []string
	for _, s := range []Status{Fail, Undecided, Deviation, Pass, NotRun} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	head := map[int]string{0: "every check that ran passed", 1: "a check failed", 3: "incomplete (interrupted, or a check could not decide)"}[r.ExitCode()]
	return fmt.Sprintf("Verdict: %s (exit %d): %s.", head, r.ExitCode(), strings.Join(parts, ", "))
}

func noiseCell(n *float64) string {
	if n == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", *n*100)
}
