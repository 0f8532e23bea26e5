package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/sim"
)

// index.html: one self-contained page per run or sweep. Styles are inline, plots are inline
// SVG (the .svg and .png files next to the page are linked, not loaded), and nothing comes
// from the network, so the page opens anywhere and can be attached to a ticket.

// pageFigure is a figure as the page shows it.
type pageFigure struct {
	ID, Title, Caption string
	SVG                template.HTML
	SVGFile, PNGFile   string
}

// number is one headline figure.
type number struct {
	Label, Value, Detail string
	Warn                 bool
}

type fileLink struct{ Name, Note string }

type pageData struct {
	Kind        string // "run" or "sweep"
	Name, Title string
	Description string
	Questions   string
	Verdict     string
	Meta        []string
	Glance      []string // sentences that answer the scenario's question at a glance
	Numbers     []number
	Groups      []groupNumbers // a run's headline numbers, per group
	Compare     *aggTable      // groups side by side (two or more groups)
	Kafka       *aggTable      // the share groups' metrics under Kafka's names
	Violations  []violationCard
	ChecksNote  string
	Linear      bool
	Command     string
	Overrides   []string
	Figures     []pageFigure
	YAML        string
	YAMLNote    string
	Files       []fileLink
	Grid        []Axis
	Seeds       string
	Aggregate   *aggTable
	Footer      string
}

type aggTable struct {
	Header []string
	Rows   [][]string
}

// inlineSVG strips the XML prolog so that the SVG can sit inside HTML, and labels it.
func inlineSVG(b []byte, label string) template.HTML {
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.Replace(s, "<svg", `<svg role="img" aria-label="`+template.HTMLEscapeString(label)+`"`, 1)
	return template.HTML(s)
}

func pageFigures(figs []figure, svgs map[string][]byte) []pageFigure {
	out := make([]pageFigure, 0, len(figs))
	for _, f := range figs {
		out = append(out, pageFigure{ID: "fig-" + f.Name, Title: f.Title, Caption: f.Caption, SVG: inlineSVG(svgs[f.Name], f.Title),
			SVGFile: f.Name + ".svg", PNGFile: f.Name + ".png"})
	}
	return out
}

var fileNotes = map[string]string{
	"summary.json":        "verdict, violations, headline numbers, every metric",
	"metrics.csv":         "time series, one row per sample and partition",
	"groups.csv":          "time series, one row per sample and group (running totals)",
	"series.json":         "the full time series (partitions, consumers, redeliveries by cause)",
	"records.json":        "sampled record lives and notable trace lines",
	"events.ndjson":       "the event trace, one JSON object per line",
	"scenario.yaml":       "the scenario as run, every override applied",
	"sweep.json":          "the sweep table: grid, one row per run",
	"sweep.csv":           "one row per run",
	"sweep-aggregate.csv": "one row per grid point: mean, min, max, standard deviation over seeds",
	LinearizabilityFile:   "porcupine's visualisation of the linearizability check",
}

func fileLinks(files []string) []fileLink {
	var out []fileLink
	for _, f := range files {
		if strings.HasSuffix(f, ".svg") || strings.HasSuffix(f, ".png") || f == "index.html" {
			continue // the plots are on the page, each with its links
		}
		out = append(out, fileLink{Name: f, Note: fileNotes[f]})
	}
	return out
}

func questionsText(qs []int) string {
	if len(qs) == 0 {
		return ""
	}
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = strconv.Itoa(q)
	}
	return strings.Join(parts, ", ")
}

func causeText(m map[string]int64, names map[string]string) string {
	keys := SortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		if m[k] > 0 {
			n := k
			if names[k] != "" {
				n = names[k]
			}
			parts = append(parts, fmt.Sprintf("%d %s", m[k], n))
		}
	}
	return strings.Join(parts, ", ")
}

var redeliveryCauseNames = map[string]string{
	"lock_expiry": "after their lock expired", "crash": "after their consumer crashed", "release": "after they were released",
	"failover": "after a leader failover", "other": "for other reasons",
}

var duplicateCauseNames = map[string]string{
	"lock_expiry": "lock expiry", "crash": "crash", "close": "close", "failover": "failover", "lost_ack": "lost acknowledgement", "other": "other",
}

