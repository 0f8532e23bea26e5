// Package reports turns simulator results into files a person can read: summary.json,
// metrics.csv, events.ndjson, plots and an HTML page per run, and tables per sweep.
package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/sharesim/sharesim/internal/atomicfile"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/sim"
)

// Violation is one failed check.
type Violation struct {
	Check   string `json:"check"`
	Message string `json:"message"`
	TimeMs  int64  `json:"time_ms,omitempty"`
	Event   int64  `json:"event,omitempty"`
	// Reproduce is the command that reproduces the failure.
	Reproduce string `json:"reproduce,omitempty"`
}

// Headline is the handful of numbers a summary leads with, for one group. Every field is
// copied from sim.GroupMetrics, where it is computed (docs/metrics.md defines each).
type Headline struct {
	Group string `json:"group"`
	Type  string `json:"type"`
	// WindowStartMs and WindowEndMs bound the measurement window of the rates.
	WindowStartMs int64 `json:"window_start_ms"`
	WindowEndMs   int64 `json:"window_end_ms"`
	// Totals over the whole run.
	Produced            int64 `json:"produced"`
	Completed           int64 `json:"completed"`
	ProcessedOK         int64 `json:"processed_ok"`
	Deliveries          int64 `json:"deliveries"`
	Redeliveries        int64 `json:"redeliveries"`
	Duplicates          int64 `json:"duplicates"`
	ArchivedAtLimit     int64 `json:"archived_at_limit"`
	ArchivedByRetention int64 `json:"archived_by_retention"`
	DeletedUndelivered  int64 `json:"deleted_undelivered"`
	LockTimeouts        int64 `json:"lock_timeouts"`
	// Rates over the window.
	ArrivalPerSec     float64 `json:"arrival_per_sec"`
	ThroughputPerSec  float64 `json:"throughput_per_sec"`
	DuplicatesPerHour float64 `json:"duplicates_per_hour"`
	// Produce-to-completion latency of records produced in the window (nil: none completed).
	E2EP50Ms          *int64  `json:"e2e_p50_ms"`
	E2EP99Ms          *int64  `json:"e2e_p99_ms"`
	ReorderedFraction float64 `json:"reordered_fraction"`
	SPSOStuckMaxMs    int64   `json:"spso_stuck_max_ms"`
	KeptUp            bool    `json:"kept_up"`
	KeepUpReason      string  `json:"keep_up_reason,omitempty"`
}

// TitleWithOverrides is a scenario's title for a run with --set overrides: the title
// describes the scenario as written (its numbers may no longer hold), so the overrides
// follow it. Without overrides it is the title.
func TitleWithOverrides(title string, sets []string) string {
	if title == "" || len(sets) == 0 {
		return title
	}
	return title + " — as written; this run changed " + strings.Join(sets, ", ")
}

// HeadlineOf copies one group's headline numbers.
func HeadlineOf(g *sim.GroupMetrics) Headline {
	t := &g.Totals
	return Headline{
		Group: g.Name, Type: g.Type, WindowStartMs: g.Window.StartMs, WindowEndMs: g.Window.EndMs,
		Produced: t.Produced, Completed: t.Completed, ProcessedOK: t.ProcessedOK, Deliveries: t.Deliveries,
		Redeliveries: t.Redeliveries, Duplicates: t.Duplicates, ArchivedAtLimit: t.Finished["limit"],
		ArchivedByRetention: t.Finished["log-start"], DeletedUndelivered: g.Accounting.DeletedUndelivered, LockTimeouts: t.AcquisitionLockTimeouts,
		ArrivalPerSec: g.Rates.ArrivalPerSec, ThroughputPerSec: g.Rates.CompletedPerSec, DuplicatesPerHour: g.Rates.DuplicatesPerHour,
		E2EP50Ms: g.Latency.Completed.P50Ms, E2EP99Ms: g.Latency.Completed.P99Ms, ReorderedFraction: g.ReorderedFraction,
		SPSOStuckMaxMs: g.SPSOStuckMaxMs, KeptUp: g.KeepUp.KeptUp, KeepUpReason: g.KeepUp.Reason,
	}
}

// NewHeadlines returns every group's headline numbers, in the configuration's order.
func NewHeadlines(res *sim.Result) []Headline {
	var out []Headline
	for i := range res.Metrics.Groups {
		out = append(out, HeadlineOf(&res.Metrics.Groups[i]))
	}
	return out
}

