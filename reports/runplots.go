package reports

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plots of one run. Each figure answers one question at a glance; the captions on the
// page say which.

const (
	figW = 9 * vg.Inch
	figH = 4.2 * vg.Inch
	// maxLines is how many partitions or consumers get a line each; beyond it a plot shows
	// the median and the min–max band per group.
	maxLines = 8
	// timelineRows is how many sampled records the timeline shows.
	timelineRows = 30
)

// runFigures lists the figures of a run, in page order.
func runFigures(d *runData) []figure {
	figs := []figure{
		redeliveriesFigure(d),
		deliveryCountFigure(d),
		backlogFigure(d),
		inFlightFigure(d),
		offsetsFigure(d),
		timelineFigure(d),
		throughputFigure(d),
		latencyFigure(d),
		kafkaMetersFigure(d),
	}
	if len(groupNames(d)) > 1 {
		figs = append(figs, groupsFigure(d))
	}
	return figs
}

// timeAxis is the unit of a time axis, chosen from the length of the run.
type timeAxis struct {
	div  float64
	unit string
}

func timeAxisFor(endMs int64) timeAxis {
	switch {
	case endMs <= 180_000:
		return timeAxis{1000, "s"}
	case endMs <= 3*3_600_000:
		return timeAxis{60_000, "min"}
	}
	return timeAxis{3_600_000, "h"}
}

func (t timeAxis) x(ms int64) float64 { return float64(ms) / t.div }
func (t timeAxis) label() string      { return "virtual time (" + t.unit + ")" }

func (d *runData) time() timeAxis { return timeAxisFor(d.shownEndMs()) }

// shownEndMs is where the time axes end: the end of the run, or, when a long healing phase
// is idle for most of its length, a little after the groups drained (every partition with
// nothing in flight and no backlog), so that the plots are not mostly an empty heal phase.
func (d *runData) shownEndMs() int64 {
	end, h := d.sum.EndMs, d.healFrom()
	if h <= 0 || h >= end {
		return end
	}
	busy := h
	for i, s := range d.series {
		for j := range s.Partitions {
			if p := &s.Partitions[j]; p.Backlog > 0 || p.InFlightMessageCount > 0 {
				busy = max(busy, s.TimeMs)
				if i+1 < len(d.series) {
					busy = max(busy, d.series[i+1].TimeMs)
				}
			}
		}
	}
	shown := busy + max(busy/8, 2*d.interval)
	if shown >= end-(end-h)/4 {
		return end
	}
	return shown
}

// healLabel labels the healing phase's shading, saying so when the axes stop early.
func (d *runData) healLabel() string {
	if end := d.shownEndMs(); end < d.sum.EndMs {
		return fmt.Sprintf("healing, to %s", fmtMs(d.sum.EndMs))
	}
	return "healing"
}

// intervalText names the sampling interval ("10 s").
func (d *runData) intervalText() string { return fmtMs(d.interval) }

// timeChart is a chart over the run's time axis with its events marked: faults and crashes
// as dashed lines, the healing phase shaded.
func (d *runData) timeChart(title, ylabel string) *chart {
	ta := d.time()
	ch := newChart(title, ta.label(), ylabel)
	xmax := ta.x(d.shownEndMs())
	ch.p.X.Min, ch.p.X.Max, ch.xMax = 0, xmax, &xmax
	if h := d.healFrom(); h > 0 && h < d.sum.EndMs {
		ch.p.Add(newShade(ta.x(h), ta.x(d.shownEndMs()), d.healLabel()))
	}
	if m := d.eventMarks(); len(m.xs) > 0 {
		ch.p.Add(m)
		ch.key("fault or crash", m)
	}
	return ch
}

// healFrom is when the healing phase started (from the trace, else the scenario).
func (d *runData) healFrom() int64 {
	if d.sample != nil {
		for _, l := range d.sample.Notable {
			if t, kind, _ := splitTrace(l); kind == "heal" {
				return t
			}
		}
	}
	return d.sc.HealFromMs
}

// splitTrace splits a trace line into its time, kind and key=value fields.
func splitTrace(line string) (int64, string, map[string]string) {
	fs := strings.Fields(line)
	if len(fs) < 2 {
		return 0, "", nil
	}
	t, _ := strconv.ParseInt(fs[0], 10, 64)
	kv := map[string]string{}
	for _, f := range fs[2:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			kv[k] = v
		}
	}
	return t, fs[1], kv
}

// eventMarks are the faults and crashes of the run, labelled when there are few.
func (d *runData) eventMarks() *vmarks {
	m := newVMarks(colRed)
	if d.sample == nil {
		return m
	}
	ta := d.time()
	seen := map[string]bool{}
	for _, l := range d.sample.Notable {
		t, kind, kv := splitTrace(l)
		label := ""
		switch kind {
		case "fault":
			if kv["window"] == "end" {
				continue
			}
			label = kv["fault"]
			if label == "" {
				label = kv["kind"] // result folders written before the key was renamed
			}
			if c := kv["client"]; c != "" {
				label += " " + consumerOf(c)
			} else if p := kv["p"]; p != "" {
				label += " " + p
			}
		case "crash":
			label = "crash " + consumerOf(kv["client"])
		default:
			continue
		}
		key := strconv.FormatInt(t, 10) + label
		if seen[key] {
			continue
		}
		seen[key] = true
		m.xs = append(m.xs, ta.x(t))
		m.labels = append(m.labels, label)
	}
	if len(m.xs) > 6 {
		m.labels = nil
	}
	return m
}

// --- redeliveries over time ---

var causeOrder = []struct {
	name  string
	label string
	color color.RGBA
	get   func(c sim.RedeliveryCauses) int64
}{
	{"lock_expiry", "lock expired (processing or buffered too long)", colOrange, func(c sim.RedeliveryCauses) int64 { return c.LockExpiry }},
	{"crash", "holder crashed (connection dropped)", colRed, func(c sim.RedeliveryCauses) int64 { return c.Crash }},
	{"release", "released (RELEASE or close)", colPurple, func(c sim.RedeliveryCauses) int64 { return c.Release }},
	{"failover", "leader failover (state reloaded)", colBlue, func(c sim.RedeliveryCauses) int64 { return c.Failover }},
	{"other", "other", colGrey, func(c sim.RedeliveryCauses) int64 { return c.Other }},
}

