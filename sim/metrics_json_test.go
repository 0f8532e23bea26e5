package sim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// Metrics' summary.json encoding keeps the world totals at the top level under their old
// keys, in summaryKeys' order, and decodes back to the same Metrics.
func TestMetricsJSONKeysAndRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.DurationMs = 20_000
	cfg.Topics = []Topic{{Name: "t", Partitions: 2, RetentionMs: -1, RetentionRecords: -1}}
	cfg.Producers = []Producer{{Name: "p", Topic: "t", RecordsPerSecond: 200, BatchRecords: 5, Keys: 10}}
	cs := DefaultConsumer("c")
	cs.Count = 2
	cfg.Groups = []Group{{Name: "g", Topics: []string{"t"}, Consumers: []ConsumerSpec{cs}}}
	res, err := Run(cfg, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	if m.Totals.Deliveries == 0 || m.Totals.Completed == 0 {
		t.Fatalf("the world did nothing: %+v", m.Totals)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := jsonFields(json.RawMessage(b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(obj.order, summaryKeys) {
		t.Errorf("keys\n%v\nwant\n%v", obj.order, summaryKeys)
	}
	// Every total has its value under its old key.
	totals, err := jsonFields(m.Totals)
	if err != nil {
		t.Fatal(err)
	}
	for k, ck := range totalsKeys {
		v, ok := totals.values[ck]
		if !ok {
			t.Errorf("totalsKeys[%q] = %q is no key of Counts", k, ck)
			continue
		}
		if !bytes.Equal(obj.values[k], v) {
			t.Errorf("%s = %s, want Totals' %s = %s", k, obj.values[k], ck, v)
		}
	}
	var back Metrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := m
	want.Series = nil
	// summary.json carries only the totals it always had.
	want.Totals.ControlRecords, want.Totals.DuplicatedRecords, want.Totals.DeletedBeforeFirstLoad = 0, 0, 0
	want.Totals.GapAcknowledgements, want.Totals.BusyMs, want.Totals.Produced = 0, 0, 0 // "produced" is the world's
	again, _ := json.Marshal(back)
	if !bytes.Equal(again, b) {
		t.Errorf("decoding and encoding again changed the object:\n%s\n%s", b, again)
	}
	if !reflect.DeepEqual(back.Totals, want.Totals) {
		t.Errorf("decoded totals %+v, want %+v", back.Totals, want.Totals)
	}
}
