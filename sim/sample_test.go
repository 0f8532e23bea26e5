package sim_test

import (
	"sort"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// The record sample and the redelivery causes only watch: a run with them has the same trace
// as a run without.
func TestRecordSampleKeepsTheTrace(t *testing.T) {
	cfg := busyConfig()
	for seed := uint64(1); seed <= 3; seed++ {
		plain := runHash(t, cfg, seed)
		res, err := sim.Run(cfg, seed, sim.Options{SampleRecords: 100})
		if err != nil {
			t.Fatal(err)
		}
		if res.TraceSHA256 != plain.TraceSHA256 {
			t.Fatalf("seed %d: the record sample changed the trace", seed)
		}
		s := res.Sample
		if s == nil || len(s.Records) == 0 || len(s.Records) > 100 {
			t.Fatalf("seed %d: sample of %v records, want 1..100", seed, s)
		}
		if !sort.SliceIsSorted(s.Records, func(i, j int) bool {
			a, b := s.Records[i], s.Records[j]
			if a.Group != b.Group {
				return a.Group < b.Group
			}
			if a.Partition != b.Partition {
				return a.Partition < b.Partition
			}
			return a.Offset < b.Offset
		}) {
			t.Errorf("seed %d: sampled records are not in group, partition, offset order", seed)
		}
		for _, r := range s.Records {
			if len(r.Events) == 0 || r.Events[0].Kind != "acquired" {
				t.Errorf("seed %d: %s@%d does not start with an acquisition: %+v", seed, r.Partition, r.Offset, r.Events)
			}
		}
		if len(s.Notable) == 0 {
			t.Errorf("seed %d: no fault or kill among the notable trace lines", seed)
		}
		c := res.Metrics.RedeliveriesByCause
		if sum := c.LockExpiry + c.Crash + c.Release + c.Failover + c.Other; sum < res.Metrics.Totals.Redeliveries {
			t.Errorf("seed %d: redeliveries by cause sum to %d, fewer than the %d redeliveries", seed, sum, res.Metrics.Totals.Redeliveries)
		}
		if c.Crash == 0 || c.Failover == 0 || c.LockExpiry == 0 {
			t.Errorf("seed %d: kills, failovers and hangs should each cause redeliveries: %+v", seed, c)
		}
	}
}