func redeliveriesFigure(d *runData) figure {
	ta := d.time()
	ch := d.timeChart("Redeliveries over time, by why the record was available again", "records redelivered per "+d.intervalText())
	ss := d.series
	total := int64(0)
	bases := make([]float64, len(ss))
	for _, c := range causeOrder {
		b := &bars{color: c.color}
		var sum int64
		for i := 1; i < len(ss); i++ {
			v := c.get(ss[i].RedeliveriesByCause) - c.get(ss[i-1].RedeliveriesByCause)
			if v <= 0 {
				continue
			}
			sum += v
			x0, x1 := ta.x(ss[i-1].TimeMs), ta.x(ss[i].TimeMs)
			b.xs = append(b.xs, (x0+x1)/2)
			b.base = append(b.base, bases[i])
			b.top = append(b.top, bases[i]+float64(v))
			bases[i] += float64(v)
			b.width = math.Max(b.width, (x1-x0)*0.85)
		}
		if sum > 0 {
			ch.add(fmt.Sprintf("%s: %d", c.label, sum), b)
			total += sum
		}
	}
	ch.p.Y.Min = 0
	if total == 0 {
		ch.p.Y.Max = 1
		ch.p.Add(newNote("no record was delivered more than once"))
	}
	return figure{Name: "redeliveries", Title: "Redeliveries over time, by cause",
		Caption: fmt.Sprintf("Records delivered again in each %s interval, stacked by why they were available again: their acquisition lock expired, "+
			"the consumer holding them crashed, they were released, or the leader's state was reloaded after a failover. %d in all. "+
			"Dashed red lines are faults and crashes; the shaded part is the healing phase (no production, no faults). "+
			"Counts every repeat delivery the simulator saw, so a delivery after a failover reload counts even when the delivery count did not rise.",
			d.intervalText(), total),
		W: figW, H: figH, Draw: ch.draw}
}

// --- delivery-count histogram ---

func deliveryCountFigure(d *runData) figure {
	m := d.sum.Metrics
	hist := m.DeliveryCountHist
	arch := m.DeliveryCountArchived
	ch := newChart("How many deliveries each record needed", "deliveries (the delivery count when the record finished)", "records (log scale)")
	last := 1
	var total, most int64
	for i, v := range hist {
		total += v
		most = max(most, v)
		if v > 0 {
			last = max(last, i)
		}
	}
	first := 1
	if len(hist) > 0 && hist[0] > 0 {
		first = 0
	}
	// Log y axis: bars hold log10 of the counts and start below 1 (at the axis).
	const floor = -0.25
	acc := &bars{width: 0.38, offset: -0.2, color: colBlue}
	arc := &bars{width: 0.38, offset: 0.2, color: colRed}
	logOf := func(v int64) float64 {
		if v <= 0 {
			return floor
		}
		return lg(float64(v))
	}
	labels := newTextAt(colBlack)
	var nArch int64
	for i := first; i <= last && i < len(hist); i++ {
		a := int64(0)
		if i < len(arch) {
			a = arch[i]
		}
		ok := hist[i] - a
		nArch += a
		x := float64(i)
		acc.xs, acc.base, acc.top = append(acc.xs, x), append(acc.base, floor), append(acc.top, logOf(ok))
		arc.xs, arc.base, arc.top = append(arc.xs, x), append(arc.base, floor), append(arc.top, logOf(a))
		if ok > 0 {
			labels.xs, labels.ys, labels.labels = append(labels.xs, x-0.2), append(labels.ys, logOf(ok)), append(labels.labels, strconv.FormatInt(ok, 10))
		}
		if a > 0 {
			labels.xs, labels.ys, labels.labels = append(labels.xs, x+0.2), append(labels.ys, logOf(a)), append(labels.labels, strconv.FormatInt(a, 10))
		}
	}
	ch.add("accepted", acc)
	ch.add("not accepted (archived: limit, rejected, retention, ...)", arc)
	ch.p.Add(labels)
	ch.p.Y.Tick.Marker = logTicks{}
	ch.p.Y.Min, ch.p.Y.Max = floor, lg(math.Max(10, float64(most)*4))
	ch.p.X.Min, ch.p.X.Max = float64(first)-0.6, float64(last)+0.6
	var ticks []plot.Tick
	for i := first; i <= last; i++ {
		l := strconv.Itoa(i)
		if i == len(hist)-1 {
			l += "+"
		}
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	ch.p.X.Tick.Marker = plot.ConstantTicks(ticks)
	vm := newVMarks(colBlack)
	for i, l := range d.sc.DeliveryLimits {
		if l.Limit > 0 && l.Limit <= last+1 {
			label := "delivery count limit " + strconv.Itoa(l.Limit)
			if i > 0 {
				label += " from " + sim.FormatMs(l.FromMs) // set by a config-change fault
			}
			vm.xs, vm.labels = append(vm.xs, float64(l.Limit)+0.5), append(vm.labels, label)
		}
	}
	if len(vm.xs) > 0 {
		ch.p.Add(vm)
	}
	if total == 0 {
		ch.p.Add(newNote("no record finished"))
	}
	var redelivered int64 // finished after more than one delivery
	for i := 2; i < len(hist); i++ {
		redelivered += hist[i]
	}
	return figure{Name: "delivery-count", Title: "Delivery-count histogram",
		Caption: fmt.Sprintf("How many times each finished record was delivered before it finished (%d records; %d needed more than one delivery; "+
			"%d finished without being accepted, in red). Log scale: one bar unit per power of ten.", total, redelivered, nArch),
		W: figW, H: figH, Draw: ch.draw}
}

// --- per-partition series ---

// partKey identifies a partition of a group in the series.
type partKey struct{ group, part string }

func (k partKey) String() string { return k.part + " (" + k.group + ")" }

// partitions lists the partitions of the series in order of appearance; share selects share
// groups only.
func (d *runData) partitions(shareOnly bool) []partKey {
	types := d.groupTypes()
	var out []partKey
	seen := map[partKey]bool{}
	for _, s := range d.series {
		for _, p := range s.Partitions {
			k := partKey{p.Group, p.Partition}
			if seen[k] || (shareOnly && types[p.Group] == "classic") {
				continue
			}
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

func (d *runData) groupTypes() map[string]string {
	out := map[string]string{}
	for _, g := range d.sum.Metrics.Groups {
		out[g.Name] = g.Type
	}
	return out
}

// groupNames lists the groups in configuration order (from the metrics, else the series).
func groupNames(d *runData) []string {
	var out []string
	for _, g := range d.sum.Metrics.Groups {
		out = append(out, g.Name)
	}
	if len(out) == 0 {
		seen := map[string]bool{}
		for _, s := range d.series {
			for _, c := range s.Consumers {
				if !seen[c.Group] {
					seen[c.Group] = true
					out = append(out, c.Group)
				}
			}
		}
	}
	return out
}

func (d *runData) groupLabel(g string) string {
	if t := d.groupTypes()[g]; t != "" {
		return g + " (" + t + " group)"
	}
	return g
}

// partSeries returns one partition's value over time.
func (d *runData) partSeries(k partKey, get func(p *sim.PartitionSample) float64) plotter.XYs {
	ta := d.time()
	var out plotter.XYs
	for _, s := range d.series {
		for i := range s.Partitions {
			p := &s.Partitions[i]
			if p.Group == k.group && p.Partition == k.part {
				out = append(out, plotter.XY{X: ta.x(s.TimeMs), Y: get(p)})
				break
			}
		}
	}
	return out
}

// spread adds, per group, the median over partitions (or consumers) and the min–max band, for
// plots with too many lines to draw one each.
func spread(ch *chart, xs []float64, perGroup map[string][][]float64, groups []string, what string, dashes ...float64) {
	for gi, g := range groups {
		vals := perGroup[g] // [time][member]
		if len(vals) == 0 {
			continue
		}
		lo, hi, med := make([]float64, len(xs)), make([]float64, len(xs)), make(plotter.XYs, len(xs))
		n := 0
		for i := range xs {
			v := append([]float64(nil), vals[i]...)
			sort.Float64s(v)
			n = max(n, len(v))
			if len(v) == 0 {
				continue
			}
			lo[i], hi[i] = v[0], v[len(v)-1]
			med[i] = plotter.XY{X: xs[i], Y: v[len(v)/2]}
		}
		c := pal(gi)
		ch.add(fmt.Sprintf("%s: min–max of %d %s", g, n, what), &band{xs: xs, lo: lo, hi: hi, color: fade(c, 60)})
		ch.add(g+": median", lineOf(med, c, 1.6, dashes...))
	}
}

func backlogFigure(d *runData) figure {
	ch := d.timeChart("Backlog and share lag per partition", "records")
	parts := d.partitions(false)
	types := d.groupTypes()
	if len(parts) <= maxLines {
		for i, k := range parts {
			c := pal(i)
			// Lag often equals the backlog: the backlog is a wide pale band and the lag a
			// thin dark dashed line on top, so that both stay visible where they coincide.
			ch.add(k.String()+" backlog", lineOf(d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.Backlog) }), fade(c, 110), 4.5))
			if types[k.group] != "classic" {
				lag := d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.Lag) })
				lag = dropNegative(lag)
				if len(lag) > 0 {
					ch.add(k.String()+" lag (KIP-1226)", lineOf(lag, darken(c, 0.7), 1.3, 5, 2.5))
				}
			}
		}
	} else {
		xs, per := d.perGroup(func(p *sim.PartitionSample) float64 { return float64(p.Backlog) })
		spread(ch, xs, per, groupNames(d), "partitions' backlog")
	}
	ch.p.Y.Min = 0
	if len(parts) == 0 {
		ch.p.Add(newNote("no partition samples in this folder"))
		ch.p.Y.Max = 1
	}
	return figure{Name: "backlog", Title: "Backlog and lag",
		Caption: "Backlog is the number of records of a partition not yet finished (log end offset minus start offset, minus records already " +
			"acknowledged or archived above it), taken from the leader's state (wide pale band). Share lag (dark dashes) is KIP-1226's figure from the persisted " +
			"state: log end offset − persisted start offset − persisted delivery-complete count. Classic groups: log end minus committed offset.",
		W: figW, H: figH, Draw: ch.draw}
}

