package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/checker/linearize"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type runFlags struct {
	seed  uint64
	seedS bool
	out   string
	sets  []string
	quiet bool
	yes   bool
	json  bool
	// history streams the client-visible history to history.ndjson in the result folder.
	history bool
	// noReport leaves the plots and index.html out of the result folder (tests).
	noReport bool
	// force writes into a non-empty --out folder that sharesim did not write.
	force bool
	// dryRun stops after the input and cost checks: nothing runs or is written.
	dryRun bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run SCENARIO",
		Short: "Run a scenario (a built-in name or a YAML file) and check it",
		Long: `Run a scenario once with one seed, apply its checks, print a summary, and with --out
write a result folder (summary.json, metrics.csv, events.ndjson, scenario.yaml; with
--history also history.ndjson, the client-visible history the history checks read).

SCENARIO is a built-in scenario (see 'sharesim list') or a path to a YAML file.
--set overrides any field by its dotted path as written in the file; it may be repeated.`,
		Example: `  sharesim run quickstart
  sharesim run quickstart --seed 7 --out out/q7
  sharesim run poison-crash --set groups.0.consumers.0.on_poison=reject
  sharesim run scenarios/library/scripted/release-at-limit-archives.yaml`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.seedS = cmd.Flags().Changed("seed")
			var err error
			if f.out, err = outFlag(cmd, f.out); err != nil {
				return err
			}
			return runScenario(cmd.OutOrStdout(), cmd.ErrOrStderr(), cmd.InOrStdin(), args[0], f)
		},
	}
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "root seed (default: the scenario's seed)")
	cmd.Flags().StringVar(&f.out, "out", "", "write a result folder here (new, empty or one sharesim wrote, whose previous result it replaces)")
	cmd.Flags().BoolVar(&f.force, "force", false, "write into a non-empty --out folder that sharesim did not write")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "check the scenario, the flags and the cost estimate (with --yes above the threshold), then stop: run and write nothing")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a field: path=value (repeatable)")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "print only the verdict line (and no progress)")
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "run even when the cost estimate is above the confirmation threshold")
	cmd.Flags().BoolVar(&f.json, "json", false, "print summary.json's content on stdout instead of the text summary")
	cmd.Flags().BoolVar(&f.history, "history", false, "with --out: stream the client-visible history and hidden events to history.ndjson")
	cmd.Flags().Var(newBoundedDuration(&linearize.DefaultTimeLimit, 0, 24*time.Hour), "lin-time-limit", "time limit of the linearizability check per share-partition (unknown when exceeded)")
	return cmd
}

// exactArgs reports a wrong argument count as a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("%s takes %d argument(s), got %d (see 'sharesim %s --help')", cmd.Name(), n, len(args), cmd.Name())
		}
		return nil
	}
}

// loadScenario loads a scenario and applies --set overrides.
func loadScenario(nameOrPath string, sets []string) (*scenarios.Scenario, error) {
	sc, err := scenarios.LoadAny(nameOrPath)
	if err != nil {
		return nil, inputErr(err)
	}
	pairs := make([][2]string, 0, len(sets))
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usageErr("--set %q: expected path=value", s)
		}
		pairs = append(pairs, [2]string{k, v})
	}
	// Together, as one edit: each alone may cross a limit the others bring back.
	if err := sc.SetAll(pairs); err != nil {
		return nil, inputErr(err)
	}
	return sc, nil
}

// checkNames resolves a scenario's checks ("all", "none", or names).
func checkNames(sc *scenarios.Scenario) []string {
	names := sc.Checks()
	var out []string
	for _, n := range names {
		switch n {
		case "all":
			return checker.Names()
		case "none":
			return []string{}
		default:
			out = append(out, n)
		}
	}
	if out == nil {
		return []string{}
	}
	return out
}

// outcome is one checked run.
type outcome struct {
	res        *sim.Result
	violations []checker.Violation
	cfg        sim.Config
	ck         *checker.Checker // nil when no check ran
	// cutShort is why the run ended early ("max_events", "interrupted"), "" when it ran
	// to its end.
	cutShort string
}

