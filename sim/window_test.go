package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
	"github.com/sharesim/sharesim/sim/dist"
)

// With a log read latency the busy world still runs deterministically, fetches read and
// acquire as two events, and other events on the same share-partition land in between
// (the read-then-acquire window Kafka has).
func TestLogReadLatencyOpensTheWindow(t *testing.T) {
	cfg := busyConfig()
	cfg.LogReadLatency = dist.Must(dist.Uniform(1, 40))
	run := func() *sim.Result {
		res, err := sim.Run(cfg, 7, sim.Options{KeepTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(), run()
	if a.TraceSHA256 != b.TraceSHA256 {
		t.Fatalf("two runs differ: %s vs %s", a.TraceSHA256, b.TraceSHA256)
	}
	reads, windowed, between := 0, 0, 0
	open := map[string]int{} // partition → events on it since its read
	for _, line := range a.Trace {
		p := field(line, "p=")
		switch {
		case strings.Contains(line, " log-read "):
			reads++
			open[p] = 0
		case strings.Contains(line, " acquire ") && strings.Contains(line, "read_at="):
			if n, ok := open[p]; ok && n > 0 {
				windowed++
			}
			delete(open, p)
		default:
			if _, ok := open[p]; ok && p != "" {
				open[p]++
				between++
			}
		}
	}
	t.Logf("%d reads, %d acquisitions with other events on the partition in between (%d such events)", reads, windowed, between)
	if reads < 100 || windowed == 0 {
		t.Fatalf("%d log reads, %d windows with events in between: the window never opened", reads, windowed)
	}
}

// field returns the value of key (e.g. "p=") in a trace line, or "".
func field(line, key string) string {
	i := strings.Index(line, " "+key)
	if i < 0 {
		return ""
	}
	v := line[i+1+len(key):]
	if j := strings.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	return v
}
