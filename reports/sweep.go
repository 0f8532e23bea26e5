package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/sharesim/sharesim/internal/atomicfile"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/sim"
)

// Param is one swept parameter's value in a grid point.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Axis is one swept parameter and its values.
type Axis struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

// SweepRow is one run of a sweep: a grid point and a seed.
type SweepRow struct {
	Point       int     `json:"point"`
	Params      []Param `json:"params"`
	Seed        uint64  `json:"seed"`
	Verdict     string  `json:"verdict"`
	Violations  int     `json:"violations"`
	TraceSHA256 string  `json:"trace_sha256"`
	// Headline is the first group's numbers; Groups every group's (docs/metrics.md).
	Headline
	Groups      []Headline `json:"groups,omitempty"`
	StateWrites int64      `json:"state_writes"`
	AckRequests int64      `json:"ack_requests"`
}

// SweepTable is a sweep's result: its grid and one row per run, ordered by grid point and
// seed (never by completion order, so it does not depend on parallelism).
type SweepTable struct {
	Scenario string     `json:"scenario"`
	Sharesim string     `json:"sharesim_version"`
	Seeds    string     `json:"seeds"`
	Grid     []Axis     `json:"grid"`
	Shards   []string   `json:"shards,omitempty"`
	Rows     []SweepRow `json:"rows"`
	// Runs is how many runs the sweep (its shards together) has; Rows may hold fewer when
	// Interrupted or when a merge lacks shards. 0 in folders written before it was kept.
	Runs int `json:"runs,omitempty"`
	// ShardCount is n of --shard i/n (0: not sharded).
	ShardCount int `json:"shard_count,omitempty"`
	// Interrupted: a signal ended the sweep; Rows holds the runs that finished.
	Interrupted bool `json:"interrupted,omitempty"`
}

// NewSweepRow fills a row from a run.
func NewSweepRow(point int, params []Param, seed uint64, res *sim.Result, violations int) SweepRow {
	r := SweepRow{Point: point, Params: params, Seed: seed, Verdict: "pass", Violations: violations, TraceSHA256: res.TraceSHA256,
		Headline: NewHeadline(res), Groups: NewHeadlines(res), StateWrites: res.Metrics.StateWrites, AckRequests: res.Metrics.AckRequests}
	if violations > 0 {
		r.Verdict = "fail"
	}
	return r
}

// Sort orders the rows by grid point, then seed, and drops duplicates (merged shards).
func (t *SweepTable) Sort() {
	sort.SliceStable(t.Rows, func(i, j int) bool {
		if t.Rows[i].Point != t.Rows[j].Point {
			return t.Rows[i].Point < t.Rows[j].Point
		}
		return t.Rows[i].Seed < t.Rows[j].Seed
	})
	out := t.Rows[:0]
	for i, r := range t.Rows {
		if i > 0 && r.Point == t.Rows[i-1].Point && r.Seed == t.Rows[i-1].Seed {
			continue
		}
		out = append(out, r)
	}
	t.Rows = out
}

// groupMetric is one per-group metric of a sweep row: its name, how a summary words it,
// and how to read it from a headline.
type groupMetric struct {
	name  string
	label string
	unit  string // "", "/s", "/h", "ms", "%", "bool"
	get   func(h *Headline) float64
}

