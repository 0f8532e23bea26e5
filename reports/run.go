// Package reports turns simulator results into files a person can read: summary.json,
// metrics.csv, events.ndjson, plots and an HTML page per run, and tables per sweep.
package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// Headline is the handful of numbers a summary leads with.
type Headline struct {
	Produced            int64   `json:"produced"`
	ProcessedOK         int64   `json:"processed_ok"`
	Deliveries          int64   `json:"deliveries"`
	Redeliveries        int64   `json:"redeliveries"`
	Duplicates          int64   `json:"duplicates"`
	DuplicatesPerHour   float64 `json:"duplicates_per_hour"`
	ArchivedAtLimit     int64   `json:"archived_at_limit"`
	ArchivedByRetention int64   `json:"archived_by_retention"`
	DeletedUndelivered  int64   `json:"deleted_undelivered"`
	LockTimeouts        int64   `json:"lock_timeouts"`
	E2EP99Ms            int64   `json:"e2e_p99_ms"`
	ReorderedFraction   float64 `json:"reordered_fraction"`
	SPSOStuckMaxMs      int64   `json:"spso_stuck_max_ms"`
	ThroughputPerSec    float64 `json:"throughput_per_sec"`
}

// Summary is summary.json.
type Summary struct {
	Scenario    string           `json:"scenario"`
	Title       string           `json:"title,omitempty"`
	Seed        uint64           `json:"seed"`
	Sharesim    string           `json:"sharesim_version"`
	Kafka       string           `json:"kafka_version"`
	Verdict     string           `json:"verdict"`
	Violations  []Violation      `json:"violations"`
	Headline    Headline         `json:"headline"`
	Metrics     sim.Metrics      `json:"metrics"`
	Marks       map[string]int64 `json:"marks"`
	Final       []sim.FinalState `json:"final"`
	TraceSHA256 string           `json:"trace_sha256"`
	Events      int64            `json:"events"`
	EndMs       int64            `json:"end_ms"`
	Overrides   []string         `json:"overrides,omitempty"`
	Command     string           `json:"command"`
}

// NewHeadline computes the headline numbers of a result over a run of durationMs.
func NewHeadline(res *sim.Result) Headline {
	m := res.Metrics
	h := Headline{
		Produced: m.Produced, ProcessedOK: m.ProcessedOK, Deliveries: m.Deliveries, Redeliveries: m.Redeliveries,
		Duplicates: m.DuplicatesTotal, ArchivedAtLimit: m.Finalized["limit"], ArchivedByRetention: m.Finalized["log-start"],
		DeletedUndelivered: m.DeletedUndelivered, LockTimeouts: m.AcquisitionLockTimeouts, E2EP99Ms: m.E2EP99Ms,
		SPSOStuckMaxMs: m.SPSOStuckMaxMs,
	}
	if res.EndMs > 0 {
		h.DuplicatesPerHour = float64(m.DuplicatesTotal) * 3_600_000 / float64(res.EndMs)
		h.ThroughputPerSec = float64(m.ProcessedOK) * 1000 / float64(res.EndMs)
	}
	if m.KeyedProcessed > 0 {
		h.ReorderedFraction = float64(m.Reordered) / float64(m.KeyedProcessed)
	}
	return h
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
		if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), scenarioYAML, 0o644); err != nil {
			return fmt.Errorf("writing scenario.yaml: %w", err)
		}
	}
	if err := WriteMetricsCSV(filepath.Join(dir, "metrics.csv"), res.Metrics.Series); err != nil {
		return err
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
	f       *os.File
	w       *bufio.Writer
	partial []byte
	err     error
}

// CreateEvents creates path (events.ndjson) for streaming.
func CreateEvents(path string) (*EventsWriter, error) {
	f, err := os.Create(path)
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
	cerr := e.f.Close()
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
	if err := os.WriteFile(path, b, 0o644); err != nil {
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

// metricsColumns are the per-partition columns of metrics.csv, in order.
var metricsColumns = []string{"time_ms", "group", "partition", "InFlightMessageCount", "InFlightBatchCount",
	"start_offset", "log_start_offset", "log_end_offset", "lag", "backlog", "oldest_unacked_ms",
	"deliveries", "redeliveries", "duplicates", "lock_timeouts", "processed_ok", "produced"}

// WriteMetricsCSV writes one row per sample and partition (totals repeated per row).
func WriteMetricsCSV(path string, series []sim.Sample) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing metrics: %w", err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(strings.Join(metricsColumns, ",") + "\n")
	for _, s := range series {
		for _, p := range s.Partitions {
			cols := []string{i64(s.TimeMs), p.Group, p.Partition, i64(p.InFlightMessageCount), i64(p.InFlightBatchCount),
				i64(p.StartOffset), i64(p.LogStartOffset), i64(p.LogEndOffset), i64(p.Lag), i64(p.Backlog), i64(p.OldestUnackedMs),
				i64(s.Deliveries), i64(s.Redeliveries), i64(s.Duplicates), i64(s.LockTimeouts), i64(s.ProcessedOK), i64(s.Produced)}
			w.WriteString(strings.Join(cols, ",") + "\n")
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing metrics: %w", err)
	}
	return f.Close()
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// WriteEventsNDJSON writes the trace as one JSON object per line:
// {"t":1200,"kind":"acquire","client":"c-0#1","p":"t/0","ranges":"0-9@1"}. Numbers stay
// numbers; everything else is a string. Keys keep the trace's order.
func WriteEventsNDJSON(path string, trace []string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing events: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, line := range trace {
		w.Write(TraceLineJSON(line))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing events: %w", err)
	}
	return f.Close()
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
	for _, kv := range fields[min(2, len(fields)):] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
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
