package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/scenarios"
)

// useLadder decides between the ladder and one scope: the ladder unless --scope standard,
// --bug (the bug zoo is measured on the standard scope), a swarm shard or a scope flag asks
// for one scope. --scope ladder with scope flags is a usage error.
func (f *checkFlags) useLadder(bug bool) (bool, error) {
	switch f.preset {
	case "", "ladder":
	case "standard":
		return false, nil
	default:
		return false, usageErr("--scope %q: expected ladder or standard", f.preset)
	}
	if f.preset == "ladder" {
		if len(f.explicit) > 0 {
			return false, usageErr("--scope ladder sets the scope itself: leave out %s", strings.Join(f.explicit, ", "))
		}
		if f.swarm != "" {
			return false, usageErr("--scope ladder cannot run as a swarm shard")
		}
		return true, nil
	}
	return len(f.explicit) == 0 && !bug && f.swarm == "" && !f.estimate, nil
}

// cexPaths says where counterexamples go (--out): the violation's file and each finding's.
type cexPaths struct {
	violation string
	dir       string // a directory: finding-NAME.yaml in it
	stem      string // a file given: STEM-finding-NAME.yaml beside it
	ext       string
}

// newCexPaths reads --out: a directory (existing, or ending in a separator) takes
// counterexample.yaml and finding-NAME.yaml; a file takes the violation and each finding
// beside it as FILE-finding-NAME.EXT; not given, counterexample.yaml and finding-NAME.yaml
// here. The place is checked writable before the search.
func newCexPaths(out string, given bool) (cexPaths, error) {
	var p cexPaths
	if out == "" {
		return p, usageErr("--out: expected a file or a directory")
	}
	isDir := strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator))
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		isDir = true
	}
	switch {
	case isDir:
		p.dir, p.violation = out, filepath.Join(out, "counterexample.yaml")
	case !given:
		p.dir, p.violation = filepath.Dir(out), out
	default:
		p.violation = out
		p.ext = filepath.Ext(out)
		p.stem = strings.TrimSuffix(out, p.ext)
	}
	dir := p.dir
	if dir == "" {
		dir = filepath.Dir(out)
	}
	probe, err := os.CreateTemp(dir, ".sharesim-out-")
	if err != nil {
		return p, usageErr("--out %s: cannot write there: %v", out, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return p, nil
}

// finding is where the counterexample of finding name goes.
func (p cexPaths) finding(name string) string {
	if p.stem != "" {
		return p.stem + "-finding-" + name + p.ext
	}
	return filepath.Join(p.dir, "finding-"+name+".yaml")
}

// interruptChannel returns a channel closed at the first SIGINT or SIGTERM (the search then
// stops at its next wave, removes its spill files and reports what it found so far) and the
// undo; a second signal has its default effect.
func interruptChannel() (<-chan struct{}, func()) {
	c := make(chan os.Signal, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-c:
			signal.Stop(c)
			close(stop)
		case <-done:
		}
	}()
	return stop, func() { signal.Stop(c); close(done) }
}

// rungResult is one rung of the ladder as explored.
type rungResult struct {
	n     int
	rung  explore.Rung
	res   *explore.Result
	skip  string
	proof bool // complete, no violation
}

// rungVerdict is a rung's verdict: PASS, KAFKA FINDINGS with their names, FAIL, or not
// complete.
func (r *rungResult) verdict() string {
	switch {
	case r.skip != "":
		return "not started: " + r.skip
	}
	res := r.res
	var names []string
	for _, f := range res.Findings {
		names = append(names, f.Finding)
	}
	switch {
	case violationOf(res) != nil:
		v := violationOf(res)
		return fmt.Sprintf("FAIL %s after %d steps", v.Invariant, len(v.Path))
	case !res.Complete && len(names) > 0:
		return fmt.Sprintf("not complete (%s; liveness not checked), KAFKA FINDINGS %s", boundName(res.Bounded), strings.Join(names, ", "))
	case !res.Complete:
		return fmt.Sprintf("not complete (%s; liveness not checked)", boundName(res.Bounded))
	case len(names) > 0:
		return "complete, KAFKA FINDINGS " + strings.Join(names, ", ")
	}
	return "complete, PASS"
}

// ladderMinimum is the least time left in which the ladder starts another rung.
const ladderMinimum = 500 * time.Millisecond

