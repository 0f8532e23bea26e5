package reports

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LivePoint is one sample of a time series, predicted or measured, summed over groups.
type LivePoint struct {
	TimeMs    int64
	Completed float64
	Backlog   float64
	Delivered float64
}

// LiveRow is one headline figure of a live run's comparison table.
type LiveRow struct {
	Group, Figure string
	// Predicted is the run's seed's prediction, Spread the lowest–highest over the
	// simulator's seeds.
	Predicted, Spread, Measured, Noise, Ratio string
	Flagged                                   bool
	Why                                       string
}

// LiveCheck is one check's verdict line.
type LiveCheck struct {
	Check, Status, Detail string
	Lines                 []string
}

// LivePage is what the live report page shows: the simulator's prediction and the
// measurement on the same plots, the comparison table and the verdicts.
type LivePage struct {
	Title string
	// Verdict is the run's outcome in one line (shown first); Caption says what the
	// table's columns and the plots' lines are.
	Verdict, Caption    string
	Notes               []string
	Predicted, Measured []LivePoint
	// MeasuredRuns, with more than one run (--repeat), holds every run's series: the
	// plots draw each run's line instead of Measured alone.
	MeasuredRuns [][]LivePoint
	Rows         []LiveRow
	Checks       []LiveCheck
}

// WriteLivePage writes index.html and its plots (live-*.svg, live-*.png) into dir.
func WriteLivePage(dir string, p LivePage) error {
	figs := []figure{
		liveFigure("live-completed", "Records completed (ACCEPT), running total", "completed", p, func(l LivePoint) float64 { return l.Completed }),
		liveFigure("live-backlog", "Backlog: produced, not finished", "records", p, func(l LivePoint) float64 { return l.Backlog }),
		liveFigure("live-deliveries", "Deliveries, running total", "deliveries", p, func(l LivePoint) float64 { return l.Delivered }),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n", html.EscapeString(p.Title))
	b.WriteString("<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}td.n{white-space:nowrap}td:first-child,td:nth-child(2),th{text-align:left}td.st,td.ck{white-space:nowrap}.verdict{font-size:1.2em;font-weight:bold}.caption{color:#444;max-width:50em}.flag{color:#b00}.FAIL{color:#b00}.UNDECIDED{color:#a60}.PASS{color:#070}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(p.Title))
	if p.Verdict != "" {
		fmt.Fprintf(&b, "<p class=\"verdict\">%s</p>\n", html.EscapeString(p.Verdict))
	}
	if len(p.Notes) > 0 {
		b.WriteString("<ul>\n")
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "<li>%s</li>\n", html.EscapeString(n))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<h2>Predicted and measured</h2>\n")
	if p.Caption != "" {
		fmt.Fprintf(&b, "<p class=\"caption\">%s</p>\n", html.EscapeString(p.Caption))
	}
	b.WriteString("<table><tr><th>group</th><th>figure</th><th>predicted</th><th>spread over seeds</th><th>measured</th><th>noise</th><th>ratio</th><th></th></tr>\n")
	for _, r := range p.Rows {
		flag := ""
		if r.Flagged {
			flag = "<span class=\"flag\">differs: " + html.EscapeString(r.Why) + "</span>"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td style=\"text-align:left\">%s</td></tr>\n", html.EscapeString(r.Group), html.EscapeString(r.Figure),
			html.EscapeString(r.Predicted), html.EscapeString(r.Spread), html.EscapeString(r.Measured), html.EscapeString(r.Noise), html.EscapeString(r.Ratio), flag)
	}
	b.WriteString("</table>\n")
	for _, f := range figs {
		for _, format := range []string{"svg", "png"} {
			data, err := f.render(format)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, f.Name+"."+format), data, 0o644); err != nil {
				return fmt.Errorf("writing %s.%s: %w", f.Name, format, err)
			}
		}
		fmt.Fprintf(&b, "<h3>%s</h3>\n<img src=\"%s.svg\" alt=\"%s\">\n", html.EscapeString(f.Title), f.Name, html.EscapeString(f.Title))
	}
	b.WriteString("<h2>Checks</h2>\n<table>\n")
	for _, c := range p.Checks {
		fmt.Fprintf(&b, "<tr><td class=\"st %s\">%s</td><td class=\"ck\">%s</td><td style=\"text-align:left\">%s", html.EscapeString(c.Status), html.EscapeString(c.Status), html.EscapeString(c.Check), html.EscapeString(c.Detail))
		for _, l := range c.Lines {
			fmt.Fprintf(&b, "<br>%s", html.EscapeString(l))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>\n</body></html>\n")
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing index.html: %w", err)
	}
	return nil
}

// liveFigure draws one quantity over time, the prediction dashed and the measurement solid.
func liveFigure(name, title, ylabel string, p LivePage, get func(LivePoint) float64) figure {
	xy := func(ps []LivePoint) plotter.XYs {
		out := make(plotter.XYs, len(ps))
		for i, l := range ps {
			out[i].X, out[i].Y = float64(l.TimeMs)/1000, get(l)
		}
		return out
	}
	return figure{Name: name, Title: title, W: 7 * vg.Inch, H: 3.2 * vg.Inch, Draw: func(dc draw.Canvas) {
		ch := newChart(title, "time since production started (s, scaled)", ylabel)
		if len(p.Predicted) > 0 {
			ch.add("predicted (simulator)", lineOf(xy(p.Predicted), colBlue, 1.5, 4, 2))
		}
		switch {
		case len(p.MeasuredRuns) > 1:
			// Every run in a colour of its own (the palette after the prediction's blue).
			for k, run := range p.MeasuredRuns {
				if len(run) > 0 {
					ch.add(fmt.Sprintf("measured (live), run %d", k+1), lineOf(xy(run), pal(k+1), 1.2))
				}
			}
		case len(p.Measured) > 0:
			ch.add("measured (live)", lineOf(xy(p.Measured), colOrange, 1.5))
		}
		ch.draw(dc)
	}}
}
