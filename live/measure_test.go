package live

import (
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The meter folds an offset only once a reading of the group's offset passed it and no
// application holds it; folded offsets land in the same buckets as at the end of the run;
// a classic group is accounted against its committed offsets.
func TestMeterFoldsFinishedOffsetsIntoTheAccounting(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Kafka.DeliveryCountLimit = 2
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 1}}
	cfg.Groups = []sim.Group{{Name: "s", Type: sim.ShareGroup, Topics: []string{"t"}}, {Name: "c", Type: sim.ClassicGroup, Topics: []string{"t"}}}
	m := newMeter(&cfg, sim.Window{StartMs: 0, EndMs: 100_000})
	m.setOffset(0)
	for off := int64(0); off < 10; off++ {
		m.produce("t/0", off, 10)
	}
	m.sample(5)
	fetch := func(client string, first, last int64, dc int16, at int64) {
		m.op(&sim.Op{Client: client, Group: "s", Partition: "t/0", Kind: "fetch", CallMs: at, ReturnMs: at + 1,
			Acquired: []model.AcquiredRange{{First: first, Last: last, DeliveryCount: dc}}, Code: "NONE"}, false)
	}
	ack := func(client string, first, last int64, ty model.AckType, code string, at int64) {
		ret := at + 1
		if code == "LOST" {
			ret = -1
		}
		m.op(&sim.Op{Client: client, Group: "s", Partition: "t/0", Kind: "ack", CallMs: at, ReturnMs: ret,
			Acks: []model.AckRange{{First: first, Last: last, Types: []model.AckType{ty}}}, Code: code}, false)
	}
	// Share group: 0-3 accepted, 4 released at the limit, 5 accepted with the answer lost,
	// 6-7 delivered and never finished; 8-9 accepted above the start offset.
	fetch("a#1", 0, 9, 1, 20)
	m.polled("s", "a#1", "t/0", 3)
	ack("a#1", 0, 3, model.AckAccept, "NONE", 30)
	fetch("b#1", 4, 4, 2, 40)
	ack("b#1", 4, 4, model.AckRelease, "NONE", 41)
	ack("a#1", 5, 5, model.AckAccept, "LOST", 42)
	ack("a#1", 8, 9, model.AckAccept, "NONE", 43)
	m.processed("s", "t/0", 3, 25)

	// A reading past 0-7 folds nothing beyond 3, which a#1's application still holds.
	m.mark(&mark{group: "s", part: "t/0", floor: 8, logStart: 0, atMs: 50})
	if pm := m.byName["s"].parts["t/0"]; pm.floor != 3 {
		t.Fatalf("folded to %d while offset 3 is held, want 3", pm.floor)
	}
	m.processed("s", "t/0", 3, 60) // a second processing of a held record: a duplicate
	m.done("s", "a#1", "t/0", 3)
	m.mark(&mark{group: "s", part: "t/0", floor: 8, logStart: 0, atMs: 70})
	if pm := m.byName["s"].parts["t/0"]; pm.floor != 8 || len(pm.open) != 2 {
		t.Fatalf("after the hold: floor %d, %d open, want 8 and 2", pm.floor, len(pm.open))
	}
	m.processed("s", "t/0", 2, 80) // already folded: counted, not guessed
	if m.late != 1 {
		t.Errorf("late processings %d, want 1", m.late)
	}

	// Classic group: 0-5 processed, committed to 7 (6 never processed), 7-9 uncommitted.
	for off := int64(0); off < 6; off++ {
		m.polled("c", "k#1", "t/0", off)
		m.processed("c", "t/0", off, 30+off)
		m.done("c", "k#1", "t/0", off)
	}
	m.mark(&mark{group: "c", part: "t/0", floor: 7, logStart: 0, atMs: 90})
	m.sample(100)

	accs, final, undecided := m.final(map[string]map[string]int64{"s": {"t/0": 8}, "c": {"t/0": 7}},
		map[string]int64{"t/0": 0}, map[string]int64{"t/0": 10}, map[string][]string{"s": {"t"}, "c": {"t"}})
	sa := accs["s"]
	want := map[string]int64{"accepted": 4, "limit": 1, "unconfirmed": 1}
	for k, v := range want {
		if sa.Finished[k] != v {
			t.Errorf("share finished[%s] = %d, want %d (%+v)", k, sa.Finished[k], v, sa.Finished)
		}
	}
	if sa.SilentLoss != 2 || sa.TerminalInCache["accepted"] != 2 || !sa.Balanced || sa.Offsets != 10 {
		t.Errorf("share accounting %+v: want 6-7 silently lost (delivered, no final state, below the start offset), 8-9 terminal in cache, balanced", sa)
	}
	ca := accs["c"]
	if ca.Finished["committed"] != 6 || ca.Finished["committed-unprocessed"] != 1 || ca.Unfinished["uncommitted"] != 3 || !ca.Balanced {
		t.Errorf("classic accounting %+v", ca)
	}
	if len(final) != 2 {
		t.Fatalf("final states %+v, want one per group", final)
	}
	for _, f := range final {
		if f.Group == "s" && !f.Drained {
			t.Errorf("share partition: everything above the start offset ended, want drained: %+v", f)
		}
		if f.Group == "c" && f.Drained {
			t.Errorf("classic partition committed to 7 of 10, want not drained: %+v", f)
		}
	}
	if len(undecided) != 0 {
		t.Errorf("undecided %v", undecided)
	}
	fs := m.figures("s")
	if fs.Completed != 6 || fs.Redeliveries != 1 || fs.E2EP50Ms == nil {
		t.Errorf("share figures %+v: want 6 completed (0-3, 8-9), 1 redelivery, a latency", fs)
	}
	if g := m.byName["s"]; g.dups != 1 {
		t.Errorf("duplicates %d, want 1", g.dups)
	}
	if len(m.produced["t/0"].at) != 0 {
		t.Errorf("%d produce times left after every group folded", len(m.produced["t/0"].at))
	}
}

