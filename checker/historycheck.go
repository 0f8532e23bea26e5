package checker

import (
	"fmt"
	"sort"

	"github.com/sharesim/sharesim/checker/linearize"
	"github.com/sharesim/sharesim/sim"
)

// checkBelowLogStart names the history check that no delivery names an offset below a log
// start the history already showed moved (a completed DeleteRecords, retention).
const checkBelowLogStart = "nothing-below-spso-acquired"

func init() {
	Catalogue = append(Catalogue,
		Info{checkBelowLogStart, "history", "No fetch that starts after a log-start move was seen (sim: the share-partition applied it; live: the DeleteRecords call returned) acquires an offset below the new log start: the leader moves SPSO to the log start and archives what is below it (SharePartition.updateCacheAndOffsets), so those offsets hold no record and are never handed out again."},
	)
	// Not a default of simulated runs: Kafka itself can deliver below the log start in a
	// window (docs/findings.md, acquire-below-spso and redelivered-below-log-start), which
	// the simulator reproduces; live mode turns it on (live.CheckNames).
}

// History is a client-visible history with its hidden events: what the simulator records
// (sim.Options.RecordHistory: Result.History and Result.HiddenEvents) or what live mode
// records on the wire. Ops need not be in any order: CheckHistory orders them.
type History struct {
	Ops    []sim.Op
	Hidden []sim.HiddenEvent
}

// HistoryVerdict is what CheckHistory found.
type HistoryVerdict struct {
	// Ran lists the history checks that ran, Skipped the named checks that need more than
	// a history (the broker's internals or the run's accounting), in catalogue order.
	Ran, Skipped []string
	Violations   []Violation
	// Linearizability is the linearizability check's result (nil when it did not run); its
	// Unknown share-partitions are undecided, never a pass.
	Linearizability *linearize.Result
}

// Undecided reports whether a check could not decide (the linearizability search ran out
// of time on a share-partition).
func (v *HistoryVerdict) Undecided() bool {
	return v.Linearizability != nil && len(v.Linearizability.Unknown()) > 0
}

// HistoryChecks lists the catalogue's checks that need nothing but a history.
func HistoryChecks() []string {
	var out []string
	for _, i := range Catalogue {
		if i.When == "history" {
			out = append(out, i.Name)
		}
	}
	return out
}

// CheckHistory runs the history checks among names (DefaultChecks when empty) on h. It is
// the one entry point for a history that is not streamed: the simulator's kept history
// (Finish without Attach goes through the same code, feedHistory) and live mode's. Every
// history check is sound for a concurrent history: an operation's effect may lie anywhere
// between its call and its return, and a check fails only when no such placement explains
// what was seen.
func CheckHistory(cfg sim.Config, names []string, h History) (*HistoryVerdict, error) {
	if len(names) == 0 {
		names = DefaultChecks
	}
	v := &HistoryVerdict{}
	var run []string
	want := map[string]bool{}
	for _, n := range names {
		if !known(n) {
			return nil, fmt.Errorf("unknown check %q", n)
		}
		want[n] = true
	}
	for _, i := range Catalogue {
		if !want[i.Name] {
			continue
		}
		if i.When == "history" {
			run = append(run, i.Name)
		} else {
			v.Skipped = append(v.Skipped, i.Name)
		}
	}
	v.Ran = run
	if len(run) == 0 {
		return v, nil
	}
	c, err := New(cfg, run)
	if err != nil {
		return nil, err
	}
	hc := c.h
	hc.perCheck = map[string]int{}
	ops := append([]sim.Op(nil), h.Ops...)
	sort.SliceStable(ops, func(a, b int) bool { return historyKey(&ops[a]) < historyKey(&ops[b]) })
	hc.feedHistory(ops, h.Hidden)
	hc.finishLinearizable()
	sort.SliceStable(hc.out, func(a, b int) bool { return hc.out[a].TimeMs < hc.out[b].TimeMs })
	v.Violations = hc.out
	v.Linearizability = hc.lin
	return v, nil
}

