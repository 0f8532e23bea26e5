package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
)

type checkFlags struct {
	version       string
	bug           string
	sets          []string
	members       int
	batches       string
	limit, cap    int
	maxRecords    string
	acks          string
	recordLimit   bool
	dlq           bool
	dlqSet        bool
	faithfulStore bool
	shortReads    bool
	leave         bool
	failovers     int
	lateWrites    bool
	logStartMoves int
	maxPending    int
	depth         int
	maxStates     int
	workers       int
	memory        string
	tempDir       string
	noConsistency bool
	out           string
	progress      bool
	liveness      bool
	findings      bool
	fix           string
	json          bool
	swarm         string
	seed          uint64
	swarmSplit    int
	swarmOut      string
	swarmDepths   []int
	symmetry      bool
	deadStore     bool
	window        bool
	acksSet       bool // --acks given (else RENEW is dropped for Kafka 4.1)
	preset        string
	budget        time.Duration
	timeSet       bool     // --time given
	outSet        bool     // --out given
	explicit      []string // the scope flags given (then one scope is explored, not the ladder)
	estimate      bool
}

// scopeFlags are the flags that shape the scope: giving any of them explores that one scope
// (the standard scope with them applied) instead of the ladder.
var scopeFlags = []string{"members", "batches", "limit", "cap", "max-records", "acks", "record-limit", "short-reads", "leave",
	"failovers", "late-writes", "log-start-moves", "max-pending", "window", "depth", "max-states"}

