package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/schollz/progressbar/v3"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type sweepFlags struct {
	seeds  string
	sets   []string
	jobs   int
	out    string
	shard  string
	metric string
}

func newSweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep SCENARIO",
		Short: "Run a scenario over a grid of parameter values and seeds, in parallel",
		Long: `Run every combination of the --set values (comma-separated) with every seed of --seeds,
in parallel, and write one table: sweep.json and sweep.csv (one row per run) and
sweep-aggregate.csv (one row per grid point: mean, min, max and standard deviation over the
seeds). The table's content does not depend on --jobs.

--shard i/n runs only every n-th run starting with the i-th (1-based), so that a sweep can be
split across machines; 'sharesim merge' combines the shards' folders.`,
		Example: `  sharesim sweep slow-processing-vs-lock --seeds 1..5 \
      --set kafka.share.record.lock.duration.ms=30s,45s,60s --out out/lock
  sharesim sweep consumers-vs-partitions --seeds 1..3 --set groups.0.consumers.0.count=2,4,6,8,12 --jobs 2
  sharesim sweep quickstart --seeds 1..20 --shard 1/4 --out out/shard1`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	cmd.Flags().StringVar(&f.seeds, "seeds", "1..3", "seeds to run, A..B (inclusive) or a single seed")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "parameter and its values: path=v1,v2,... (repeatable; one value is a plain override)")
	cmd.Flags().IntVar(&f.jobs, "jobs", runtime.NumCPU(), "runs in parallel")
	cmd.Flags().StringVar(&f.out, "out", "", "write sweep.json, sweep.csv and sweep-aggregate.csv here")
	cmd.Flags().StringVar(&f.shard, "shard", "", "run only shard i of n (i/n)")
	cmd.Flags().StringVar(&f.metric, "metric", "duplicates_per_hour", "metric shown in the printed table")
	return cmd
}

func parseSeeds(s string) ([]uint64, error) {
	a, b, isRange := strings.Cut(s, "..")
	lo, err := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	if err != nil {
		return nil, usageErr("--seeds %q: expected A..B or a number", s)
	}
	hi := lo
	if isRange {
		if hi, err = strconv.ParseUint(strings.TrimSpace(b), 10, 64); err != nil || hi < lo {
			return nil, usageErr("--seeds %q: expected A..B with A <= B", s)
		}
	}
	if hi-lo >= 1_000_000 {
		return nil, usageErr("--seeds %q: at most 1000000 seeds", s)
	}
	var out []uint64
	for v := lo; v <= hi; v++ {
		out = append(out, v)
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

// grid expands the --set flags into axes and grid points (cartesian product, first flag
// varying slowest).
func grid(sets []string) ([]reports.Axis, [][]reports.Param, error) {
	var axes []reports.Axis
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, nil, usageErr("--set %q: expected path=v1,v2,...", s)
		}
		axes = append(axes, reports.Axis{Path: k, Values: strings.Split(v, ",")})
	}
	points := [][]reports.Param{{}}
	for _, ax := range axes {
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

type sweepJob struct {
	index int
	point int
	seed  uint64
}

func runSweep(stdout, stderr io.Writer, arg string, f sweepFlags) error {
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
	axes, points, err := grid(f.sets)
	if err != nil {
		return err
	}
	// Validate every grid point once, up front, so bad values fail before any run.
	base, err := loadScenario(arg, nil)
	if err != nil {
		return err
	}
	if base.Kind() != scenarios.KindWorkload {
		return usageErr("%s is a scripted scenario; sweeps need a workload scenario", arg)
	}
	for _, p := range points {
		if _, err := pointScenario(arg, p); err != nil {
			return err
		}
	}
	if _, ok := (&reports.SweepRow{}).Metric(f.metric); !ok {
		return usageErr("--metric %q: expected one of %s", f.metric, strings.Join(reports.MetricNames(), ", "))
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
	table := &reports.SweepTable{Scenario: base.Name(), Sharesim: version, Seeds: f.seeds, Grid: axes, Rows: make([]reports.SweepRow, len(jobs))}
	if f.shard != "" {
		table.Shards = []string{f.shard}
	}
	errs := make([]error, len(jobs))
	var bar *progressbar.ProgressBar
	if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		bar = progressbar.NewOptions(len(jobs), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	work := make(chan sweepJob)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < min(f.jobs, max(1, len(jobs))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				row, err := runSweepJob(arg, points[j.point], j)
				table.Rows[j.index], errs[j.index] = row, err
				if bar != nil {
					mu.Lock()
					bar.Add(1)
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		work <- j
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
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
		if err := drawReport(stdout, f.out, false); err != nil {
			return err
		}
	}
	printSweep(stdout, table, f.metric)
	if f.out != "" {
		fmt.Fprintf(stdout, "results in %s\n", f.out)
	}
	for _, r := range table.Rows {
		if r.Verdict != "pass" {
			return checksFailed
		}
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

func runSweepJob(arg string, p []reports.Param, j sweepJob) (reports.SweepRow, error) {
	sc, err := pointScenario(arg, p)
	if err != nil {
		return reports.SweepRow{}, err
	}
	o, err := simulate(sc, j.seed, simOpts{})
	if err != nil {
		return reports.SweepRow{}, err
	}
	return reports.NewSweepRow(j.point, p, j.seed, o.res, len(o.violations)), nil
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
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR...",
		Short: "Combine the result folders of a sharded sweep into one table",
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
			var merged *reports.SweepTable
			for _, dir := range args {
				t, err := reports.ReadSweep(dir)
				if err != nil {
					return inputErr(err)
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
			merged.Sort()
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
			for _, r := range merged.Rows {
				if r.Verdict != "pass" {
					return checksFailed
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the merged sweep folder here")
	cmd.Flags().StringVar(&metric, "metric", "duplicates_per_hour", "metric shown in the printed table")
	return cmd
}