// runLadder explores the ladder's rungs in order within f.budget, one line per rung, and
// ends with the largest scope proved and the verdict: FAIL (exit 1) at the first violation
// or stuck state that is no documented finding (the ladder stops there); KAFKA FINDINGS
// (exit 1, as for one scope) when documented findings were met, each with its counterexample
// from the smallest rung that met it; PASS (exit 0) when at least one rung was explored
// completely and nothing was met; INCOMPLETE (exit 3) when no rung finished.
func runLadder(stdout, stderr io.Writer, f checkFlags, base explore.Scope, outs cexPaths) error {
	start := time.Now()
	deadline := start.Add(f.budget)
	rungs := explore.Ladder(base)
	if !f.json {
		fmt.Fprintf(stdout, "ladder: %d scopes of growing size (Kafka %s%s), each explored completely with safety and liveness, within %s (--time); --scope standard explores one large scope instead\n",
			len(rungs), base.Version, coreNote(base), f.budget)
	}
	var done []*rungResult
	findings := map[string]*explore.Found{}
	findingScope := map[string]explore.Scope{}
	var failed *rungResult
	progress := checkProgress(stderr, f)
	for i, r := range rungs {
		rr := &rungResult{n: i + 1, rung: r}
		left := time.Until(deadline)
		select {
		case <-base.Stop:
			rr.skip = "interrupted"
		default:
			if left < ladderMinimum {
				rr.skip = "time budget spent"
			}
		}
		if rr.skip != "" {
			done = append(done, rr)
			break
		}
		sc := r.Scope
		sc.Deadline = deadline
		res, err := explore.Explore(sc, progress)
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		rr.res = res
		done = append(done, rr)
		if !f.json {
			fmt.Fprintln(stdout, rr.line())
		}
		for _, fd := range rr.res.Findings {
			if findings[fd.Finding] == nil {
				findings[fd.Finding], findingScope[fd.Finding] = fd, sc
			}
		}
		if violationOf(rr.res) != nil {
			failed = rr
			break
		}
		if !rr.res.Complete {
			break
		}
		rr.proof = true
	}
	var proved *rungResult
	for _, rr := range done {
		if rr.proof {
			proved = rr
		}
	}
	verdict := verdictPass
	switch {
	case failed != nil:
		verdict = verdictViolation
	case len(findings) > 0:
		verdict = verdictFindings
	case proved == nil:
		verdict = verdictIncomplete
	}
	if f.json {
		return writeLadderJSON(stdout, f, done, proved, findings, findingScope, verdict, time.Since(start), outs)
	}
	if proved != nil {
		fmt.Fprintf(stdout, "largest scope proved: rung %d, %s (%d states, every reachable state explored, liveness checked)\n", proved.n, proved.rung.Scope.String(), proved.res.States)
	} else {
		fmt.Fprintln(stdout, "no scope proved: no rung was explored completely")
	}
	for _, kf := range explore.KnownFindings {
		fd := findings[kf.Name]
		if fd == nil {
			continue
		}
		fmt.Fprintf(stdout, "FINDING %s: %s (docs/findings.md#%s)\n", fd.Finding, kf.Title, fd.Finding)
		if err := reportFound(stdout, findingScope[kf.Name], outs.finding(fd.Finding), fd); err != nil {
			return err
		}
	}
	if failed != nil {
		v := violationOf(failed.res)
		fmt.Fprintf(stdout, "FAIL: %s broken after %d steps in rung %d: %s\n", v.Invariant, len(v.Path), failed.n, v.Message)
		if err := reportFound(stdout, failed.rung.Scope, outs.violation, v); err != nil {
			return err
		}
		return checksFailed
	}
	switch verdict {
	case verdictFindings:
		fmt.Fprintf(stdout, "KAFKA FINDINGS: %d documented Kafka behaviour(s) met, no other invariant broken and no other stuck state in the scopes explored completely; --fix all applies their fixes\n", len(findings))
		return checksFailed
	case verdictIncomplete:
		fmt.Fprintln(stdout, "INCOMPLETE: no scope explored completely within --time; liveness not checked: the search did not finish")
		return &exitError{code: exitIncomplete}
	}
	fmt.Fprintf(stdout, "PASS: no invariant broken and no stuck state in rungs 1-%d (%d invariants on every transition, liveness on every rung)\n", proved.n, len(spcheck.Catalogue))
	return nil
}

// coreNote names the bug and fixes of the core explored (", fixes all" or "").
func coreNote(sc explore.Scope) string {
	s := ""
	if sc.Bug != "" {
		s += ", bug " + sc.Bug
	}
	if sc.Fix != "" {
		s += ", fixes " + sc.Fix
	}
	return s
}

// line is the rung's report: number, what it adds, states, time, verdict.
func (r *rungResult) line() string {
	if r.res == nil {
		return fmt.Sprintf("  %2d. %s: %s", r.n, r.rung.Grows, r.verdict())
	}
	return fmt.Sprintf("  %2d. %s: %d states, depth %d, %s: %s", r.n, r.rung.Grows, r.res.States, r.res.Depth,
		r.res.Elapsed.Round(time.Millisecond), r.verdict())
}

// ladderJSON is check's --json output for the ladder.
type ladderJSON struct {
	Mode          string      `json:"mode"`
	Verdict       string      `json:"verdict"`
	ExitCode      int         `json:"exit_code"`
	BudgetSec     float64     `json:"time_budget_s"`
	ElapsedSec    float64     `json:"elapsed_s"`
	LargestProved *rungJSON   `json:"largest_proved,omitempty"`
	Rungs         []*rungJSON `json:"rungs"`
	Findings      []*jFound   `json:"findings,omitempty"`
	Violation     *jFound     `json:"violation,omitempty"`
}

