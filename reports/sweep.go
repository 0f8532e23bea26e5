package reports

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

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
	Headline
	StateWrites int64 `json:"state_writes"`
	AckRequests int64 `json:"ack_requests"`
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
}

// NewSweepRow fills a row from a run.
func NewSweepRow(point int, params []Param, seed uint64, res *sim.Result, violations int) SweepRow {
	r := SweepRow{Point: point, Params: params, Seed: seed, Verdict: "pass", Violations: violations, TraceSHA256: res.TraceSHA256,
		Headline: NewHeadline(res), StateWrites: res.Metrics.StateWrites, AckRequests: res.Metrics.AckRequests}
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

// metricColumns are the per-run metrics of sweep.csv, with how to read them from a row.
var metricColumns = []struct {
	name string
	get  func(r *SweepRow) float64
}{
	{"produced", func(r *SweepRow) float64 { return float64(r.Produced) }},
	{"processed_ok", func(r *SweepRow) float64 { return float64(r.ProcessedOK) }},
	{"throughput_per_sec", func(r *SweepRow) float64 { return r.ThroughputPerSec }},
	{"deliveries", func(r *SweepRow) float64 { return float64(r.Deliveries) }},
	{"redeliveries", func(r *SweepRow) float64 { return float64(r.Redeliveries) }},
	{"duplicates", func(r *SweepRow) float64 { return float64(r.Duplicates) }},
	{"duplicates_per_hour", func(r *SweepRow) float64 { return r.DuplicatesPerHour }},
	{"archived_at_limit", func(r *SweepRow) float64 { return float64(r.ArchivedAtLimit) }},
	{"archived_by_retention", func(r *SweepRow) float64 { return float64(r.ArchivedByRetention) }},
	{"deleted_undelivered", func(r *SweepRow) float64 { return float64(r.DeletedUndelivered) }},
	{"lock_timeouts", func(r *SweepRow) float64 { return float64(r.LockTimeouts) }},
	{"e2e_p99_ms", func(r *SweepRow) float64 { return float64(deref(r.E2EP99Ms)) }},
	{"reordered_fraction", func(r *SweepRow) float64 { return r.ReorderedFraction }},
	{"spso_stuck_max_ms", func(r *SweepRow) float64 { return float64(r.SPSOStuckMaxMs) }},
	{"state_writes", func(r *SweepRow) float64 { return float64(r.StateWrites) }},
	{"ack_requests", func(r *SweepRow) float64 { return float64(r.AckRequests) }},
}

// MetricNames lists the metrics of a sweep row.
func MetricNames() []string {
	out := make([]string, len(metricColumns))
	for i, c := range metricColumns {
		out[i] = c.name
	}
	return out
}

// Metric returns a row's metric by name.
func (r *SweepRow) Metric(name string) (float64, bool) {
	for _, c := range metricColumns {
		if c.name == name {
			return c.get(r), true
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
		for _, c := range metricColumns {
			var sum, sq float64
			lo, hi := math.Inf(1), math.Inf(-1)
			for k := i; k < j; k++ {
				v := c.get(&t.Rows[k])
				sum += v
				sq += v * v
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			n := float64(j - i)
			mean := sum / n
			a.Mean[c.name], a.Min[c.name], a.Max[c.name] = mean, lo, hi
			a.Stddev[c.name] = math.Sqrt(math.Max(0, sq/n-mean*mean))
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
	rows := [][]string{append(append(append([]string{}, header...), "seed", "verdict", "violations", "trace_sha256"), MetricNames()...)}
	for i := range t.Rows {
		r := &t.Rows[i]
		rec := []string{strconv.Itoa(r.Point)}
		for _, p := range r.Params {
			rec = append(rec, p.Value)
		}
		rec = append(rec, strconv.FormatUint(r.Seed, 10), r.Verdict, strconv.Itoa(r.Violations), r.TraceSHA256)
		for _, c := range metricColumns {
			rec = append(rec, fmtFloat(c.get(r)))
		}
		rows = append(rows, rec)
	}
	if err := writeCSV(filepath.Join(dir, "sweep.csv"), rows); err != nil {
		return err
	}
	agg := [][]string{append(append([]string{}, header...), "runs", "failed")}
	for _, c := range metricColumns {
		agg[0] = append(agg[0], c.name+"_mean", c.name+"_min", c.name+"_max", c.name+"_stddev")
	}
	for _, a := range t.Aggregates() {
		rec := []string{strconv.Itoa(a.Point)}
		for _, p := range a.Params {
			rec = append(rec, p.Value)
		}
		rec = append(rec, strconv.Itoa(a.Runs), strconv.Itoa(a.Failed))
		for _, c := range metricColumns {
			rec = append(rec, fmtFloat(a.Mean[c.name]), fmtFloat(a.Min[c.name]), fmtFloat(a.Max[c.name]), fmtFloat(a.Stddev[c.name]))
		}
		agg = append(agg, rec)
	}
	return writeCSV(filepath.Join(dir, "sweep-aggregate.csv"), agg)
}

func writeCSV(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
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
