package live

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// The live tests run short scaled scenarios on the embedded kfake cluster: together about
// half a minute (more under -race).
//
// Parallel live runs: the tests that make a whole live run (quickstart, the interrupt,
// delete-records-backlog, add-partitions) run in parallel. Each has a cluster of its own, and
// each spends most of its time waiting on the wall clock: under -race one after another they
// took 69 s for 28 CPU-s, and the package held one of go test's two package slots all that
// time.

// resultDir is a live test's result folder: a temporary one, or, when SHARESIM_KEEP_LIVE
// names a folder, a subfolder of it named after the test, kept after the run so that a
// failure seen only under load can be read afterwards (history.ndjson, live.json).
func resultDir(t *testing.T) string {
	keep := os.Getenv("SHARESIM_KEEP_LIVE")
	if keep == "" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(keep, t.Name()+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("result folder kept: %s", dir)
	return dir
}

func builtin(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range sets {
		k, v, _ := cutEq(kv)
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func cutEq(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func status(t *testing.T, r *Result, check string) CheckResult {
	t.Helper()
	for _, c := range r.Checks {
		if c.Check == check {
			return c
		}
	}
	t.Fatalf("no verdict for %s", check)
	return CheckResult{}
}

// quickstart on kfake, shortened: every check that reads only the history or the end
// accounting passes (a failure explained by an error-code-only deviation counts, named);
// the result folder holds the history, the verdict and the report page.
//
// It also checks that the per-offset state the run held stayed flat over its 9 s of
// production (retainedFlat; the heap over a longer run: TestLiveHeapFlatOverALongRun).
func TestQuickstartOnKfakePassesWhatItChecks(t *testing.T) {
	t.Parallel() // see the note on parallel live runs in live_test.go
	dir := resultDir(t)
	// heal=4m: as TestAddPartitionsLive's, ends when drained; room for a loaded machine.
	s := builtin(t, "quickstart", "duration=3m", "heal=4m")
	p := &probeLog{}
	res, err := Run(context.Background(), s, Options{TimeScale: 0.05, Out: dir, probe: p.probe})
	if err != nil {
		t.Fatal(err)
	}
	retainedFlat(t, p, 9000, 2000)
	if code := res.ExitCode(); code != 0 {
		var b writerBuf
		res.Summary(&b)
		t.Fatalf("exit %d:\n%s", code, b.String())
	}
	for _, n := range append(append(checker.HistoryChecks(), checker.AccountingChecks...), "liveness") {
		if st := status(t, res, n).Status; st != Pass && st != Deviation {
			t.Errorf("%s: %s", n, st)
		}
	}
	if st := status(t, res, "core-consistent").Status; st != NotRun {
		t.Errorf("core-consistent reads the broker's internals; got %s", st)
	}
	if res.Operations < 20 {
		t.Errorf("only %d operations recorded", res.Operations)
	}
	var haveRatio bool
	for _, row := range res.Comparison {
		if row.Figure == "throughput_per_sec" && row.Ratio != nil && *row.Ratio > 0 {
			haveRatio = true
		}
	}
	if !haveRatio {
		t.Errorf("no predicted/measured throughput ratio: %+v", res.Comparison)
	}
	for _, f := range []string{"history.ndjson", "live.json", "summary.txt", "index.html", "live-backlog.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	// The history on disk goes through the same entry point and gives the same verdicts.
	h, err := ReadHistory(filepath.Join(dir, "history.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != res.Operations {
		t.Errorf("history.ndjson holds %d operations, the result %d", len(h.Ops), res.Operations)
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	scaled, _, err := Scale(cfg, 0.05, Floors{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := checker.CheckHistory(scaled, CheckNames(s), h)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, x := range v.Violations {
		failed[x.Check] = true
	}
	for _, n := range v.Ran {
		if st := status(t, res, n).Status; (st == Pass) == failed[n] {
			t.Errorf("%s: the run says %s, CheckHistory on history.ndjson failed=%v", n, st, failed[n])
		}
	}
}

// On kfake the log start does not move the share-partition: delete-records-backlog fails
// nothing-below-spso-acquired, and the summary names the deviation.
func TestDeleteRecordsBacklogNamesLogStartDeviation(t *testing.T) {
	t.Parallel() // see the note on parallel live runs in live_test.go
	s := builtin(t, "delete-records-backlog", "heal=20s")
	res, err := Run(context.Background(), s, Options{TimeScale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	c := status(t, res, "nothing-below-spso-acquired")
	if c.Status != Fail {
		t.Fatalf("nothing-below-spso-acquired: %s, want FAIL", c.Status)
	}
	named := false
	for _, id := range c.Deviations {
		named = named || id == "log-start-not-followed"
	}
	if !named {
		t.Errorf("deviations named %v, want log-start-not-followed", c.Deviations)
	}
	if res.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", res.ExitCode())
	}
}

// Ctrl-C mid-run: production stops, the consumers finish, and the folder is complete.
func TestInterruptLeavesCompleteResult(t *testing.T) {
	t.Parallel() // see the note on parallel live runs in live_test.go
	dir := resultDir(t)
	s := builtin(t, "quickstart")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt once operations are recorded (not at a fixed time, which a loaded machine
	// may spend setting up or joining): records are flowing by then, and the history must
	// keep them.
	var once sync.Once
	atOps := func(_ int64, _, _, ops int) {
		if ops >= 20 {
			once.Do(cancel)
		}
	}
	res, err := Run(ctx, s, Options{TimeScale: 0.05, Out: dir, probe: atOps})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.ExitCode() != 3 {
		t.Fatalf("interrupted %v, exit %d; want true, 3", res.Interrupted, res.ExitCode())
	}
	for _, f := range []string{"history.ndjson", "live.json", "summary.txt", "index.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty (%v)", f, err)
		}
	}
	h, err := ReadHistory(filepath.Join(dir, "history.ndjson"))
	if err != nil || len(h.Ops) < 20 {
		t.Fatalf("history: %d operations, %v; want at least the 20 recorded before the interrupt", len(h.Ops), err)
	}
}

// A delivery after a successful ACCEPT, injected into a history the checks passed, fails
// accepted-never-redelivered and linearizable through the same entry point.
func TestCorruptedHistoryFails(t *testing.T) {
	cfg := sim.DefaultConfig()
	s := builtin(t, "quickstart", "duration=1m", "heal=1m")
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg, 1, sim.Options{RecordHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"accepted-never-redelivered", "linearizable"}
	h := checker.History{Ops: res.History, Hidden: res.HiddenEvents}
	v, err := checker.CheckHistory(cfg, names, h)
	if err != nil || len(v.Violations) > 0 {
		t.Fatalf("the untouched history: %v %v", v.Violations, err)
	}
	// Find a successful ACCEPT and deliver its first offset again after it returned.
	var bad sim.Op
	for _, op := range res.History {
		if op.Kind == "ack" && op.Code == "NONE" && op.ReturnMs >= 0 && len(op.Acks[0].Types) == 1 && op.Acks[0].Types[0] == model.AckAccept {
			bad = sim.Op{Client: "intruder#1", Group: op.Group, Partition: op.Partition, Kind: "fetch", CallMs: op.ReturnMs + 1, ReturnMs: op.ReturnMs + 2,
				Acquired: []model.AcquiredRange{{First: op.Acks[0].First, Last: op.Acks[0].First, DeliveryCount: 2}}, Code: "NONE"}
			break
		}
	}
	if bad.Kind == "" {
		t.Fatal("no successful ACCEPT in the history")
	}
	h.Ops = append(append([]sim.Op(nil), h.Ops...), bad)
	v, err = checker.CheckHistory(cfg, names, h)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, x := range v.Violations {
		got[x.Check] = true
	}
	for _, n := range names {
		if !got[n] {
			t.Errorf("%s did not fail on the injected delivery", n)
		}
	}
}

type writerBuf struct{ b []byte }

func (w *writerBuf) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }
func (w *writerBuf) String() string              { return string(w.b) }
