package checker_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/sim/dist"
)

// A group that cannot keep up leaves its partitions undrained; liveness says so once, with
// the capacity bound, instead of listing every partition as if it were stuck.
func TestLivenessOfAnOverloadedGroupIsOneLine(t *testing.T) {
	cfg := testworlds.Base(20, 1, 1, 1, 100)
	cfg.Topics[0].Partitions = 4
	cfg.DurationMs, cfg.HealMs = 60_000, 30_000
	c := &cfg.Groups[0].Consumers[0]
	c.FailurePerMillion = 0
	c.Processing = dist.Must(dist.LogNormalP50P99(8000, 40000))
	var live []string
	for _, v := range checkedRun(t, cfg, 1) {
		if v.Check == "liveness" {
			live = append(live, v.Message)
		} else {
			t.Errorf("%s", v)
		}
	}
	if len(live) != 1 || !strings.Contains(live[0], "did not drain 4 of 4 partitions") || !strings.Contains(live[0], "processing limits it to") {
		t.Fatalf("liveness: %q", live)
	}
	// The same group with capacity to spare drains, and liveness passes.
	cfg.Producers[0].RecordsPerSecond = 1
	cfg.HealMs = 300_000
	for _, v := range checkedRun(t, cfg, 1) {
		t.Errorf("%s", v)
	}
}