// historyKey orders a history by return time, lost operations (no return) last: every
// check that compares two operations compares one's return with the other's call.
func historyKey(op *sim.Op) int64 {
	if op.ReturnMs < 0 {
		return inf
	}
	return op.ReturnMs
}

// feedHistory checks a whole kept history: nothing-below-spso-acquired learns the
// log-start moves first (each fetch is compared with the moves seen before its call), the
// operations go through the per-operation checks in history order, and the linearizability
// check gets every operation and then every hidden event, so that a hidden event applies
// to every share-partition that names its member (linearize.Stream).
func (h *histChecks) feedHistory(ops []sim.Op, hidden []sim.HiddenEvent) {
	for i := range hidden {
		h.noteHidden(&hidden[i])
	}
	for i := range ops {
		op := &ops[i]
		if h.linOn() {
			h.stream().Add(op)
		}
		h.checkOp(op)
	}
	if h.linOn() {
		for i := range hidden {
			h.stream().Hidden(&hidden[i])
		}
	}
}

// finishLinearizable ends the linearizability check and reports its failures.
func (h *histChecks) finishLinearizable() {
	if !h.linOn() {
		return
	}
	h.lin = h.stream().Finish()
	for _, f := range h.lin.Failures() {
		h.report(Violation{Check: "linearizable", TimeMs: f.TimeMs, Group: f.Group, Partition: f.Partition, Offsets: f.Offsets, Member: f.Member, Message: f.Message})
	}
}

// noteHidden keeps what the history checks need of a hidden event: the log-start moves.
func (h *histChecks) noteHidden(ev *sim.HiddenEvent) {
	if ev.Kind != sim.HiddenLogStart || !h.is.belowLS {
		return
	}
	hs := h.hist(ev.Group, ev.Partition)
	hs.logStarts = append(hs.logStarts, floorMark{atMs: ev.TimeMs, floor: ev.Offset})
	sort.SliceStable(hs.logStarts, func(a, b int) bool { return hs.logStarts[a].atMs < hs.logStarts[b].atMs })
}

// checkBelow is nothing-below-spso-acquired for one fetch: the highest log start seen
// before the fetch was called bounds what it may acquire.
func (h *histChecks) checkBelow(hs *histShare, op *sim.Op) {
	ls := int64(-1)
	for _, m := range hs.logStarts {
		if m.atMs >= op.CallMs {
			break
		}
		ls = max(ls, m.floor)
	}
	if ls < 0 {
		return
	}
	for _, r := range op.Acquired {
		if r.First < ls {
			h.report(Violation{Check: checkBelowLogStart, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
				Offsets: fmt.Sprintf("%d-%d", r.First, min(r.Last, ls-1)), Message: fmt.Sprintf("acquired %d-%d@%d in a fetch called at %d ms, after the log start moved to %d", r.First, r.Last, r.DeliveryCount, op.CallMs, ls)})
			return
		}
	}
}

// AccountingChecks are the end-of-run checks that read nothing but each group's accounting
// (sim.GroupMetrics.Accounting): live mode fills it from the history and the broker's
// offsets, and runs them through CheckAccounting.
var AccountingChecks = []string{"no-silent-loss", "records-accounted"}

// CheckAccounting runs the accounting checks among names (DefaultChecks when empty) on the
// groups' accounting in res.Metrics.Groups; the same code Finish runs for the simulator.
func CheckAccounting(names []string, res *sim.Result) ([]Violation, []string) {
	if len(names) == 0 {
		names = DefaultChecks
	}
	c := &Checker{on: map[string]bool{}, limit: 100}
	var ran []string
	for _, n := range names {
		for _, a := range AccountingChecks {
			if n == a {
				c.on[n] = true
				ran = append(ran, n)
			}
		}
	}
	if c.on["no-silent-loss"] {
		c.checkNoSilentLoss(res)
	}
	if c.on["records-accounted"] {
		c.checkAccounted(res)
	}
	return c.out, ran
}