// violationCard is one check's violations on the page: how many, when (virtual times
// formatted, first to last), and up to maxCardLines distinct messages, each with its time.
type violationCard struct {
	Check     string
	Count     int
	When      string
	Lines     []string
	More      int
	Reproduce string
}

const maxCardLines = 4

// violationPrefix is the "CHECK at N ms (event E) on " head of a checker message, which the
// card says once, with the time formatted.
var violationPrefix = regexp.MustCompile(`^\S+ at -?\d+ ms(?: \(event \d+\))?(?: on )?`)

// groupViolations folds the violations into one card per check, in order of first
// appearance; messages repeated word for word (but for the time) are shown once.
func groupViolations(vs []Violation) []violationCard {
	var cards []violationCard
	index := map[string]int{}
	first, last := map[string]int64{}, map[string]int64{}
	seen := map[string]map[string]bool{}
	for _, v := range vs {
		i, ok := index[v.Check]
		if !ok {
			i = len(cards)
			index[v.Check] = i
			cards = append(cards, violationCard{Check: v.Check, Reproduce: v.Reproduce})
			first[v.Check], seen[v.Check] = v.TimeMs, map[string]bool{}
		}
		c := &cards[i]
		c.Count++
		last[v.Check] = v.TimeMs
		if seen[v.Check][v.Message] {
			continue
		}
		seen[v.Check][v.Message] = true
		if len(c.Lines) < maxCardLines {
			line := violationPrefix.ReplaceAllString(v.Message, "")
			if v.TimeMs > 0 {
				line = "at " + fmtMs(v.TimeMs) + ": " + line
			}
			c.Lines = append(c.Lines, line)
		} else {
			c.More++
		}
	}
	for i := range cards {
		c := &cards[i]
		switch f, l := first[c.Check], last[c.Check]; {
		case c.Count > 1 && f != l:
			c.When = "from " + fmtMs(f) + " to " + fmtMs(l)
		case f > 0:
			c.When = "at " + fmtMs(f)
		}
	}
	return cards
}

func runPage(d *runData, figs []figure, svgs map[string][]byte) ([]byte, error) {
	s := d.sum
	m := s.Metrics
	pd := pageData{Kind: "run", Name: s.Scenario, Title: orDefault(TitleWithOverrides(d.sc.Title, s.Overrides), s.Title), Description: d.sc.Description,
		Questions: questionsText(d.sc.Questions), Verdict: strings.ToUpper(s.Verdict), Violations: groupViolations(s.Violations),
		Linear: hasFile(d.files, LinearizabilityFile), Command: s.Command, Overrides: s.Overrides,
		Figures: pageFigures(figs, svgs), YAML: d.sc.YAML, YAMLNote: d.sc.Problem, Files: fileLinks(d.files)}
	pd.Meta = []string{"seed " + strconv.FormatUint(s.Seed, 10), "Kafka " + s.Kafka, fmtMs(s.EndMs) + " of virtual time",
		strconv.FormatInt(s.Events, 10) + " events", "sharesim " + s.Sharesim}
	if len(s.Violations) == 0 {
		pd.ChecksNote = "Every check of the scenario passed."
	}
	pd.Footer = "trace sha256 " + s.TraceSHA256

	// At a glance, per group: did it keep up, how many records came back and why, and what
	// that did to the backlog. Every number is copied from sim.GroupMetrics (docs/metrics.md).
	groups := m.Groups
	for i := range groups {
		g := &groups[i]
		pd.Glance = append(pd.Glance, groupGlance(g, len(groups) > 1)...)
		pd.Groups = append(pd.Groups, groupCards(g))
	}
	if peak, at, where, end := d.peakBacklog(); peak >= 0 {
		pd.Glance = append(pd.Glance, fmt.Sprintf("The backlog of all partitions together peaked at %d unfinished records (at %s, largest on %s) and was %d at the end.", peak, fmtMs(at), where, end))
	}
	if len(groups) > 1 {
		pd.Compare = compareTable(groups)
	}
	pd.Kafka = kafkaTable(groups)
	return executePage(pd)
}

