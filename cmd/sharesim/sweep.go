package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/sharesim/sharesim/internal/atomicfile"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
)

type sweepFlags struct {
	seeds    string
	sets     []string
	jobs     int
	out      string
	shard    string
	metric   string
	yes      bool
	resume   bool
	force    bool
	keepRuns bool
	series   bool
	json     bool
	dryRun   bool
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO",
		Short: "Run a scenario over a grid of parameter values and seeds, in parallel",
		Long: `Run every combination of the --set values with every seed of --seeds, in parallel, and
write one table: sweep.json and sweep.csv (one row per run) and sweep-aggregate.csv (one row
per grid point: mean, min, max and standard deviation over the seeds). The table's content
does not depend on --jobs.

--set path=v1,v2,... sweeps a parameter; commas inside brackets or quotes do not split, so
--set 'swarm.kinds=[kill],[kill, hang]' sweeps two lists. The same path twice is an error.

With --out, each run is appended to runs.ndjson as it finishes, so an interrupted sweep
(Ctrl-C: exit code 3) keeps what it did and --resume goes on from there. A non-empty --out
folder is refused unless --resume (continue the same sweep) or --force (start over).
--keep-runs also writes each run's result folder under runs/ ('sharesim report' draws it).

--shard i/n runs only every n-th run starting with the i-th (1-based), so that a sweep can be
split across machines; 'sharesim merge' combines the shards' folders.

Before a big sweep (above 10000 runs or ~100M estimated events in all) sharesim prints the
estimate and asks for --yes.`,
		Example: `  sharesim sweep slow-processing-vs-lock --seeds 1..5 --yes \
      --set kafka.share.record.lock.duration.ms=30s,45s,60s --out out/lock
  sharesim sweep consumers-vs-partitions --seeds 1..3 --set groups.0.consumers.0.count=2,4,6,8,12 --jobs 2
  sharesim sweep chaos-swarm --seeds 1..4 --set 'swarm.kinds=[kill],[kill, hang]'
  sharesim sweep quickstart --seeds 1..20 --shard 1/4 --out out/shard1
  sharesim sweep quickstart --seeds 1..20 --out out/q --resume     # after an interruption`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if f.out, err = outFlag(cmd, f.out); err != nil {
				return err
			}
			return runSweep(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args[0], f)
		},
	}
	cmd.Flags().StringVar(&f.seeds, "seeds", "1..3", "seeds to run, A..B (inclusive) or a single seed")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "parameter and its values: path=v1,v2,... (repeatable; one value is a plain override)")
	cmd.Flags().IntVar(&f.jobs, "jobs", runtime.NumCPU(), "runs in parallel")
	cmd.Flags().StringVar(&f.out, "out", "", "write sweep.json, sweep.csv, sweep-aggregate.csv and runs.ndjson here")
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard i of n (i/n)")
	cmd.Flags().StringVar(&f.metric, "metric", "duplicates_per_hour", "metric shown in the printed table: "+strings.Join(reports.MetricNames(), ", "))
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "run even when the sweep is above the confirmation threshold")
	cmd.Flags().BoolVar(&f.resume, "resume", false, "continue the sweep already in --out (skip the runs in its runs.ndjson)")
	cmd.Flags().BoolVar(&f.force, "force", false, "sweep into a non-empty --out folder, starting over")
	cmd.Flags().BoolVar(&f.keepRuns, "keep-runs", false, "also write each run's result folder under --out/runs/")
	cmd.Flags().BoolVar(&f.series, "series", false, "also write each run's time series (series.json, metrics.csv, groups.csv) under --out/series/")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the sweep table (sweep.json's content) on stdout")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "check the scenario, the grid, the flags and the cost estimate (with --yes above the threshold), then stop: run and write nothing")
	_ = cmd.RegisterFlagCompletionFunc("metric", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return reports.MetricNames(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// maxSeeds bounds --seeds.
const maxSeeds = 1_000_000

func parseSeeds(s string) ([]uint64, error) {
	a, b, isRange := strings.Cut(s, "..")
	num := func(x string) (uint64, error) {
		v, err := strconv.ParseUint(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, usageErr("--seeds %q: %q is not a seed; expected A..B (inclusive, e.g. 1..20) or one seed, seeds being whole numbers from 0", s, strings.TrimSpace(x))
		}
		return v, nil
	}
	lo, err := num(a)
	if err != nil {
		return nil, err
	}
	hi := lo
	if isRange {
		if hi, err = num(b); err != nil {
			return nil, err
		}
		if hi < lo {
			return nil, usageErr("--seeds %q: %d is above %d; expected A..B with A <= B", s, lo, hi)
		}
	}
	if hi-lo >= maxSeeds {
		return nil, usageErr("--seeds %q: %d seeds; expected at most %d", s, uint64(hi-lo)+1, maxSeeds)
	}
	// Counted, not compared: v <= hi holds for every v when hi is the largest uint64, so
	// "v++ while v <= hi" never ended (--seeds 18446744073709551615).
	n := hi - lo + 1
	out := make([]uint64, 0, n)
	for i := uint64(0); i < n; i++ {
		out = append(out, lo+i)
	}
	return out, nil
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usageErr("--shard %q: expected i/n with 1 <= i <= n", s)
	}
	return i, n, nil
}

// splitValues splits a --set value list at the commas outside brackets, braces and quotes:
// "30s,45s" gives two values, "[kill, hang]" one, "[kill],[kill, hang]" two.
func splitValues(v string) ([]string, bool) {
	var out []string
	depth, start := 0, 0
	var quote rune
	for i, c := range v {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
			if depth < 0 {
				return nil, false
			}
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	if depth != 0 || quote != 0 {
		return nil, false
	}
	return append(out, strings.TrimSpace(v[start:])), true
}

// normPath writes groups[0].consumers.1 as groups.0.consumers.1, to compare --set paths.
func normPath(p string) string {
	return strings.NewReplacer("[", ".", "]", "").Replace(strings.TrimSpace(p))
}

// grid expands the --set flags into axes and grid points (cartesian product, first flag
// varying slowest). The same path twice, an empty value or unbalanced brackets are errors.
func grid(sets []string) ([]reports.Axis, [][]reports.Param, error) {
	var axes []reports.Axis
	seen := map[string]string{}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, nil, usageErr("--set %q: expected path=v1,v2,...", s)
		}
		if prev, dup := seen[normPath(k)]; dup {
			return nil, nil, usageErr("--set %q: %s is already swept by --set %q; give each path once, with all its values", s, k, prev)
		}
		seen[normPath(k)] = s
		vals, ok := splitValues(v)
		if !ok {
			return nil, nil, usageErr("--set %q: unbalanced brackets or quotes in the values", s)
		}
		for _, x := range vals {
			if x == "" {
				return nil, nil, usageErr("--set %q: an empty value; expected path=v1,v2,...", s)
			}
		}
		axes = append(axes, reports.Axis{Path: k, Values: vals})
	}
	points := [][]reports.Param{{}}
	for _, ax := range axes {
		if len(points)*len(ax.Values) > maxPoints {
			return nil, nil, usageErr("the --set values make more than %d grid points; sweep fewer values at once", maxPoints)
		}
		var next [][]reports.Param
		for _, p := range points {
			for _, v := range ax.Values {
				q := append(append([]reports.Param{}, p...), reports.Param{Path: ax.Path, Value: v})
				next = append(next, q)
			}
		}
		points = next
	}
	return axes, points, nil
}

// Grid bounds: more points than maxPoints or runs than maxRuns are refused; more runs
// than confirmRuns need --yes.
const (
	maxPoints   = 100_000
	maxRuns     = 10_000_000
	confirmRuns = 10_000
)

type sweepJob struct {
	index int
	point int
	seed  uint64
}

// sweepSpec identifies a sweep in its folder (sweep-spec.json), so that --resume goes on
// only with the same sweep.
type sweepSpec struct {
	Scenario string         `json:"scenario"`
	Seeds    string         `json:"seeds"`
	Grid     []reports.Axis `json:"grid"`
	Shard    string         `json:"shard,omitempty"`
}

func runSweep(stdout, stderr io.Writer, stdin io.Reader, arg string, f sweepFlags) error {
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return err
	}
	si, sn, err := parseShard(f.shard)
	if err != nil {
		return err
	}
	if f.jobs < 1 {
		return usageErr("--jobs %d: expected at least 1", f.jobs)
	}
	if f.resume && f.force {
		return usageErr("--resume and --force: give one (continue the sweep, or start over)")
	}
	if (f.resume || f.force || f.keepRuns || f.series) && f.out == "" {
		return usageErr("--resume, --force, --keep-runs and --series need --out")
	}
	if !knownSweepMetric(f.metric) {
		return usageErr("--metric %q: expected one of %s", f.metric, strings.Join(reports.MetricNames(), ", "))
	}
	axes, points, err := grid(f.sets)
	if err != nil {
		return err
	}
	total := len(points) * len(seeds)
	if total > maxRuns {
		return usageErr("%d grid points × %d seeds = %d runs; expected at most %d", len(points), len(seeds), total, maxRuns)
	}
	runs := (total - si + sn) / sn // runs of shard si: k = si-1, si-1+sn, ... < total
	if runs <= 0 {
		return usageErr("--shard %s: the sweep has %d runs, so shard %d of %d would be empty", f.shard, total, si, sn)
	}
	// Validate every grid point once, up front, so bad values fail before any run.
	base, err := loadScenario(arg, nil)
	if err != nil {
		return err
	}
	if base.Kind() != scenarios.KindWorkload {
		return usageErr("%s is a scripted scenario; sweeps need a workload scenario", arg)
	}
	var cost scenarios.Cost
	for _, p := range points {
		sc, err := pointScenario(arg, p)
		if err != nil {
			return err
		}
		cfg, _ := sc.SimConfig()
		c := scenarios.EstimateCost(cfg)
		cost.Records = satAdd(cost.Records, satMul(c.Records, int64(runs)/int64(len(points))+1))
		cost.Events = satAdd(cost.Events, satMul(c.Events, int64(runs)/int64(len(points))+1))
	}
	what := fmt.Sprintf("sweep %s (%d runs)", base.Name(), runs)
	if runs > confirmRuns && !f.yes {
		return usageErr("%s: more than %d runs; pass --yes to run them", what, confirmRuns)
	}
	if cost.Events >= noteEvents {
		fmt.Fprintf(stderr, "%s: estimated ~%s records, ~%s events in all\n", what, scenarios.Approx(cost.Records), scenarios.Approx(cost.Events))
		if cost.Events >= confirmEvents && !f.yes {
			return usageErr("%s is big (estimated ~%s events, above %s): pass --yes to run it", what, scenarios.Approx(cost.Events), scenarios.Approx(confirmEvents))
		}
	}
	if f.dryRun {
		fmt.Fprintf(stdout, "%s: input and cost checked (~%s records, ~%s events in all); nothing run (--dry-run)\n", what, scenarios.Approx(cost.Records), scenarios.Approx(cost.Events))
		return nil
	}
	spec := sweepSpec{Scenario: base.Name(), Seeds: f.seeds, Grid: axes, Shard: f.shard}
	done := map[[2]uint64]reports.SweepRow{}
	var rowsOut *os.File
	if f.out != "" {
		var od *outFolder
		if od, rowsOut, err = openSweepFolder(f, spec, done); err != nil {
			return err
		}
		defer od.release()
		defer rowsOut.Close()
	}
	var jobs []sweepJob
	k := 0
	for pi := range points {
		for _, s := range seeds {
			if k%sn == si-1 {
				jobs = append(jobs, sweepJob{index: len(jobs), point: pi, seed: s})
			}
			k++
		}
	}
	table := &reports.SweepTable{Scenario: base.Name(), Sharesim: version, Seeds: f.seeds, Grid: axes, Rows: make([]reports.SweepRow, len(jobs)), Runs: total}
	if f.shard != "" {
		table.Shards = []string{f.shard}
		table.ShardCount = sn
	}
	finished := make([]bool, len(jobs))
	var todo []sweepJob
	for _, j := range jobs {
		if r, ok := done[[2]uint64{uint64(j.point), j.seed}]; ok {
			table.Rows[j.index], finished[j.index] = r, true
			continue
		}
		todo = append(todo, j)
	}
	if f.resume {
		fmt.Fprintf(stderr, "%s: resuming, %d of %d runs already done\n", what, len(jobs)-len(todo), len(jobs))
	}
	intr := catchInterrupts()
	defer intr.Stop()
	ctx := intr.Context()
	var bar *progress
	if !f.json {
		bar = newProgress(stderr, "sweep "+base.Name(), float64(len(jobs)), countOf("runs"))
		bar.set(float64(len(jobs) - len(todo)))
	}
	errs := make([]error, len(jobs))
	work := make(chan sweepJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < min(f.jobs, max(1, len(todo))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				row, err := runSweepJob(arg, points[j.point], j, f, intr.Interrupted)
				if intr.Interrupted() && isIncomplete(err) {
					bar.add(1) // cut short by the signal: not finished, --resume runs it again
					continue
				}
				mu.Lock()
				table.Rows[j.index], errs[j.index], finished[j.index] = row, err, err == nil
				if err == nil && rowsOut != nil {
					if werr := appendRow(rowsOut, row); werr != nil {
						errs[j.index] = &exitError{code: exitUsage, err: werr}
					}
				}
				mu.Unlock()
				bar.add(1)
			}
		}()
	}
	interrupted := false
