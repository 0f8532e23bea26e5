package checker_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
)

// The run harness of the checker's tests: a world run with its checks as `sharesim run`
// runs it (checker.New, Attach, Observe, Finish).

// runChecks runs cfg at seed with the named checks (nil: the defaults) on top of opts,
// the history streamed to the checker, and returns the world, its result and the
// violations.
func runChecks(tb testing.TB, cfg sim.Config, seed uint64, names []string, opts sim.Options) (*sim.World, *sim.Result, []checker.Violation) {
	tb.Helper()
	ck, err := checker.New(cfg, names)
	if err != nil {
		tb.Fatal(err)
	}
	opts.Observer = ck.Observe
	ck.Attach(&opts)
	w, err := sim.New(cfg, seed, opts)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := w.Run()
	if err != nil {
		tb.Fatal(err)
	}
	return w, res, ck.Finish(w, res)
}

// failedChecks counts the violations by check.
func failedChecks(vs []checker.Violation) map[string]int {
	failed := map[string]int{}
	for _, v := range vs {
		failed[v.Check]++
	}
	return failed
}

// checkedRun runs cfg at seed with every default check, the history streamed.
func checkedRun(t *testing.T, cfg sim.Config, seed uint64) []checker.Violation {
	t.Helper()
	return runWith(t, cfg, seed, true, 0)
}

// runWith runs cfg with every default check (keeping up to limit violations, 0: the
// default), the history streamed to the checker (Attach) or kept in the result and
// checked at the end.
func runWith(t *testing.T, cfg sim.Config, seed uint64, streamed bool, limit int) []checker.Violation {
	t.Helper()
	ck, err := checker.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if limit > 0 {
		checker.SetViolationLimit(ck, limit)
	}
	var last *sim.World
	opts := sim.Options{Observer: func(w *sim.World) {
		last = w
		ck.Observe(w)
	}}
	if streamed {
		ck.Attach(&opts)
	} else {
		opts.RecordHistory = ck.NeedsHistory()
	}
	res, err := sim.Run(cfg, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	if streamed && (res.History != nil || res.HiddenEvents != nil) {
		t.Fatalf("the streamed run kept %d operations and %d hidden events", len(res.History), len(res.HiddenEvents))
	}
	return ck.Finish(last, res)
}

// zooRun is one shared run of unlimitedZooRun.
type zooRun struct {
	once sync.Once
	vs   []checker.Violation
	// limit is how many violations a checker keeps by default.
	limit int
	done  bool
}

// zooRuns holds the runs of unlimitedZooRun by world, bug and seed.
var zooRuns sync.Map

// unlimitedZooRun is runWith on the zoo world with bug at seed, the history streamed,
// keeping every violation (TestStreamedHistoryChecksAgreeWithTheWholeHistory's streamed
// run), made once per test binary and shared with zooCheckedRun. It returns the violations
// and how many a checker keeps by default.
func unlimitedZooRun(t *testing.T, world, bug string, seed uint64) ([]checker.Violation, int) {
	t.Helper()
	v, _ := zooRuns.LoadOrStore(fmt.Sprintf("%s/%s/%d", world, bug, seed), &zooRun{})
	r := v.(*zooRun)
	r.once.Do(func() {
		cfg := testworlds.Zoo[world]()
		cfg.Kafka.Bug = bug
		r.limit = checker.DefaultViolationLimit(cfg)
		r.vs = runWith(t, cfg, seed, true, 1<<30)
		r.done = true
	})
	if !r.done {
		t.Fatalf("the shared run of %s with bug %q at seed %d did not finish", world, bug, seed)
	}
	return r.vs, r.limit
}

// zooCheckedRun is checkedRun on the zoo world with bug at seed. At seed 1 it takes the
// violations of unlimitedZooRun when that found no more than a checker keeps by default:
// checkedRun's checker then keeps every one of them, in the same order (both lists are cut
// only past the limit, then sorted by time), so the two runs report the same list.
func zooCheckedRun(t *testing.T, world, bug string, seed uint64) []checker.Violation {
	t.Helper()
	if seed == 1 {
		if vs, limit := unlimitedZooRun(t, world, bug, seed); len(vs) <= limit {
			return vs
		}
	}
	cfg := testworlds.Zoo[world]()
	cfg.Kafka.Bug = bug
	return checkedRun(t, cfg, seed)
}