// groupNumbers are one group's headline cards.
type groupNumbers struct {
	Name, Type, Window string
	Numbers            []number
}

// groupGlance is one group's at-a-glance sentences.
func groupGlance(g *sim.GroupMetrics, named bool) []string {
	who := "The group"
	if named {
		who = fmt.Sprintf("Group %s (%s)", g.Name, g.Type)
	}
	win := fmt.Sprintf("%s–%s", fmtMs(g.Window.StartMs), fmtMs(g.Window.EndMs))
	var out []string
	k, r := g.KeepUp, g.Rates
	if k.KeptUp {
		out = append(out, fmt.Sprintf("%s kept up over %s: %.1f records/s arrived and %.1f/s completed.", who, win, r.ArrivalPerSec, r.CompletedPerSec))
	} else {
		out = append(out, fmt.Sprintf("%s did not keep up over %s: %s. What would help: %s.", who, win, k.Reason, orDefault(k.Advice, "see the limits below")))
	}
	rc := g.RedeliveriesByCause
	redel := rc.LockExpiry + rc.Crash + rc.Release + rc.Failover + rc.Other
	byCause := map[string]int64{"lock_expiry": rc.LockExpiry, "crash": rc.Crash, "release": rc.Release, "failover": rc.Failover, "other": rc.Other}
	t := g.Totals
	if redel == 0 && t.Redeliveries == 0 {
		out = append(out, fmt.Sprintf("No record was delivered twice: every one of the %d deliveries was a first delivery.", t.Deliveries))
	} else {
		out = append(out, fmt.Sprintf("%d record deliveries were redeliveries: %s.", max(redel, t.Redeliveries), causeText(byCause, redeliveryCauseNames)))
	}
	if t.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%d records were processed successfully more than once, %d duplicate processings in all: %.1f per hour over %s — by cause: %s.",
			t.DuplicatedRecords, t.Duplicates, r.DuplicatesPerHour, win, causeText(t.DuplicatesByCause, duplicateCauseNames)))
	} else {
		out = append(out, "No record was processed successfully twice.")
	}
	if n := t.Finished["limit"]; n > 0 {
		out = append(out, fmt.Sprintf("%d records were archived at the delivery count limit without ever being accepted.", n))
	}
	return out
}

// latencyCard prints a latency's p99 with its p50 and count, or n/a.
func latencyCard(label string, l sim.Latency) number {
	if l.Count == 0 || l.P50Ms == nil {
		return number{Label: label, Value: "n/a", Detail: "no record got there"}
	}
	return number{Label: label, Value: "p99 " + fmtMs(*l.P99Ms), Detail: fmt.Sprintf("p50 %s, max %s, %d records", fmtMs(*l.P50Ms), fmtMs(*l.MaxMs), l.Count)}
}