// simOpts are what a run records besides its checks.
type simOpts struct {
	// sample follows record lives for the report (reports.SampleRecords).
	sample bool
	// trace receives the event trace as it is produced (nil: only hashed).
	trace io.Writer
	// progress is told the virtual time every progressStride events (nil: silent).
	progress *progress
	// series receives the metrics time series as it is sampled (nil: kept in the result).
	series func(*sim.Sample)
	// history, when set, receives the client-visible history and hidden events.
	history *reports.HistoryWriter
	// stop, when set, ends the run at the next sim.StopStride events when it returns true
	// (an interruption); stopAfter > 0 ends it after that many events (replay of a run
	// that was cut short).
	stop      func() bool
	stopAfter int64
}

// progressStride is how many events pass between two progress updates of a run.
const progressStride = 1 << 14

// simulate runs a workload scenario with its checks. Nothing it records grows with the
// run's length: the checks keep state for the records in flight only (the history checks
// take the history as it is recorded, checker.Checker.Attach), and opts.trace streams the
// trace away.
func simulate(sc *scenarios.Scenario, seed uint64, so simOpts) (*outcome, error) {
	cfg, err := sc.SimConfig()
	if err != nil {
		return nil, inputErr(err)
	}
	names := checkNames(sc)
	var ck *checker.Checker
	if len(names) > 0 {
		if ck, err = checker.New(cfg, names); err != nil {
			return nil, inputErr(err)
		}
	}
	opts := sim.Options{TraceWriter: so.trace, OnSample: so.series, Stop: so.stop, StopAfterEvents: so.stopAfter}
	if so.sample {
		opts.SampleRecords = reports.SampleRecords // the report's record timeline
	}
	var observe []func(*sim.World)
	if ck != nil {
		ck.Attach(&opts) // the history is checked as it is recorded, never held
		observe = append(observe, ck.Observe)
	}
	if hw := so.history; hw != nil {
		onOp, onHidden := opts.OnHistory, opts.OnHidden
		opts.OnHistory = func(op *sim.Op) {
			hw.Op(op)
			if onOp != nil {
				onOp(op)
			}
		}
		opts.OnHidden = func(ev *sim.HiddenEvent) {
			hw.Hidden(ev)
			if onHidden != nil {
				onHidden(ev)
			}
		}
	}
	if p := so.progress; p != nil {
		n := 0
		observe = append(observe, func(w *sim.World) {
			if n++; n == progressStride {
				n = 0
				p.set(float64(w.NowMs()))
			}
		})
	}
	switch len(observe) {
	case 1:
		opts.Observer = observe[0]
	case 2:
		a, b := observe[0], observe[1]
		opts.Observer = func(w *sim.World) { a(w); b(w) }
	}
	w, err := sim.New(cfg, seed, opts)
	if err != nil {
		return nil, inputErr(err)
	}
	res, err := w.Run()
	if err != nil {
		if ck != nil {
			ck.Close() // no end-of-run check runs: stop the history checks
		}
		// A run cut short comes back with what it did so far (o.cutShort says why), so that
		// its result folder is written and understood; no end-of-run check ran.
		switch {
		case errors.Is(err, sim.ErrMaxEvents):
			return &outcome{res: res, cfg: cfg, cutShort: "max_events"}, &exitError{code: exitIncomplete, err: fmt.Errorf("INCOMPLETE %s (seed %d): cut short, %v; no check can pass a run that did not finish (raise max_events or shorten duration)", sc.Name(), seed, err)}
		case errors.Is(err, sim.ErrInterrupted):
			return &outcome{res: res, cfg: cfg, cutShort: "interrupted"}, &exitError{code: exitIncomplete, err: fmt.Errorf("INTERRUPTED %s (seed %d) after %d events, at %s of virtual time; no check can pass a run that did not finish", sc.Name(), seed, res.Events, fmtDuration(res.EndMs))}
		}
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("simulation stopped: %w", err)}
	}
	o := &outcome{res: res, cfg: cfg}
	if ck != nil {
		o.violations = ck.Finish(w, res)
		o.ck = ck
	}
	return o, nil
}

