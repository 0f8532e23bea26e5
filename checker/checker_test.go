package checker_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// A faithful Kafka 4.2 world under kills, failovers, pauses, write failures, lost responses
// and record deletion passes every check.
func TestCleanRunsPass(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, v := range checkedRun(t, testworlds.Faulty(model.Kafka42), seed) {
			t.Errorf("seed %d: %s", seed, v)
		}
	}
}

// The history checks catch an accepted record delivered again and disordered ranges.
func TestHistoryChecksCatchViolations(t *testing.T) {
	cfg := testworlds.Faulty(model.Kafka42)
	ck, _ := checker.New(cfg, []string{"accepted-never-redelivered", "acquired-ranges-ordered"})
	accept := []model.AckType{model.AckAccept}
	res := &sim.Result{History: []sim.Op{
		{Client: "a", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: 0, ReturnMs: 1, Acquired: []model.AcquiredRange{{First: 0, Last: 4, DeliveryCount: 1}}},
		{Client: "a", Group: "g", Partition: "t/0", Kind: "ack", CallMs: 5, ReturnMs: 10, Acks: []model.AckRange{{First: 0, Last: 4, Types: accept}}, Code: "NONE"},
		{Client: "b", Group: "g", Partition: "t/0", Kind: "fetch", CallMs: 20, ReturnMs: 21, Acquired: []model.AcquiredRange{{First: 3, Last: 3, DeliveryCount: 2}, {First: 2, Last: 2, DeliveryCount: 1}}},
	}}
	w, _ := sim.New(cfg, 1, sim.Options{})
	got := ck.Finish(w, res)
	var names []string
	for _, v := range got {
		names = append(names, v.Check)
	}
	joined := strings.Join(names, ",")
	if !strings.Contains(joined, "accepted-never-redelivered") || !strings.Contains(joined, "acquired-ranges-ordered") {
		t.Errorf("violations %v, want both history checks to fire", got)
	}
}

func TestUnknownCheckIsAnError(t *testing.T) {
	if _, err := checker.New(sim.DefaultConfig(), []string{"no-such-check"}); err == nil || !strings.Contains(err.Error(), "liveness") {
		t.Errorf("want an error listing the known checks, got %v", err)
	}
}
