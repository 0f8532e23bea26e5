// Package live runs a scenario through a real Kafka client (franz-go's kgo: producers,
// its share consumer, classic consumer groups) against a real broker — an embedded kfake
// cluster by default, or a cluster given by its bootstrap servers — records the
// client-visible history in the simulator's operation types, checks it with the same
// checker entry point as a simulated run (checker.CheckHistory, checker.CheckAccounting),
// and sets the simulator's prediction for the same scaled scenario beside the measurement.
//
// Wall time and goroutines live here and nowhere else in sharesim. Times in the history
// and the figures are milliseconds since the start of production, in the scaled scenario's
// time (--time-scale), so they compare one to one with the simulator's.
package live

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/live/deviation"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// Options configure a live run.
type Options struct {
	Target Target
	// TimeScale multiplies every duration of the scenario (and divides every rate); 0 is 1.
	TimeScale float64
	// Seed overrides the scenario's seed when non-zero.
	Seed uint64
	// Out, when set, is the result folder: history, verdict, figures and the report page.
	Out string
	// Repeat is how many live runs measure the noise between runs (0 or 1: one).
	Repeat int
	// Progress receives one-line progress messages (nil: none).
	Progress io.Writer
	// MaxWall bounds the whole run's wall time per attempt (0: the scaled scenario's
	// duration and healing phase plus two minutes). Past it the attempt is interrupted.
	MaxWall time.Duration

	// probe, when set (tests), is called at every reading of the groups' offsets with the
	// scenario time, the per-offset entries the run holds (meter.retained) and the
	// operations recorded so far.
	probe func(atMs int64, retained, window, ops int)
}

// Status is one check's verdict.
type Status string

// Check statuses.
const (
	Pass Status = "PASS"
	// Deviation: the check failed, and passes once the outcomes a known error-code-only
	// deviation of the broker can misreport are taken as unknown; the run is not failed
	// for it, and the deviation is named.
	Deviation Status = "DEVIATION"
	Fail      Status = "FAIL"
	Undecided Status = "UNDECIDED"
	NotRun    Status = "NOT RUN"
)

// CheckResult is one check's verdict on a live run.
type CheckResult struct {
	Check  string `json:"check"`
	Status Status `json:"status"`
	// Detail says why a check did not run or could not decide.
	Detail     string              `json:"detail,omitempty"`
	Violations []checker.Violation `json:"violations,omitempty"`
	// Deviations are the broker's known deviations (live/deviation) that can make this
	// check fail, named when it failed.
	Deviations []string `json:"deviations,omitempty"`
}

// Row is one headline figure, predicted and measured.
type Row struct {
	Group  string `json:"group"`
	Figure string `json:"figure"`
	// Predicted is the simulator's figure for the run's seed (the one the plots draw);
	// PredictedLow and PredictedHigh the lowest and highest over PredictionSeeds seeds
	// (the run's and the next ones): the simulator's own seed-to-seed spread, which for a
	// scenario decided by a few rare events is wider than any one seed's value suggests.
	Predicted     *float64  `json:"predicted"`
	PredictedLow  *float64  `json:"predicted_low"`
	PredictedHigh *float64  `json:"predicted_high"`
	Measured      *float64  `json:"measured"`
	Runs          []float64 `json:"runs,omitempty"`
	// Ratio is measured ÷ predicted (nil when either is missing or the prediction is 0).
	Ratio *float64 `json:"ratio"`
	// Noise is the relative standard deviation between repeated live runs (nil: one run).
	Noise *float64 `json:"noise"`
	// Flagged: the measurement lies outside the predicted spread by more than the
	// run-to-run noise (Why says by how much).
	Flagged bool   `json:"flagged"`
	Why     string `json:"why,omitempty"`
}

// Result is a live run's outcome.
type Result struct {
	Scenario string  `json:"scenario"`
	Broker   string  `json:"broker"`
	Seed     uint64  `json:"seed"`
	Scaling  Scaling `json:"scaling"`
	// NotApplied lists scenario settings the real system decides (nothing is dropped
	// without being named here); Applied the broker and group settings the run set.
	NotApplied []string `json:"not_applied"`
	Applied    []string `json:"applied"`
	Notes      []string `json:"notes,omitempty"`
	// Checks are the first attempt's verdicts (a later attempt's failure is added).
	Checks      []CheckResult `json:"checks"`
	Comparison  []Row         `json:"comparison"`
	Runs        int           `json:"runs"`
	Interrupted bool          `json:"interrupted"`
	Drained     bool          `json:"drained"`
	WallSeconds []float64     `json:"wall_seconds"`
	Operations  int           `json:"operations"`
	// HistoryOffsetMs: history.ndjson's times count from the start of the clients; the
	// figures' and the verdicts' from the start of production, this much later.
	HistoryOffsetMs int64 `json:"history_offset_ms"`
	// Accounting is the first attempt's per-group accounting.
	Accounting map[string]sim.Accounting `json:"accounting"`

	predicted *sim.Result
	measured  []point
	// measuredRuns holds every run's series (measured is the first's).
	measuredRuns [][]point
}