dispatch:
	for _, j := range todo {
		select {
		case work <- j:
		case <-ctx.Done():
			interrupted = true
			break dispatch
		}
	}
	close(work)
	wg.Wait()
	bar.finish()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	interrupted = interrupted || intr.Interrupted()
	if interrupted {
		// What finished is written as an interrupted sweep (report draws it, merge says it
		// is partial); --resume goes on from runs.ndjson.
		rows := table.Rows[:0:0]
		for i, ok := range finished {
			if ok {
				rows = append(rows, table.Rows[i])
			}
		}
		table.Rows, table.Interrupted = rows, true
	}
	if f.out != "" {
		if err := reports.WriteSweep(f.out, table); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if yml, err := base.Canonical(); err == nil {
			if err := reports.WriteScenario(f.out, yml); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
		report := stdout
		if f.json {
			report = io.Discard
		}
		if err := drawReport(report, f.out, false); err != nil {
			return err
		}
	}
	if interrupted {
		msg := fmt.Sprintf("sweep interrupted after %d of %d runs", len(table.Rows), len(jobs))
		if f.out != "" {
			msg += fmt.Sprintf("; they are in %s (sweep.json marked interrupted); go on with the same command and --resume", filepath.Join(f.out, "runs.ndjson"))
		}
		return &exitError{code: exitIncomplete, err: errors.New(msg)}
	}
	if f.json {
		if err := writeJSONTo(stdout, table); err != nil {
			return err
		}
	} else {
		printSweep(stdout, table, f.metric)
		if f.out != "" {
			fmt.Fprintf(stdout, "results in %s\n", f.out)
		}
	}
	for _, r := range table.Rows {
		if r.Verdict != "pass" {
			return checksFailed
		}
	}
	return nil
}