// The meter reads the delivery count limit in force: after a config change lowers it from
// 5 to 3 at 10 s (Kafka 4.3), a record released at delivery count 3 ended at the limit,
// and one released at 3 before the change did not.
func TestMeterUsesTheLimitInForce(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Kafka.Version = model.Kafka43
	cfg.Kafka.DeliveryCountLimit = 5
	cfg.DurationMs = 60_000
	cfg.Topics = []sim.Topic{{Name: "t", Partitions: 1}}
	cfg.Groups = []sim.Group{{Name: "s", Type: sim.ShareGroup, Topics: []string{"t"}}}
	cfg.Faults = []sim.Fault{{Kind: sim.FaultConfigChange, AtMs: 10_000, Group: "s", Set: []model.ConfigEntry{{Key: "share.delivery.count.limit", Value: "3"}}}}
	m := newMeter(&cfg, sim.Window{StartMs: 0, EndMs: 60_000})
	m.setOffset(0)
	for off := int64(0); off < 2; off++ {
		m.produce("t/0", off, 10)
	}
	for i, at := range []int64{5_000, 20_000} {
		off := int64(i)
		m.op(&sim.Op{Client: "a#1", Group: "s", Partition: "t/0", Kind: "fetch", CallMs: at, ReturnMs: at + 1,
			Acquired: []model.AcquiredRange{{First: off, Last: off, DeliveryCount: 3}}, Code: "NONE"}, false)
		m.op(&sim.Op{Client: "a#1", Group: "s", Partition: "t/0", Kind: "ack", CallMs: at + 2, ReturnMs: at + 3,
			Acks: []model.AckRange{{First: off, Last: off, Types: []model.AckType{model.AckRelease}}}, Code: "NONE"}, false)
	}
	pm := m.byName["s"].parts["t/0"]
	if st := pm.open[0]; st == nil || st.final != "" {
		t.Errorf("offset 0 released at delivery count 3 under the limit 5: %+v, want no final outcome", st)
	}
	if st := pm.open[1]; st == nil || st.final != "limit" {
		t.Errorf("offset 1 released at delivery count 3 under the limit 3 in force: %+v, want limit", st)
	}
}
