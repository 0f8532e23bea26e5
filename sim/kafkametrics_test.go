package sim

import "testing"

// Kafka's FetchLockRatio formula (SharePartition.recordFetchLockRatioMetric), in percent
// truncated: hold ÷ (hold + idle); 100 when both are 0; 100 ÷ idle for a 0 ms hold.
func TestFetchLockRatioKafkasFormula(t *testing.T) {
	for _, c := range []struct{ held, idle, want int64 }{
		{0, 0, 100}, // first hold, or back to back with no time
		{0, 1, 100},
		{0, 3, 33},
		{0, 250, 0},
		{10, 0, 100},
		{10, 10, 50},
		{1, 2, 33},
		{30, 70, 30},
	} {
		if got := fetchLockRatio(c.held, c.idle); got != c.want {
			t.Errorf("held %d ms, idle %d ms: %d, want %d", c.held, c.idle, got, c.want)
		}
	}
}
