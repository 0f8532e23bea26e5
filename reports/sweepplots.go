package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plots of a sweep: one metric against the first swept parameter with more than one
// value, one line per combination of the other swept parameters, the mean over seeds as the
// line and the min–max over seeds as a band and whiskers.

// sweepMetric is a metric of a sweep row as a plot shows it.
type sweepMetric struct {
	name   string // column of the sweep table
	title  string
	ylabel string
	scale  float64 // multiplies the stored value (ms → s, fraction → %)
	always bool    // plotted even when zero everywhere
}

var sweepMetrics = []sweepMetric{
	{"duplicates_per_hour", "Duplicates per hour", "records processed twice, per hour", 1, true},
	{"throughput_per_sec", "Throughput", "records processed per second", 1, true},
	{"redeliveries", "Redeliveries", "records redelivered (whole run)", 1, false},
	{"lock_timeouts", "Acquisition lock timeouts", "locks expired (whole run)", 1, false},
	{"archived_at_limit", "Records archived at the delivery limit", "records", 1, false},
	{"e2e_p99_ms", "p99 produce-to-completion latency", "latency (s)", 0.001, false},
	{"spso_stuck_max_ms", "Longest time the start offset stood still", "time (s)", 0.001, false},
	{"reordered_fraction", "Same-key records processed out of order", "records out of order (%)", 100, false},
}

// xValue reads a swept value as a number for the x axis: plain numbers, durations (in
// seconds) and rates ("100/s"); ok is false for anything else.
func xValue(v string) (float64, string, bool) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, "", true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), "s", true
	}
	if n, ok := strings.CutSuffix(v, "/s"); ok {
		if f, err := strconv.ParseFloat(n, 64); err == nil {
			return f, "/s", true
		}
	}
	return 0, "", false
}

// sweepLayout is how a sweep's grid maps onto plots.
type sweepLayout struct {
	xAxis   int // index into Grid of the x axis; -1: none (one category)
	series  []int
	numeric bool
	unit    string
	xs      map[string]float64 // x position of each value of the x axis
	ticks   []plot.Tick
}

// multiAxes lists the swept parameters with more than one value.
func multiAxes(t *SweepTable) []int {
	var out []int
	for i, ax := range t.Grid {
		if len(ax.Values) > 1 {
			out = append(out, i)
		}
	}
	return out
}

// layoutOf puts the swept parameter x (an index into Grid; -1: none) on the x axis and makes
// one line per combination of the other multi-valued parameters.
func layoutOf(t *SweepTable, x int) sweepLayout {
	l := sweepLayout{xAxis: x, xs: map[string]float64{}}
	for _, i := range multiAxes(t) {
		if i != x {
			l.series = append(l.series, i)
		}
	}
	if l.xAxis < 0 {
		l.ticks = []plot.Tick{{Value: 0, Label: "all runs"}}
		return l
	}
	vals := t.Grid[l.xAxis].Values
	l.numeric = true
	units := map[string]bool{}
	for _, v := range vals {
		f, u, ok := xValue(v)
		if !ok {
			l.numeric = false
			break
		}
		units[u] = true
		l.xs[v] = f
	}
	if len(units) > 1 {
		l.numeric = false
	}
	if l.numeric {
		for u := range units {
			l.unit = u
		}
		return l
	}
	for i, v := range vals {
		l.xs[v] = float64(i)
		l.ticks = append(l.ticks, plot.Tick{Value: float64(i), Label: v})
	}
	return l
}

// shortPath shortens a parameter path for legends and titles: the last two names without
// list indexes (groups.0.consumers.0.count → consumers.count); Kafka settings keep their own
// dotted name (kafka.share.record.lock.duration.ms → share.record.lock.duration.ms).
func shortPath(p string) string {
	parts := strings.Split(p, ".")
	if len(parts) > 1 && parts[0] == "kafka" {
		return strings.Join(parts[1:], ".")
	}
	var names []string
	for _, s := range parts {
		if _, err := strconv.Atoi(s); err != nil {
			names = append(names, s)
		}
	}
	if len(names) > 2 {
		names = names[len(names)-2:]
	}
	return strings.Join(names, ".")
}

// seriesLine is one line of a sweep plot.
type seriesLine struct {
	label         string
	x, mean       []float64
	lo, hi        []float64
	runs, failed  int
	minRuns       int
	failedAtPoint []bool
}

