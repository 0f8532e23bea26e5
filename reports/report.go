package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/sharesim/sharesim/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// A report is the plots and index.html of a result folder. Render draws them from the files
// of the folder alone, so that `sharesim report DIR` redraws what `run --out` and
// `sweep --out` drew, without running anything.

// SampleRecords is how many record lives a run with a result folder follows
// (sim.Options.SampleRecords); the timeline plot picks from them.
const SampleRecords = 240

// Series is series.json: the metrics time series of a run.
type Series struct {
	IntervalMs int64        `json:"interval_ms"`
	Samples    []sim.Sample `json:"samples"`
}

// LinearizabilityFile is the name of the porcupine visualisation a checker may leave in a
// result folder; the report links it when present.
const LinearizabilityFile = "linearizability.html"

// writeRunData writes series.json and records.json (the data the plots need beyond
// summary.json).
func writeRunData(dir string, res *sim.Result) error {
	s := Series{IntervalMs: seriesInterval(res.Metrics.Series), Samples: res.Metrics.Series}
	if s.Samples == nil && fileExists(filepath.Join(dir, "series.json")) {
		s.Samples = nil // written while the run ran (SeriesFiles)
	} else {
		if s.Samples == nil {
			s.Samples = []sim.Sample{}
		}
		if err := writeJSONCompact(filepath.Join(dir, "series.json"), s); err != nil {
			return err
		}
	}
	if res.Sample != nil {
		return writeJSONCompact(filepath.Join(dir, "records.json"), res.Sample)
	}
	return nil
}

// writeJSONCompact writes one JSON value without indentation (large files).
func writeJSONCompact(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// seriesInterval is the most common gap between samples (the last sample, at the end of the
// run, may come sooner).
func seriesInterval(ss []sim.Sample) int64 {
	counts := map[int64]int{}
	var best int64
	for i := 1; i < len(ss); i++ {
		d := ss[i].TimeMs - ss[i-1].TimeMs
		counts[d]++
		if counts[d] > counts[best] || (counts[d] == counts[best] && d > best) {
			best = d
		}
	}
	return best
}

// WriteScenario writes scenario.yaml into dir (a sweep's base scenario).
func WriteScenario(dir string, yml []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "scenario.yaml"), yml); err != nil {
		return fmt.Errorf("writing scenario.yaml: %w", err)
	}
	return nil
}

// CopyScenario copies scenario.yaml from one result folder to another, if the first has one
// (merged sweeps keep their shards' scenario).
func CopyScenario(from, to string) error {
	b, err := os.ReadFile(filepath.Join(from, "scenario.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return WriteScenario(to, b)
}

// Render draws the report of a result folder (a run or a sweep) from its files: the plots as
// SVG and PNG and index.html. It returns the files it wrote.
func Render(dir string) ([]string, error) { return render(dir, false) }

// RenderPage is Render without the PNG files: index.html and the SVG plots it inlines, for
// tests that read only the page (rasterising the PNGs is most of Render's time, some ten
// times more under the race detector).
func RenderPage(dir string) ([]string, error) { return render(dir, true) }

// render is Render, optionally without the PNG files (tests that look only at the page).
func render(dir string, svgOnly bool) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "sweep.json")); err == nil {
		t, err := ReadSweep(dir)
		if err != nil {
			return nil, err
		}
		return renderSweep(dir, t, svgOnly)
	}
	d, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	return renderRun(d, svgOnly)
}

// scenarioInfo is what the report shows of the scenario, from scenario.yaml.
type scenarioInfo struct {
	Name, Title, Description string
	Questions                []int
	YAML                     string
	// DeliveryLimits are the delivery count limits in force during the run: the configured
	// one, then each one an accepted config-change fault set (with the time it did).
	DeliveryLimits []limitFrom
	HealFromMs     int64 // start of the healing phase; 0: none
	Problem        string
}

// limitFrom is a delivery count limit in force from FromMs on.
type limitFrom struct {
	Limit  int
	FromMs int64
}

func loadScenarioInfo(dir string) scenarioInfo {
	var si scenarioInfo
	b, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		si.Problem = "no scenario.yaml in the folder"
		return si
	}
	si.YAML = string(b)
	sc, err := scenarios.Parse(filepath.Join(dir, "scenario.yaml"), b)
	if err != nil {
		si.Problem = "scenario.yaml does not load: " + err.Error()
		return si
	}
	si.Name, si.Title, si.Description, si.Questions = sc.Name(), sc.Title(), sc.Description(), sc.Questions()
	if sc.Kind() == scenarios.KindWorkload {
		if cfg, err := sc.SimConfig(); err == nil {
			si.DeliveryLimits = []limitFrom{{Limit: cfg.Kafka.DeliveryCountLimit}}
			for _, st := range cfg.ConfigSteps() {
				if l := st.After.DeliveryCountLimit; st.Accepted() && l != st.Before.DeliveryCountLimit {
					si.DeliveryLimits = append(si.DeliveryLimits, limitFrom{Limit: l, FromMs: st.AtMs})
				}
			}
			if cfg.HealMs > 0 {
				si.HealFromMs = cfg.DurationMs
			}
		}
	}
	return si
}