// NewHeadline returns the first group's headline numbers (the scenario's main group).
func NewHeadline(res *sim.Result) Headline {
	if len(res.Metrics.Groups) == 0 {
		return Headline{}
	}
	return HeadlineOf(&res.Metrics.Groups[0])
}

// Summary is summary.json.
type Summary struct {
	Scenario string `json:"scenario"`
	Title    string `json:"title,omitempty"`
	Seed     uint64 `json:"seed"`
	Sharesim string `json:"sharesim_version"`
	Kafka    string `json:"kafka_version"`
	// Verdict is pass, fail, incomplete (a check could not decide, or max_events cut the
	// run short) or interrupted (a signal ended the run: the figures are those of the
	// first Events events, and no end-of-run check ran).
	Verdict string `json:"verdict"`
	// CutShort says why the run ended before its time ("" when it did not): the run's
	// figures then cover its first Events events, and replay re-runs exactly those.
	CutShort   string      `json:"cut_short,omitempty"`
	Violations []Violation `json:"violations"`
	// Headline is the first group's headline numbers; Groups has every group's.
	Headline    Headline         `json:"headline"`
	Groups      []Headline       `json:"groups"`
	Metrics     sim.Metrics      `json:"metrics"`
	Marks       map[string]int64 `json:"marks"`
	Final       []sim.FinalState `json:"final"`
	TraceSHA256 string           `json:"trace_sha256"`
	Events      int64            `json:"events"`
	EndMs       int64            `json:"end_ms"`
	Overrides   []string         `json:"overrides,omitempty"`
	Command     string           `json:"command"`
	// Focus names the figures that answer the scenario's question (its focus key).
	Focus []string `json:"focus,omitempty"`
	// ConfigChanges are the run's config-change faults, accepted (error NONE) or refused.
	ConfigChanges []sim.ConfigChange `json:"config_changes,omitempty"`
}

// MarksMap turns the result's marks into a map for JSON.
func MarksMap(res *sim.Result) map[string]int64 {
	out := map[string]int64{}
	for _, m := range res.Marks {
		out[m.Name] = m.Count
	}
	return out
}

// WriteRun writes summary.json, metrics.csv, events.ndjson and scenario.yaml into dir, and
// the data the report draws from: series.json (the full time series) and records.json (the
// sampled record lives, sim.Options.SampleRecords). res.Trace holds the trace lines
// (sim.Options.KeepTrace); when it is nil, events.ndjson was streamed during the run
// (EventsWriter) and is left as it is. Render draws the plots and index.html afterwards.
func WriteRun(dir string, s *Summary, res *sim.Result, scenarioYAML []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := writeJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		return err
	}
	if scenarioYAML != nil {
		if err := atomicfile.WriteFile(filepath.Join(dir, "scenario.yaml"), scenarioYAML); err != nil {
			return fmt.Errorf("writing scenario.yaml: %w", err)
		}
	}
	streamed := res.Metrics.Series == nil && fileExists(filepath.Join(dir, "series.json"))
	if !streamed { // else SeriesFiles wrote them while the run ran
		if err := WriteMetricsCSV(filepath.Join(dir, "metrics.csv"), res.Metrics.Series); err != nil {
			return err
		}
	}
	if err := writeRunData(dir, res); err != nil {
		return err
	}
	if res.Trace == nil {
		return nil // streamed to events.ndjson during the run (EventsWriter)
	}
	return WriteEventsNDJSON(filepath.Join(dir, "events.ndjson"), res.Trace)
}

// EventsWriter streams the trace into events.ndjson while the run goes on (set it as
// sim.Options.TraceWriter): the trace is never held in memory, whatever the run's length.
// Each complete line written to it becomes one JSON object (TraceLineJSON).
type EventsWriter struct {
	f       *atomicfile.File
	w       *bufio.Writer
	partial []byte
	err     error
}

// CreateEvents creates path (events.ndjson) for streaming.
func CreateEvents(path string) (*EventsWriter, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("writing events: %w", err)
	}
	return &EventsWriter{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Write converts every complete trace line in p; a partial line waits for its end.
func (e *EventsWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			e.partial = append(e.partial, p...)
			break
		}
		line := p[:i]
		if len(e.partial) > 0 {
			line = append(e.partial, line...)
			e.partial = e.partial[:0]
		}
		e.w.Write(TraceLineJSON(string(line)))
		if err := e.w.WriteByte('\n'); err != nil {
			e.err = fmt.Errorf("writing events: %w", err)
			return 0, e.err
		}
		p = p[i+1:]
	}
	return n, nil
}