func newCheckCmd() *cobra.Command {
	var f checkFlags
	d := explore.DefaultScope()
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Explore every interleaving of a small scope and check the invariants (can this ever happen?)",
		Long: `check runs the exhaustive explorer: a breadth-first search over every order in which the
steps of a small scope can happen — fetches by each member, acknowledgements of every type
of every record a member holds, any lock firing at any moment, state writes succeeding or
failing in any order, members leaving, the log start moving, leader failover with reload
from the share coordinator (with the old leader's writes arriving late) — driving the same
share-partition core as the simulator. Every transition is checked against the
single-partition invariants (docs/checking.md).

With no scope flags it climbs a ladder of 14 scopes of growing size (one dimension grows per
rung), explores each completely with safety, the findings and liveness within --time (60 s by
default), prints one line per rung and the largest scope proved. Any scope flag (or --scope
standard, or --bug) explores that one scope instead, after an estimate of its size from a short
sample (--estimate: only the estimate).

On a violation it prints the shortest path to it and writes it as a scripted scenario
(--out, default counterexample.yaml) that 'sharesim run' replays and that fails on the same
invariant.

Exit codes: 0 every reachable state of the scope (the ladder: of at least one rung) explored
and no invariant broken; 1 a violation, a stuck state or a documented Kafka finding; 2 bad
flags, or an --out or --temp-dir that cannot be written; 3 the search was cut short (--depth,
--max-states, --time, Ctrl-C, or liveness not fitting --memory) before it found anything: "no
violation in the first N states, depth D; not complete" is not a pass, and liveness is then
"not checked: the search did not finish".

--memory bounds what grows with the states (default: half the physical memory, at most
8GiB): past it the seen set (as TLC's disk-backed fingerprint set), the frontiers and the
parent pointers spill to files in --temp-dir, removed at the end; the result is the same.

The strict forms of the invariants name documented behaviours of real Kafka
(docs/findings.md) as findings (--findings, on by default); --fix all applies their fixes.
--liveness also checks that from every state the partition can still make progress once
faults stop (backward reachability over the explored graph). --window splits each fetch into
its log read and its acquire. --swarm i/n runs one shard of a swarm search; 'sharesim check
merge' combines the shards' result files.

The bug zoo ('sharesim bugs') puts known Kafka bugs back into the core: --bug NAME or
--set kafka.bug=NAME.`,
		Example: `  sharesim check
  sharesim check --fix all --time 5m
  sharesim check --scope standard --estimate
  sharesim check --bug spso-steps-back
  sharesim check --set kafka.bug=release-stops-at-foreign --out cex.yaml && sharesim run cex.yaml
  sharesim check --members 3 --batches 1,1 --limit 2 --failovers 0
  sharesim check --version 4.1
  sharesim check --liveness --members 1 --batches 1,1 --limit 2 --cap 2 --max-records 2
  sharesim check --fix all --window --batches 2 --limit 2 --cap 2 --max-records 2
  sharesim check --swarm 1/4 --swarm-out s1.json   # ... then: sharesim check merge s*.json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.acksSet = cmd.Flags().Changed("acks")
			f.dlqSet = cmd.Flags().Changed("dlq")
			f.timeSet, f.outSet = cmd.Flags().Changed("time"), cmd.Flags().Changed("out")
			for _, name := range scopeFlags {
				if cmd.Flags().Changed(name) {
					f.explicit = append(f.explicit, "--"+name)
				}
			}
			for _, s := range f.sets {
				if strings.HasPrefix(s, "kafka.group.share.") {
					f.explicit = append(f.explicit, "--set "+s)
				}
			}
			return runCheck(cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	cmd.AddCommand(newCheckMergeCmd())
	fl := cmd.Flags()
	fl.StringVar(&f.version, "version", d.Version.String(), "Kafka version whose behaviour is explored ("+model.VersionNames+")")
	fl.StringVar(&f.bug, "bug", "", "explore a bug zoo variant of the core (see 'sharesim bugs')")
	fl.StringArrayVar(&f.sets, "set", nil, "kafka.bug=NAME, kafka.version=4.1, kafka.group.share.delivery.count.limit=N or kafka.group.share.partition.max.record.locks=N (repeatable)")
	fl.IntVar(&f.members, "members", d.Members, "share consumers (1-3)")
	fl.StringVar(&f.batches, "batches", "2,2", "producer batch sizes in the log")
	fl.IntVar(&f.limit, "limit", d.Limit, "delivery count limit")
	fl.IntVar(&f.cap, "cap", d.Cap, "in-flight record cap (group.share.partition.max.record.locks)")
	fl.StringVar(&f.maxRecords, "max-records", "4", "fetch budgets tried (max.poll.records), comma-separated")
	fl.StringVar(&f.acks, "acks", "accept,release,reject,renew", "acknowledgement types tried (accept, release, reject, gap, renew)")
	fl.BoolVar(&f.recordLimit, "record-limit", false, "also fetch in record_limit mode")
	fl.BoolVar(&f.dlq, "dlq", false, "turn on Kafka 4.4's dead-letter queue, with DLQ produce success and failure as steps (default: on with --version 4.4)")
	fl.BoolVar(&f.faithfulStore, "faithful-store", true, "let the share coordinator follow the version's own start-offset rule (before 4.4 a late write moves the stored start offset back: finding start-offset-regresses); false keeps 4.4's monotonic rule for every version, as the explorer did before")
	fl.BoolVar(&f.shortReads, "short-reads", d.ShortReads, "also try log reads that return only the first producer batch")
	fl.BoolVar(&f.leave, "leave", d.Leave, "let members' share sessions end")
	fl.IntVar(&f.failovers, "failovers", d.Failovers, "leader failovers on one path (0-5)")
	fl.BoolVar(&f.lateWrites, "late-writes", d.LateWrites, "let a failover leave the old leader's writes on their way")
	fl.IntVar(&f.logStartMoves, "log-start-moves", d.LogStartMoves, "log-start moves on one path (0-5)")
	fl.IntVar(&f.maxPending, "max-pending", d.MaxPending, "state writes outstanding at once (0: unbounded)")
	fl.IntVar(&f.depth, "depth", 0, "stop after this many steps (0: no bound)")
	fl.IntVar(&f.maxStates, "max-states", 20_000_000, "stop after this many states (0: no bound)")
	fl.IntVar(&f.workers, "workers", 0, "goroutines expanding states (0: one per CPU)")
	fl.StringVar(&f.memory, "memory", "auto", "memory budget for the search, such as 8GiB or 512MiB (auto: "+autoMemoryDoc+"; 0: no budget); past it the seen set, frontiers and parent pointers spill to --temp-dir, with the same result")
	fl.StringVar(&f.tempDir, "temp-dir", "", "where the search spills past --memory (default: the system's temporary directory); the files are removed at the end")
	fl.BoolVar(&f.noConsistency, "no-consistency", false, "skip the core's CheckConsistency on new states (faster)")
	fl.StringVar(&f.out, "out", "counterexample.yaml", "where to write the counterexample: a file (each finding goes beside it, FILE-finding-NAME.yaml) or a directory (counterexample.yaml and finding-NAME.yaml in it); default counterexample.yaml and finding-NAME.yaml here")
	fl.StringVar(&f.preset, "scope", "", "ladder (the default without scope flags: scopes of growing size, each explored completely with liveness, within --time) or standard (one scope: "+standardDoc+"; the default with --bug or any scope flag, which then change it)")
	fl.DurationVar(&f.budget, "time", 60*time.Second, "wall-clock budget of the ladder (an explicit scope has no time bound unless --time is given)")
	fl.BoolVar(&f.estimate, "estimate", false, "only estimate the scope's states and time from a short sample of its search, and say whether it fits --time and --memory")
	fl.BoolVar(&f.progress, "progress", false, "print a progress line to stderr every second and after each BFS level, also when stderr is not a terminal (on a terminal one status line is redrawn without it)")
	fl.BoolVar(&f.findings, "findings", true, "also check the strict invariants whose exceptions are documented Kafka behaviours, and name a match as that finding (docs/findings.md)")
	fl.StringVar(&f.fix, "fix", "", "apply Kafka fixes for documented findings: comma-separated names or all (same as --set kafka.fix=...)")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object on stdout (no progress)")
	fl.StringVar(&f.swarm, "swarm", "", "run as shard i of n (1-based) of a swarm search and write a result file; combine with 'sharesim check merge'")
	fl.Uint64Var(&f.seed, "seed", 1, "swarm seed: divides the states among the shards (the same for every shard) and seeds each shard's step order")
	fl.IntVar(&f.swarmSplit, "swarm-split", 4, "swarm: the depth at which the states are divided among the shards")
	fl.StringVar(&f.swarmOut, "swarm-out", "", "swarm: the result file (default swarm-I-of-N.json; the fingerprints go to FILE.fps)")
	fl.IntSliceVar(&f.swarmDepths, "swarm-depths", nil, "swarm: depth bounds, shard i takes the (i-1) mod len-th (diversity; the merged coverage then depends on them)")
	fl.BoolVar(&f.window, "window", false, "split each fetch into its log read and its acquire, so that any step can come between them (Kafka's read-then-acquire window)")
	fl.BoolVar(&f.symmetry, "symmetry", true, "store states up to a renaming of the members (symmetry reduction)")
	fl.BoolVar(&f.deadStore, "dead-store", true, "once no failover is left, forget the share coordinator's stored state, which nothing reads again (dead-store reduction)")
	fl.BoolVar(&f.liveness, "liveness", false, "also check that from every reachable state the partition can still make progress once faults stop (needs a complete search)")
	return cmd
}

func parseInts(flag, s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, usageErr("--%s %q: expected comma-separated integers", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func (f *checkFlags) scope() (explore.Scope, error) {
	sc := explore.DefaultScope()
	v, err := model.ParseVersion(f.version)
	if err != nil {
		return sc, usageErr("--version: %v", err)
	}
	sc.Version, sc.Bug, sc.Fix = v, f.bug, f.fix
	sc.Members, sc.Limit, sc.Cap = f.members, f.limit, f.cap
	if sc.Batches, err = parseInts("batches", f.batches); err != nil {
		return sc, err
	}
	if sc.MaxRecords, err = parseInts("max-records", f.maxRecords); err != nil {
		return sc, err
	}
	sc.AckTypes = nil
	names := map[string]model.AckType{"accept": model.AckAccept, "release": model.AckRelease, "reject": model.AckReject, "gap": model.AckGap, "renew": model.AckRenew}
	for _, a := range strings.Split(f.acks, ",") {
		t, ok := names[strings.ToLower(strings.TrimSpace(a))]
		if !ok {
			return sc, usageErr("--acks %q: unknown type %q (accept, release, reject, gap, renew)", f.acks, a)
		}
		sc.AckTypes = append(sc.AckTypes, t)
	}
	for _, s := range f.sets {
		k, val, ok := strings.Cut(s, "=")
		if !ok {
			return sc, usageErr("--set %q: expected path=value", s)
		}
		switch k {
		case "kafka.bug":
			if f.bug != "" && f.bug != val {
				return sc, usageErr("--bug %s and --set kafka.bug=%s name two bugs; give one", f.bug, val)
			}
			sc.Bug = val
		case "kafka.fix":
			sc.Fix = val
		case "kafka.version":
			if sc.Version, err = model.ParseVersion(val); err != nil {
				return sc, usageErr("--set %s: %v", s, err)
			}
		case "kafka.group.share.delivery.count.limit", "kafka.group.share.partition.max.record.locks":
			n, err := strconv.Atoi(val)
			if err != nil {
				return sc, usageErr("--set %s: expected an integer", s)
			}
			if strings.HasSuffix(k, "limit") {
				sc.Limit = n
			} else {
				sc.Cap = n
			}
		default:
			return sc, usageErr("--set %s: check takes kafka.bug, kafka.fix, kafka.version, kafka.group.share.delivery.count.limit and kafka.group.share.partition.max.record.locks", k)
		}
	}
	if sc.Version < model.Kafka42 && !f.acksSet {
		kept := sc.AckTypes[:0]
		for _, t := range sc.AckTypes {
			if t != model.AckRenew { // RENEW needs Kafka 4.2
				kept = append(kept, t)
			}
		}
		sc.AckTypes = kept
	}
	if sc.Bug != "" {
		if _, ok := model.LookupBug(sc.Bug); !ok {
			return sc, usageErr("unknown bug %q (known: %s)", sc.Bug, strings.Join(model.BugNames(), ", "))
		}
	}
	sc.RecordLimit, sc.ShortReads, sc.Leave = f.recordLimit, f.shortReads, f.leave
	sc.DLQ, sc.MonotonicStore = f.dlq || (!f.dlqSet && sc.Version >= model.Kafka44), !f.faithfulStore
	sc.Failovers, sc.LateWrites, sc.LogStartMoves, sc.MaxPending = f.failovers, f.lateWrites, f.logStartMoves, f.maxPending
	sc.MaxDepth, sc.MaxStates, sc.Workers, sc.NoConsistency = f.depth, f.maxStates, f.workers, f.noConsistency
	if sc.Memory, err = parseMemory(f.memory); err != nil {
		return sc, err
	}
	sc.TempDir = f.tempDir
	sc.Liveness, sc.Findings, sc.Symmetry, sc.Window = f.liveness, f.findings, f.symmetry, f.window
	sc.DeadStore = f.deadStore
	if sc.Fix, err = model.ParseFixes(sc.Fix); err != nil {
		return sc, usageErr("kafka.fix: %v", err)
	}
	if err := sc.Validate(); err != nil {
		return sc, usageErr("%v", err)
	}
	return sc, nil
}

// standardDoc describes the standard scope for the flags' help.
const standardDoc = "2 members, batches 2,2, limit 3, cap 4, every step kind, 1 failover, 1 log-start move, 2 writes outstanding: over a billion states, --max-states 20M by default"

func runCheck(stdout, stderr io.Writer, f checkFlags) error {
	sc, err := f.scope()
	if err != nil {
		return err
	}
	ladder, err := f.useLadder(sc.Bug != "")
	if err != nil {
		return err
	}
	if f.budget < 0 {
		return usageErr("--time %s: expected a positive duration", f.budget)
	}
	if f.swarm != "" {
		return runSwarmShard(stdout, stderr, f, sc)
	}
	outs, err := newCexPaths(f.out, f.outSet)
	if err != nil {
		return err
	}
	if err := explore.CheckTempDir(sc.TempDir); err != nil {
		return usageErr("--temp-dir: %v", err)
	}
	stop, undo := interruptChannel()
	defer undo()
	sc.Stop = stop
	defer limitHeap(sc.Memory)()
	if ladder {
		return runLadder(stdout, stderr, f, sc, outs)
	}
	if f.timeSet {
		sc.Deadline = time.Now().Add(f.budget)
	}
	if f.estimate {
		return runEstimate(stdout, f, sc)
	}
	if !f.json {
		fmt.Fprintf(stdout, "exploring %s\n", sc.String())
	}
	// A short sample first: it is the whole search when the scope is small, and otherwise
	// says how big the scope is and whether it fits before the work.
	est, err := sampleScope(f, sc)
	if err != nil {
		return err
	}
	res := est.Result
	if sampleOnly(sc, res) {
		text, _ := estimateText(f, sc, est)
		if !f.json {
			fmt.Fprintln(stdout, text)
		}
		res, err = explore.Explore(sc, checkProgress(stderr, f))
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	v := checkVerdict(res)
	if f.json {
		return writeCheckJSON(stdout, sc, f, res, v)
	}
	status := searchStatus(sc, res)
	fmt.Fprintf(stdout, "%d states, %d transitions, depth %d, %s in %s (%.0f states/s, %s, %.1f bytes/state in the seen set%s)\n", res.States, res.Transitions, res.Depth,
		status, res.Elapsed.Round(time.Millisecond), res.StatesPerSecond(), formatBytes(res.Memory), res.SeenBytesPerState(), diskNote(res))
	if line := livenessLine(sc, res); line != "" {
		fmt.Fprintln(stdout, line)
	}
	for _, fd := range res.Findings {
		kf, _ := explore.LookupFinding(fd.Finding)
		fmt.Fprintf(stdout, "FINDING %s: %s (docs/findings.md#%s)\n", fd.Finding, kf.Title, fd.Finding)
		if err := reportFound(stdout, sc, outs.finding(fd.Finding), fd); err != nil {
			return err
		}
	}
	if found := violationOf(res); found != nil {
		fmt.Fprintf(stdout, "FAIL: %s broken after %d steps: %s\n", found.Invariant, len(found.Path), found.Message)
		if err := reportFound(stdout, sc, outs.violation, found); err != nil {
			return err
		}
		return checksFailed
	}
	switch v {
	case verdictFindings:
		if !res.Complete {
			fmt.Fprintf(stdout, "KAFKA FINDINGS: %d documented Kafka behaviour(s) met in the first %d states; not complete (%s), so nothing is said of the rest%s; --set kafka.fix=all applies their fixes\n",
				len(res.Findings), res.States, boundName(res.Bounded), livenessNotChecked(sc))
		} else {
			fmt.Fprintf(stdout, "KAFKA FINDINGS: %d documented Kafka behaviour(s) met, no other invariant broken; --set kafka.fix=all applies their fixes\n", len(res.Findings))
		}
		return checksFailed
	case verdictIncomplete:
		fmt.Fprintf(stdout, "INCOMPLETE: no violation in the first %d states, depth %d; not complete (%s)%s\n", res.States, res.Depth, boundName(res.Bounded), livenessNotChecked(sc))
		return &exitError{code: exitIncomplete}
	}
	fmt.Fprintf(stdout, "PASS: no invariant broken (%d invariants checked on every transition)%s\n", len(spcheck.Catalogue), livenessPassed(sc))
	return nil
}

// sampleOnly reports whether res, a sample's result, stopped only because the sample's time
// ran out (so the search itself is still to be done).
func sampleOnly(sc explore.Scope, res *explore.Result) bool {
	if res.Bounded != "time" {
		return false
	}
	return sc.Deadline.IsZero() || time.Now().Before(sc.Deadline)
}

// violationOf is the result's violation, or its stuck state that is no documented finding.
func violationOf(res *explore.Result) *explore.Found {
	if res.Violation != nil {
		return res.Violation
	}
	if res.Liveness != nil {
		return res.Liveness.First
	}
	return nil
}

// searchStatus says how the search ended.
func searchStatus(sc explore.Scope, res *explore.Result) string {
	if res.Violation != nil {
		return "stopped at the first violation"
	}
	switch res.Bounded {
	case "depth":
		return fmt.Sprintf("stopped at depth %d (--depth)", sc.MaxDepth)
	case "states":
		return fmt.Sprintf("stopped at %d states (--max-states)", sc.MaxStates)
	case "time":
		return "stopped at the time budget (--time)"
	case "interrupted":
		return "interrupted"
	}
	return "complete: every reachable state explored"
}

// boundName names the bound that cut a search short.
func boundName(b string) string {
	switch b {
	case "time":
		return "time budget reached"
	case "interrupted":
		return "interrupted"
	}
	return b + " bound reached"
}

// livenessLine reports the progress check: its result, or that it was not run because the
// search did not finish ("" when liveness was not asked for).
func livenessLine(sc explore.Scope, res *explore.Result) string {
	if !sc.Liveness {
		return ""
	}
	l := res.Liveness
	switch {
	case l == nil && res.Violation != nil:
		return "liveness not checked: the search stopped at the first violation"
	case l == nil:
		return "liveness not checked: the search did not finish"
	case l.Stuck == 0:
		return fmt.Sprintf("liveness: from every one of the %d states a fault-free path reaches a settled state (%d settled, %d fault-free edges)", res.States, l.Settled, l.Edges)
	}
	return fmt.Sprintf("liveness: %d of %d states are stuck (%d settled, %d fault-free edges)", l.Stuck, res.States, l.Settled, l.Edges)
}

// livenessNotChecked is the clause an incomplete verdict adds when liveness was asked for.
func livenessNotChecked(sc explore.Scope) string {
	if sc.Liveness {
		return "; liveness not checked: the search did not finish"
	}
	return ""
}

// livenessPassed is the clause a PASS adds when liveness was checked.
func livenessPassed(sc explore.Scope) string {
	if sc.Liveness {
		return "; liveness: no stuck state"
	}
	return ""
}

// The verdicts of a check, in order of precedence.
const (
	verdictPass       = "pass"
	verdictViolation  = "violation"
	verdictFindings   = "findings"
	verdictIncomplete = "incomplete"
)

// checkVerdict is the one place that decides what a result means: a violation (or a stuck
// state that is no documented finding) fails; documented findings fail too, named; a search
// cut short is incomplete; only a complete search with none of these passes.
func checkVerdict(res *explore.Result) string {
	switch {
	case violationOf(res) != nil:
		return verdictViolation
	case len(res.Findings) > 0:
		return verdictFindings
	case !res.Complete:
		return verdictIncomplete
	}
	return verdictPass
}

// reportFound prints a violation or stuck state with its path, writes the counterexample and
// replays it.
func reportFound(stdout io.Writer, sc explore.Scope, out string, v *explore.Found) error {
	if v.Finding != "" {
		fmt.Fprintf(stdout, "  %s broken after %d steps: %s\n", v.Invariant, len(v.Path), v.Message)
	}
	for i, a := range v.Path {
		fmt.Fprintf(stdout, "  %2d. %s\n", i+1, a.Describe(&sc))
	}
	name := "counterexample-" + v.Invariant
	if sc.Bug != "" {
		name = sc.Bug + "-" + v.Invariant
	}
	if v.Finding != "" {
		name = "finding-" + v.Finding
	}
	yml, err := explore.Counterexample(sc, v, name)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if err := os.WriteFile(out, yml, 0o644); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(stdout, "counterexample written to %s (%s); replay: sharesim run %s\n", filepath.ToSlash(out), replayStatus(out, yml, v), shellQuote(out))
	return nil
}

// replayStatus runs a written counterexample and says whether it shows what was found.
func replayStatus(out string, yml []byte, v *explore.Found) string {
	s, err := scenarios.Parse(out, yml)
	if err != nil {
		return "does not parse: " + err.Error()
	}
	r, err := scenarios.RunScript(s)
	if err != nil {
		return "does not run: " + err.Error()
	}
	if v.Invariant == explore.LivenessInvariant {
		if r.Pass {
			return "the replay reaches the stuck state and its expectations hold"
		}
		return "the replay does not reach the stuck state"
	}
	if v.Finding != "" {
		if r.Pass {
			return "the replay shows it; the script's expectations hold"
		}
		return "the replay does not show it"
	}
	for _, fl := range r.Failures {
		if fl.What == "invariant "+v.Invariant {
			return fmt.Sprintf("the replay breaks it at step %d", fl.Step)
		}
	}
	return "the replay does not break it"
}

func newBugsCmd() *cobra.Command {
	var names bool
	cmd := &cobra.Command{
		Use:   "bugs",
		Short: "List the bug zoo: variants of the core that put known Kafka bugs back",
		Long: `bugs lists the variants of the share-partition core that re-introduce real Kafka
share-partition bugs. Select one with --set kafka.bug=NAME (run, sweep, shrink) or --bug NAME
(check); docs/checking.md says which invariant catches each and how fast.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			for _, b := range model.Bugs() {
				if names {
					fmt.Fprintln(w, b.Name)
					continue
				}
				fmt.Fprintf(w, "%-27s %s\n%27s (%s)\n", b.Name, b.Doc, "", b.Ref)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&names, "names", false, "print only the names")
	return cmd
}