func sweepLines(t *SweepTable, l sweepLayout, metric string, scale float64) []*seriesLine {
	var lines []*seriesLine
	byLabel := map[string]*seriesLine{}
	for _, a := range t.Aggregates() {
		var parts []string
		for _, si := range l.series {
			if si < len(a.Params) {
				parts = append(parts, shortPath(a.Params[si].Path)+"="+a.Params[si].Value)
			}
		}
		label := strings.Join(parts, ", ")
		if label == "" {
			label = "mean over seeds"
		}
		sl := byLabel[label]
		if sl == nil {
			sl = &seriesLine{label: label, minRuns: a.Runs}
			byLabel[label] = sl
			lines = append(lines, sl)
		}
		x := 0.0
		if l.xAxis >= 0 && l.xAxis < len(a.Params) {
			x = l.xs[a.Params[l.xAxis].Value]
		}
		sl.x = append(sl.x, x)
		sl.mean = append(sl.mean, a.Mean[metric]*scale)
		sl.lo = append(sl.lo, a.Min[metric]*scale)
		sl.hi = append(sl.hi, a.Max[metric]*scale)
		sl.failedAtPoint = append(sl.failedAtPoint, a.Failed > 0)
		sl.runs += a.Runs
		sl.failed += a.Failed
		sl.minRuns = min(sl.minRuns, a.Runs)
	}
	for _, sl := range lines {
		idx := make([]int, len(sl.x))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(i, j int) bool { return sl.x[idx[i]] < sl.x[idx[j]] })
		reorder := func(v []float64) []float64 {
			out := make([]float64, len(v))
			for i, k := range idx {
				out[i] = v[k]
			}
			return out
		}
		sl.x, sl.mean, sl.lo, sl.hi = reorder(sl.x), reorder(sl.mean), reorder(sl.lo), reorder(sl.hi)
	}
	return lines
}

// whiskers are min–max error bars.
type whiskers struct {
	xs, lo, hi []float64
	style      draw.LineStyle
	cap        vg.Length
}

func (w *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i := range w.xs {
		if w.hi[i] <= w.lo[i] {
			continue
		}
		X, Y0, Y1 := tx(w.xs[i]), ty(w.lo[i]), ty(w.hi[i])
		c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{{X: X, Y: Y0}, {X: X, Y: Y1}})...)
		c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{{X: X - w.cap, Y: Y0}, {X: X + w.cap, Y: Y0}})...)
		c.StrokeLines(w.style, c.ClipLinesXY([]vg.Point{{X: X - w.cap, Y: Y1}, {X: X + w.cap, Y: Y1}})...)
	}
}

// Thumbnail draws one whisker for the legend.
func (w *whiskers) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	y0, y1 := c.Min.Y+vg.Points(1), c.Max.Y-vg.Points(1)
	c.StrokeLine2(w.style, x, y0, x, y1)
	c.StrokeLine2(w.style, x-w.cap, y0, x+w.cap, y0)
	c.StrokeLine2(w.style, x-w.cap, y1, x+w.cap, y1)
}

func (w *whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range w.xs {
		xmin, xmax = math.Min(xmin, w.xs[i]), math.Max(xmax, w.xs[i])
		ymin, ymax = math.Min(ymin, w.lo[i]), math.Max(ymax, w.hi[i])
	}
	return
}

// sweepFigures plots every metric against the first multi-valued parameter, and the headline
// metrics (duplicates per hour, throughput) against each other one.
func sweepFigures(t *SweepTable) []figure {
	axes := multiAxes(t)
	if len(axes) == 0 {
		return sweepFiguresFor(t, -1, false)
	}
	figs := sweepFiguresFor(t, axes[0], false)
	for _, x := range axes[1:] {
		figs = append(figs, sweepFiguresFor(t, x, true)...)
	}
	return figs
}