// ExitCode is the command's exit code: 3 interrupted or a check undecided (unless one
// failed), 1 a check failed, 0 every check that ran passed.
func (r *Result) ExitCode() int {
	if r.Interrupted {
		return 3
	}
	undecided := false
	for _, c := range r.Checks {
		if c.Status == Fail {
			return 1
		}
		if c.Status == Undecided {
			undecided = true
		}
	}
	if undecided {
		return 3
	}
	return 0
}

// Run runs the scenario live. ctx cancelled (Ctrl-C) interrupts it: production stops, the
// consumers drain for a short while and close, and the result is complete but Interrupted.
// A scenario feature live mode cannot do is an *UnsupportedError.
func Run(ctx context.Context, s *scenarios.Scenario, o Options) (*Result, error) {
	if s.Kind() != scenarios.KindWorkload {
		return nil, &UnsupportedError{Key: "kind", Why: "a scripted scenario drives one share-partition step by step; live mode runs workloads"}
	}
	cfg, err := s.SimConfig()
	if err != nil {
		return nil, err
	}
	f := o.TimeScale
	if f == 0 {
		f = 1
	}
	notApplied, err := support(&cfg, o.Target)
	if err != nil {
		return nil, err
	}
	scaled, scaling, err := Scale(cfg, f, o.Target.FloorsFor())
	if err != nil {
		return nil, fmt.Errorf("scaling the scenario by %g: %w", f, err)
	}
	seed := s.Seed()
	if o.Seed != 0 {
		seed = o.Seed
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	res := &Result{Scenario: s.Name(), Broker: o.Target.Broker(), Seed: seed, Scaling: scaling, NotApplied: notApplied}
	if o.Out != "" {
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", o.Out, err)
		}
	}

	fmt.Fprintf(progress, "live: predicting %s (seed %d, time scale %g) in the simulator\n", s.Name(), seed, f)
	pred, err := sim.Run(scaled, seed, sim.Options{})
	if err != nil {
		return nil, fmt.Errorf("the simulator's prediction: %w", err)
	}
	res.predicted = pred

	runs := max(o.Repeat, 1)
	maxWall := o.MaxWall
	if maxWall == 0 {
		maxWall = time.Duration(scaled.DurationMs+max(scaled.HealMs, 2*scaled.Kafka.RecordLockDurationMs))*time.Millisecond + 2*time.Minute
	}
	ck := checksFor(CheckNames(s), o.Target.Broker())
	win := windowOf(pred)
	var figs [][]Figures
	for i := 0; i < runs; i++ {
		hist := ""
		if o.Out != "" {
			hist = filepath.Join(o.Out, "history.ndjson")
			if i > 0 {
				hist = filepath.Join(o.Out, fmt.Sprintf("history-%d.ndjson", i+1))
			}
		}
		actx, cancel := context.WithTimeout(ctx, maxWall)
		fmt.Fprintf(progress, "live: run %d of %d\n", i+1, runs)
		a, err := runAttempt(actx, scaled, seed, o.Target, hist, progress, ck, win, o.probe)
		timedOut := actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err != nil {
			return nil, err
		}
		if timedOut {
			a.notes = append(a.notes, fmt.Sprintf("reached the wall-time bound %s and was interrupted", maxWall))
		}
		res.WallSeconds = append(res.WallSeconds, a.elapsed.Seconds())
		for _, n := range a.notes {
			if runs > 1 {
				n = fmt.Sprintf("run %d: %s", i+1, n)
			}
			res.Notes = append(res.Notes, n)
		}
		res.Runs++
		var fs []Figures
		for _, g := range scaled.Groups {
			fs = append(fs, a.meter.figures(g.Name))
		}
		figs = append(figs, fs)
		checks := verdict(&scaled, ck, o.Target.Broker(), a)
		res.measuredRuns = append(res.measuredRuns, a.meter.series)
		if i == 0 {
			res.Applied, res.Checks, res.Accounting, res.Operations = a.applied, checks, a.accounting, a.ops
			res.Drained, res.measured, res.HistoryOffsetMs = a.drained, a.meter.series, a.offsetMs
		} else {
			mergeChecks(res.Checks, checks, i+1)
		}
		if a.interrupted {
			res.Interrupted = true
			break
		}
	}
	// The prediction's spread, after the live runs so that it does not delay them.
	preds := []*sim.Result{pred}
	for k := uint64(1); k < PredictionSeeds; k++ {
		p, err := sim.Run(scaled, seed+k, sim.Options{})
		if err != nil {
			return nil, fmt.Errorf("the simulator's prediction, seed %d: %w", seed+k, err)
		}
		preds = append(preds, p)
	}
	res.Comparison = compare(scaled, preds, figs)
	if o.Out != "" {
		if err := writeResult(o.Out, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func windowOf(res *sim.Result) sim.Window {
	if len(res.Metrics.Groups) > 0 {
		return res.Metrics.Groups[0].Window
	}
	return res.Metrics.Window
}

// mergeChecks adds a later attempt's failures to the first attempt's verdicts.
func mergeChecks(into, more []CheckResult, run int) {
	for i := range into {
		for _, m := range more {
			if m.Check != into[i].Check {
				continue
			}
			if m.Status == Fail && into[i].Status != Fail {
				into[i].Status, into[i].Deviations = Fail, m.Deviations
				into[i].Detail = fmt.Sprintf("failed in run %d", run)
			}
			if m.Status == Undecided && into[i].Status == Pass {
				into[i].Status, into[i].Detail = Undecided, fmt.Sprintf("run %d: %s", run, m.Detail)
			}
			into[i].Violations = append(into[i].Violations, m.Violations...)
		}
	}
}

// CheckNames are the checks a live run is asked for: the scenario's, or the defaults.
// "all" is every check of the catalogue, "none" none.
// Live mode adds nothing-below-spso-acquired to the defaults: a broker delivering below a
// log start it already reported moved is what a live run is best placed to see.
func CheckNames(s *scenarios.Scenario) []string {
	cs := s.Checks()
	if len(cs) == 0 {
		return append(append([]string(nil), checker.DefaultChecks...), "nothing-below-spso-acquired")
	}
	var out []string
	for _, n := range cs {
		switch n {
		case "all":
			return checker.Names()
		case "none":
			return nil
		}
		out = append(out, n)
	}
	return out
}

// checks are the checks a live run is asked for (names) and, among them, those a known
// error-code-only deviation of the broker can fail (shadow): those also run on the history
// with the outcomes the deviation can falsify taken as unknown.
type checks struct{ names, shadow []string }

func checksFor(names []string, broker string) checks {
	ck := checks{names: names}
	for _, n := range names {
		for _, d := range deviation.ForCheck(broker, n) {
			if d.ErrorCodeOnly {
				ck.shadow = append(ck.shadow, n)
				break
			}
		}
	}
	return ck
}

// verdict gives the verdicts of one attempt: the history checks streamed during the run
// (checker.HistoryStream, the code CheckHistory runs), the accounting checks through
// checker.CheckAccounting and liveness through checker.CheckLiveness on what the broker's
// offsets and the history showed at the end; the rest are named as not run (they read the
// broker's internal state).
func verdict(cfg *sim.Config, ck checks, broker string, a *attempt) []CheckResult {
	names := ck.names
	if len(names) == 0 {
		return nil
	}
	hv := a.hv
	res := &sim.Result{}
	groups := make([]string, 0, len(a.accounting))
	for g := range a.accounting {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		res.Metrics.Groups = append(res.Metrics.Groups, sim.GroupMetrics{Name: g, Type: groupType(cfg, g), Accounting: a.accounting[g]})
	}
	av, aran := checker.CheckAccounting(names, res)
	byCheck := map[string][]checker.Violation{}
	for _, v := range append(append([]checker.Violation(nil), hv.Violations...), av...) {
		byCheck[v.Check] = append(byCheck[v.Check], v)
	}
	ran := map[string]bool{}
	for _, n := range append(append([]string(nil), hv.Ran...), aran...) {
		ran[n] = true
	}
	var out []CheckResult
	for _, n := range names {
		cr := CheckResult{Check: n}
		isHist, isAcc := false, n == "no-silent-loss" || n == "records-accounted"
		for _, h := range hv.Ran {
			isHist = isHist || h == n
		}
		switch {
		case n == "liveness":
			cr = liveness(cfg, broker, a, res)
		case isHist && a.ops == 0:
			cr.Status, cr.Detail = NotRun, "no share-group operation was recorded (no share group, or nothing fetched)"
		case isAcc && len(a.accounting) == 0 && ran[n]:
			cr.Status, cr.Detail = NotRun, "no group to account for"
		case !ran[n] && isAcc:
			cr.Status, cr.Detail = NotRun, "the end-of-run accounting could not be read from the broker"
		case !ran[n]:
			cr.Status, cr.Detail = NotRun, "reads the broker's internal share-partition state, which a client cannot see"
		case len(byCheck[n]) > 0:
			cr.Status, cr.Violations = Fail, byCheck[n]
			for _, d := range deviation.ForCheck(broker, n) {
				cr.Deviations = append(cr.Deviations, d.ID)
			}
			if ids, ok := recheck(ck, n, broker, a); ok {
				cr.Status, cr.Deviations = Deviation, ids
				cr.Detail = fmt.Sprintf("%d violations, all gone once the %d acknowledgement outcomes %s can misreport are taken as unknown", len(byCheck[n]), a.suspect, broker)
			}
		case n == "linearizable" && hv.Undecided():
			var parts []string
			for _, u := range hv.Linearizability.Unknown() {
				parts = append(parts, u.Group+"/"+u.Partition)
			}
			cr.Status, cr.Detail = Undecided, "the linearizability search ran out of time on "+strings.Join(parts, ", ")
		case (n == "no-silent-loss" || n == "records-accounted") && a.interrupted:
			cr.Status, cr.Detail = Undecided, "the run was interrupted: records still in flight cannot be told from lost ones"
		default:
			cr.Status = Pass
		}
		out = append(out, cr)
	}
	return out
}

func groupType(cfg *sim.Config, name string) string {
	for _, g := range cfg.Groups {
		if g.Name == name && g.Type != sim.ShareGroup {
			return "classic"
		}
	}
	return "share"
}

// liveness decides the liveness check on what the client and the broker's offsets show
// after the healing phase: every share-partition's start offset reached the log end or
// everything above it ended (a final outcome the history shows, or deleted by the log
// start), every classic partition committed to the log end (checker.CheckLiveness on the
// end states). Live mode has no capacity figures, so a group that did not keep up is not
// told apart: each undrained partition is reported on its own. UNDECIDED: a partition is
// undrained and the run was interrupted (the healing phase was cut short), or it is
// undrained only by records whose terminal acknowledgement's answer was lost (they may have
// ended). Everything drained passes, interrupted or not.
func liveness(cfg *sim.Config, broker string, a *attempt, res *sim.Result) CheckResult {
	cr := CheckResult{Check: "liveness"}
	switch {
	case cfg.HealMs <= 0:
		cr.Status, cr.Detail = NotRun, "the scenario has no healing phase (as in the simulator, liveness is checked after it)"
		return cr
	case len(a.final) == 0:
		cr.Status, cr.Detail = NotRun, "the groups' offsets could not be read from the broker at the end"
		return cr
	}
	end := &sim.Result{Final: a.final, EndMs: res.EndMs}
	for _, g := range res.Metrics.Groups {
		end.Metrics.Groups = append(end.Metrics.Groups, sim.GroupMetrics{Name: g.Name, Type: g.Type, KeepUp: sim.KeepUp{KeptUp: true}})
	}
	unsure := map[string]bool{}
	for _, u := range a.undecided {
		unsure[u] = true
	}
	var sure []checker.Violation
	var open []string
	for _, v := range checker.CheckLiveness(end) {
		if unsure[v.Group+"/"+v.Partition] {
			open = append(open, v.Group+"/"+v.Partition)
			continue
		}
		sure = append(sure, v)
	}
	switch {
	case len(sure) > 0 && a.interrupted:
		cr.Status, cr.Detail = Undecided, fmt.Sprintf("the run was interrupted, so the healing phase was cut short: %d partitions had not drained", len(sure))
	case len(sure) > 0:
		cr.Status, cr.Violations = Fail, sure
		for _, d := range deviation.ForCheck(broker, "liveness") {
			cr.Deviations = append(cr.Deviations, d.ID)
		}
	case len(open) > 0:
		cr.Status, cr.Detail = Undecided, "not drained only by records whose terminal acknowledgement's answer was lost (they may have ended): "+strings.Join(open, ", ")
	default:
		cr.Status = Pass
		cr.Detail = fmt.Sprintf("%d partitions drained after the healing phase (start or committed offset at the log end, or everything above it ended)", len(a.final))
	}
	return cr
}

// recheck reports the broker's error-code-only deviations that explain a failed history
// check: the check ran in the shadow stream, where the outcomes those deviations can
// misreport are unknown (LOST, return time kept: the broker did whatever it did before it
// answered), and passed there. The failure is then explained by them, not by a state the
// broker got wrong.
func recheck(ck checks, check, broker string, a *attempt) ([]string, bool) {
	var ids []string
	for _, d := range deviation.ForCheck(broker, check) {
		if d.ErrorCodeOnly {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 || a.suspect == 0 || a.shadow == nil {
		return nil, false
	}
	ran := false
	for _, n := range a.shadow.Ran {
		ran = ran || n == check
	}
	if !ran || (check == "linearizable" && a.shadow.Undecided()) {
		return nil, false
	}
	for _, v := range a.shadow.Violations {
		if v.Check == check {
			return nil, false
		}
	}
	return ids, true
}

// PredictionSeeds is how many seeds the simulator runs for the prediction's spread: the
// run's seed and the ones after it.
const PredictionSeeds = 10

// compare builds the predicted / measured table from the predictions (preds[0] is the
// run's seed) and the live runs' figures. With several runs, the measured value is their
// mean and the noise their relative standard deviation. A difference is flagged when the
// measurement lies outside the predicted spread (lowest to highest over the seeds) by more
// than three times the noise (or 25 % when the noise is unknown or smaller) of the nearer
// end, and by more than an absolute floor (two events, or 2 ms), so that small counts do
// not flag on chance.
func compare(cfg sim.Config, preds []*sim.Result, figs [][]Figures) []Row {
	pred := preds[0]
	win := windowOf(pred)
	winH := float64(max(win.LengthMs(), 1)) / 3_600_000
	type fig struct {
		name  string
		get   func(Figures) *float64
		floor float64
	}
	val := func(v float64) *float64 { return &v }
	list := []fig{
		{"throughput_per_sec", func(f Figures) *float64 { return val(f.ThroughputPerSec) }, 2 / (winH * 3600)},
		{"duplicates_per_hour", func(f Figures) *float64 { return val(f.DuplicatesPerHour) }, 2 / winH},
		{"redeliveries", func(f Figures) *float64 { return val(f.Redeliveries) }, 2},
		{"e2e_p50_ms", func(f Figures) *float64 { return f.E2EP50Ms }, 2},
		{"e2e_p99_ms", func(f Figures) *float64 { return f.E2EP99Ms }, 2},
		{"backlog_max", func(f Figures) *float64 { return val(f.BacklogMax) }, 2},
	}
	var rows []Row
	for gi, g := range cfg.Groups {
		var ps []Figures
		for _, pr := range preds {
			ps = append(ps, predicted(pr, g.Name))
		}
		for _, fg := range list {
			row := Row{Group: g.Name, Figure: fg.name, Predicted: fg.get(ps[0])}
			for _, p := range ps {
				if v := fg.get(p); v != nil {
					if row.PredictedLow == nil || *v < *row.PredictedLow {
						row.PredictedLow = val(*v)
					}
					if row.PredictedHigh == nil || *v > *row.PredictedHigh {
						row.PredictedHigh = val(*v)
					}
				}
			}
			var sum float64
			for _, run := range figs {
				if gi < len(run) {
					if v := fg.get(run[gi]); v != nil {
						row.Runs = append(row.Runs, *v)
						sum += *v
					}
				}
			}
			if n := len(row.Runs); n > 0 {
				row.Measured = val(sum / float64(n))
				if n > 1 {
					var ss float64
					for _, v := range row.Runs {
						ss += (v - *row.Measured) * (v - *row.Measured)
					}
					sd := math.Sqrt(ss / float64(n-1))
					if *row.Measured != 0 {
						row.Noise = val(sd / math.Abs(*row.Measured))
					} else {
						row.Noise = val(0)
					}
				}
			}
			if row.Predicted != nil && row.Measured != nil {
				pv, mv := *row.Predicted, *row.Measured
				if pv != 0 {
					row.Ratio = val(mv / pv)
				}
				tol := 0.25
				if row.Noise != nil {
					tol = max(tol, 3**row.Noise)
				}
				near := min(max(mv, *row.PredictedLow), *row.PredictedHigh)
				diff := math.Abs(mv - near)
				if diff > tol*math.Max(math.Abs(near), math.Abs(mv)) && diff > fg.floor {
					row.Flagged = true
					row.Why = fmt.Sprintf("%.3g outside the %d seeds' %s, beyond %.0f%% (noise %s) and the floor %.3g",
						diff, len(preds), spread(row), tol*100, noiseString(row.Noise), fg.floor)
				}
			} else if (row.Predicted == nil) != (row.Measured == nil) {
				row.Flagged, row.Why = true, "one side has no value"
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func noiseString(n *float64) string {
	if n == nil {
		return "not estimated: one run"
	}
	return fmt.Sprintf("%.1f%%", *n*100)
}

// Summary writes the human summary: scaling, predicted / measured / ratio, verdicts.
func (r *Result) Summary(w io.Writer) {
	fmt.Fprintf(w, "sharesim live %s on %s (seed %d, time scale %g, %d run(s), %d operations recorded)\n", r.Scenario, r.Broker, r.Seed, r.Scaling.Factor, r.Runs, r.Operations)
	if r.Interrupted {
		fmt.Fprintln(w, "INTERRUPTED: production stopped early; the result covers what ran")
	}
	if len(r.Scaling.Scaled) > 0 {
		fmt.Fprintf(w, "scaled by %g: %d durations and rates (live.json lists each), e.g. %s\n", r.Scaling.Factor, len(r.Scaling.Scaled), r.Scaling.Scaled[0])
	}
	for _, n := range r.NotApplied {
		fmt.Fprintln(w, "not applied: "+n)
	}
	if len(r.Scaling.Floors) > 0 {
		fmt.Fprintln(w, "not scaled (broker minimums):")
		for _, f := range r.Scaling.Floors {
			fmt.Fprintln(w, "  "+f)
		}
	}
	fmt.Fprintf(w, "\npredicted: the simulator with seed %d; spread: lowest–highest over seeds %d–%d\n", r.Seed, r.Seed, r.Seed+PredictionSeeds-1)
	if r.Runs > 1 {
		fmt.Fprintf(w, "measured: the mean of %d live runs; noise: their relative standard deviation\n", r.Runs)
	}
	fmt.Fprintf(w, "%-10s %-20s %10s %15s %10s %6s %7s %s\n", "group", "figure", "predicted", "spread", "measured", "noise", "ratio", "")
	for _, row := range r.Comparison {
		flag := ""
		if row.Flagged {
			flag = "DIFFERS: " + row.Why
		}
		fmt.Fprintf(w, "%-10s %-20s %10s %15s %10s %6s %7s %s\n", row.Group, row.Figure, num(row.Predicted), spread(row), num(row.Measured), noiseCell(row.Noise), num(row.Ratio), flag)
	}
	fmt.Fprintln(w)
	for _, c := range r.Checks {
		line := fmt.Sprintf("%-9s %s", c.Status, c.Check)
		if c.Detail != "" {
			line += " (" + c.Detail + ")"
		}
		fmt.Fprintln(w, line)
		for i, v := range c.Violations {
			if i == 3 {
				fmt.Fprintf(w, "          … %d more\n", len(c.Violations)-3)
				break
			}
			fmt.Fprintln(w, "          "+v.String())
		}
		for _, id := range c.Deviations {
			if d, ok := deviation.ByID(r.Broker, id); ok {
				fmt.Fprintf(w, "          known %s deviation %s: %s\n", r.Broker, d.ID, d.Title)
			}
		}
	}
	if !r.Drained {
		fmt.Fprintln(w, "note: the groups had not drained when the run ended")
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
}

// spread is a row's predicted spread, "low–high".
func spread(r Row) string {
	if r.PredictedLow == nil {
		return "–"
	}
	if lo, hi := num(r.PredictedLow), num(r.PredictedHigh); lo != hi {
		return lo + "–" + hi
	}
	return num(r.PredictedLow) + " (every seed)"
}

func num(v *float64) string {
	if v == nil {
		return "–"
	}
	x := *v
	switch {
	case x == 0:
		return "0"
	case math.Abs(x) >= 1000:
		return fmt.Sprintf("%.0f", x)
	case math.Abs(x) >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.3g", x)
}
