package checker_test

import (
	"testing"

	"github.com/sharesim/sharesim/checker"
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