type rungJSON struct {
	Rung        int      `json:"rung"`
	Grows       string   `json:"grows"`
	Scope       string   `json:"scope"`
	States      int      `json:"states"`
	Transitions int64    `json:"transitions"`
	Depth       int      `json:"depth"`
	Complete    bool     `json:"complete"`
	Bounded     string   `json:"bounded,omitempty"`
	ElapsedSec  float64  `json:"elapsed_s"`
	Verdict     string   `json:"verdict"`
	Findings    []string `json:"findings,omitempty"`
	Stuck       *int     `json:"stuck_states,omitempty"`
}

func writeLadderJSON(stdout io.Writer, f checkFlags, done []*rungResult, proved *rungResult, findings map[string]*explore.Found,
	scopes map[string]explore.Scope, verdict string, elapsed time.Duration, outs cexPaths) error {
	j := ladderJSON{Mode: "ladder", Verdict: verdict, ExitCode: verdictExit(verdict), BudgetSec: f.budget.Seconds(), ElapsedSec: elapsed.Seconds(), Rungs: []*rungJSON{}}
	for _, rr := range done {
		rj := &rungJSON{Rung: rr.n, Grows: rr.rung.Grows, Scope: rr.rung.Scope.String(), Verdict: rr.verdict()}
		if res := rr.res; res != nil {
			rj.States, rj.Transitions, rj.Depth, rj.Complete, rj.Bounded, rj.ElapsedSec = res.States, res.Transitions, res.Depth, res.Complete, res.Bounded, res.Elapsed.Seconds()
			for _, fd := range res.Findings {
				rj.Findings = append(rj.Findings, fd.Finding)
			}
			if res.Liveness != nil {
				rj.Stuck = &res.Liveness.Stuck
			}
			if v := violationOf(res); v != nil {
				rj.Verdict = "violation"
				sc := rr.rung.Scope
				j.Violation = toJFound(&sc, v)
			}
		}
		if rr == proved {
			j.LargestProved = rj
		}
		j.Rungs = append(j.Rungs, rj)
	}
	for _, kf := range explore.KnownFindings {
		if fd := findings[kf.Name]; fd != nil {
			sc := scopes[kf.Name]
			j.Findings = append(j.Findings, toJFound(&sc, fd))
		}
	}
	return writeJSONVerdict(stdout, j, j.ExitCode)
}

// estimateSample is how long check samples a scope's search before the work to estimate it.
const estimateSample = time.Second

// sampleScope estimates sc from a short sample of its search. When the sample finished the
// search (or met a violation) its result is returned too: there is nothing left to do.
func sampleScope(f checkFlags, sc explore.Scope) (*explore.SizeEstimate, error) {
	sample := estimateSample
	if f.timeSet {
		sample = max(sample, f.budget/20)
	}
	est, err := explore.Estimate(sc, sample, explore.MinSampleLevels)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	return est, nil
}

// estimateText says what the estimate is and whether the search fits its bounds; fits is
// false when it will not (the time budget or --max-states).
func estimateText(f checkFlags, sc explore.Scope, est *explore.SizeEstimate) (text string, fits bool) {
	if est.Exact {
		return fmt.Sprintf("estimate: exact, the %s sample finished the search: %d states", est.SampleTime.Round(time.Millisecond), est.States), true
	}
	var b strings.Builder
	if !est.Fitted {
		fmt.Fprintf(&b, "estimate: at least %d states (the %s sample completed %d levels, too few to fit)", est.States, est.SampleTime.Round(time.Millisecond), len(est.Levels))
	} else {
		fmt.Fprintf(&b, "estimate: about %s states, depth about %d, from the first %d levels (%d states in %s); about %s at %.0f states/s (within a factor of %d either way, as measured on scopes that finish)",
			scenarios.Approx(int64(est.States)), est.Depth, len(est.Levels), est.SampleStates, est.SampleTime.Round(time.Millisecond),
			time.Duration(est.Seconds()*float64(time.Second)).Round(time.Second), est.Rate, explore.EstimateFactor)
	}
	fmt.Fprintf(&b, "; levels sampled: %s", joinCounts(est.Levels))
	fits = true
	if est.Fitted {
		if f.timeSet && est.Seconds() > f.budget.Seconds() {
			fmt.Fprintf(&b, "; does not fit --time %s", f.budget)
			fits = false
		}
		if sc.MaxStates > 0 && est.States > sc.MaxStates {
			fmt.Fprintf(&b, "; --max-states %d stops it at about %.0f%%", sc.MaxStates, 100*float64(sc.MaxStates)/float64(est.States))
			fits = false
		}
	}
	return b.String(), fits
}

// runEstimate is check --estimate: the estimate alone; exit 0 when the search fits its
// bounds, 3 when it does not.
func runEstimate(stdout io.Writer, f checkFlags, sc explore.Scope) error {
	est, err := sampleScope(f, sc)
	if err != nil {
		return err
	}
	text, fits := estimateText(f, sc, est)
	fmt.Fprintf(stdout, "exploring %s\n%s\n", sc.String(), text)
	if !fits {
		return &exitError{code: exitIncomplete}
	}
	return nil
}

// joinCounts renders level sizes as "1 6 45 383".
func joinCounts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, " ")
}
