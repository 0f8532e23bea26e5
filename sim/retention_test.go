package sim_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

// Retention as Kafka does it: segments by size and by time, only closed segments deleted.
// 100 records/s in one-record batches of 1 061 bytes for 5 s (offsets 0..499), no readers
// but a classic group without members (so the end state shows the log).
func segWorld(mod func(*sim.Topic)) sim.Config {
	cfg := sim.DefaultConfig()
	cfg.DurationMs = 20_000
	t := sim.Topic{Name: "t", Partitions: 1, RetentionMs: -1, RetentionRecords: -1, RetentionCheckIntervalMs: 1000,
		Segments: true, SegmentBytes: 10 * 1061, RetentionBytes: -1}
	mod(&t)
	cfg.Topics = []sim.Topic{t}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: 100, BatchRecords: 1, StopMs: 5000}}
	cfg.Groups = []sim.Group{{Name: "g", Type: sim.ClassicGroup, Topics: []string{"t"}}}
	return cfg
}

func TestSegmentRetention(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mod       func(*sim.Topic)
		wantStart int64
		why       string
	}{
		{"time", func(t *sim.Topic) { t.RetentionMs = 0 }, 490, "segments of 10 records; everything but the active segment [490, 500) goes"},
		{"roll.ms", func(t *sim.Topic) { t.RetentionMs, t.SegmentBytes, t.SegmentMs = 0, 1<<30, 1000 }, 400, "a segment per second (100 records); the active one starts at the batch of 4 s, offset 400"},
		{"bytes", func(t *sim.Topic) { t.RetentionBytes = 5 * 10 * 1061 }, 450, "deleting stops while five segments (53 050 bytes) remain"},
		{"none", func(t *sim.Topic) {}, 0, "no limit: nothing is deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sim.Run(segWorld(tc.mod), 1, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := res.Final[0]
			if f.LogStart != tc.wantStart || f.LogEnd != 500 {
				t.Errorf("log [%d, %d), want [%d, 500): %s", f.LogStart, f.LogEnd, tc.wantStart, tc.why)
			}
		})
	}
}

func TestSegmentRefusals(t *testing.T) {
	cfg := segWorld(func(t *sim.Topic) { t.RetentionRecords = 100 })
	if _, err := sim.Run(cfg, 1, sim.Options{}); err == nil || !strings.Contains(err.Error(), "retention.records with segments") {
		t.Errorf("error %v", err)
	}
	cfg = segWorld(func(t *sim.Topic) { t.Segments = false })
	if _, err := sim.Run(cfg, 1, sim.Options{}); err == nil || !strings.Contains(err.Error(), "need Segments") {
		t.Errorf("error %v", err)
	}
}
