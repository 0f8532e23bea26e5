package spcheck_test

import (
	"testing"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

func TestSPSOMonotonicExceptStep3(t *testing.T) {
	cfg := model.DefaultConfig()
	sp, _ := model.New(cfg, 0)
	prev := &spcheck.View{SPSO: 5, SPEO: 7, Window: 3}
	st := &spcheck.Step{LogStart: 6}
	// Step 3 after a log-start jump: cache emptied, SPSO just past it, below the log start.
	cur := &spcheck.View{SPSO: 4, SPEO: 4, Window: 0}
	if v := spcheck.Check(&cfg, sp, prev, cur, st, nil, false); v != nil {
		t.Errorf("step 3 exception: %v", v)
	}
	// Anything else that moves SPSO back is a violation.
	cur = &spcheck.View{SPSO: 4, SPEO: 7, Window: 4}
	if v := spcheck.Check(&cfg, sp, prev, cur, st, nil, false); v == nil || v.Invariant != spcheck.SPSOMonotonic {
		t.Errorf("got %v, want spso-monotonic", v)
	}
	// Not across a leader change.
	st.NewLeader = true
	if v := spcheck.Check(&cfg, sp, prev, cur, st, nil, false); v != nil {
		t.Errorf("new leader: %v", v)
	}
}

func TestAcceptedNeverRedelivered(t *testing.T) {
	cfg := model.DefaultConfig()
	sp, _ := model.New(cfg, 0)
	prev := &spcheck.View{SPSO: 0}
	cur := &spcheck.View{SPSO: 0, SPEO: 1, Window: 2}
	st := &spcheck.Step{Kind: spcheck.StepFetch, Member: "m", Acquired: []model.AcquiredRange{{First: 0, Last: 1, DeliveryCount: 2}}, MaxLogBatch: 2}
	v := spcheck.Check(&cfg, sp, prev, cur, st, func(off int64) bool { return off == 1 }, false)
	if v == nil || v.Invariant != spcheck.AcceptedNeverRedelivered {
		t.Errorf("got %v, want accepted-never-redelivered", v)
	}
}

func TestCatalogueOrderMatchesNames(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range spcheck.Catalogue {
		if seen[i.Name] || i.Doc == "" {
			t.Errorf("duplicate or undocumented invariant %q", i.Name)
		}
		seen[i.Name] = true
	}
	if len(seen) != 15 {
		t.Errorf("%d invariants", len(seen))
	}
}
