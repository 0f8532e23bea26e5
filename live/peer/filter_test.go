package peer

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// TestFilterCatchesModelBugs: with a bug-zoo variant of the model, the comparison ends in an
// unexplained disagreement; the filter does not hide a wrong model.
func TestFilterCatchesModelBugs(t *testing.T) {
	cases := []struct {
		bug   string
		steps []Step
	}{
		{model.BugLeaveDecrementsCount, []Step{produce(1), fetch("m1", 1, model.RecordLimit), {Kind: Leave, Member: "m1"}, fetch("m2", 1, model.RecordLimit)}},
		{model.BugNoCapTrim, []Step{produce(1), produce(1), produce(1), fetch("m1", 1, model.RecordLimit), fetch("m2", 2, model.RecordLimit),
			{Kind: Leave, Member: "m1"}, produce(1), produce(1), fetch("m2", 3, model.RecordLimit)}},
	}
	b := newPinBroker(t)
	for _, c := range cases {
		t.Run(c.bug, func(t *testing.T) {
			s := Setup{DeliveryCountLimit: 5, PartitionMaxRecordLocks: 4, ModelBug: c.bug}
			lines, at, err := Replay(b, s, c.steps)
			if err != nil {
				t.Fatal(err)
			}
			if at != len(c.steps)-1 {
				t.Errorf("want an unexplained disagreement at the last step, got %d:\n%v", at+1, lines)
			}
			s.ModelBug = ""
			if lines, at, err = Replay(b, s, c.steps); err != nil || at >= 0 {
				t.Errorf("the faithful model disagrees (at %d, err %v):\n%v", at+1, err, lines)
			}
		})
	}
}

// TestClassifyRejectsOthers: disagreements near each deviation but not explained by it are
// not classified.
func TestClassifyRejectsOthers(t *testing.T) {
	batch := func(off int64) (model.LogBatch, bool) { return model.LogBatch{First: off, Last: off}, true }
	noBatch := func(int64) (model.BatchView, bool) { return model.BatchView{}, false }
	cases := []struct {
		name string
		c    Context
	}{
		{"delivery counts differ", Context{Step: fetch("m1", 1, model.BatchOptimized),
			Broker: Outcome{Acquired: []Range{{0, 0, 2}}}, Model: Outcome{Acquired: []Range{{0, 0, 1}}}}},
		{"batch_optimized, extra offsets in another producer batch", Context{Step: fetch("m1", 1, model.BatchOptimized),
			Broker: Outcome{Acquired: []Range{{0, 0, 1}}}, Model: Outcome{Acquired: []Range{{0, 1, 1}}}}},
		{"SPSO differs", Context{Step: Step{Kind: Wait}, Broker: Outcome{SPSO: 1}, Model: Outcome{SPSO: 0}}},
		{"ack refused by kfake only", Context{Step: ack("m1", model.AckRange{First: 0, Last: 0, Types: acc}),
			Broker: Outcome{AckCode: "INVALID_RECORD_STATE"}, Model: Outcome{AckCode: "NONE"}, BrokerAcquireEndBefore: 1}},
		{"INVALID_REQUEST with a non-empty window", Context{Step: ack("m1", model.AckRange{First: 0, Last: 0, Types: acc}),
			Broker: Outcome{AckCode: "INVALID_REQUEST"}, Model: Outcome{AckCode: "INVALID_RECORD_STATE"}, BrokerAcquireEndBefore: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Setup = Setup{DeliveryCountLimit: 5, PartitionMaxRecordLocks: 2000}
			c.BatchOf, c.ModelBatchAfter = batch, noBatch
			c.Diffs = Diff(c.Broker, c.Model)
			if len(c.Diffs) == 0 {
				t.Fatal("the case has no disagreement")
			}
			if d, _, ok := Classify(&c); ok {
				t.Errorf("classified as %s", d.ID)
			}
		})
	}
}