// reproduceCommand is the command line that reproduces a run.
func reproduceCommand(scenario string, seed uint64, sets []string) string {
	parts := []string{"sharesim", "run", shellQuote(scenario), "--seed", strconv.FormatUint(seed, 10)}
	for _, s := range sets {
		parts = append(parts, "--set", shellQuote(s))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ',' || r == ':' || r == '%' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func runScenario(stdout, stderr io.Writer, stdin io.Reader, arg string, f runFlags) error {
	sc, err := loadScenario(arg, f.sets)
	if err != nil {
		return err
	}
	seed := sc.Seed()
	if f.seedS {
		seed = f.seed
	}
	if f.history && f.out == "" {
		return usageErr("--history writes history.ndjson into the result folder: it needs --out")
	}
	var cfg sim.Config
	if sc.Kind() == scenarios.KindScripted && f.dryRun {
		fmt.Fprintf(stdout, "run %s: input checked (a scripted scenario); nothing run (--dry-run)\n", sc.Name())
		return nil
	}
	if sc.Kind() != scenarios.KindScripted {
		if cfg, err = sc.SimConfig(); err != nil {
			return inputErr(err)
		}
		jc := newJobCost(cfg, checkNames(sc), f.out != "")
		if err := confirmCost(stderr, stdin, "run "+sc.Name(), jc, f.yes); err != nil {
			return err
		}
		if f.dryRun {
			fmt.Fprintf(stdout, "run %s: input and cost checked (%s); nothing run (--dry-run)\n", sc.Name(), jc)
			return nil
		}
		if jc.Events > cfg.MaxEvents {
			fmt.Fprintf(stderr, "run %s: note: the estimate (~%s events) is above max_events (%s); the run will probably be cut short (exit code 3): raise max_events in the scenario\n",
				sc.Name(), scenarios.Approx(jc.Events), scenarios.Approx(cfg.MaxEvents))
		}
	}
	if f.out != "" {
		// Taken before any work: a folder that is not ours, or that another sharesim is
		// writing, is refused now, not after the run.
		od, err := takeOut(f.out, "run", f.force)
		if err != nil {
			return err
		}
		defer od.release()
	}
	if sc.Kind() == scenarios.KindScripted {
		return runScripted(stdout, sc, f)
	}
	intr := catchInterrupts()
	defer intr.Stop()
	so := simOpts{sample: f.out != "", stop: intr.Interrupted}
	// The streams below write temporary files renamed into place when they close
	// (internal/atomicfile), so a result's name never holds half a file.
	if f.history {
		if so.history, err = reports.CreateHistory(filepath.Join(f.out, "history.ndjson")); err != nil {
			return usageErr("--out %s: %v", f.out, err)
		}
	}
	var events *reports.EventsWriter
	if f.out != "" {
		if events, err = reports.CreateEvents(filepath.Join(f.out, "events.ndjson")); err != nil {
			return usageErr("--out %s: %v", f.out, err)
		}
		so.trace = events
	}
	var series *reports.SeriesFiles
	if f.out != "" {
		// The time series goes to the result folder as it is sampled, so memory does not
		// grow with the length of the run.
		if series, err = reports.CreateSeriesFiles(f.out, cfg.MetricsIntervalMs); err != nil {
			return usageErr("--out %s: %v", f.out, err)
		}
		so.series = series.Add
	} else {
		so.series = func(*sim.Sample) {} // nothing reads the time series without a result folder
	}
	if !f.quiet && !f.json {
		so.progress = newProgress(stderr, "run "+sc.Name(), float64(cfg.DurationMs+cfg.HealMs), virtualTimeOf)
	}
	o, err := simulate(sc, seed, so)
	so.progress.finish()
	if so.history != nil {
		if cerr := so.history.Close(); err == nil && cerr != nil {
			return &exitError{code: exitUsage, err: cerr}
		}
	}
	if events != nil {
		if cerr := events.Close(); err == nil && cerr != nil {
			return &exitError{code: exitUsage, err: cerr}
		}
	}
	if series != nil {
		if cerr := series.Close(); err == nil && cerr != nil {
			return &exitError{code: exitUsage, err: cerr}
		}
	}
	var ee *exitError
	cut := errors.As(err, &ee) && ee.code == exitIncomplete && o != nil
	if err != nil && !cut {
		return err
	}
	cmdline := reproduceCommand(arg, seed, f.sets)
	sum := buildSummary(sc, seed, o, f.sets, cmdline)
	unknown := 0
	if lin := o.ck.Linearizability(); lin != nil && !cut {
		unknown = len(lin.Unknown())
	}
	switch {
	case cut && o.cutShort == "interrupted":
		sum.Verdict, sum.CutShort = "interrupted", "interrupted by a signal after "+strconv.FormatInt(o.res.Events, 10)+" events"
	case cut:
		sum.Verdict, sum.CutShort = "incomplete", "max_events reached after "+strconv.FormatInt(o.res.Events, 10)+" events"
	case unknown > 0 && sum.Verdict == "pass":
		sum.Verdict = "incomplete"
	}
	if f.out != "" {
		yml, err := sc.Canonical()
		if err != nil {
			return inputErr(err)
		}
		if err := reports.WriteRun(f.out, sum, o.res, yml); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if o.ck != nil && f.out != "" && !cut {
		if _, err := o.ck.WriteLinearizabilityHTML(filepath.Join(f.out, "linearizability.html")); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	if f.out != "" && !f.noReport {
		// Last, so that the page links every file of the folder (linearizability.html too).
		report := stdout
		if f.json {
			report = io.Discard
		}
		if err := drawReport(report, f.out, false); err != nil {
			return err
		}
	}
	if f.json {
		if err := writeJSONTo(stdout, sum); err != nil {
			return err
		}
	} else if cut {
		fmt.Fprintln(stdout, ee.err)
		if f.out != "" {
			fmt.Fprintf(stdout, "  what it did so far is in %s (verdict %s); 'sharesim replay %s' re-runs those events\n", filepath.ToSlash(f.out), sum.Verdict, shellQuote(filepath.ToSlash(f.out)))
		}
	} else {
		printSummary(stdout, sum, f, o.cfg.Kafka.Bug)
		if unknown > 0 {
			fmt.Fprintf(stdout, "  linearizability unknown on %d share-partition(s): the check ran out of time (--lin-time-limit %s); the run is incomplete, not passed\n", unknown, linearize.DefaultTimeLimit)
		}
	}
	switch {
	case cut:
		return &exitError{code: exitIncomplete}
	case len(o.violations) > 0:
		return checksFailed
	case unknown > 0:
		return &exitError{code: exitIncomplete}
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Cost thresholds: above confirmEvents estimated events, or confirmBytes of estimated
// memory or disk, a run or sweep needs --yes (or a "y" typed on a terminal); above
// noteEvents the estimate is printed on stderr.
var (
	confirmEvents int64 = 100_000_000
	noteEvents    int64 = 10_000_000
	confirmBytes  int64 = 4 << 30
)

// Sizes behind the memory and disk estimates. The history checks hold state only for the
// records still open on each share-partition (not yet finished, or finished less than a
// request timeout ago: until every request in flight when it finished has returned), so
// their memory follows the in-flight window, never the length of the run:
// historyBytesPerOpenRecord is what they hold per open record (the fetch and
// acknowledgement operations that name it, its first ACCEPT and its deliveries; about 100 B
// kept per record by the whole history, rounded up for the per-offset tables).
// traceBytesPerEvent is the size of events.ndjson per event (16 B).
const (
	historyBytesPerOpenRecord = 200
	traceBytesPerEvent        = 16
)

// jobCost is a run's cost estimate with what it will hold and write.
type jobCost struct {
	scenarios.Cost
	// HistoryBytes is the memory the history checks will hold (0 when none is on).
	HistoryBytes int64
	// TraceBytes is the size of events.ndjson (0 without --out).
	TraceBytes int64
}

func newJobCost(cfg sim.Config, names []string, out bool) jobCost {
	j := jobCost{Cost: scenarios.EstimateCost(cfg)}
	if ck, err := checker.New(cfg, names); err == nil && len(names) > 0 && ck.NeedsHistory() {
		j.HistoryBytes = satMul(openRecords(cfg, j.Cost), historyBytesPerOpenRecord)
	}
	if out {
		j.TraceBytes = satMul(j.Events, traceBytesPerEvent)
	}
	return j
}

// openRecords bounds the records the history checks hold at once: per share-partition,
// the in-flight window (group.share.partition.max.record.locks, the largest in force) plus what its partition
// receives in a request timeout, and never more than the partition receives in all.
func openRecords(cfg sim.Config, c scenarios.Cost) int64 {
	if c.SharePartitions == 0 || c.Partitions == 0 {
		return 0
	}
	perPart := c.Records / c.Partitions
	lag := int64(0)
	if cfg.DurationMs > 0 {
		lag = satMul(perPart, max(cfg.Network.RequestTimeoutMs, 0)) / cfg.DurationMs
	}
	capMax := int64(cfg.Kafka.PartitionMaxRecordLocks) // the largest cap in force: config changes may raise it
	for _, st := range cfg.ConfigSteps() {
		capMax = max(capMax, int64(st.After.PartitionMaxRecordLocks))
	}
	open := min(perPart, capMax+lag)
	return satMul(c.SharePartitions, open)
}

func (j jobCost) String() string {
	s := j.Cost.String()
	if j.HistoryBytes > 0 {
		s += fmt.Sprintf("; the history checks hold ~%s in memory", approxBytes(j.HistoryBytes))
	}
	if j.TraceBytes > 0 {
		s += fmt.Sprintf("; events.ndjson takes ~%s", approxBytes(j.TraceBytes))
	}
	return s
}

func approxBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.3g kB", float64(b)/(1<<10))
}

// confirmCost prints the estimate of a big job and asks for confirmation above the
// thresholds: on a terminal it asks; elsewhere it refuses without --yes.
func confirmCost(stderr io.Writer, stdin io.Reader, what string, c jobCost, yes bool) error {
	big := c.Events >= confirmEvents || c.HistoryBytes >= confirmBytes || c.TraceBytes >= confirmBytes
	if c.Events < noteEvents && !big {
		return nil
	}
	fmt.Fprintf(stderr, "%s: estimated %s\n", what, c)
	if !big || yes {
		return nil
	}
	reason := fmt.Sprintf("estimated ~%s events", scenarios.Approx(c.Events))
	switch {
	case c.Events >= confirmEvents:
		reason += fmt.Sprintf(", above %s", scenarios.Approx(confirmEvents))
	case c.HistoryBytes >= confirmBytes:
		reason = fmt.Sprintf("the history checks would hold ~%s for the records in flight on %d share-partitions", approxBytes(c.HistoryBytes), c.SharePartitions)
	default:
		reason = fmt.Sprintf("events.ndjson would take ~%s", approxBytes(c.TraceBytes))
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) && isTerminal(stderr) {
		fmt.Fprintf(stderr, "This is big (%s). Run it? [y/N] ", reason)
		var answer string
		fmt.Fscanln(stdin, &answer)
		if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
			return nil
		}
		return usageErr("%s: not confirmed", what)
	}
	return usageErr("%s is big (%s): pass --yes to run it", what, reason)
}

// writeJSONTo prints v as indented JSON (--json).
func writeJSONTo(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func buildSummary(sc *scenarios.Scenario, seed uint64, o *outcome, sets []string, cmdline string) *reports.Summary {
	s := &reports.Summary{
		Scenario: sc.Name(), Title: reports.TitleWithOverrides(sc.Title(), sets), Seed: seed, Sharesim: version, Kafka: o.cfg.Kafka.Version.String(),
		Verdict: "pass", Headline: reports.NewHeadline(o.res), Groups: reports.NewHeadlines(o.res), Metrics: o.res.Metrics, Marks: reports.MarksMap(o.res),
		Final: o.res.Final, TraceSHA256: o.res.TraceSHA256, Events: o.res.Events, EndMs: o.res.EndMs,
		Overrides: sets, Command: cmdline, Violations: []reports.Violation{}, Focus: sc.Focus(), ConfigChanges: o.res.ConfigChanges,
	}
	for _, v := range o.violations {
		s.Violations = append(s.Violations, reports.Violation{Check: v.Check, Message: v.String(), TimeMs: v.TimeMs, Event: v.Event, Reproduce: cmdline})
	}
	if len(s.Violations) > 0 {
		s.Verdict = "fail"
	}
	return s
}

// printSummary prints the verdict line and the summary; bug is the bug-zoo variant the run
// used (shown in the verdict line), "" for the faithful core.
func printSummary(w io.Writer, s *reports.Summary, f runFlags, bug string) {
	verdict := strings.ToUpper(s.Verdict)
	variant := ""
	if bug != "" {
		variant = ", bug-zoo variant " + bug
	}
	fmt.Fprintf(w, "%s %s (seed %d, Kafka %s%s, %s of virtual time, %d events)\n", verdict, s.Scenario, s.Seed, s.Kafka, variant, fmtDuration(s.EndMs), s.Events)
	if !f.quiet {
		if s.Title != "" && s.Title != s.Scenario {
			fmt.Fprintf(w, "  %s\n", s.Title)
		}
		printAnswer(w, s)
		printConfigChanges(w, s.ConfigChanges)
		for i := range s.Metrics.Groups {
			printGroup(w, &s.Metrics.Groups[i])
		}
		fmt.Fprintf(w, "  trace sha256 %s\n", s.TraceSHA256)
	}
	for _, v := range s.Violations {
		fmt.Fprintf(w, "  violation: %s\n", v.Message)
	}
	if len(s.Violations) > 0 {
		fmt.Fprintf(w, "  reproduce: %s\n", s.Command)
	}
	if f.out != "" {
		fmt.Fprintf(w, "  results in %s\n", filepath.ToSlash(f.out))
	}
}

// printAnswer states the figures the scenario names in its focus key, per group, before the
// details: the answer to the scenario's question.
func printAnswer(w io.Writer, s *reports.Summary) {
	if len(s.Focus) == 0 {
		return
	}
	for i := range s.Groups {
		h := &s.Groups[i]
		var parts []string
		for _, f := range s.Focus {
			if text, ok := reports.DescribeFigure(f, h, fmtDuration); ok {
				parts = append(parts, text)
			}
		}
		who := ""
		if len(s.Groups) > 1 {
			who = h.Group + ": "
		}
		fmt.Fprintf(w, "  answer: %s%s (window %s–%s)\n", who, strings.Join(parts, "; "), fmtDuration(h.WindowStartMs), fmtDuration(h.WindowEndMs))
	}
}

// printGroup prints one group's figures: the answer first (did it keep up, duplicates per
// hour, latency), then the details. docs/metrics.md defines every number.
func printGroup(w io.Writer, g *sim.GroupMetrics) {
	win, r, t, k := g.Window, g.Rates, g.Totals, g.KeepUp
	done := "completed (ACCEPT written)"
	if g.Type == "classic" {
		done = "completed (offset committed)"
	}
	fmt.Fprintf(w, "  group %s (%s, %d consumers) over the window %s–%s", g.Name, g.Type, len(g.Consumers), fmtDuration(win.StartMs), fmtDuration(win.EndMs))
	if late := g.FirstDeliveryMs - win.StartMs; win.WarmupMs == 0 && win.LengthMs() > 0 && 100*late >= win.LengthMs() {
		// Rates include the start, before the consumers got going: say by how much.
		// At least 1 % of the window passed before the first delivery: rates read that much low.
		fmt.Fprintf(w, " (no warm-up: the first record reached a consumer at %s, %.1f%% into the window, so the rates read about that much below the steady state)",
			fmtDuration(g.FirstDeliveryMs), 100*float64(min(late, win.LengthMs()))/float64(win.LengthMs()))
	}
	fmt.Fprintln(w, ":")
	if k.KeptUp {
		fmt.Fprintf(w, "    kept up: %.1f records/s arrived, %.1f/s %s", r.ArrivalPerSec, r.CompletedPerSec, done)
		if r.CompletedPerSec > r.ArrivalPerSec && k.BacklogStart > 0 {
			// More completed than arrived: the backlog waiting at the window's start drained.
			fmt.Fprintf(w, ", the backlog of %d at the window's start included", k.BacklogStart)
		}
		if other := r.FinishedPerSec - r.CompletedPerSec; r.ArrivalPerSec > 0 && other > 0.05*r.ArrivalPerSec {
			ended := withoutKey(g.InWindow.Finished, "accepted")
			if n := g.InWindow.DeletedUndelivered; n > 0 {
				ended["deleted before delivery"] = n
			}
			delete(ended, "gap")
			fmt.Fprintf(w, ", but %.1f/s ended otherwise (%s)", other, causesList(ended))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "    DID NOT KEEP UP: %.1f records/s arrived, %.1f/s finished; backlog %d → %d (%+.1f/s in the second half)\n",
			k.ArrivalPerSec, k.FinishedPerSec, k.BacklogStart, k.BacklogEnd, k.BacklogGrowthPerSec)
		fmt.Fprintf(w, "    why: %s\n", k.Reason)
		if k.Advice != "" {
			fmt.Fprintf(w, "    would help: %s\n", k.Advice)
		}
	}
	in := g.InWindow
	fmt.Fprintf(w, "    duplicates %.1f per hour (%d in the window, %.2f%% of successful processings)%s\n",
		r.DuplicatesPerHour, in.Duplicates, 100*r.DuplicateFraction, causes(in.DuplicatesByCause))
	fmt.Fprintf(w, "    redeliveries %.1f per hour, lock timeouts %.1f per hour; %.3f deliveries per record",
		r.RedeliveriesPerHour, r.LockTimeoutsPerHour, g.DeliveriesPerRecord)
	if rc := g.RedeliveriesByCause; rc != (sim.RedeliveryCauses{}) {
		// Over the run (the causes are not kept per window): what made records available again.
		fmt.Fprintf(w, "; redelivered over the run after %s", causesList(map[string]int64{"lock expiry": rc.LockExpiry, "crash": rc.Crash,
			"release": rc.Release, "failover": rc.Failover, "other": rc.Other}))
	}
	fmt.Fprintln(w)
	l := g.Latency
	fmt.Fprintf(w, "    latency from produce: first delivery %s; processed %s; %s %s\n",
		latencyText(l.FirstDelivery), latencyText(l.Processed), done, latencyText(l.Completed))
	a := g.Accounting
	fmt.Fprintf(w, "    records over the run: produced %d, completed %d", t.Produced, t.Completed)
	if g.Type == "share" {
		if len(a.Finished) == 0 {
			fmt.Fprintf(w, "; no offset left the in-flight window")
		} else {
			fmt.Fprintf(w, "; left the in-flight window as %s", causesList(a.Finished))
		}
	}
	if a.DeletedUndelivered > 0 {
		fmt.Fprintf(w, "; deleted before delivery %d", a.DeletedUndelivered)
		if a.DeletedBeforeFirstLoad > 0 {
			fmt.Fprintf(w, " (%d before the group first read)", a.DeletedBeforeFirstLoad)
		}
	}
	if a.SkippedByOffsetReset > 0 {
		fmt.Fprintf(w, "; skipped by the offset reset %d", a.SkippedByOffsetReset)
	}
	if a.UnfinishedTotal > 0 {
		fmt.Fprintf(w, "; unfinished at the end %d (%s)", a.UnfinishedTotal, causesList(a.Unfinished))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "    consumers: %d of %d got work, %.0f%% busy on average, the busiest 10%% did %.0f%% of the work",
		k.ConsumersWithWork, k.Consumers, 100*k.MeanBusy, 100*k.Top10Share)
	if g.SPSOStuckMaxMs > 0 && g.Type == "share" {
		fmt.Fprintf(w, "; start offset stuck up to %s", fmtDuration(g.SPSOStuckMaxMs))
	}
	if t.KeyedProcessed > 0 {
		fmt.Fprintf(w, "; %.2f%% of same-key records out of order", 100*g.ReorderedFraction)
	}
	fmt.Fprintln(w)
	if q := g.DeadLetterQueue; q != nil {
		fmt.Fprintf(w, "    dead-letter queue: %d records produced (%d rejected, %d at the delivery limit), %d archived after every produce attempt failed, %d produced again after a failover, %d archived at the limit without a DLQ step; longest DLQ step %s\n",
			q.RecordsRejected+q.RecordsDeliveryLimit, q.RecordsRejected, q.RecordsDeliveryLimit, q.ProduceFailed, q.Duplicates, q.BypassedAtLimit, fmtDuration(q.HeldMaxMs))
	}
}

// withoutKey copies m without key k.
func withoutKey(m map[string]int64, k string) map[string]int64 {
	out := map[string]int64{}
	for key, v := range m {
		if key != k {
			out[key] = v
		}
	}
	return out
}

// latencyText prints a latency's median and 99th percentile, or n/a when nothing reached it.
func latencyText(l sim.Latency) string {
	if l.Count == 0 || l.P50Ms == nil {
		return "n/a (none)"
	}
	return fmt.Sprintf("p50 %s, p99 %s", fmtDuration(*l.P50Ms), fmtDuration(*l.P99Ms))
}

func causes(m map[string]int64) string {
	var parts []string
	for _, k := range reports.SortedKeys(m) {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// causesList lists m's causes, the largest first, leaving out those at 0.
func causesList(m map[string]int64) string {
	keys := reports.SortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		if m[k] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// fmtDuration prints virtual milliseconds compactly, as the summary does (sim.FormatMs).
func fmtDuration(ms int64) string { return sim.FormatMs(ms) }

// runScripted runs a scripted scenario and reports its expectations.
func runScripted(stdout io.Writer, sc *scenarios.Scenario, f runFlags) error {
	res, err := scenarios.RunScript(sc)
	if err != nil {
		return inputErr(err)
	}
	verdict, rest, _ := strings.Cut(res.String(), "\n")
	fmt.Fprintln(stdout, verdict)
	if len(f.sets) > 0 && sc.Title() != "" {
		// As for a workload: the title (and the expectations) describe the scenario as
		// written, which --set changed (a script written for Kafka 4.1 fails on 4.4).
		fmt.Fprintln(stdout, "  "+reports.TitleWithOverrides(sc.Title(), f.sets))
	}
	if rest != "" {
		fmt.Fprintln(stdout, rest)
	}
	if f.out != "" {
		if err := writeScriptResult(f.out, sc, res); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		fmt.Fprintf(stdout, "  results in %s\n", filepath.ToSlash(f.out))
	}
	if !res.Pass {
		return checksFailed
	}
	return nil
}

// printConfigChanges lists the run's config changes: accepted with the values then in
// force, refused with Kafka's error.
func printConfigChanges(w io.Writer, cs []sim.ConfigChange) {
	for _, c := range cs {
		if c.Error == "NONE" {
			fmt.Fprintf(w, "  config change at %s on %s: %s accepted (limit %d, cap %d, lock %d ms from then on)\n",
				fmtDuration(c.AtMs), c.Group, c.Set, c.DeliveryCountLimit, c.PartitionMaxRecordLocks, c.RecordLockDurationMs)
			continue
		}
		fmt.Fprintf(w, "  config change at %s on %s: %s refused, %s: %s\n", fmtDuration(c.AtMs), c.Group, c.Set, c.Error, c.Reason)
	}
}