// Close flushes and closes the file.
func (e *EventsWriter) Close() error {
	if len(e.partial) > 0 {
		e.Write([]byte{'\n'})
	}
	ferr := e.w.Flush()
	cerr := e.f.Commit()
	switch {
	case e.err != nil:
		return e.err
	case ferr != nil:
		return fmt.Errorf("writing events: %w", ferr)
	case cerr != nil:
		return fmt.Errorf("writing events: %w", cerr)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	b = append(b, '\n')
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadSummary reads a result folder's summary.json.
func ReadSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("reading result folder: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a sharesim summary: %w", filepath.Join(dir, "summary.json"), err)
	}
	return &s, nil
}

// metricsColumns are the columns of metrics.csv, one row per sample and partition: only
// what belongs to that partition (groups.csv holds the groups' running totals).
var metricsColumns = []string{"time_ms", "group", "partition", "InFlightMessageCount", "InFlightBatchCount",
	"start_offset", "log_start_offset", "log_end_offset", "lag", "backlog", "oldest_unacked_ms"}

// groupsColumns are the columns of groups.csv, one row per sample and group: the group's
// running totals since the start of the run, then its figures under Kafka's names (gauges
// summed over its share-partitions, meters as running counts; docs/metrics.md).
var groupsColumns = []string{"time_ms", "group", "produced", "deliveries", "redeliveries", "duplicates",
	"processed_ok", "completed", "lock_timeouts", "backlog",
	"InFlightMessageCount", "InFlightBatchCount", "share_partition_lag", "AcquisitionLockTimeoutPerSec_count",
	"RecordAcknowledgementsPerSec_Accept_count", "RecordAcknowledgementsPerSec_Release_count",
	"RecordAcknowledgementsPerSec_Reject_count", "RecordAcknowledgementsPerSec_Renew_count",
	"acknowledgements-send-total", "acknowledgements-error-total"}

// WriteMetricsCSV writes metrics.csv (per partition) at path and groups.csv (per group)
// beside it.
func WriteMetricsCSV(path string, series []sim.Sample) error {
	var groups [][]string
	err := writeRows(path, metricsColumns, func(emit func(cols ...string)) {
		for i := range series {
			writeSampleRows(&series[i], emit, func(cols ...string) { groups = append(groups, cols) })
		}
	})
	if err != nil {
		return err
	}
	return writeRows(filepath.Join(filepath.Dir(path), "groups.csv"), groupsColumns, func(emit func(cols ...string)) {
		for _, cols := range groups {
			emit(cols...)
		}
	})
}

// writeRows writes a CSV file with a header, streaming the rows.
func writeRows(path string, header []string, rows func(emit func(cols ...string))) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(strings.Join(header, ",") + "\n")
	rows(func(cols ...string) {
		w.WriteString(strings.Join(cols, ",") + "\n")
	})
	if err := w.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return f.Commit()
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// WriteEventsNDJSON writes the trace as one JSON object per line:
// {"t":1200,"kind":"acquire","client":"c-0#1","p":"t/0","ranges":"0-9@1"}. Numbers stay
// numbers; everything else is a string. Keys keep the trace's order.
func WriteEventsNDJSON(path string, trace []string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return fmt.Errorf("writing events: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, line := range trace {
		w.Write(TraceLineJSON(line))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("writing events: %w", err)
	}
	return f.Commit()
}

// TraceLineJSON converts one trace line to a JSON object.
func TraceLineJSON(line string) []byte {
	fields := strings.Fields(line)
	var b strings.Builder
	b.WriteByte('{')
	if len(fields) > 0 {
		b.WriteString(`"t":`)
		b.WriteString(jsonValue(fields[0]))
	}
	if len(fields) > 1 {
		b.WriteString(`,"kind":`)
		b.WriteString(jsonString(fields[1]))
	}
	var seenBuf [12]string
	seen := append(seenBuf[:0], "t", "kind") // a line has a handful of keys: no map per line
	for _, kv := range fields[min(2, len(fields)):] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		// Keys are unique in a line (docs/events.schema.json); a trace line that repeated
		// one would be a simulator bug, so keep both values rather than lose one.
		for base, n := k, 2; slices.Contains(seen, k); n++ {
			k = base + "_" + strconv.Itoa(n)
		}
		seen = append(seen, k)
		b.WriteByte(',')
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(jsonValue(v))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

func jsonValue(v string) string {
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return v
	}
	return jsonString(v)
}

func jsonString(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// SortedKeys returns a map's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
