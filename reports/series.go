package reports

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sharesim/sharesim/internal/atomicfile"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharesim/sharesim/sim"
)

// SeriesFiles writes a run's time series while it runs: series.json, metrics.csv (per
// partition) and groups.csv (per group), one sample at a time, so that a run keeps no sample
// in memory (sim.Options.OnSample). The files are the same as WriteRun's.
type SeriesFiles struct {
	files   []*atomicfile.File
	json    *bufio.Writer
	metrics *bufio.Writer
	groups  *bufio.Writer
	n       int
	err     error
}

// CreateSeriesFiles creates the three files in dir, for samples taken every intervalMs.
func CreateSeriesFiles(dir string, intervalMs int64) (*SeriesFiles, error) {
	f := &SeriesFiles{}
	open := func(name string) *bufio.Writer {
		if f.err != nil {
			return nil
		}
		file, err := atomicfile.Create(filepath.Join(dir, name))
		if err != nil {
			f.err = fmt.Errorf("writing %s: %w", name, err)
			return nil
		}
		f.files = append(f.files, file)
		return bufio.NewWriterSize(file, 64<<10)
	}
	f.json, f.metrics, f.groups = open("series.json"), open("metrics.csv"), open("groups.csv")
	if f.err != nil {
		for _, file := range f.files {
			file.Abort()
		}
		return nil, f.err
	}
	fmt.Fprintf(f.json, `{"interval_ms":%d,"samples":[`, intervalMs)
	f.metrics.WriteString(strings.Join(metricsColumns, ",") + "\n")
	f.groups.WriteString(strings.Join(groupsColumns, ",") + "\n")
	return f, nil
}

// Add writes one sample; the first error sticks and Close reports it.
func (f *SeriesFiles) Add(s *sim.Sample) {
	if f.err != nil {
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		f.err = fmt.Errorf("encoding series.json: %w", err)
		return
	}
	if f.n > 0 {
		f.json.WriteByte(',')
	}
	f.json.Write(b)
	f.n++
	writeSampleRows(s, func(cols ...string) { f.metrics.WriteString(strings.Join(cols, ",") + "\n") },
		func(cols ...string) { f.groups.WriteString(strings.Join(cols, ",") + "\n") })
}

// Close ends the files and reports the first error.
func (f *SeriesFiles) Close() error {
	if f.json != nil && f.err == nil {
		f.json.WriteString("]}\n")
	}
	errs := []error{f.err}
	for _, w := range []*bufio.Writer{f.json, f.metrics, f.groups} {
		if w != nil {
			errs = append(errs, w.Flush())
		}
	}
	for _, file := range f.files {
		errs = append(errs, file.Commit())
	}
	f.files = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("writing the time series: %w", err)
	}
	return nil
}

// writeSampleRows emits one sample's rows of metrics.csv and groups.csv.
func writeSampleRows(s *sim.Sample, partition, group func(cols ...string)) {
	for _, p := range s.Partitions {
		partition(i64(s.TimeMs), p.Group, p.Partition, i64(p.InFlightMessageCount), i64(p.InFlightBatchCount),
			i64(p.StartOffset), i64(p.LogStartOffset), i64(p.LogEndOffset), i64(p.Lag), i64(p.Backlog), i64(p.OldestUnackedMs))
	}
	for _, g := range s.Groups {
		k := &g.Kafka
		group(i64(s.TimeMs), g.Group, i64(g.Produced), i64(g.Deliveries), i64(g.Redeliveries), i64(g.Duplicates),
			i64(g.ProcessedOK), i64(g.Completed), i64(g.LockTimeouts), i64(g.Backlog),
			i64(k.InFlightMessageCount), i64(k.InFlightBatchCount), i64(k.Lag), i64(k.AcquisitionLockTimeoutCount),
			i64(k.AcceptCount), i64(k.ReleaseCount), i64(k.RejectCount), i64(k.RenewCount), i64(k.AcksSentTotal), i64(k.AcksErrorTotal))
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
