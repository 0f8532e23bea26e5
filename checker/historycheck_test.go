package checker_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// A simulated run's kept history goes through the same code whether the checker finishes
// the run (Finish without Attach) or a caller hands it to CheckHistory, as live mode does:
// on a history with an injected delivery after ACCEPT both report the same violations.
func TestFinishAndCheckHistoryAgree(t *testing.T) {
	s, err := scenarios.Builtin("quickstart")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("duration", "1m"); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	names := checker.HistoryChecks()
	ck, err := checker.New(cfg, names)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.New(cfg, 1, sim.Options{RecordHistory: true, Observer: ck.Observe})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Run()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range res.History {
		if op.Kind == "ack" && op.Code == "NONE" && len(op.Acks[0].Types) == 1 && op.Acks[0].Types[0] == model.AckAccept {
			res.History = append(res.History, sim.Op{Client: "intruder#1", Group: op.Group, Partition: op.Partition, Kind: "fetch",
				CallMs: op.ReturnMs + 1, ReturnMs: op.ReturnMs + 2, Code: "NONE",
				Acquired: []model.AcquiredRange{{First: op.Acks[0].First, Last: op.Acks[0].First, DeliveryCount: 2}}})
			break
		}
	}
	fromFinish := keys(ck.Finish(w, res))
	v, err := checker.CheckHistory(cfg, names, checker.History{Ops: res.History, Hidden: res.HiddenEvents})
	if err != nil {
		t.Fatal(err)
	}
	fromCheck := keys(v.Violations)
	if len(fromCheck) == 0 {
		t.Fatal("the injected delivery after ACCEPT was not caught")
	}
	if fmt.Sprint(fromFinish) != fmt.Sprint(fromCheck) {
		t.Errorf("Finish found %v\nCheckHistory found %v", fromFinish, fromCheck)
	}
}

func keys(vs []checker.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Check+" "+v.Partition+" "+v.Offsets)
	}
	sort.Strings(out)
	return out
}

// nothing-below-spso-acquired fails a fetch called after a log-start move that acquires
// below it, and passes one called before the move.
func TestNothingBelowSPSOAcquired(t *testing.T) {
	cfg := sim.DefaultConfig()
	move := sim.HiddenEvent{TimeMs: 100, Kind: sim.HiddenLogStart, Group: "g", Partition: "t/0", Offset: 50}
	fetch := func(call int64, first int64) sim.Op {
		return sim.Op{Client: "c#1", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: call, ReturnMs: call + 1, Code: "NONE",
			Acquired: []model.AcquiredRange{{First: first, Last: first + 4, DeliveryCount: 1}}}
	}
	for _, tc := range []struct {
		name string
		op   sim.Op
		fail bool
	}{
		{"before the move", fetch(90, 10), false},
		{"after the move, below", fetch(101, 40), true},
		{"after the move, at the log start", fetch(101, 50), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := checker.CheckHistory(cfg, []string{"nothing-below-spso-acquired"}, checker.History{Ops: []sim.Op{tc.op}, Hidden: []sim.HiddenEvent{move}})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(v.Violations) > 0; got != tc.fail {
				t.Errorf("failed %v, want %v: %v", got, tc.fail, v.Violations)
			}
		})
	}
}