func sweepFiguresFor(t *SweepTable, x int, headlineOnly bool) []figure {
	l := layoutOf(t, x)
	xlabel := "all runs"
	xpath := ""
	if l.xAxis >= 0 {
		xpath = t.Grid[l.xAxis].Path
		xlabel = xpath
		switch l.unit {
		case "s":
			xlabel += " (s)"
		case "/s":
			xlabel += " (per second)"
		}
	}
	seeds := t.Seeds
	var figs []figure
	for _, m := range sweepMetrics {
		nonzero := false
		for i := range t.Rows {
			if v, _ := t.Rows[i].Metric(m.name); v != 0 {
				nonzero = true
			}
		}
		if !m.always && (!nonzero || headlineOnly) {
			continue
		}
		title := m.title
		if xpath != "" {
			title += " against " + shortPath(xpath)
		}
		ch := newChart(title, xlabel, m.ylabel)
		lines := sweepLines(t, l, m.name, m.scale)
		if v, flat := constantMetric(t, m.name); flat && len(t.Rows) > 1 {
			// A flat line says nothing a sentence does not: say it.
			text := fmt.Sprintf("%s is %s in every run: it does not vary with %s", m.title, fmtFloat(v*m.scale), orDefault(xpath, "the swept parameters"))
			name := "sweep-" + strings.ReplaceAll(m.name, "_", "-")
			if headlineOnly {
				name += "-vs-" + strings.NewReplacer(".", "-", "_", "-").Replace(shortPath(xpath))
			}
			figs = append(figs, figure{Name: name, Title: title, Caption: text + fmt.Sprintf(" (%d runs, seeds %s).", len(t.Rows), seeds),
				W: figW, H: figH / 3, Draw: textFigure(title, text)})
			continue
		}
		// Bands only while they stay readable; whiskers always, dodged sideways so that the
		// series' whiskers do not hide each other.
		bands := len(lines) <= 2
		xr := 1.0
		if l.numeric && l.xAxis >= 0 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range l.xs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			xr = math.Max(hi-lo, 1e-9)
		}
		for i, sl := range lines {
			c := pal(i)
			if bands && len(sl.x) > 1 {
				ch.p.Add(&band{xs: sl.x, lo: sl.lo, hi: sl.hi, color: fade(c, 50)})
			}
			dodge := 0.0
			if !bands {
				dodge = (float64(i) - float64(len(lines)-1)/2) * 0.008 * xr
			}
			wx := make([]float64, len(sl.x))
			for k := range sl.x {
				wx[k] = sl.x[k] + dodge
			}
			ch.p.Add(&whiskers{xs: wx, lo: sl.lo, hi: sl.hi, style: draw.LineStyle{Color: c, Width: vg.Points(1.1)}, cap: vg.Points(3)})
			xys := make(plotter.XYs, len(sl.x))
			for k := range sl.x {
				xys[k] = plotter.XY{X: wx[k], Y: sl.mean[k]}
			}
			line := lineOf(xys, c, 1.8)
			pts := pointsOf(xys, c, 3, draw.CircleGlyph{})
			label := sl.label
			if sl.failed > 0 {
				label += fmt.Sprintf(" (%d of %d runs failed a check)", sl.failed, sl.runs)
			}
			ch.add(label, line, pts)
		}
		if bands {
			ch.key(fmt.Sprintf("band and whiskers: min–max over seeds %s", seeds), fillThumb{fade(colGrey, 70)})
		} else {
			ch.key(fmt.Sprintf("whiskers: min–max over seeds %s", seeds), &whiskers{xs: []float64{0}, style: draw.LineStyle{Color: colGrey, Width: vg.Points(1.1)}, cap: vg.Points(3)})
		}
		if l.xAxis < 0 || !l.numeric {
			ch.p.X.Tick.Marker = plot.ConstantTicks(l.ticks)
			ch.p.X.Min, ch.p.X.Max = -0.5, float64(max(len(l.ticks), 1))-0.5
		} else {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range l.xs {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			pad := (hi - lo) * 0.05
			ch.p.X.Min, ch.p.X.Max = lo-pad, hi+pad
		}
		ch.p.Y.Min = 0
		if !nonzero {
			ch.p.Y.Max = 1
		}
		caption := fmt.Sprintf("%s for each value of %s", m.title, orDefault(xpath, "the sweep"))
		if len(l.series) > 0 {
			var names []string
			for _, si := range l.series {
				names = append(names, t.Grid[si].Path)
			}
			caption += ", one line per value of " + strings.Join(names, " and ")
		}
		caption += fmt.Sprintf(". Points are the mean over the seeds (%s); the whiskers (and, with one or two lines, the band) span the smallest and largest value a seed gave.", seeds)
		name := "sweep-" + strings.ReplaceAll(m.name, "_", "-")
		if headlineOnly {
			name += "-vs-" + strings.NewReplacer(".", "-", "_", "-").Replace(shortPath(xpath))
		}
		figs = append(figs, figure{Name: name, Title: title, Caption: caption,
			W: figW, H: figH, Draw: ch.draw})
	}
	return figs
}

// textFigure draws a figure that is only a title and a sentence.
func textFigure(title, text string) func(dc draw.Canvas) {
	return func(dc draw.Canvas) {
		ts := draw.TextStyle{Color: colBlack, Font: fontOf(13), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
		mid := (dc.Min.X + dc.Max.X) / 2
		dc.FillText(ts, vg.Point{X: mid, Y: dc.Max.Y - vg.Points(8)}, title)
		ts.Font, ts.Color, ts.YAlign = fontOf(11), colGrey, draw.YCenter
		dc.FillText(ts, vg.Point{X: mid, Y: (dc.Min.Y+dc.Max.Y)/2 - vg.Points(6)}, text)
	}
}

// constantMetric reports whether a metric has the same value in every run of the sweep.
func constantMetric(t *SweepTable, metric string) (float64, bool) {
	if len(t.Rows) == 0 {
		return 0, false
	}
	first, _ := t.Rows[0].Metric(metric)
	for i := range t.Rows {
		if v, _ := t.Rows[i].Metric(metric); v != first {
			return 0, false
		}
	}
	return first, true
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