// runData is everything a run's report draws from.
type runData struct {
	dir      string
	sum      *Summary
	series   []sim.Sample
	interval int64
	sample   *sim.RecordSample
	sc       scenarioInfo
	files    []string // files of the folder, sorted
}

func loadRun(dir string) (*runData, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a result folder: %w", dir, err)
	}
	var probe struct {
		Kind     string          `json:"kind"`
		Headline json.RawMessage `json:"headline"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.Kind == string(scenarios.KindScripted) {
		return nil, fmt.Errorf("%s holds a scripted scenario's result: reports are drawn for workload runs and sweeps", dir)
	}
	sum, err := ReadSummary(dir)
	if err != nil {
		return nil, err
	}
	d := &runData{dir: dir, sum: sum, sc: loadScenarioInfo(dir)}
	var s Series
	switch b, err := os.ReadFile(filepath.Join(dir, "series.json")); {
	case err == nil:
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "series.json"), err)
		}
	case errors.Is(err, fs.ErrNotExist):
		// A folder written before series.json existed: the plots of the time series are empty.
	default:
		return nil, err
	}
	d.series, d.interval = s.Samples, s.IntervalMs
	if d.interval <= 0 {
		d.interval = seriesInterval(d.series)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "records.json")); err == nil {
		var rs sim.RecordSample
		if err := json.Unmarshal(b, &rs); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "records.json"), err)
		}
		d.sample = &rs
	}
	d.files = listFiles(dir)
	return d, nil
}

func listFiles(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func hasFile(files []string, name string) bool {
	for _, f := range files {
		if f == name {
			return true
		}
	}
	return false
}

// writeFigures renders every figure as SVG (and PNG unless svgOnly) into dir, figures in
// parallel, and returns the SVG texts by figure name and the files written, in figure order.
func writeFigures(dir string, figs []figure, svgOnly bool) (map[string][]byte, []string, error) {
	formats := []string{"svg", "png"}
	if svgOnly {
		formats = formats[:1]
	}
	out := make([][][]byte, len(figs))
	errs := make([]error, len(figs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(len(figs), runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				for _, format := range formats {
					b, err := figs[i].render(format)
					if err != nil {
						errs[i] = err
						break
					}
					out[i] = append(out[i], b)
				}
			}
		}()
	}
	for i := range figs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	svgs := map[string][]byte{}
	var written []string
	for i, f := range figs {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		for k, format := range formats {
			name := f.Name + "." + format
			if err := atomicfile.WriteFile(filepath.Join(dir, name), out[i][k]); err != nil {
				return nil, nil, fmt.Errorf("writing %s: %w", name, err)
			}
			written = append(written, name)
		}
		svgs[f.Name] = out[i][0]
	}
	return svgs, written, nil
}

func renderRun(d *runData, svgOnly bool) ([]string, error) {
	figs := runFigures(d)
	svgs, written, err := writeFigures(d.dir, figs, svgOnly)
	if err != nil {
		return nil, err
	}
	d.files = listFiles(d.dir)
	page, err := runPage(d, figs, svgs)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(d.dir, "index.html"), page); err != nil {
		return nil, fmt.Errorf("writing index.html: %w", err)
	}
	return append(written, "index.html"), nil
}

func renderSweep(dir string, t *SweepTable, svgOnly bool) ([]string, error) {
	sc := loadScenarioInfo(dir)
	figs := sweepFigures(t)
	svgs, written, err := writeFigures(dir, figs, svgOnly)
	if err != nil {
		return nil, err
	}
	page, err := sweepPage(t, sc, figs, svgs, listFiles(dir))
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "index.html"), page); err != nil {
		return nil, fmt.Errorf("writing index.html: %w", err)
	}
	return append(written, "index.html"), nil
}

// fmtMs prints virtual milliseconds compactly: 850 ms, 12.5 s, 3 min 20 s, 1 h 02 min.
func fmtMs(ms int64) string {
	switch {
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60_000:
		return trimFloat(float64(ms)/1000, 2) + " s"
	case ms < 3_600_000:
		return fmt.Sprintf("%d min %02d s", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%d h %02d min", ms/3_600_000, ms%3_600_000/60_000)
}

// fmtClock prints a virtual time as a clock reading: 1:05 (minutes:seconds) or 1:02:05.
func fmtClock(ms int64) string {
	sec := ms / 1000
	if sec >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", sec/3600, sec%3600/60, sec%60)
	}
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}

// consumerOf is the consumer instance name of a member id ("worker-1#2" → "worker-1").
func consumerOf(member string) string {
	if i := strings.LastIndexByte(member, '#'); i >= 0 {
		return member[:i]
	}
	return member
}