// groupCards are one group's headline numbers.
func groupCards(g *sim.GroupMetrics) groupNumbers {
	t, r, a, k := g.Totals, g.Rates, g.Accounting, g.KeepUp
	done := "completed (ACCEPT written)"
	if g.Type == "classic" {
		done = "completed (offset committed)"
	}
	keep := number{Label: "kept up", Value: "yes", Detail: fmt.Sprintf("backlog %d → %d over the window", k.BacklogStart, k.BacklogEnd)}
	if !k.KeptUp {
		keep = number{Label: "kept up", Value: "no", Detail: k.Reason, Warn: true}
	}
	lockNote := ""
	if t.AcquisitionLockTimeouts > 0 {
		lockNote = fmt.Sprintf("%.1f per hour; %d processed after their lock expired", r.LockTimeoutsPerHour, t.ProcessedAfterLockExpiry)
	}
	nums := []number{
		keep,
		{Label: "arrived", Value: fmt.Sprintf("%.1f/s", r.ArrivalPerSec), Detail: fmt.Sprintf("%d records produced over the run", t.Produced)},
		{Label: done, Value: fmt.Sprintf("%.1f/s", r.CompletedPerSec), Detail: fmt.Sprintf("%d records over the run", t.Completed)},
		{Label: "duplicates", Value: fmt.Sprintf("%.1f per hour", r.DuplicatesPerHour), Detail: joinNonEmpty("; ", fmt.Sprintf("%d over the run, %.2f%% of successful processings in the window", t.Duplicates, 100*r.DuplicateFraction), causeText(t.DuplicatesByCause, nil)), Warn: t.Duplicates > 0},
		{Label: "deliveries per record", Value: fmt.Sprintf("%.3f", g.DeliveriesPerRecord), Detail: fmt.Sprintf("%d deliveries, %d redeliveries", t.Deliveries, t.Redeliveries)},
		{Label: "lock timeouts", Value: strconv.FormatInt(t.AcquisitionLockTimeouts, 10), Detail: lockNote, Warn: t.AcquisitionLockTimeouts > 0},
		latencyCard("produce → first delivery", g.Latency.FirstDelivery),
		latencyCard("produce → processed", g.Latency.Processed),
		latencyCard("produce → "+done, g.Latency.Completed),
		{Label: "archived at the limit", Value: strconv.FormatInt(t.Finished["limit"], 10), Warn: t.Finished["limit"] > 0},
		{Label: "deleted before delivery", Value: strconv.FormatInt(a.DeletedUndelivered, 10), Detail: fmt.Sprintf("%d before the group first read; %d archived by retention", a.DeletedBeforeFirstLoad, t.Finished["log-start"]), Warn: a.DeletedUndelivered+t.Finished["log-start"] > 0},
		{Label: "unfinished at the end", Value: strconv.FormatInt(a.UnfinishedTotal, 10), Detail: causeText(a.Unfinished, nil), Warn: a.UnfinishedTotal > 0},
		{Label: "consumers with work", Value: fmt.Sprintf("%d of %d", k.ConsumersWithWork, k.Consumers), Detail: fmt.Sprintf("%.0f%% busy on average; the busiest 10%% did %.0f%% of the work", 100*k.MeanBusy, 100*k.Top10Share)},
		{Label: "same-key reordering", Value: fmt.Sprintf("%.2f%%", 100*g.ReorderedFraction), Detail: fmt.Sprintf("%d of %d keyed records", t.Reordered, t.KeyedProcessed)},
	}
	if g.Type == "share" {
		nums = append(nums, number{Label: "start offset stood still", Value: fmtMs(g.SPSOStuckMaxMs), Detail: "longest, with records in flight after it"})
	}
	return groupNumbers{Name: g.Name, Type: g.Type, Window: fmtMs(g.Window.StartMs) + "–" + fmtMs(g.Window.EndMs), Numbers: nums}
}