// openSweepFolder takes --out (takeOut): a new or empty folder, or with --resume the same
// sweep's folder (its finished rows go into done), or with --force any folder, whose
// previous sweep starts over. It returns the folder, locked, and runs.ndjson open for
// appending.
func openSweepFolder(f sweepFlags, spec sweepSpec, done map[[2]uint64]reports.SweepRow) (*outFolder, *os.File, error) {
	entries, err := os.ReadDir(f.out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if st, serr := os.Stat(f.out); serr == nil && !st.IsDir() {
			return nil, nil, usageErr("--out %s: is a file; expected a folder (new or existing)", f.out)
		}
		return nil, nil, usageErr("--out %s: %v", f.out, unwrapPath(err))
	}
	nonEmpty := false
	for _, e := range entries {
		nonEmpty = nonEmpty || e.Name() != markerName
	}
	if nonEmpty && !f.resume && !f.force {
		return nil, nil, usageErr("--out %s: the folder is not empty; pass --resume to continue the sweep in it or --force to start over", f.out)
	}
	var keep []string
	if f.resume {
		keep = []string{"sweep-spec.json", "runs.ndjson", "runs", "series"}
	}
	od, err := takeOut(f.out, "sweep", f.force || f.resume, keep...)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*outFolder, *os.File, error) {
		od.release()
		return nil, nil, err
	}
	specPath := filepath.Join(f.out, "sweep-spec.json")
	rowsPath := filepath.Join(f.out, "runs.ndjson")
	if f.resume {
		b, err := os.ReadFile(specPath)
		if err != nil {
			return fail(usageErr("--resume: %s holds no sweep to resume (no sweep-spec.json)", f.out))
		}
		var was sweepSpec
		if err := json.Unmarshal(b, &was); err != nil || fmt.Sprint(was) != fmt.Sprint(spec) {
			return fail(usageErr("--resume: %s holds another sweep (%s); resume it with the same scenario, --seeds, --set and --shard, or use --force to start over", f.out, string(bytes.TrimSpace(b))))
		}
		if err := readRows(rowsPath, done); err != nil {
			return fail(usageErr("--resume: %v", err))
		}
	} else {
		b, _ := json.MarshalIndent(spec, "", "  ")
		if err := atomicfile.WriteFile(specPath, append(b, '\n')); err != nil {
			return fail(usageErr("--out %s: %v", f.out, unwrapPath(err)))
		}
		if err := atomicfile.WriteFile(rowsPath, nil); err != nil {
			return fail(usageErr("--out %s: %v", f.out, unwrapPath(err)))
		}
	}
	out, err := os.OpenFile(rowsPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fail(usageErr("--out %s: %v", f.out, unwrapPath(err)))
	}
	return od, out, nil
}

