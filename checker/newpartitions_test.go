package checker_test

import (
	"testing"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// runNewPartitions runs the built-in new-partitions (two partitions added at 60 s to the
// topic the group reads) on a version with every check, and returns the failed checks, the
// records the offset reset skipped and the share-partitions the fault created.
func runNewPartitions(t *testing.T, version string, ignore bool) (map[string]int, int64, []sim.AddedSharePartition) {
	t.Helper()
	s, err := scenarios.Builtin("new-partitions")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("kafka.version", version); err != nil {
		t.Fatal(err)
	}
	// The partitions are added at 60 s: 30 s of production after that (not the built-in's
	// 60 s) covers their first loads and what the checks say of them.
	if err := s.Set("duration", "90s"); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	w, res, vs := runChecks(t, cfg, 1, checker.Names(), sim.Options{IgnoreNewPartitionStart: ignore})
	return failedChecks(vs), res.Metrics.Groups[0].Accounting.SkippedByOffsetReset, w.AddedSharePartitions()
}

// KAFKA-20742 per version: up to 4.3 the new share-partitions start where
// share.auto.offset.reset=latest points at their first load (records produced to them before
// are skipped, and that is no loss); from 4.4 they start at 0. Every check passes on both;
// a 4.4 world that stores -1 anyway (the rule removed) fails no-silent-loss.
func TestNewPartitionsStartPerVersion(t *testing.T) {
	failed, skipped43, added := runNewPartitions(t, "4.3", false)
	if len(failed) != 0 {
		t.Errorf("4.3: checks failed: %v", failed)
	}
	if len(added) != 2 {
		t.Fatalf("4.3: %d share-partitions added, want 2", len(added))
	}
	for _, a := range added {
		if a.StoredStartOffset != -1 || !a.TopicKnown || !a.Loaded || a.LoadStartOffset == 0 {
			t.Errorf("4.3: %+v: want stored -1, topic known, first load above offset 0", a)
		}
	}
	failed, skipped44, added := runNewPartitions(t, "4.4", false)
	if len(failed) != 0 {
		t.Errorf("4.4: checks failed: %v", failed)
	}
	for _, a := range added {
		if a.StoredStartOffset != 0 || !a.Loaded || a.LoadStartOffset != 0 {
			t.Errorf("4.4: %+v: want stored 0 and first load at 0", a)
		}
	}
	// The initial partitions' latest skip is the same on both; the new partitions add to
	// it only on 4.3 (by the records of about one heartbeat interval).
	if skipped43-skipped44 < 500 {
		t.Errorf("skipped by the offset reset: 4.3 %d, 4.4 %d; want 4.3 to skip the new partitions' first records", skipped43, skipped44)
	}
	if failed, _, _ := runNewPartitions(t, "4.4", true); failed["no-silent-loss"] != 2 {
		t.Errorf("4.4 with new partitions stored at -1: no-silent-loss failed %d times, want 2 (failed: %v)", failed["no-silent-loss"], failed)
	}
	if failed, _, _ := runNewPartitions(t, "4.3", true); len(failed) != 0 {
		t.Errorf("4.3 with new partitions stored at -1 (what 4.3 does): checks failed: %v", failed)
	}
}