// groupMetrics are the per-group metrics of sweep.csv: the first group's under their plain
// names, any other group's as GROUP:NAME (docs/metrics.md defines each). A scenario's focus
// key names them (scenarios.FocusMetrics is the same list).
var groupMetrics = []groupMetric{
	{"produced", "records produced", "", func(h *Headline) float64 { return float64(h.Produced) }},
	{"completed", "records completed", "", func(h *Headline) float64 { return float64(h.Completed) }},
	{"processed_ok", "successful processings", "", func(h *Headline) float64 { return float64(h.ProcessedOK) }},
	{"arrival_per_sec", "arrival rate", "/s", func(h *Headline) float64 { return h.ArrivalPerSec }},
	{"throughput_per_sec", "throughput (completed)", "/s", func(h *Headline) float64 { return h.ThroughputPerSec }},
	{"deliveries", "deliveries", "", func(h *Headline) float64 { return float64(h.Deliveries) }},
	{"redeliveries", "redeliveries", "", func(h *Headline) float64 { return float64(h.Redeliveries) }},
	{"duplicates", "duplicates", "", func(h *Headline) float64 { return float64(h.Duplicates) }},
	{"duplicates_per_hour", "duplicates", "/h", func(h *Headline) float64 { return h.DuplicatesPerHour }},
	{"archived_at_limit", "archived at the delivery limit", "", func(h *Headline) float64 { return float64(h.ArchivedAtLimit) }},
	{"archived_by_retention", "archived by retention", "", func(h *Headline) float64 { return float64(h.ArchivedByRetention) }},
	{"deleted_undelivered", "deleted before delivery", "", func(h *Headline) float64 { return float64(h.DeletedUndelivered) }},
	{"lock_timeouts", "lock timeouts", "", func(h *Headline) float64 { return float64(h.LockTimeouts) }},
	{"e2e_p50_ms", "median produce-to-completion latency", "ms", func(h *Headline) float64 { return float64(deref(h.E2EP50Ms)) }},
	{"e2e_p99_ms", "p99 produce-to-completion latency", "ms", func(h *Headline) float64 { return float64(deref(h.E2EP99Ms)) }},
	{"reordered_fraction", "same-key records out of order", "%", func(h *Headline) float64 { return h.ReorderedFraction }},
	{"spso_stuck_max_ms", "longest the start offset stood still", "ms", func(h *Headline) float64 { return float64(h.SPSOStuckMaxMs) }},
	{"kept_up", "kept up", "bool", func(h *Headline) float64 {
		if h.KeptUp {
			return 1
		}
		return 0
	}},
}

// GroupMetricNames lists the per-group figure names, in order.
func GroupMetricNames() []string {
	out := make([]string, len(groupMetrics))
	for i, m := range groupMetrics {
		out[i] = m.name
	}
	return out
}

// DescribeFigure words one per-group figure of a headline with its unit: "duplicates
// 17364.0 per hour" (a rate over the window), "lock timeouts 1721 over the run" (a total),
// durations printed by ms (nil: the report's format). ok is false for an unknown name.
func DescribeFigure(name string, h *Headline, ms func(int64) string) (text string, ok bool) {
	if ms == nil {
		ms = fmtMs
	}
	for _, m := range groupMetrics {
		if m.name != name {
			continue
		}
		v := m.get(h)
		switch m.unit {
		case "/s":
			return fmt.Sprintf("%s %.1f records/s", m.label, v), true
		case "/h":
			return fmt.Sprintf("%s %.1f per hour", m.label, v), true
		case "ms":
			if (name == "e2e_p50_ms" && h.E2EP50Ms == nil) || (name == "e2e_p99_ms" && h.E2EP99Ms == nil) {
				return m.label + " n/a (nothing completed)", true
			}
			return fmt.Sprintf("%s %s", m.label, ms(int64(v))), true
		case "%":
			return fmt.Sprintf("%s %.2f%%", m.label, 100*v), true
		case "bool":
			if v == 1 {
				return "kept up", true
			}
			return "did not keep up", true
		}
		return fmt.Sprintf("%s %.0f over the run", m.label, v), true // a total, not a rate
	}
	return "", false
}

// metricColumns are the run-wide metrics of sweep.csv, after the first group's.
var metricColumns = []struct {
	name string
	get  func(r *SweepRow) float64
}{
	{"state_writes", func(r *SweepRow) float64 { return float64(r.StateWrites) }},
	{"ack_requests", func(r *SweepRow) float64 { return float64(r.AckRequests) }},
}

func init() {
	// The first group's metrics come first, under their plain names.
	var all []struct {
		name string
		get  func(r *SweepRow) float64
	}
	for _, g := range groupMetrics {
		g := g
		all = append(all, struct {
			name string
			get  func(r *SweepRow) float64
		}{g.name, func(r *SweepRow) float64 { return g.get(&r.Headline) }})
	}
	metricColumns = append(all, metricColumns...)
}

// MetricNames lists the metrics of a sweep row of a single-group scenario.
func MetricNames() []string {
	out := make([]string, len(metricColumns))
	for i, c := range metricColumns {
		out[i] = c.name
	}
	return out
}

// tableMetricNames lists a table's metric columns: MetricNames, then GROUP:NAME for every
// group after the first.
func (t *SweepTable) metricNames() []string {
	out := MetricNames()
	if len(t.Rows) > 0 {
		for _, g := range t.Rows[0].Groups[min(1, len(t.Rows[0].Groups)):] {
			for _, m := range groupMetrics {
				out = append(out, g.Group+":"+m.name)
			}
		}
	}
	return out
}