// readRows reads runs.ndjson. A last line cut short by an interruption (no line feed at
// its end) is not a run: it is dropped, and the file truncated after the last whole line,
// so that the next row appended starts a line of its own.
func readRows(path string, done map[[2]uint64]reports.SweepRow) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if whole := bytes.LastIndexByte(data, '\n') + 1; whole < len(data) {
		if err := os.Truncate(path, int64(whole)); err != nil {
			return fmt.Errorf("%s: dropping a torn last line: %w", path, err)
		}
		data = data[:whole]
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r reports.SweepRow
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		done[[2]uint64{uint64(r.Point), r.Seed}] = r
	}
	return nil
}

// appendRow writes one finished run to runs.ndjson, one line, synced so that an
// interruption keeps it.
func appendRow(f *os.File, r reports.SweepRow) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return nil
}

func pointScenario(arg string, p []reports.Param) (*scenarios.Scenario, error) {
	sets := make([]string, len(p))
	for i, q := range p {
		sets[i] = q.Path + "=" + q.Value
	}
	return loadScenario(arg, sets)
}

func runSweepJob(arg string, p []reports.Param, j sweepJob, f sweepFlags, stop func() bool) (reports.SweepRow, error) {
	sc, err := pointScenario(arg, p)
	if err != nil {
		return reports.SweepRow{}, err
	}
	so := simOpts{stop: stop}
	var dir string
	var events *reports.EventsWriter
	if f.keepRuns {
		dir = filepath.Join(f.out, "runs", fmt.Sprintf("point-%d-seed-%d", j.point, j.seed))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: err}
		}
		if events, err = reports.CreateEvents(filepath.Join(dir, "events.ndjson")); err != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: err}
		}
		so.sample, so.trace = true, events
	}
	var series *reports.SeriesFiles
	if f.keepRuns || f.series {
		sdir := dir
		if !f.keepRuns {
			sdir = filepath.Join(f.out, "series", fmt.Sprintf("point-%d-seed-%d", j.point, j.seed))
			if err := os.MkdirAll(sdir, 0o755); err != nil {
				return reports.SweepRow{}, &exitError{code: exitUsage, err: err}
			}
		}
		cfg, err := sc.SimConfig()
		if err != nil {
			return reports.SweepRow{}, inputErr(err)
		}
		if series, err = reports.CreateSeriesFiles(sdir, cfg.MetricsIntervalMs); err != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: err}
		}
		so.series = series.Add
	}
	o, err := simulate(sc, j.seed, so)
	if events != nil {
		if cerr := events.Close(); err == nil && cerr != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: cerr}
		}
	}
	if series != nil {
		if cerr := series.Close(); err == nil && cerr != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: cerr}
		}
	}
	if err != nil {
		return reports.SweepRow{}, err
	}
	if f.keepRuns {
		sets := make([]string, len(p))
		for i, q := range p {
			sets[i] = q.Path + "=" + q.Value
		}
		sum := buildSummary(sc, j.seed, o, sets, reproduceCommand(arg, j.seed, sets))
		yml, _ := sc.Canonical()
		if err := reports.WriteRun(dir, sum, o.res, yml); err != nil {
			return reports.SweepRow{}, &exitError{code: exitUsage, err: err}
		}
	}
	return reports.NewSweepRow(j.point, p, j.seed, o.res, len(o.violations)), nil
}

