package checker_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim"
)

// A history handed to HistoryStream as live mode hands it over (operations by return time,
// lost ones when found lost, hidden events by time among them; no offset declared finished)
// gets CheckHistory's verdicts, on every zoo case of a history check, faithful and buggy.
func TestHistoryStreamAgreesWithCheckHistory(t *testing.T) {
	hist := map[string]bool{}
	for _, n := range checker.HistoryChecks() {
		hist[n] = true
	}
	for _, zc := range testworlds.ZooCases {
		if !hist[zc.Check] {
			continue
		}
		for _, bug := range []string{"", zc.Bug} {
			t.Run(fmt.Sprintf("%s/%s", zc.World, bug), func(t *testing.T) {
				t.Parallel()
				cfg := testworlds.Zoo[zc.World]()
				cfg.Kafka.Bug = bug
				names := checker.HistoryChecks()
				var res *sim.Result
				var whole *checker.HistoryVerdict
				// A bug shows within MaxSeeds seeds; the faithful core on seed 1.
				for seed := uint64(1); seed <= max(zc.MaxSeeds, 1); seed++ {
					var err error
					if res, err = sim.Run(cfg, seed, sim.Options{RecordHistory: true}); err != nil {
						t.Fatal(err)
					}
					if whole, err = checker.CheckHistory(cfg, names, checker.History{Ops: res.History, Hidden: res.HiddenEvents}); err != nil {
						t.Fatal(err)
					}
					if bug == "" || len(whole.Violations) > 0 {
						break
					}
				}
				s, err := checker.NewHistoryStream(cfg, names)
				if err != nil {
					t.Fatal(err)
				}
				ops := append([]sim.Op(nil), res.History...)
				key := func(op *sim.Op) int64 {
					if op.ReturnMs < 0 {
						return 1 << 62
					}
					return op.ReturnMs
				}
				sort.SliceStable(ops, func(a, b int) bool { return key(&ops[a]) < key(&ops[b]) })
				hidden := res.HiddenEvents
				h := 0
				for i := range ops {
					for h < len(hidden) && hidden[h].TimeMs < key(&ops[i]) {
						s.Hidden(&hidden[h])
						h++
					}
					s.Op(&ops[i])
				}
				for ; h < len(hidden); h++ {
					s.Hidden(&hidden[h])
				}
				streamed := s.Verdict()
				if a, b := verdicts(streamed.Violations), verdicts(whole.Violations); !slices.Equal(a, b) {
					t.Errorf("streamed\n  %s\nCheckHistory\n  %s", strings.Join(a, "\n  "), strings.Join(b, "\n  "))
				}
				if bug != "" && len(whole.Violations) == 0 {
					t.Errorf("bug %s: no violation to compare", bug)
				}
				if !slices.Equal(streamed.Ran, whole.Ran) {
					t.Errorf("ran %v, CheckHistory %v", streamed.Ran, whole.Ran)
				}
			})
		}
	}
}
