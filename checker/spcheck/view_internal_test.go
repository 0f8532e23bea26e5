package spcheck

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// The walk over the offsets cached before and after a step compares each offset with itself
// whatever is cached on either side only, and reports terminal-states-absorbing before
// delivery-count-monotonic, whichever offset comes first.
func TestSameLeaderWalk(t *testing.T) {
	cfg := model.DefaultConfig()
	sp, _ := model.New(cfg, 0)
	rec := func(off int64, st model.State, dc int16) Rec {
		return Rec{Offset: off, State: st, DeliveryCount: dc, Owner: -1}
	}
	for _, tc := range []struct {
		name      string
		prev, cur []Rec
		want      string
	}{
		{"unchanged with gaps", []Rec{rec(1, model.Available, 1), rec(3, model.Archived, 2), rec(5, model.Available, 0)},
			[]Rec{rec(0, model.Available, 0), rec(3, model.Archived, 2), rec(4, model.Available, 0), rec(5, model.Available, 1)}, ""},
		{"count down", []Rec{rec(1, model.Available, 2), rec(2, model.Available, 1)}, []Rec{rec(2, model.Available, 0)}, DeliveryCountMonotonic},
		{"terminal after a count down", []Rec{rec(1, model.Available, 2), rec(4, model.Acknowledged, 1)},
			[]Rec{rec(1, model.Available, 1), rec(4, model.Available, 1)}, TerminalAbsorbing},
		{"only new offsets", []Rec{rec(1, model.Archived, 1)}, []Rec{rec(2, model.Available, 0)}, ""},
	} {
		prev := &View{SPSO: 0, SPEO: 9, Window: 10, Recs: tc.prev}
		cur := &View{SPSO: 0, SPEO: 9, Window: 10, Recs: tc.cur}
		got := ""
		if v := Check(&cfg, sp, prev, cur, &Step{}, nil, false); v != nil {
			got = v.Invariant
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
