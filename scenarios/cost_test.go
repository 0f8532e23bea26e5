package scenarios

import (
	"strings"
	"testing"
)

// The estimate follows from the configuration by arithmetic.
func TestEstimateCost(t *testing.T) {
	sc, err := Parse("q.yaml", []byte(`kind: workload
duration: 10m
heal: 5m
topics: [{name: t, partitions: 4}]
producers: [{name: p, topic: t, rate: 100/s, batch_records: 10, start: 1m, stop: 6m}]
groups: [{name: g, type: share, topics: [t], consumers: [{name: c, count: 3}]}]
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sc.SimConfig()
	c := EstimateCost(cfg)
	// 5 minutes of production at 100/s: 30000 records in batches of 10.
	want := Cost{VirtualMs: 900_000, Records: 30_000, Batches: 3_000, Consumers: 3, Partitions: 4, SharePartitions: 4}
	want.Events = eventsPerRecord*30_000 + eventsPerBatch*3_000 + eventsPerConsumerSecond*3*900
	if c != want {
		t.Fatalf("cost %+v, want %+v", c, want)
	}
	if s := c.String(); !strings.Contains(s, "~30k records in 3000 batches, 3 consumers, 4 share-partitions, 15m") {
		t.Errorf("String() = %q", s)
	}
}

// Absurd scenarios are refused at the key that crosses a limit; big but sane ones load.
func TestLimits(t *testing.T) {
	q, err := library.ReadFile("library/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(pairs ...string) []byte {
		return []byte(strings.NewReplacer(pairs...).Replace(string(q)))
	}
	cases := []struct {
		name string
		data []byte
		want string // "" loads
	}{
		{"one week", edit("duration: 3m", "duration: 7d"), ""},
		{"31 years", edit("duration: 3m", "duration: 11574d"), "q.yaml:25:11: duration: found 11574d6m of virtual time"},
		{"heal too long", edit("heal: 6m", "heal: 400d"), "q.yaml:26:7: heal: found 400d3m of virtual time"},
		{"100000 consumers", edit("count: 8", "count: 100000"), "q.yaml:41:16: groups[0].consumers[0].count: found 100000 consumer instances in all, expected at most 20000"},
		{"partitions x consumers", edit("partitions: 4", "partitions: 10000", "count: 8", "count: 19000"), "groups[0].consumers: found 10000 partitions × 19000 consumers"},
		{"a million records/s in batches of a million", edit("rate: 100/s", "rate: 1000000/s", "batch_records: 10", "batch_records: 1000000"), "q.yaml:34:20: producers[0].batch_records: found 1000000 records in one producer batch, expected at most 100000"},
		{"six million records/s", edit("rate: 100/s", "rate: 6000000/s"), "q.yaml:33:11: producers[0].rate: found producers writing 6000000 records/s in all, expected at most 5000000"},
		{"too many records", edit("rate: 100/s", "rate: 50000/s", "duration: 3m", "duration: 1d"), "producers[0].rate: found ~4.32G records over the run"},
	}
	for _, c := range cases {
		_, err := Parse("q.yaml", c.data)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// An override crossing a limit names the override.
	sc, err := Parse("q.yaml", q)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("duration", "1000d"); err == nil || !strings.Contains(err.Error(), "--set duration=1000d: duration: found 1000d6m") {
		t.Errorf("Set: %v", err)
	}
}
