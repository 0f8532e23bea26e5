package peer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharesim/sharesim/live/deviation"
	"github.com/sharesim/sharesim/model"
)

// Pin tests: each shows one catalogued deviation on kfake over the protocol, next to what
// the model (Kafka 4.2) answers, and fails if kfake stops deviating. The catalogue's
// PinnedBy fields name them (TestCatalogueNamesPins).

func newPinBroker(t *testing.T) *Broker {
	t.Helper()
	c, err := NewCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	b, err := NewBroker(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// pinSequence runs steps on both peers and returns the outcomes of the last step.
func pinSequence(t *testing.T, b *Broker, s Setup, steps []Step) Result {
	t.Helper()
	p, err := NewPair(b, s)
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	for i, st := range steps {
		if r, err = p.Do(st); err != nil {
			t.Fatal(err)
		}
		if i < len(steps)-1 && len(r.Diffs) > 0 {
			t.Fatalf("step %d (%s) already disagrees: %v", i+1, st, r.Diffs)
		}
	}
	return r
}

var (
	wideSetup = Setup{DeliveryCountLimit: 5, PartitionMaxRecordLocks: 2000}
	acc       = []model.AckType{model.AckAccept}
)

func produce(n int) Step { return Step{Kind: Produce, Records: n} }
func fetch(m string, max int, mode model.AcquireMode) Step {
	return Step{Kind: Fetch, Member: m, MaxRecords: max, Mode: mode}
}
func ack(m string, rs ...model.AckRange) Step { return Step{Kind: Ack, Member: m, Ranges: rs} }

func wantRanges(t *testing.T, side string, got []Range, want string) {
	t.Helper()
	if g := FormatRanges(got); g != want {
		t.Errorf("%s acquired %s, want %s", side, g, want)
	}
}

func TestPinAcquireExactMaxRecords(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, wideSetup, []Step{produce(4), fetch("m1", 1, model.BatchOptimized)})
	wantRanges(t, "kfake", r.Broker.Acquired, "0@1")
	wantRanges(t, "model", r.Model.Acquired, "0-3@1")
}

func TestPinBatchSizeSplitsLogBatch(t *testing.T) {
	b := newPinBroker(t)
	if _, err := NewPair(b, wideSetup); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Do(produce(4)); err != nil {
		t.Fatal(err)
	}
	got, err := b.FetchRanges("m1", 4, 2, model.BatchOptimized)
	if err != nil {
		t.Fatal(err)
	}
	wantRanges(t, "kfake", got, "0-1@1 2-3@1")
	m, err := NewModel(wideSetup)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.Core().Acquire(1, "m1", model.FetchParams{MaxRecords: 4, BatchSize: 2, Mode: model.BatchOptimized}, []model.LogBatch{{First: 0, Last: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].First != 0 || rs[0].Last != 3 {
		t.Errorf("model acquired %v, want one range 0-3 (a log batch is never cut)", rs)
	}
}

func TestPinRecordLimitTail(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, wideSetup, []Step{
		produce(2), fetch("m2", 5, model.RecordLimit), produce(2), fetch("m2", 1, model.RecordLimit),
		ack("m1", model.AckRange{First: 2, Last: 3, Types: []model.AckType{model.AckReject}}),
	})
	if r.Broker.AckCode != "INVALID_REQUEST" || r.Model.AckCode != "INVALID_RECORD_STATE" {
		t.Errorf("ack into the record_limit tail: kfake %s (want INVALID_REQUEST), model %s (want INVALID_RECORD_STATE)", r.Broker.AckCode, r.Model.AckCode)
	}
}

func TestPinNoThrottledRedelivery(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, Setup{DeliveryCountLimit: 3, PartitionMaxRecordLocks: 2000}, []Step{
		produce(1), produce(1), fetch("m1", 3, model.RecordLimit), {Kind: Leave, Member: "m1"},
		fetch("m2", 2, model.RecordLimit), {Kind: Wait}, fetch("m2", 2, model.RecordLimit),
	})
	wantRanges(t, "kfake", r.Broker.Acquired, "0-1@3")
	wantRanges(t, "model", r.Model.Acquired, "0@3")
}

func TestPinCapBudgetIgnoresRedeliveries(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, Setup{DeliveryCountLimit: 3, PartitionMaxRecordLocks: 4}, []Step{
		produce(3), fetch("m2", 4, model.BatchOptimized), {Kind: Wait}, fetch("m2", 4, model.RecordLimit),
	})
	// Kafka: in-flight 3 of cap 4, so the fetch may take min(4, 4 − 3) = 1 offset.
	wantRanges(t, "kfake", r.Broker.Acquired, "0-2@2")
	wantRanges(t, "model", r.Model.Acquired, "0@2")
}

