package reports_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/reports"
	"github.com/sharesim/sharesim/sim"
)

// history.ndjson holds the history and hidden events the run would have kept, in order.
func TestStreamedHistoryMatchesTheKeptOne(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.DurationMs, cfg.HealMs = 20_000, 20_000
	cfg.Kafka.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	cfg.Network.ResponseLossPerMillion = 20_000
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 2, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []sim.Producer{{Name: "p", Topic: "t", RecordsPerSecond: 50, BatchRecords: 5}}
	c := sim.DefaultConsumer("c")
	c.Count = 2
	cfg.Groups = []sim.Group{{Name: "g", Topics: []string{"t"}, Consumers: []sim.ConsumerSpec{c}}}
	cfg.Faults = []sim.Fault{{Kind: sim.FaultKill, AtMs: 5_000, RestartAfterMs: 1_000}, {Kind: sim.FaultLeaderFailover, AtMs: 8_000}}

	kept, err := sim.Run(cfg, 1, sim.Options{RecordHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.ndjson")
	hw, err := reports.CreateHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := sim.Run(cfg, 1, sim.Options{OnHistory: hw.Op, OnHidden: hw.Hidden})
	if err != nil {
		t.Fatal(err)
	}
	if err := hw.Close(); err != nil {
		t.Fatal(err)
	}
	if streamed.History != nil || streamed.HiddenEvents != nil || streamed.TraceSHA256 != kept.TraceSHA256 {
		t.Fatalf("the streamed run kept %d operations, %d hidden events, or ran differently", len(streamed.History), len(streamed.HiddenEvents))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ops []sim.Op
	var hidden []sim.HiddenEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l reports.HistoryLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		switch {
		case l.Op != nil && l.Hidden == nil:
			ops = append(ops, *l.Op)
		case l.Hidden != nil && l.Op == nil:
			hidden = append(hidden, *l.Hidden)
		default:
			t.Fatalf("line %s has not exactly one of op and hidden", sc.Text())
		}
	}
	// Compare through JSON, as the file holds them.
	roundTrip := func(v, out any) {
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
	}
	var wantOps []sim.Op
	var wantHidden []sim.HiddenEvent
	roundTrip(kept.History, &wantOps)
	roundTrip(kept.HiddenEvents, &wantHidden)
	if len(wantOps) == 0 || len(wantHidden) == 0 {
		t.Fatalf("vacuous: %d operations, %d hidden events", len(wantOps), len(wantHidden))
	}
	if !reflect.DeepEqual(ops, wantOps) || !reflect.DeepEqual(hidden, wantHidden) {
		t.Errorf("history.ndjson has %d operations and %d hidden events, the kept history %d and %d (or they differ)", len(ops), len(hidden), len(wantOps), len(wantHidden))
	}
}
