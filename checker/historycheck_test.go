package checker_test

import (
	"fmt"
	"sort"
	"strings"
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

// delivery-count-monotonic compares a delivery with every earlier one of the same record
// by the same leader, however many came before: the repeated count is found whether the
// earlier delivery is among the first few an offset keeps inline or among the later ones,
// and the message names the latest earlier fetch with that count.
func TestDeliveryCountRepeatFoundAmongManyDeliveries(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Kafka.DeliveryCountLimit = 10
	deliver := func(dcs ...int16) []sim.Op {
		var ops []sim.Op
		for k, dc := range dcs {
			call := int64(100 * (k + 1))
			ops = append(ops, sim.Op{Client: "c#1", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: call, ReturnMs: call + 1, Code: "NONE",
				Acquired: []model.AcquiredRange{{First: 7, Last: 8, DeliveryCount: dc}}})
		}
		return ops
	}
	for _, tc := range []struct {
		name string
		dcs  []int16
		want string // the earlier fetch named by the last violation, "" for none
		n    int    // repeated deliveries
	}{
		{"growing", []int16{1, 2, 3, 4, 5, 6}, "", 0},
		{"repeat of an early one", []int16{1, 2, 3, 4, 5, 2}, "200 ms", 1},
		{"repeat of a late one", []int16{1, 2, 3, 4, 5, 5}, "500 ms", 1},
		{"repeat of the third", []int16{1, 2, 3, 4, 3}, "300 ms", 1},
		{"thrice the same", []int16{1, 2, 3, 4, 4, 4}, "500 ms", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := checker.CheckHistory(cfg, []string{"delivery-count-monotonic"}, checker.History{Ops: deliver(tc.dcs...)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(v.Violations) > 0 {
					t.Errorf("violations %v, want none", v.Violations)
				}
				return
			}
			if len(v.Violations) != 2*tc.n || v.Violations[0].Offsets != "7" || v.Violations[1].Offsets != "8" {
				t.Fatalf("violations %v, want %d for each of offsets 7 and 8", v.Violations, tc.n)
			}
			last := v.Violations[len(v.Violations)-1]
			if !strings.Contains(last.Message, "fetches at "+tc.want) {
				t.Errorf("message %q, want the fetch at %s named", last.Message, tc.want)
			}
		})
	}
}