func TestPinAckEmptyWindowInvalidRequest(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, wideSetup, []Step{ack("m1", model.AckRange{First: 0, Last: 0, Types: acc})})
	if r.Broker.AckCode != "INVALID_REQUEST" || r.Model.AckCode != "INVALID_RECORD_STATE" {
		t.Errorf("ack with nothing acquired: kfake %s (want INVALID_REQUEST), model %s (want INVALID_RECORD_STATE)", r.Broker.AckCode, r.Model.AckCode)
	}
}

func TestPinAckTouchingBatchesInvalidRequest(t *testing.T) {
	b := newPinBroker(t)
	r := pinSequence(t, b, wideSetup, []Step{
		produce(3), fetch("m1", 3, model.RecordLimit),
		ack("m1", model.AckRange{First: 0, Last: 1, Types: []model.AckType{model.AckAccept, model.AckRenew}}, model.AckRange{First: 1, Last: 2, Types: acc}),
	})
	if r.Broker.AckCode != "INVALID_REQUEST" || r.Model.AckCode != "NONE" {
		t.Errorf("ack 0-1 ACCEPT,RENEW; 1-2 ACCEPT: kfake %s (want INVALID_REQUEST), model %s (want NONE)", r.Broker.AckCode, r.Model.AckCode)
	}
	if r.Broker.SPSO != 0 || r.Model.SPSO != 3 {
		t.Errorf("SPSO after the ack: kfake %d (want 0), model %d (want 3)", r.Broker.SPSO, r.Model.SPSO)
	}
}

