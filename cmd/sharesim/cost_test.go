package main

import (
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// The history checks' memory estimate follows the records in flight: per share-partition
// the in-flight cap plus a request timeout's worth of records, whatever the run's length.
func TestHistoryEstimateFollowsTheRecordsInFlight(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Kafka.PartitionMaxRecordLocks = 2000
	cfg.Network.RequestTimeoutMs = 30_000
	for _, tc := range []struct {
		name                       string
		durationMs, records, parts int64
		shares                     int64
		want                       int64
	}{
		// A week at 1 000 records/s on 4 partitions read by one group: 250 records/s per
		// partition, 7 500 in 30 s, plus the cap: 9 500 per share-partition, 200 B each.
		{"week", 7 * 86_400_000, 604_800_000, 4, 4, 4 * 9_500 * 200},
		// The same rate for an hour: the same estimate.
		{"hour", 3_600_000, 3_600_000, 4, 4, 4 * 9_500 * 200},
		// Two groups read the same partitions: twice.
		{"two groups", 3_600_000, 3_600_000, 4, 8, 8 * 9_500 * 200},
		// A short run holds at most what it produced: 1 000 records per partition.
		{"short", 4_000, 4_000, 4, 4, 4 * 1_000 * 200},
		// No share group: nothing.
		{"classic only", 3_600_000, 3_600_000, 4, 0, 0},
	} {
		cfg.DurationMs = tc.durationMs
		c := scenarios.Cost{Records: tc.records, Partitions: tc.parts, SharePartitions: tc.shares}
		if got := satMul(openRecords(cfg, c), historyBytesPerOpenRecord); got != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.name, got, tc.want)
		}
	}
}

// A config change that raises the cap during the run raises the estimate to the largest cap
// in force: 250 records/s per partition for an hour, a 30 s timeout (7 500) plus 4 000.
func TestHistoryEstimateUsesTheLargestCapInForce(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Kafka.Version = model.Kafka43
	cfg.Kafka.PartitionMaxRecordLocks = 2000
	cfg.Network.RequestTimeoutMs = 30_000
	cfg.DurationMs = 3_600_000
	cfg.Groups = []sim.Group{{Name: "g", Type: sim.ShareGroup}}
	cfg.Faults = []sim.Fault{{Kind: sim.FaultConfigChange, AtMs: 60_000, Group: "g",
		Set: []model.ConfigEntry{{Key: "share.partition.max.record.locks", Value: "4000"}}}}
	c := scenarios.Cost{Records: 3_600_000, Partitions: 4, SharePartitions: 4}
	if got, want := openRecords(cfg, c), int64(4*11_500); got != want {
		t.Errorf("open records %d, want %d (the cap raised to 4000 at 1m)", got, want)
	}
}