func dropNegative(xys plotter.XYs) plotter.XYs {
	out := xys[:0:0]
	for _, p := range xys {
		if p.Y >= 0 {
			out = append(out, p)
		}
	}
	return out
}

// perGroup collects a per-partition value per group and sample time.
func (d *runData) perGroup(get func(p *sim.PartitionSample) float64) ([]float64, map[string][][]float64) {
	ta := d.time()
	xs := make([]float64, len(d.series))
	out := map[string][][]float64{}
	for i, s := range d.series {
		xs[i] = ta.x(s.TimeMs)
		for j := range s.Partitions {
			p := &s.Partitions[j]
			if out[p.Group] == nil {
				out[p.Group] = make([][]float64, len(d.series))
			}
			out[p.Group][i] = append(out[p.Group][i], get(p))
		}
	}
	return xs, out
}

func inFlightFigure(d *runData) figure {
	ch := d.timeChart("Records in flight per share-partition, against the cap", "records in the in-flight window")
	parts := d.partitions(true)
	if len(parts) <= maxLines {
		for i, k := range parts {
			ch.add(k.String(), lineOf(d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.InFlightMessageCount) }), pal(i), 1.6))
		}
	} else {
		xs, per := d.perGroup(func(p *sim.PartitionSample) float64 { return float64(p.InFlightMessageCount) })
		share := []string{}
		for _, g := range groupNames(d) {
			if d.groupTypes()[g] != "classic" {
				share = append(share, g)
			}
		}
		spread(ch, xs, per, share, "share-partitions")
	}
	capN := d.sum.Metrics.InFlightCap
	ch.p.Y.Min = 0
	peak := 0.0
	for _, s := range d.series {
		for j := range s.Partitions {
			peak = max(peak, float64(s.Partitions[j].InFlightMessageCount))
		}
	}
	if steps, lo := capSteps(d); len(steps) > 0 {
		// A config change moved the cap: draw the cap in force as a step line per group,
		// scaled to the data and the lowest cap (higher caps are clipped at the top).
		for i, st := range steps {
			ch.add(st.name, lineOf(st.xy, pal(len(parts)+i), 1.4, 6, 3))
		}
		ch.p.Y.Max = max(peak*1.25, float64(lo)*1.12, 1)
		capN = 0
	}
	switch {
	case capN > 0 && peak >= float64(capN)/4:
		h := newHLine(float64(capN), fmt.Sprintf("cap %d (group.share.partition.max.record.locks)", capN), colRed)
		ch.add("in-flight cap", h)
		ch.p.Y.Max = float64(capN) * 1.12
	case capN > 0:
		// Drawing the cap would squash the data into the bottom quarter: say where it is.
		ch.p.Y.Max = max(1, peak*1.25)
		n := newNote(fmt.Sprintf("cap %d (group.share.partition.max.record.locks) is off the scale: the peak, %.0f, is %.0f%% of it", capN, peak, 100*peak/float64(capN)))
		n.fy, n.style.Color, n.style.Font = 0.93, colRed, fontOf(9.5)
		ch.p.Add(n)
	}
	if len(parts) == 0 {
		ch.p.Add(newNote("no share-partition in this run"))
	}
	return figure{Name: "in-flight", Title: "In-flight records per share-partition",
		Caption: "InFlightMessageCount of each share-partition: records between the start offset (SPSO) and the end offset (SPEO) that the leader " +
			"tracks, acquired or waiting for redelivery. When it reaches the cap the leader acquires nothing more until the start offset moves.",
		W: figW, H: figH, Draw: ch.draw}
}