// TestPinLockSweepTiming shows both halves of the deviation: a lock fires only at a sweep
// (with the sweep off, a 1 ms lock still holds long after), and the sweep uses the lock
// duration current when it runs (a lock taken under one hour fires once the duration is 0).
func TestPinLockSweepTiming(t *testing.T) {
	b := newPinBroker(t)
	if _, err := NewPair(b, wideSetup); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Do(produce(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.AlterBrokerConfigs("group.share.record.lock.duration.ms", "1"); err != nil {
		t.Fatal(err)
	}
	o, err := b.Do(fetch("m1", 1, model.RecordLimit))
	if err != nil {
		t.Fatal(err)
	}
	wantRanges(t, "kfake", o.Acquired, "0@1")
	time.Sleep(100 * time.Millisecond) // 100 lock durations; Kafka's timer would have fired
	if o, err = b.Do(fetch("m2", 1, model.RecordLimit)); err != nil {
		t.Fatal(err)
	}
	wantRanges(t, "kfake, 100 ms after a 1 ms lock with the sweep off,", o.Acquired, "nothing")
	if err := b.AlterBrokerConfigs("group.share.record.lock.duration.ms", heldLockDurationMs); err != nil {
		t.Fatal(err)
	}
	if o, err = b.Do(produce(1)); err != nil {
		t.Fatal(err)
	}
	if o, err = b.Do(fetch("m2", 1, model.RecordLimit)); err != nil { // offset 1, under a one-hour lock
		t.Fatal(err)
	}
	wantRanges(t, "kfake", o.Acquired, "1@1")
	if err := b.Wait(); err != nil { // lock duration 0, one sweep
		t.Fatal(err)
	}
	if o, err = b.Do(fetch("m1", 2, model.RecordLimit)); err != nil {
		t.Fatal(err)
	}
	// Kafka: offset 1's lock was fixed at one hour when acquired and still holds.
	wantRanges(t, "kfake, after lowering the lock duration,", o.Acquired, "0-1@2")
}

func TestPinLogStartNotFollowed(t *testing.T) {
	b := newPinBroker(t)
	if _, err := NewPair(b, wideSetup); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := b.Do(produce(1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Cluster().DeleteRecords(b.Topic(), 0, 2); err != nil {
		t.Fatal(err)
	}
	o, err := b.Do(fetch("m1", 4, model.RecordLimit))
	if err != nil {
		t.Fatal(err)
	}
	wantRanges(t, "kfake, after DeleteRecords to 2,", o.Acquired, "0-3@1")
	if o.SPSO != 0 {
		t.Errorf("kfake SPSO after DeleteRecords to 2: %d, want 0 (not moved)", o.SPSO)
	}
	// Kafka: the read at 0 is out of range, the share-partition moves to the log start.
	m, err := NewModel(wideSetup)
	if err != nil {
		t.Fatal(err)
	}
	m.Core().MoveLogStartOffset(2)
	rs, err := m.Core().Acquire(1, "m1", model.FetchParams{MaxRecords: 4, BatchSize: 4, Mode: model.RecordLimit},
		[]model.LogBatch{{First: 2, Last: 2}, {First: 3, Last: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].First != 2 || rs[0].Last != 3 || m.Core().StartOffset() != 2 {
		t.Errorf("model acquired %v with SPSO %d, want 2-3 with SPSO 2", rs, m.Core().StartOffset())
	}
}

// compactedFetch produces keys a, b, b, c as four batches to a compacted topic and compacts
// it, which removes offset 1 (kfake never cleans the last batch); then m1 fetches everything.
func compactedFetch(t *testing.T) (*Broker, []Range) {
	t.Helper()
	b := newPinBroker(t)
	if _, err := NewPair(b, wideSetup); err != nil {
		t.Fatal(err)
	}
	topic := "peer-compacted"
	if err := b.Cluster().CreateTopic(topic, 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	info := b.Cluster().TopicInfo(topic)
	b.topic, b.topicID = topic, info.TopicID
	for _, k := range []string{"a", "b", "b", "c"} {
		b.cl.Produce(b.ctx, &kgo.Record{Topic: topic, Key: []byte(k), Value: []byte("v")}, nil)
		if err := b.cl.Flush(b.ctx); err != nil {
			t.Fatal(err)
		}
	}
	b.Cluster().Compact()
	if pi := b.Cluster().PartitionInfo(topic, 0); pi.LogStartOffset != 0 || pi.HighWatermark != 4 {
		t.Fatalf("compacted log: start %d, end %d; want 0 and 4", pi.LogStartOffset, pi.HighWatermark)
	}
	got, err := b.Do(fetch("m1", 4, model.RecordLimit))
	if err != nil {
		t.Fatal(err)
	}
	return b, got.Acquired
}

func modelCompacted(t *testing.T) (*Model, []model.AcquiredRange) {
	m, err := NewModel(wideSetup)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := m.Core().Acquire(1, "m1", model.FetchParams{MaxRecords: 4, BatchSize: 4, Mode: model.RecordLimit},
		[]model.LogBatch{{First: 0, Last: 0}, {First: 2, Last: 2}, {First: 3, Last: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, rs
}

func TestPinGapOffsetsLeftOut(t *testing.T) {
	_, got := compactedFetch(t)
	wantRanges(t, "kfake, offset 1 compacted away,", got, "0@1 2-3@1")
	_, rs := modelCompacted(t)
	if n := countModel(rs); n != 4 {
		t.Errorf("model acquired %v (%d offsets), want 0-3 with the gap offset 1 inside", rs, n)
	}
}

func countModel(rs []model.AcquiredRange) int64 {
	var n int64
	for _, r := range rs {
		n += r.Last - r.First + 1
	}
	return n
}

func TestPinAckAcrossHole(t *testing.T) {
	b, _ := compactedFetch(t)
	code, err := b.ack("m1", []model.AckRange{{First: 0, Last: 2, Types: acc}})
	if err != nil {
		t.Fatal(err)
	}
	if code != "INVALID_RECORD_STATE" {
		t.Errorf("kfake answers ack 0-2 ACCEPT across the compacted offset 1 with %s, want INVALID_RECORD_STATE", code)
	}
	m, _ := modelCompacted(t)
	if _, err := m.Core().Acknowledge(2, "m1", []model.AckRange{{First: 0, Last: 2, Types: acc}}); err != nil {
		t.Errorf("model refuses ack 0-2 ACCEPT: %v", err)
	}
}

// TestPinNoPersister: kfake's ApiVersions lists none of the share coordinator's state APIs.
func TestPinNoPersister(t *testing.T) {
	b := newPinBroker(t)
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "sharesim-peer", "1"
	kresp, err := b.Request(req)
	if err != nil {
		t.Fatal(err)
	}
	state := map[int16]bool{}
	for _, k := range []int16{83, 84, 85, 86, 87} { // Initialize/Read/Write/DeleteShareGroupState, ReadShareGroupStateSummary
		state[k] = true
	}
	share := false
	resp := kresp.(*kmsg.ApiVersionsResponse)
	if resp.ErrorCode != 0 {
		t.Fatalf("ApiVersions: error code %d", resp.ErrorCode)
	}
	for _, k := range resp.ApiKeys {
		if state[k.ApiKey] {
			t.Errorf("kfake now serves %s: a share coordinator exists, revisit no-persister", kmsg.NameForKey(k.ApiKey))
		}
		if k.ApiKey == 78 {
			share = true
		}
	}
	if !share {
		t.Error("kfake does not list ShareFetch: wrong cluster?")
	}
}

// pins are this package's pin tests by name.
var pins = map[string]func(*testing.T){
	"TestPinAcquireExactMaxRecords":           TestPinAcquireExactMaxRecords,
	"TestPinBatchSizeSplitsLogBatch":          TestPinBatchSizeSplitsLogBatch,
	"TestPinRecordLimitTail":                  TestPinRecordLimitTail,
	"TestPinNoThrottledRedelivery":            TestPinNoThrottledRedelivery,
	"TestPinCapBudgetIgnoresRedeliveries":     TestPinCapBudgetIgnoresRedeliveries,
	"TestPinAckEmptyWindowInvalidRequest":     TestPinAckEmptyWindowInvalidRequest,
	"TestPinAckTouchingBatchesInvalidRequest": TestPinAckTouchingBatchesInvalidRequest,
	"TestPinLockSweepTiming":                  TestPinLockSweepTiming,
	"TestPinLogStartNotFollowed":              TestPinLogStartNotFollowed,
	"TestPinGapOffsetsLeftOut":                TestPinGapOffsetsLeftOut,
	"TestPinAckAcrossHole":                    TestPinAckAcrossHole,
	"TestPinNoPersister":                      TestPinNoPersister,
}

// TestCatalogueNamesPins: every kfake deviation is pinned by a test of this package, every
// pin is named by one entry, and every classifier of the filter is a catalogue entry.
func TestCatalogueNamesPins(t *testing.T) {
	named := map[string]bool{}
	for _, d := range deviation.Kfake {
		if strings.HasPrefix(d.PinnedBy, "live/deviation.") {
			continue // pinned by live/deviation's own tests (TestPinnedByNamesATest)
		}
		name, ok := strings.CutPrefix(d.PinnedBy, "live/peer.")
		if !ok || pins[name] == nil {
			t.Errorf("%s: PinnedBy %q is not a pin test of live/peer", d.ID, d.PinnedBy)
		}
		named[name] = true
	}
	for name := range pins {
		if !named[name] {
			t.Errorf("pin %s is named by no catalogue entry", name)
		}
	}
	for _, c := range Classifiers {
		if _, ok := deviation.ByID("kfake", c.ID); !ok {
			t.Errorf("classifier %s is not in the catalogue", c.ID)
		}
	}
}
