package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
	page := reports.LivePage{Title: fmt.Sprintf("sharesim live %s on %s (time scale %g)", r.Scenario, r.Broker, r.Scaling.Factor)}
	if r.Interrupted {
		page.Notes = append(page.Notes, "The run was interrupted: production stopped early.")
	}
	page.Notes = append(page.Notes, r.Scaling.Floors...)
	for _, n := range r.NotApplied {
		page.Notes = append(page.Notes, "not applied: "+n)
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
	for _, s := range r.measured {
		page.Measured = append(page.Measured, reports.LivePoint{TimeMs: s.TimeMs, Completed: float64(s.Completed), Backlog: float64(s.Backlog), Delivered: float64(s.Deliveries)})
	}
	for _, row := range r.Comparison {
		page.Rows = append(page.Rows, reports.LiveRow{Group: row.Group, Figure: row.Figure, Predicted: num(row.Predicted), Spread: spread(row), Measured: num(row.Measured), Ratio: num(row.Ratio), Flagged: row.Flagged, Why: row.Why})
	}
	for _, c := range r.Checks {
		lc := reports.LiveCheck{Check: c.Check, Status: string(c.Status), Detail: c.Detail}
		for i, v := range c.Violations {
			if i == 5 {
				lc.Lines = append(lc.Lines, fmt.Sprintf("… %d more", len(c.Violations)-5))
				break
			}
			lc.Lines = append(lc.Lines, v.String())
		}
		for _, id := range c.Deviations {
			if d, ok := deviation.ByID(r.Broker, id); ok {
				lc.Lines = append(lc.Lines, "known "+r.Broker+" deviation "+d.ID+": "+d.Title)
			}
		}
		page.Checks = append(page.Checks, lc)
	}
	return reports.WriteLivePage(dir, page)
}