// capStep is one share group's record-lock cap in force over the run, as a step line.
type capStep struct {
	name string
	xy   plotter.XYs
}

// capSteps returns a step line per share group whose cap in force changes during the run
// (GroupMetrics.ConfigInForce) and the lowest cap in force over them; none when no cap moves.
func capSteps(d *runData) ([]capStep, int) {
	ta := d.time()
	var out []capStep
	lo := 0
	for _, g := range d.sum.Metrics.Groups {
		ph := g.ConfigInForce
		moved := false
		for _, p := range ph {
			moved = moved || p.PartitionMaxRecordLocks != ph[0].PartitionMaxRecordLocks
		}
		if !moved {
			continue
		}
		var xy plotter.XYs
		var caps []string
		for _, p := range ph {
			y := float64(p.PartitionMaxRecordLocks)
			xy = append(xy, plotter.XY{X: ta.x(p.FromMs), Y: y}, plotter.XY{X: ta.x(min(p.ToMs, d.shownEndMs())), Y: y})
			caps = append(caps, fmt.Sprintf("%d from %s", p.PartitionMaxRecordLocks, sim.FormatMs(p.FromMs)))
			if lo == 0 || p.PartitionMaxRecordLocks < lo {
				lo = p.PartitionMaxRecordLocks
			}
		}
		out = append(out, capStep{name: fmt.Sprintf("cap in force, %s (group.share.partition.max.record.locks: %s)", g.Name, strings.Join(caps, ", ")), xy: xy})
	}
	return out, lo
}

func offsetsFigure(d *runData) figure {
	parts := d.partitions(false)
	shown := parts
	if len(shown) > maxLines {
		// The first partitions of each group, as many of each as fit.
		groups := groupNames(d)
		per := max(1, maxLines/max(1, len(groups)))
		count := map[string]int{}
		shown = nil
		for _, k := range parts {
			if count[k.group] < per && len(shown) < maxLines {
				count[k.group]++
				shown = append(shown, k)
			}
		}
	}
	ta := d.time()
	types := d.groupTypes()
	var charts []*chart
	cols := 2
	if len(shown) == 1 {
		cols = 1
	}
	key := newChart("", "", "")
	startLabel := "start offset (SPSO; classic: committed)"
	lsStyle, spsoStyle, leoStyle := draw.LineStyle{Color: colGrey, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}},
		draw.LineStyle{Color: colBlue, Width: vg.Points(1.6)}, draw.LineStyle{Color: colBlack, Width: vg.Points(1.2)}
	key.key("log end offset", lineThumb(leoStyle))
	key.key(startLabel, lineThumb(spsoStyle))
	key.key("log start offset", lineThumb(lsStyle))
	key.key("backlog (start → end)", fillThumb{fade(colBlue, 45)})
	for _, k := range shown {
		title := k.part + " · " + k.group
		if types[k.group] == "classic" {
			title += " (classic)"
		}
		ch := newChart(title, ta.label(), "offset")
		ch.p.Title.TextStyle.Font = fontOf(11)
		xmax := ta.x(d.shownEndMs())
		ch.p.X.Min, ch.p.X.Max, ch.xMax = 0, xmax, &xmax
		leo := d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.LogEndOffset) })
		spso := d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.StartOffset) })
		ls := d.partSeries(k, func(p *sim.PartitionSample) float64 { return float64(p.LogStartOffset) })
		b := &band{color: fade(colBlue, 45)}
		for i := range leo {
			b.xs, b.lo, b.hi = append(b.xs, leo[i].X), append(b.lo, spso[i].Y), append(b.hi, leo[i].Y)
		}
		ch.p.Add(b, &plotter.Line{XYs: ls, LineStyle: lsStyle}, &plotter.Line{XYs: leo, LineStyle: leoStyle}, &plotter.Line{XYs: spso, LineStyle: spsoStyle})
		ch.p.Y.Min = 0
		charts = append(charts, ch)
	}
	rows := max(1, (len(charts)+cols-1)/cols)
	caption := "Per partition: the log end offset (where producers append), the share-partition start offset (SPSO: every record below it is finished) " +
		"and the log start offset (retention or DeleteRecords). The shaded gap between the start and the end offset is what the group still owes."
	if len(parts) > len(shown) {
		caption += fmt.Sprintf(" %d of the %d partitions are shown (the first of each group).", len(shown), len(parts))
	}
	return figure{Name: "offsets", Title: "Log start, start offset (SPSO) and log end per partition", Caption: caption,
		W: figW, H: vg.Length(rows)*2.3*vg.Inch + 0.3*vg.Inch,
		Draw: func(dc draw.Canvas) {
			if len(charts) == 0 {
				ch := newChart("", ta.label(), "offset")
				ch.p.Add(newNote("no partition samples in this folder"))
				ch.draw(dc)
				return
			}
			gridDraw(dc, charts, cols, key)
		}}
}

// --- record timeline ---

