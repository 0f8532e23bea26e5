package sim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
)

// With records plentiful, a partition's consumers in blocking style hold at most
// floor(cap ÷ max.poll.records) polls at once, so throughput grows linearly with consumers
// up to that bound and stays there. Arithmetic (1 ms network each way, 5 ms state writes,
// 10 ms a record): a consumer's cycle is its poll's processing P plus the ShareFetch that
// carries its acknowledgements, answered once their write is done: 1 + 5 + 1 ms; its records
// stay in flight about as long. So min(n, floor(cap ÷ mpr)) consumers are busy and finish
// mpr ÷ (P + 7 ms) each.
//
// The default run tries the grid's corners (a bound of 10 and of 2 polls, with fewer and more
// consumers than the bound); the build tag long tries the whole grid.
func TestBusyConsumersFollowTheCap(t *testing.T) {
	caps, mprs, counts := []int{100}, []int{10, 50}, []int{2, 20}
	if testmode.Long {
		caps, mprs, counts = []int{100, 200}, []int{10, 25, 50}, []int{2, 5, 10, 20}
	}
	for _, capRecs := range caps {
		for _, mpr := range mprs {
			for _, consumers := range counts {
				t.Run(fmt.Sprintf("cap%d/mpr%d/n%d", capRecs, mpr, consumers), func(t *testing.T) {
					c := ftConsumer("c", consumers, 10, mpr)
					c.AcquireMode = model.RecordLimit
					cfg := ftWorld(1, 5000, 0, c)
					cfg.Kafka.PartitionMaxRecordLocks = capRecs
					cfg.DurationMs = 20_000
					res := mustRun(t, cfg, 1)
					got := float64(res.Metrics.Groups[0].InWindow.ProcessedOK) / 20
					bound := capRecs / mpr
					p := float64(mpr * 10)
					want := float64(min(consumers, bound)*mpr) * 1000 / (p + 7)
					if math.Abs(got-want) > 0.04*want {
						t.Errorf("%d consumers, cap %d, max.poll.records %d (bound %d): %.1f records/s, want %.1f within 4 %%", consumers, capRecs, mpr, bound, got, want)
					}
				})
			}
		}
	}
}