// compareTable puts the groups' main figures side by side, with one definition for all.
func compareTable(gs []sim.GroupMetrics) *aggTable {
	t := &aggTable{Header: []string{"figure"}}
	for _, g := range gs {
		t.Header = append(t.Header, g.Name+" ("+g.Type+")")
	}
	row := func(name string, f func(g *sim.GroupMetrics) string) {
		r := []string{name}
		for i := range gs {
			r = append(r, f(&gs[i]))
		}
		t.Rows = append(t.Rows, r)
	}
	lat := func(l sim.Latency, q func(l sim.Latency) *int64) string {
		if v := q(l); v != nil {
			return fmtMs(*v)
		}
		return "n/a"
	}
	p50 := func(l sim.Latency) *int64 { return l.P50Ms }
	p99 := func(l sim.Latency) *int64 { return l.P99Ms }
	row("kept up", func(g *sim.GroupMetrics) string { return yesNo(g.KeepUp.KeptUp) })
	row("arrived, records/s", func(g *sim.GroupMetrics) string { return fmt.Sprintf("%.1f", g.Rates.ArrivalPerSec) })
	row("completed, records/s", func(g *sim.GroupMetrics) string { return fmt.Sprintf("%.1f", g.Rates.CompletedPerSec) })
	row("duplicates per hour", func(g *sim.GroupMetrics) string { return fmt.Sprintf("%.1f", g.Rates.DuplicatesPerHour) })
	row("produce → first delivery p50", func(g *sim.GroupMetrics) string { return lat(g.Latency.FirstDelivery, p50) })
	row("produce → processed p50", func(g *sim.GroupMetrics) string { return lat(g.Latency.Processed, p50) })
	row("produce → completed p50", func(g *sim.GroupMetrics) string { return lat(g.Latency.Completed, p50) })
	row("produce → completed p99", func(g *sim.GroupMetrics) string { return lat(g.Latency.Completed, p99) })
	row("consumers with work", func(g *sim.GroupMetrics) string {
		return fmt.Sprintf("%d of %d", g.KeepUp.ConsumersWithWork, g.KeepUp.Consumers)
	})
	row("same-key reordering", func(g *sim.GroupMetrics) string { return fmt.Sprintf("%.2f%%", 100*g.ReorderedFraction) })
	return t
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

func sumMap(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// peakBacklog finds the largest per-partition backlog and the total backlog at the end.
func (d *runData) peakBacklog() (peak, atMs int64, where string, end int64) {
	peak = -1
	for _, s := range d.series {
		var total, most int64
		var mostAt string
		for _, p := range s.Partitions {
			total += p.Backlog
			if p.Backlog > most || mostAt == "" {
				most, mostAt = p.Backlog, p.Partition+" of "+p.Group
			}
		}
		if total > peak {
			peak, atMs, where = total, s.TimeMs, mostAt
		}
	}
	if n := len(d.series); n > 0 {
		for _, p := range d.series[n-1].Partitions {
			end += p.Backlog
		}
	}
	return
}

func sweepPage(t *SweepTable, sc scenarioInfo, figs []figure, svgs map[string][]byte, files []string) ([]byte, error) {
	failed := 0
	var vs []Violation
	for _, r := range t.Rows {
		if r.Verdict == "pass" {
			continue
		}
		failed++
		cmd := []string{"sharesim", "run", shellWord(t.Scenario), "--seed", strconv.FormatUint(r.Seed, 10)}
		var at []string
		for _, p := range r.Params {
			cmd = append(cmd, "--set", shellWord(p.Path+"="+p.Value))
			at = append(at, p.Path+"="+p.Value)
		}
		vs = append(vs, Violation{Check: fmt.Sprintf("grid point %d, seed %d", r.Point, r.Seed),
			Message: fmt.Sprintf("%d check(s) failed at %s", r.Violations, orDefault(strings.Join(at, ", "), "the base scenario")), Reproduce: strings.Join(cmd, " ")})
	}
	verdict := "PASS"
	if failed > 0 {
		verdict = "FAIL"
	}
	pd := pageData{Kind: "sweep", Name: t.Scenario, Title: sc.Title, Description: sc.Description, Questions: questionsText(sc.Questions),
		Verdict: verdict, Violations: groupViolations(vs), Linear: hasFile(files, LinearizabilityFile), Figures: pageFigures(figs, svgs),
		YAML: sc.YAML, YAMLNote: sc.Problem, Files: fileLinks(files), Grid: t.Grid, Seeds: t.Seeds}
	if sc.YAML != "" {
		pd.YAMLNote = "The base scenario; each grid point overrides the swept parameters. " + sc.Problem
	}
	pd.Meta = []string{fmt.Sprintf("%d runs", len(t.Rows)), "seeds " + t.Seeds, "sharesim " + t.Sharesim}
	if len(t.Shards) > 0 {
		pd.Meta = append(pd.Meta, "shards "+strings.Join(t.Shards, ", "))
	}
	if failed == 0 {
		pd.ChecksNote = fmt.Sprintf("Every check passed in all %d runs.", len(t.Rows))
	}
	pd.Glance = []string{fmt.Sprintf("%d runs over %d grid points; %d failed a check.", len(t.Rows), len(t.Aggregates()), failed)}
	agg := &aggTable{Header: []string{"point"}}
	for _, ax := range t.Grid {
		agg.Header = append(agg.Header, shortPath(ax.Path))
	}
	cols := []struct {
		name, label string
		scale       float64
	}{{"duplicates_per_hour", "duplicates/h", 1}, {"throughput_per_sec", "records/s", 1}, {"redeliveries", "redeliveries", 1},
		{"lock_timeouts", "lock timeouts", 1}, {"archived_at_limit", "archived at limit", 1}, {"e2e_p99_ms", "p99 latency (s)", 0.001}}
	agg.Header = append(agg.Header, "runs", "failed")
	for _, c := range cols {
		agg.Header = append(agg.Header, c.label+" mean (min–max)")
	}
	for _, a := range t.Aggregates() {
		row := []string{strconv.Itoa(a.Point)}
		for _, p := range a.Params {
			row = append(row, p.Value)
		}
		row = append(row, strconv.Itoa(a.Runs), strconv.Itoa(a.Failed))
		for _, c := range cols {
			row = append(row, fmt.Sprintf("%s (%s–%s)", shortNum3(a.Mean[c.name]*c.scale), shortNum3(a.Min[c.name]*c.scale), shortNum3(a.Max[c.name]*c.scale)))
		}
		agg.Rows = append(agg.Rows, row)
	}
	pd.Aggregate = agg
	return executePage(pd)
}

func shortNum3(v float64) string { return trimFloat(v, 3) }

// shellWord quotes a word for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ',' || r == ':' || r == '%' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var pageTemplate = template.Must(template.New("index").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sharesim {{.Kind}} · {{.Name}} · {{.Verdict}}</title>
<style>
:root { --ink:#1d1d1f; --muted:#5f6368; --line:#dadce0; --bg:#ffffff; --soft:#f6f7f9; --pass:#1e7e34; --fail:#c5221f; --warn:#b06000; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; color:var(--ink); background:var(--bg); }
main { max-width: 1080px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 0 0 6px; }
.verdict { display:inline-block; padding: 2px 10px; border-radius: 4px; color:#fff; font-size: 15px; vertical-align: middle; margin-left: 8px; }
.verdict.PASS { background: var(--pass); } .verdict.FAIL { background: var(--fail); }
.subtitle { font-size: 17px; margin: 4px 0; }
.meta { color: var(--muted); margin: 0; }
nav { margin: 14px 0 0; font-size: 14px; } nav a { margin-right: 14px; }
a { color: #1a56c4; }
.glance { background: var(--soft); border-left: 4px solid #1a56c4; padding: 10px 16px; margin: 16px 0; }
.glance p { margin: 4px 0; }
h3 { margin: 22px 0 8px; }
.numbers { display:grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 10px; }
.num { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.num .label { color: var(--muted); font-size: 13px; }
.num .value { font-size: 21px; font-weight: 600; }
.num.warn .value { color: var(--warn); }
.num .detail { color: var(--muted); font-size: 12.5px; }
.violation { border: 1px solid #f1b7b4; background: #fdf1f0; border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.ok { color: var(--pass); font-weight: 600; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto; font: 13px/1.45 "DejaVu Sans Mono", Menlo, Consolas, monospace; }
code { font: 13px "DejaVu Sans Mono", Menlo, Consolas, monospace; }
figure.plot { margin: 0 0 30px; }
figure.plot svg { display:block; width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
figure.plot svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; }
figcaption { color: var(--muted); font-size: 13.5px; margin-top: 6px; }
table { border-collapse: collapse; font-size: 13.5px; } td, th { border: 1px solid var(--line); padding: 4px 8px; text-align: left; }
th { background: var(--soft); }
.desc { white-space: pre-wrap; }
footer { color: var(--muted); font-size: 12.5px; margin-top: 40px; word-break: break-all; }
</style>
</head>
<body>
<main>
<header>
<h1>{{.Name}} <span class="verdict {{.Verdict}}" id="verdict">{{.Verdict}}</span></h1>
{{if .Title}}<p class="subtitle">{{.Title}}</p>{{end}}
<p class="meta">{{.Kind}}{{range .Meta}} · {{.}}{{end}}</p>
<nav><a href="#checks">Checks</a><a href="#numbers">Numbers</a><a href="#plots">Plots</a><a href="#scenario">Scenario</a><a href="#settings">Settings</a><a href="#files">Files</a></nav>
</header>

<div class="glance" id="glance">{{range .Glance}}<p>{{.}}</p>{{end}}</div>

<h2 id="checks">Verdict and checks</h2>
{{if .ChecksNote}}<p class="ok">{{.ChecksNote}}</p>{{end}}
{{range .Violations}}<div class="violation"><strong>{{.Check}}</strong>{{if gt .Count 1}} × {{.Count}}{{end}}{{if .When}} {{.When}}{{end}}{{range .Lines}}<br>{{.}}{{end}}{{if .More}}<br>… and {{.More}} more{{end}}{{if .Reproduce}}<br>reproduce: <code>{{.Reproduce}}</code>{{end}}</div>
{{end}}
{{if .Linear}}<p>Linearizability: <a href="linearizability.html">porcupine's visualisation of the history</a>.</p>{{end}}
{{if .Command}}<p>Reproduce this run: <code>{{.Command}}</code></p>{{end}}
{{if .Overrides}}<p>Overrides: {{range .Overrides}}<code>{{.}}</code> {{end}}</p>{{end}}

{{if .Numbers}}<h2 id="numbers">Headline numbers</h2>
<div class="numbers">{{range .Numbers}}<div class="num{{if .Warn}} warn{{end}}"><div class="label">{{.Label}}</div><div class="value">{{.Value}}</div>{{if .Detail}}<div class="detail">{{.Detail}}</div>{{end}}</div>{{end}}</div>{{end}}
{{if .Groups}}<h2 id="numbers">Headline numbers</h2>
<p class="note">Rates are over each group's measurement window; counts are over the whole run. Definitions: docs/metrics.md.</p>
{{if .Compare}}<table class="agg"><tr>{{range .Compare.Header}}<th>{{.}}</th>{{end}}</tr>{{range .Compare.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{range .Groups}}<h3>{{.Name}} ({{.Type}}), window {{.Window}}</h3>
<div class="numbers">{{range .Numbers}}<div class="num{{if .Warn}} warn{{end}}"><div class="label">{{.Label}}</div><div class="value">{{.Value}}</div>{{if .Detail}}<div class="detail">{{.Detail}}</div>{{end}}</div>{{end}}</div>{{end}}
{{if .Kafka}}<h3 id="kafka-metrics">Kafka's metrics</h3>
<p>The share groups' figures under Kafka's names and with Kafka's meaning, beside sharesim's own (docs/metrics.md, Kafka's metrics, gives each MBean and how the two differ).</p>
<table class="agg"><tr>{{range .Kafka.Header}}<th>{{.}}</th>{{end}}</tr>{{range .Kafka.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{end}}
{{if .Aggregate}}<h2 id="numbers">Grid</h2>
<p>Seeds {{.Seeds}}. Swept parameters:</p>
<table><tr><th>parameter</th><th>values</th></tr>{{range .Grid}}<tr><td><code>{{.Path}}</code></td><td>{{range $i, $v := .Values}}{{if $i}}, {{end}}{{$v}}{{end}}</td></tr>{{end}}</table>
<p>Per grid point, over the seeds:</p>
<table><tr>{{range .Aggregate.Header}}<th>{{.}}</th>{{end}}</tr>{{range .Aggregate.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
{{end}}

<h2 id="plots">Plots</h2>
{{range .Figures}}<figure class="plot" id="{{.ID}}">
<h3>{{.Title}}</h3>
{{.SVG}}
<figcaption>{{.Caption}} <a href="{{.SVGFile}}">SVG</a> · <a href="{{.PNGFile}}">PNG</a></figcaption>
</figure>
{{end}}

<h2 id="scenario">Scenario</h2>
{{if .Title}}<p><strong>{{.Title}}</strong></p>{{end}}
{{if .Questions}}<p>Answers questions {{.Questions}}.</p>{{end}}
{{if .Description}}<p class="desc">{{.Description}}</p>{{end}}

<h2 id="settings">Settings</h2>
{{if .YAMLNote}}<p>{{.YAMLNote}}</p>{{end}}
{{if .YAML}}<pre>{{.YAML}}</pre>{{end}}

<h2 id="files">Files</h2>
<ul>{{range .Files}}<li><a href="{{.Name}}">{{.Name}}</a>{{if .Note}}: {{.Note}}{{end}}</li>{{end}}</ul>

{{if .Footer}}<footer>{{.Footer}}</footer>{{end}}
</main>
</body>
</html>
`))

func executePage(pd pageData) ([]byte, error) {
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pd); err != nil {
		return nil, fmt.Errorf("rendering index.html: %w", err)
	}
	return buf.Bytes(), nil
}