// Metric returns a row's metric by name: a run-wide or first-group metric, or GROUP:NAME.
func (r *SweepRow) Metric(name string) (float64, bool) {
	for _, c := range metricColumns {
		if c.name == name {
			return c.get(r), true
		}
	}
	if group, m, ok := strings.Cut(name, ":"); ok {
		for i := range r.Groups {
			if r.Groups[i].Group != group {
				continue
			}
			for _, gm := range groupMetrics {
				if gm.name == m {
					return gm.get(&r.Groups[i]), true
				}
			}
		}
	}
	return 0, false
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// Aggregate is one grid point's metrics over its seeds.
type Aggregate struct {
	Point  int
	Params []Param
	Runs   int
	Failed int
	Mean   map[string]float64
	Min    map[string]float64
	Max    map[string]float64
	Stddev map[string]float64
}

// Aggregates summarises the rows per grid point.
func (t *SweepTable) Aggregates() []Aggregate {
	var out []Aggregate
	for i := 0; i < len(t.Rows); {
		j := i
		for j < len(t.Rows) && t.Rows[j].Point == t.Rows[i].Point {
			j++
		}
		a := Aggregate{Point: t.Rows[i].Point, Params: t.Rows[i].Params, Runs: j - i,
			Mean: map[string]float64{}, Min: map[string]float64{}, Max: map[string]float64{}, Stddev: map[string]float64{}}
		for _, name := range t.metricNames() {
			var sum, sq float64
			lo, hi := math.Inf(1), math.Inf(-1)
			for k := i; k < j; k++ {
				v, _ := t.Rows[k].Metric(name)
				sum += v
				sq += v * v
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			n := float64(j - i)
			mean := sum / n
			a.Mean[name], a.Min[name], a.Max[name] = mean, lo, hi
			a.Stddev[name] = math.Sqrt(math.Max(0, sq/n-mean*mean))
		}
		for k := i; k < j; k++ {
			if t.Rows[k].Verdict != "pass" {
				a.Failed++
			}
		}
		out = append(out, a)
		i = j
	}
	return out
}

// WriteSweep writes sweep.json, sweep.csv (one row per run) and sweep-aggregate.csv (one row
// per grid point: mean, min, max and standard deviation over seeds) into dir.
func WriteSweep(dir string, t *SweepTable) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := writeJSON(filepath.Join(dir, "sweep.json"), t); err != nil {
		return err
	}
	header := []string{"point"}
	for _, ax := range t.Grid {
		header = append(header, ax.Path)
	}
	names := t.metricNames()
	rows := [][]string{append(append(append([]string{}, header...), "seed", "verdict", "violations", "trace_sha256"), names...)}
	for i := range t.Rows {
		r := &t.Rows[i]
		rec := []string{strconv.Itoa(r.Point)}
		for _, p := range r.Params {
			rec = append(rec, p.Value)
		}
		rec = append(rec, strconv.FormatUint(r.Seed, 10), r.Verdict, strconv.Itoa(r.Violations), r.TraceSHA256)
		for _, name := range names {
			v, _ := r.Metric(name)
			rec = append(rec, fmtFloat(v))
		}
		rows = append(rows, rec)
	}
	if err := writeCSV(filepath.Join(dir, "sweep.csv"), rows); err != nil {
		return err
	}
	agg := [][]string{append(append([]string{}, header...), "runs", "failed")}
	for _, name := range names {
		agg[0] = append(agg[0], name+"_mean", name+"_min", name+"_max", name+"_stddev")
	}
	for _, a := range t.Aggregates() {
		rec := []string{strconv.Itoa(a.Point)}
		for _, p := range a.Params {
			rec = append(rec, p.Value)
		}
		rec = append(rec, strconv.Itoa(a.Runs), strconv.Itoa(a.Failed))
		for _, name := range names {
			rec = append(rec, fmtFloat(a.Mean[name]), fmtFloat(a.Min[name]), fmtFloat(a.Max[name]), fmtFloat(a.Stddev[name]))
		}
		agg = append(agg, rec)
	}
	return writeCSV(filepath.Join(dir, "sweep-aggregate.csv"), agg)
}

func writeCSV(path string, rows [][]string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}

// ReadSweep reads a sweep folder's sweep.json.
func ReadSweep(dir string) (*SweepTable, error) {
	b, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		return nil, fmt.Errorf("reading sweep: %w", err)
	}
	var t SweepTable
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s: not a sharesim sweep: %w", filepath.Join(dir, "sweep.json"), err)
	}
	return &t, nil
}

// deref reads an optional figure (0 when absent).
func deref(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