// knownSweepMetric accepts a sweep metric (reports.MetricNames) or GROUP:NAME, a per-group
// figure of a group after the first (reports.GroupMetricNames).
func knownSweepMetric(name string) bool {
	if slices.Contains(reports.MetricNames(), name) {
		return true
	}
	_, m, ok := strings.Cut(name, ":")
	return ok && slices.Contains(reports.GroupMetricNames(), m)
}

// printSweep prints one line per grid point with the chosen metric's mean and range.
func printSweep(w io.Writer, t *reports.SweepTable, metric string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := []string{"point"}
	for _, ax := range t.Grid {
		header = append(header, ax.Path)
	}
	header = append(header, "runs", "failed", metric+" mean", "min", "max")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, a := range t.Aggregates() {
		cols := []string{strconv.Itoa(a.Point)}
		for _, p := range a.Params {
			cols = append(cols, p.Value)
		}
		cols = append(cols, strconv.Itoa(a.Runs), strconv.Itoa(a.Failed), fmt3(a.Mean[metric]), fmt3(a.Min[metric]), fmt3(a.Max[metric]))
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()
}

func fmt3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func newMergeCmd() *cobra.Command {
	var out, metric string
	var force bool
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR...",
		Short: "Combine the result folders of a sharded sweep into one table",
		Long: `Combine the result folders of a sharded sweep (sweep --shard i/n) into one table.

Each shard may be given once. When shards are missing, or a shard was interrupted, merge
prints which, writes the partial table (marked interrupted) and exits with code 3.`,
		Example: `  sharesim sweep quickstart --seeds 1..8 --shard 1/2 --out out/s1
  sharesim sweep quickstart --seeds 1..8 --shard 2/2 --out out/s2
  sharesim merge out/s1 out/s2 --out out/all`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("merge needs at least one shard folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if out, err = outFlag(cmd, out); err != nil {
				return err
			}
			// Every file is written whole (temporary file, then rename): a signal during
			// the writes lets the file in progress finish, so none is left half written,
			// and the merge ends incomplete.
			intr := catchInterrupts()
			defer intr.Stop()
			if out != "" {
				for _, dir := range args {
					if sameFolder(dir, out) {
						return usageErr("--out %s is the shard folder %s: merge into a new folder, not over one of its inputs", out, dir)
					}
				}
				od, err := takeOut(out, "merge", force)
				if err != nil {
					return err
				}
				defer od.release()
			}
			var merged *reports.SweepTable
			have := map[int]string{} // shard i → its folder
			count := 0
			partial := []string{}
			for _, dir := range args {
				t, err := reports.ReadSweep(dir)
				if err != nil {
					return inputErr(err)
				}
				for _, sh := range t.Shards {
					i, n, err := parseShard(sh)
					if err != nil {
						return inputErr(fmt.Errorf("%s: shard %q: %v", dir, sh, err))
					}
					if prev, dup := have[i]; dup {
						return inputErr(fmt.Errorf("%s: shard %d/%d is already given by %s; give each shard once", dir, i, n, prev))
					}
					if count != 0 && n != count {
						return inputErr(fmt.Errorf("%s: a shard of %d, the others are shards of %d", dir, n, count))
					}
					have[i], count = dir, n
				}
				if t.Interrupted {
					partial = append(partial, dir+" was interrupted")
				}
				if merged == nil {
					merged = t
					continue
				}
				if t.Scenario != merged.Scenario || t.Seeds != merged.Seeds || fmt.Sprint(t.Grid) != fmt.Sprint(merged.Grid) {
					return inputErr(fmt.Errorf("%s: not a shard of the same sweep (scenario, seeds or grid differ)", dir))
				}
				merged.Rows = append(merged.Rows, t.Rows...)
				merged.Shards = append(merged.Shards, t.Shards...)
			}
			var missing []string
			for i := 1; i <= count; i++ {
				if _, ok := have[i]; !ok {
					missing = append(missing, fmt.Sprintf("%d/%d", i, count))
				}
			}
			if len(missing) > 0 {
				partial = append(partial, "missing shards "+strings.Join(missing, ", "))
			}
			merged.Sort()
			merged.Interrupted = len(partial) > 0
			if count > 0 {
				merged.ShardCount = count
			}
			if out != "" {
				if err := reports.WriteSweep(out, merged); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				if err := reports.CopyScenario(args[0], out); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				if err := drawReport(cmd.OutOrStdout(), out, false); err != nil {
					return err
				}
			}
			printSweep(cmd.OutOrStdout(), merged, metric)
			if intr.Interrupted() {
				partial = append(partial, "interrupted; the file being written was finished")
			}
			if len(partial) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "INCOMPLETE: %d runs merged; %s\n", len(merged.Rows), strings.Join(partial, "; "))
				return &exitError{code: exitIncomplete}
			}
			for _, r := range merged.Rows {
				if r.Verdict != "pass" {
					return checksFailed
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged sweep folder here")
	cmd.Flags().BoolVar(&force, "force", false, "write into a non-empty --out folder that sharesim did not write")
	cmd.Flags().StringVar(&metric, "metric", "duplicates_per_hour", "metric shown in the printed table: "+strings.Join(reports.MetricNames(), ", "))
	return cmd
}

func satAdd(a, b int64) int64 { return scenarios.SatAdd(a, b) }

func satMul(a, b int64) int64 { return scenarios.SatMul(a, b) }

// isIncomplete reports whether err is an exitIncomplete (a run cut short).
func isIncomplete(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == exitIncomplete
}