// pickRecords chooses the records the timeline shows: eventful ones first, spread over the
// different stories (which events they went through), then a few plain ones for contrast.
func pickRecords(rs []sim.RecordLife, n int) []sim.RecordLife {
	story := func(r *sim.RecordLife) string {
		kinds := map[string]bool{}
		acq := 0
		for _, e := range r.Events {
			switch e.Kind {
			case "acquired":
				acq++
			case "processed":
				if e.Detail != "ok" {
					kinds["processed-"+e.Detail] = true
				}
			case "ack":
				if !strings.HasPrefix(e.Detail, "ACCEPT") && e.Detail != "RENEW" {
					kinds["ack-"+e.Detail] = true
				}
			case "finished":
			default:
				kinds[e.Kind+"-"+e.Detail] = true
			}
		}
		if acq > 1 {
			kinds[fmt.Sprintf("acquired-%d", min(acq, 4))] = true
		}
		if r.Final != "accepted" {
			kinds["final-"+r.Final] = true
		}
		keys := make([]string, 0, len(kinds))
		for k := range kinds {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return strings.Join(keys, ",")
	}
	byStory := map[string][]sim.RecordLife{}
	var stories []string
	var plain []sim.RecordLife
	for _, r := range rs {
		s := story(&r)
		if s == "" {
			plain = append(plain, r)
			continue
		}
		if byStory[s] == nil {
			stories = append(stories, s)
		}
		byStory[s] = append(byStory[s], r)
	}
	sort.Strings(stories)
	byTime := func(list []sim.RecordLife) {
		sort.SliceStable(list, func(i, j int) bool { return firstTime(&list[i]) < firstTime(&list[j]) })
	}
	// Share the rows out over the stories round-robin, then take evenly spaced records of each
	// story so that the picks spread over the run.
	nPlain := min(len(plain), max(3, n/6))
	quota := map[string]int{}
	for left, progress := n-nPlain, true; left > 0 && progress; {
		progress = false
		for _, s := range stories {
			if left > 0 && quota[s] < len(byStory[s]) {
				quota[s]++
				left--
				progress = true
			}
		}
	}
	nPlain = min(len(plain), n-sumQuota(quota))
	evenly := func(list []sim.RecordLife, q int) []sim.RecordLife {
		byTime(list)
		out := make([]sim.RecordLife, 0, q)
		for j := 0; j < q; j++ {
			out = append(out, list[(2*j+1)*len(list)/(2*q)])
		}
		return out
	}
	var out []sim.RecordLife
	for _, s := range stories {
		out = append(out, evenly(byStory[s], quota[s])...)
	}
	out = append(out, evenly(plain, nPlain)...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := firstTime(&out[i]), firstTime(&out[j])
		if a != b {
			return a < b
		}
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

func sumQuota(q map[string]int) int {
	n := 0
	for _, v := range q {
		n += v
	}
	return n
}

func firstTime(r *sim.RecordLife) int64 {
	if len(r.Events) > 0 {
		return r.Events[0].TimeMs
	}
	return r.ProducedMs
}

// holdEnds reports whether an event ends the hold of the acquisition before it.
func holdEnds(e sim.RecordEvent) bool {
	switch e.Kind {
	case "lock-expired", "released", "reverted", "acquired", "finished":
		return true
	case "ack":
		return e.Detail == "ACCEPT" || e.Detail == "REJECT" || e.Detail == "RELEASE"
	}
	return false
}

var (
	glyphProcessed = draw.GlyphStyle{Color: colBlack, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
	glyphLate      = draw.GlyphStyle{Color: colOrange, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
	glyphFailed    = draw.GlyphStyle{Color: colRed, Radius: vg.Points(3), Shape: draw.RingGlyph{}}
	glyphExpired   = draw.GlyphStyle{Color: colOrange, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}
	glyphCrash     = draw.GlyphStyle{Color: colRed, Radius: vg.Points(3.5), Shape: draw.PyramidGlyph{}}
	glyphReleased  = draw.GlyphStyle{Color: colPurple, Radius: vg.Points(3.5), Shape: draw.PyramidGlyph{}}
	glyphReverted  = draw.GlyphStyle{Color: colBlue, Radius: vg.Points(3.2), Shape: draw.BoxGlyph{}}
	glyphAccepted  = draw.GlyphStyle{Color: colGreen, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	glyphArchived  = draw.GlyphStyle{Color: colBlack, Radius: vg.Points(3), Shape: draw.BoxGlyph{}}
	glyphAckLost   = draw.GlyphStyle{Color: colGrey, Radius: vg.Points(3), Shape: draw.PlusGlyph{}}
)

// holderPalette colours the consumers holding records in the timeline.
var holderPalette = []color.RGBA{colBlue, colGreen, colBrown, palette[6], palette[8], palette[9],
	{0x6b, 0x8e, 0xc9, 0xff}, {0x55, 0x55, 0x55, 0xff}}

// spans draws horizontal bars [x0, x1] at row y, half a row high.
type spans struct {
	x0, x1, y []float64
	colors    []color.Color
}

func (s *spans) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	h := (ty(1) - ty(0)) * 0.28
	for i := range s.x0 {
		X0, X1, Y := tx(s.x0[i]), tx(s.x1[i]), ty(s.y[i])
		if X1-X0 < vg.Points(1.5) {
			X1 = X0 + vg.Points(1.5) // a short hold still shows
		}
		pts := []vg.Point{{X: X0, Y: Y - h}, {X: X1, Y: Y - h}, {X: X1, Y: Y + h}, {X: X0, Y: Y + h}}
		c.FillPolygon(s.colors[i], c.ClipPolygonXY(pts))
	}
}

// segments draws horizontal line segments [x0, x1] at y.
type segments struct {
	x0, x1, y []float64
	style     draw.LineStyle
}

func (s *segments) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i := range s.x0 {
		c.StrokeLines(s.style, c.ClipLinesXY([]vg.Point{{X: tx(s.x0[i]), Y: ty(s.y[i])}, {X: tx(s.x1[i]), Y: ty(s.y[i])}})...)
	}
}

// msLogTicks label a log axis of milliseconds (log10 of 1 + ms) with durations.
type msLogTicks struct{}

func (msLogTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := 0.0; e <= math.Ceil(hi); e++ {
		v := math.Pow(10, e)
		for k := 1.0; k < 10; k++ {
			x := lg(1 + k*v)
			if x < lo-1e-9 || x > hi+1e-9 {
				continue
			}
			t := plot.Tick{Value: x}
			if k == 1 {
				t.Label = fmtMs(int64(v))
			}
			out = append(out, t)
		}
	}
	return out
}

func timelineFigure(d *runData) figure {
	ch := newChart("Life of sampled records: who held each one, and what ended each hold",
		"time since the record was produced (log scale)", "partition @ offset (produced at)")
	var rows []sim.RecordLife
	if d.sample != nil {
		rows = pickRecords(d.sample.Records, timelineRows)
	}
	// Consumers get colours in order of first appearance, from a palette without the
	// marker colours (orange, red, purple).
	colorOf := map[string]color.Color{}
	var consumers []string
	for _, r := range rows {
		for _, e := range r.Events {
			if e.Kind == "acquired" {
				if c := consumerOf(e.Member); colorOf[c] == nil {
					if len(consumers) < len(holderPalette) {
						colorOf[c] = fade(holderPalette[len(consumers)], 210)
						consumers = append(consumers, c)
					} else {
						colorOf[c] = fade(colLight, 200)
					}
				}
			}
		}
	}
	n := len(rows)
	sp := &spans{}
	wait := &segments{style: draw.LineStyle{Color: colGrey, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(1.5)}}}
	scat := map[string]*plotter.Scatter{}
	mark := func(name string, sty draw.GlyphStyle, x, y float64) {
		s := scat[name]
		if s == nil {
			s = &plotter.Scatter{GlyphStyle: sty}
			scat[name] = s
		}
		s.XYs = append(s.XYs, plotter.XY{X: x, Y: y})
	}
	finals := newTextAt(colBlack)
	finals.style.XAlign, finals.style.YAlign = draw.XLeft, draw.YCenter
	var ticks []plot.Tick
	xmax := 3.0 // at least 1 s
	for i, r := range rows {
		y := float64(n - 1 - i)
		// Time on a log axis of milliseconds since production: a record's life spans
		// milliseconds to minutes, and every row shares the same origin.
		rel := func(ms int64) float64 { return lg(1 + float64(max(0, ms-r.ProducedMs))) }
		ticks = append(ticks, plot.Tick{Value: y, Label: fmt.Sprintf("%s @%d (%s)", r.Partition, r.Offset, fmtClock(r.ProducedMs))})
		if len(r.Events) > 0 && r.ProducedMs < r.Events[0].TimeMs {
			wait.x0, wait.x1, wait.y = append(wait.x0, 0), append(wait.x1, rel(r.Events[0].TimeMs)), append(wait.y, y)
		}
		lastT := int64(0)
		availableSince := int64(-1) // available again after a hold ended, not yet redelivered
		acked := false
		for j, e := range r.Events {
			x := rel(e.TimeMs)
			xmax = math.Max(xmax, x)
			lastT = e.TimeMs
			switch e.Kind {
			case "lock-expired", "released", "reverted":
				availableSince = e.TimeMs
			case "ack":
				if e.Detail == "RELEASE" {
					availableSince = e.TimeMs
				}
			}
			switch e.Kind {
			case "acquired":
				if availableSince >= 0 {
					wait.x0, wait.x1, wait.y = append(wait.x0, rel(availableSince)), append(wait.x1, x), append(wait.y, y)
					availableSince = -1
				}
				end := d.sum.EndMs
				for _, f := range r.Events[j+1:] {
					if holdEnds(f) {
						end = f.TimeMs
						break
					}
				}
				sp.x0, sp.x1, sp.y = append(sp.x0, x), append(sp.x1, rel(end)), append(sp.y, y)
				sp.colors = append(sp.colors, colorOf[consumerOf(e.Member)])
			case "processed":
				switch e.Detail {
				case "ok":
					mark("processed", glyphProcessed, x, y+0.34)
				case "late":
					mark("late", glyphLate, x, y+0.34)
				default:
					mark("failed", glyphFailed, x, y+0.34)
				}
			// What ended a hold sits below the bar, processing above it, so that events of
			// the same moment stay apart.
			case "lock-expired":
				mark("expired", glyphExpired, x, y-0.34)
			case "released":
				if e.Detail == "crash" {
					mark("crash", glyphCrash, x, y-0.34)
				} else {
					mark("released", glyphReleased, x, y-0.34)
				}
			case "ack":
				switch {
				case e.Detail == "RELEASE":
					mark("released", glyphReleased, x, y-0.34)
				case e.Detail == "ACCEPT":
					mark("accepted", glyphAccepted, x, y)
					acked = true
				case strings.Contains(e.Detail, " "): // type and error code
					mark("acklost", glyphAckLost, x, y-0.34)
				}
			case "ack-lost":
				mark("acklost", glyphAckLost, x, y-0.34)
			case "reverted":
				mark("reverted", glyphReverted, x, y-0.34)
			case "finished":
				switch {
				case e.Detail != "accepted":
					mark("archived", glyphArchived, x, y)
				case !acked:
					mark("accepted", glyphAccepted, x, y) // accepted without an ACCEPT this sample saw
				}
			}
		}
		if r.Final != "accepted" {
			label := r.Final
			if label == "" {
				label = "unfinished"
			}
			finals.xs, finals.ys, finals.labels = append(finals.xs, rel(lastT)), append(finals.ys, y), append(finals.labels, "  "+label)
		}
	}
	ch.p.Add(wait, sp)
	for _, c := range consumers {
		ch.key("held by "+c, fillThumb{colorOf[c]})
	}
	if len(colorOf) > len(consumers) {
		ch.key("held by another consumer", fillThumb{fade(colLight, 200)})
	}
	ch.key("waiting: in the log, or available for redelivery", lineThumb(wait.style))
	legend := []struct{ key, label string }{
		{"processed", "processed"}, {"late", "processed after its lock expired"}, {"failed", "processing failed"},
		{"expired", "lock expired"}, {"crash", "released: holder crashed"}, {"released", "released (RELEASE, close)"},
		{"reverted", "reverted: leader failover"}, {"acklost", "acknowledgement failed or lost"},
		{"accepted", "acknowledged: ACCEPT"}, {"archived", "finished: archived or rejected"},
	}
	for _, l := range legend {
		if s := scat[l.key]; s != nil {
			ch.p.Add(s)
			ch.key(l.label, glyphThumb(s.GlyphStyle))
		}
	}
	ch.p.Add(finals)
	ch.p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	ch.p.Y.Min, ch.p.Y.Max = -0.7, float64(max(n, 1))-0.3
	ch.p.X.Tick.Marker = msLogTicks{}
	ch.p.X.Min, ch.p.X.Max = 0, xmax+0.3
	if n == 0 {
		ch.p.Add(newNote("no sampled records (records.json is missing or empty)"))
	}
	return figure{Name: "timeline", Title: "Record-state timeline",
		Caption: fmt.Sprintf("%d sampled records, eventful ones first (redelivered, expired, released, reverted, not accepted), a few plain ones for contrast. "+
			"Each bar is one acquisition, coloured by the consumer that held the record, ending when the lock expired, the record was released "+
			"or acknowledged. Processing is marked above a bar, what ended a hold (lock expiry, release, failover) below it, and how the record "+
			"finished on it. Time runs from each record's production on a log scale, so that milliseconds and minutes both show; "+
			"the dashed grey line is time spent waiting: in the log before the first delivery, or available again before a redelivery.", n),
		W: figW, H: vg.Length(max(n, 4))*0.22*vg.Inch + 1.3*vg.Inch, Draw: ch.draw}
}

// --- throughput per consumer ---

// consumerRates returns each consumer's processing rate (records/s) per interval: the x
// values (interval ends) and, per consumer (in order of appearance), its group and rates.
func (d *runData) consumerRates() ([]float64, []string, []string, [][]float64) {
	ta := d.time()
	var names, groups []string
	idx := map[string]int{}
	for _, s := range d.series {
		for _, c := range s.Consumers {
			k := c.Group + "/" + c.Name
			if _, ok := idx[k]; !ok {
				idx[k] = len(names)
				names, groups = append(names, c.Name), append(groups, c.Group)
			}
		}
	}
	var xs []float64
	rates := make([][]float64, len(names))
	for i := 1; i < len(d.series); i++ {
		a, b := &d.series[i-1], &d.series[i]
		dt := float64(b.TimeMs-a.TimeMs) / 1000
		if dt <= 0 {
			continue
		}
		xs = append(xs, ta.x(b.TimeMs))
		prev := map[string]int64{}
		for _, c := range a.Consumers {
			prev[c.Group+"/"+c.Name] = c.Processed
		}
		row := make([]float64, len(names))
		for _, c := range b.Consumers {
			k := c.Group + "/" + c.Name
			row[idx[k]] = float64(c.Processed-prev[k]) / dt
		}
		for j := range names {
			rates[j] = append(rates[j], row[j])
		}
	}
	return xs, names, groups, rates
}

func throughputFigure(d *runData) figure {
	ch := d.timeChart("Throughput per consumer", "records processed per second")
	xs, names, groups, rates := d.consumerRates()
	multi := len(groupNames(d)) > 1
	if len(names) <= 12 {
		for i, n := range names {
			label := n
			if multi {
				label += " (" + groups[i] + ")"
			}
			var dashes []float64
			if d.groupTypes()[groups[i]] == "classic" {
				dashes = []float64{5, 2}
			}
			xys := make(plotter.XYs, len(xs))
			for k := range xs {
				xys[k] = plotter.XY{X: xs[k], Y: rates[i][k]}
			}
			ch.add(label, lineOf(xys, pal(i), 1.4, dashes...))
		}
	} else {
		per := map[string][][]float64{}
		for i := range names {
			g := groups[i]
			if per[g] == nil {
				per[g] = make([][]float64, len(xs))
			}
			for k := range xs {
				per[g][k] = append(per[g][k], rates[i][k])
			}
		}
		spread(ch, xs, per, groupNames(d), "consumers")
	}
	ch.p.Y.Min = 0
	if len(names) == 0 {
		ch.p.Add(newNote("no consumer samples in this folder"))
		ch.p.Y.Max = 1
	}
	return figure{Name: "throughput", Title: "Throughput per consumer",
		Caption: fmt.Sprintf("Records each consumer finished processing per second, averaged over each %s interval (successful or not). "+
			"A consumer at zero is idle, dead or stuck behind a slow record. With more than 12 consumers the plot shows the median and "+
			"the spread per group.", d.intervalText()),
		W: figW, H: figH, Draw: ch.draw}
}

// --- latency and reordering ---

// ccdf turns latency buckets into the share of records slower than x, on log axes (x: log10
// of seconds, y: log10 of percent).
func ccdf(bs []sim.HistBucket) plotter.XYs {
	var n int64
	for _, b := range bs {
		n += b.Count
	}
	var out plotter.XYs
	cum := int64(0)
	for i, b := range bs {
		if i == 0 {
			out = append(out, plotter.XY{X: lg(math.Max(float64(b.LowMs), 0.5) / 1000), Y: 2})
		}
		cum += b.Count
		if rest := n - cum; rest > 0 {
			out = append(out, plotter.XY{X: lg(float64(b.HighMs+1) / 1000), Y: lg(100 * float64(rest) / float64(n))})
		}
	}
	return out
}

func latencyCharts(d *runData) (*chart, *chart, *chart) {
	key := newChart("", "", "")
	lat := newChart("Produce-to-completion latency", "latency (s, log scale)", "records slower than that (%, log)")
	reo := newChart("Reorder distance among same-key records", "distance (offsets, log scale)", "records processed out of order")
	lat.p.X.Tick.Marker, lat.p.Y.Tick.Marker, reo.p.X.Tick.Marker = logTicks{}, logTicks{}, logTicks{}
	groups := d.sum.Metrics.Groups
	if len(groups) == 0 {
		// Summaries without per-group figures: the run's overall latency.
		groups = []sim.GroupMetrics{{Name: "all groups", E2EBuckets: d.sum.Metrics.E2EBuckets, E2EP50Ms: d.sum.Metrics.E2EP50Ms,
			E2EP99Ms: d.sum.Metrics.E2EP99Ms, E2EMaxMs: d.sum.Metrics.E2EMaxMs}}
	}
	minY, anyLat, anyReo := 2.0, false, false
	for gi, g := range groups {
		c := pal(gi)
		style := draw.LineStyle{Color: c, Width: vg.Points(1.8)}
		if g.Type == "classic" {
			style.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		label := g.Name
		if g.Type != "" {
			label += " (" + g.Type + ")"
		}
		if pts := ccdf(g.E2EBuckets); len(pts) > 0 {
			anyLat = true
			lat.p.Add(&plotter.Line{XYs: pts, LineStyle: style, StepStyle: plotter.PreStep})
			for _, p := range pts {
				minY = math.Min(minY, p.Y)
			}
			qs := plotter.XYs{{X: lg(math.Max(float64(g.E2EP50Ms), 0.5) / 1000), Y: lg(50)}, {X: lg(math.Max(float64(g.E2EP99Ms), 0.5) / 1000), Y: 0}}
			lat.p.Add(pointsOf(qs, c, 3, draw.CircleGlyph{}))
			label += fmt.Sprintf(": p50 %s, p99 %s, max %s", fmtMs(g.E2EP50Ms), fmtMs(g.E2EP99Ms), fmtMs(g.E2EMaxMs))
		}
		key.key(label, lineThumb(style))
		if len(g.ReorderBuckets) > 0 {
			anyReo = true
			bs := halfOctaves(g.ReorderBuckets)
			top := make([]float64, len(bs))
			for i, bk := range bs {
				top[i] = float64(bk.Count)
			}
			reo.p.Add(&logBars{lo: lows(bs), hi: highs(bs), top: top, color: fade(c, 110), outline: c})
		}
	}
	if anyLat {
		lat.p.Y.Min, lat.p.Y.Max = math.Max(math.Min(minY, 0)-0.3, -4), 2
		lat.p.Add(newHLine(lg(50), "p50", colGrey), newHLine(0, "p99", colGrey))
	} else {
		lat.p.X.Min, lat.p.X.Max, lat.p.Y.Min, lat.p.Y.Max = -3, 0, -2, 2
		lat.p.Add(newNote("no record was accepted"))
	}
	if !anyReo {
		reo.p.X.Min, reo.p.X.Max, reo.p.Y.Min, reo.p.Y.Max = 0, 2, 0, 1
		msg := "no keyed records: reordering not measured"
		if d.sum.Metrics.Totals.KeyedProcessed > 0 {
			msg = fmt.Sprintf("no same-key record out of order (%d keyed records)", d.sum.Metrics.Totals.KeyedProcessed)
		}
		reo.p.Add(newNote(msg))
	} else {
		reo.p.Y.Min = 0
	}
	return lat, reo, key
}

func latencyFigure(d *runData) figure {
	lat, reo, key := latencyCharts(d)
	m := d.sum.Metrics
	caption := fmt.Sprintf("Left: the share of completed records (share groups: ACCEPT written at the leader; classic groups: committed) produced in the measurement window whose produce-to-completion latency exceeded each value (log–log, so the tail shows); "+
		"dots mark p50 and p99. Right: for records processed after a later record of the same key, how many offsets earlier they were "+
		"(%d of %d keyed records out of order; worst %d offsets, %s).", m.Totals.Reordered, m.Totals.KeyedProcessed, m.ReorderMaxOffsets, fmtMs(m.ReorderMaxMs))
	return figure{Name: "latency", Title: "End-to-end latency and reorder distance", Caption: caption,
		W: figW, H: figH + 0.4*vg.Inch, Draw: func(dc draw.Canvas) {
			gridDraw(dc, []*chart{lat, reo}, 2, key)
		}}
}

// halfOctaves merges histogram buckets into half-octave bins (1, 1.4, 2, 2.8, 4, ...), wide
// enough to read on a log axis.
func halfOctaves(bs []sim.HistBucket) []sim.HistBucket {
	var out []sim.HistBucket
	last := math.Inf(-1)
	for _, b := range bs {
		k := math.Floor(2 * math.Log2(math.Max(float64(b.LowMs), 1)))
		if len(out) > 0 && k == last {
			o := &out[len(out)-1]
			o.HighMs, o.Count = max(o.HighMs, b.HighMs), o.Count+b.Count
			continue
		}
		out = append(out, b)
		last = k
	}
	return out
}

func lows(bs []sim.HistBucket) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = lg(math.Max(float64(b.LowMs), 1))
	}
	return out
}

func highs(bs []sim.HistBucket) []float64 {
	out := make([]float64, len(bs))
	for i, b := range bs {
		out[i] = lg(float64(b.HighMs + 1))
	}
	return out
}

// logBars draws histogram bars between explicit x bounds (buckets on a log axis).
type logBars struct {
	lo, hi, top    []float64
	color, outline color.Color
}

func (b *logBars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for i := range b.lo {
		x0, x1, y0, y1 := tx(b.lo[i]), tx(b.hi[i]), ty(math.Max(p.Y.Min, 0)), ty(b.top[i])
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
		c.StrokeLines(draw.LineStyle{Color: b.outline, Width: vg.Points(0.6)}, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

func (b *logBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), 0, 1
	for i := range b.lo {
		xmin, xmax, ymax = math.Min(xmin, b.lo[i]), math.Max(xmax, b.hi[i]), math.Max(ymax, b.top[i]*1.1)
	}
	return
}

// --- share versus classic ---

func groupsFigure(d *runData) figure {
	ta := d.time()
	groups := groupNames(d)
	types := d.groupTypes()
	key := newChart("", "", "")
	tp := d.timeChart("Throughput per group", "records processed per second")
	bl := d.timeChart("Backlog per group (all partitions)", "records")
	xs, names, cgroups, rates := d.consumerRates()
	for gi, g := range groups {
		style := draw.LineStyle{Color: pal(gi), Width: vg.Points(1.8)}
		if types[g] == "classic" {
			style.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
		}
		key.key(d.groupLabel(g), lineThumb(style))
		xys := make(plotter.XYs, len(xs))
		for k := range xs {
			xys[k].X = xs[k]
			for i := range names {
				if cgroups[i] == g {
					xys[k].Y += rates[i][k]
				}
			}
		}
		tp.p.Add(&plotter.Line{XYs: xys, LineStyle: style})
		var bxy plotter.XYs
		for _, s := range d.series {
			sum := 0.0
			for _, p := range s.Partitions {
				if p.Group == g {
					sum += float64(p.Backlog)
				}
			}
			bxy = append(bxy, plotter.XY{X: ta.x(s.TimeMs), Y: sum})
		}
		bl.p.Add(&plotter.Line{XYs: bxy, LineStyle: style})
	}
	for _, c := range []*chart{tp, bl} {
		c.p.Y.Min = 0
		c.items = nil
	}
	lat, reo, _ := latencyCharts(d)
	for _, c := range []*chart{tp, bl, lat, reo} {
		c.p.Title.TextStyle.Font = fontOf(11)
	}
	return figure{Name: "groups", Title: "Groups compared on the same axes",
		Caption: "Each group of the run on the same axes (a share group and a classic consumer group reading the same topic, for example): " +
			"records processed per second, records not yet finished summed over the group's partitions, the produce-to-completion latency " +
			"distribution (share groups: ACCEPT written; classic groups: offset committed) and the reorder distance of same-key records. " +
			"Dashed lines are classic groups.",
		W: figW, H: 2 * figH, Draw: func(dc draw.Canvas) {
			gridDraw(dc, []*chart{tp, bl, lat, reo}, 2, key)
		}}
}
