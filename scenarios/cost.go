package scenarios

import (
	"fmt"
	"math"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/sim"
)

// Cost is what a workload run will do, estimated from its configuration before it starts:
// the CLI prints it before a big run and asks for confirmation above a threshold, and the
// loader refuses a scenario beyond the hard limits (Limits).
type Cost struct {
	// VirtualMs is the virtual time simulated: duration + heal.
	VirtualMs int64
	// Records and Batches are what the producers write (rate × production window).
	Records, Batches int64
	// Consumers counts consumer instances over every group.
	Consumers int64
	// Partitions counts topic partitions; SharePartitions (group, partition) pairs of
	// share groups, each with its own in-flight state.
	Partitions, SharePartitions int64
	// Faults is the number of fault events (listed ones, repeats included, and swarm draws).
	Faults int64
	// Events estimates the simulator's events (see EstimateEvents).
	Events int64
}

// Per-item event counts of the estimate. They were fitted to the built-in library (every
// workload scenario at duration 1m; docs/simulator.md): a produced record costs about
// eventsPerRecord events (its fetch, processing and acknowledgement share), a producer
// batch eventsPerBatch, and a consumer instance that polls idly eventsPerConsumerSecond per
// virtual second (a fetch held for fetch.max.wait.ms and its response, heartbeats).
const (
	eventsPerRecord         = 2
	eventsPerBatch          = 4
	eventsPerConsumerSecond = 5
	// eventsPerFault: a fault's start and its end (a restart, the end of a pause or a cut).
	eventsPerFault = 2
)

// EstimateCost computes the cost of running cfg. Every count saturates at math.MaxInt64.
func EstimateCost(cfg sim.Config) Cost {
	c := Cost{VirtualMs: satAdd(cfg.DurationMs, cfg.HealMs)}
	for _, p := range cfg.Producers {
		stop := cfg.DurationMs
		if p.StopMs > 0 && p.StopMs < stop {
			stop = p.StopMs
		}
		window := max(0, stop-p.StartMs)
		records := p.RecordsPerSecond * float64(window) / 1000
		batch := max(1, p.BatchRecords)
		if p.Rate == sim.RateBursts && p.BurstRecords > 0 {
			batch = max(batch, 1)
		}
		c.Records = satAdd(c.Records, satFloat(records))
		c.Batches = satAdd(c.Batches, satFloat(math.Ceil(records/float64(batch))))
	}
	parts := map[string]int64{}
	for _, t := range cfg.Topics {
		parts[t.Name] = int64(t.Partitions)
		c.Partitions = satAdd(c.Partitions, int64(t.Partitions))
	}
	for _, g := range cfg.Groups {
		for _, cs := range g.Consumers {
			c.Consumers = satAdd(c.Consumers, int64(cs.Count))
		}
		if g.Type == sim.ShareGroup {
			for _, t := range g.Topics {
				c.SharePartitions = satAdd(c.SharePartitions, parts[t])
			}
		}
	}
	for _, f := range cfg.Faults {
		n := int64(1)
		if f.EveryMs > 0 {
			until := f.UntilMs
			if until <= 0 || until > cfg.DurationMs {
				until = cfg.DurationMs
			}
			n = max(1, (until-f.AtMs)/f.EveryMs+1)
		}
		c.Faults = satAdd(c.Faults, n)
	}
	if cfg.Swarm != nil {
		c.Faults = satAdd(c.Faults, int64(cfg.Swarm.Count))
	}
	c.Events = EstimateEvents(c)
	return c
}

// EstimateEvents is eventsPerRecord × records + eventsPerBatch × batches +
// eventsPerConsumerSecond × consumers × virtual seconds + eventsPerFault × faults,
// saturating.
func EstimateEvents(c Cost) int64 {
	e := satMul(eventsPerRecord, c.Records)
	e = satAdd(e, satMul(eventsPerBatch, c.Batches))
	e = satAdd(e, satMul(satMul(eventsPerConsumerSecond, c.Consumers), c.VirtualMs/1000))
	// Faults count too: "every: 1ms" over a long run is billions of events on its own.
	e = satAdd(e, satMul(eventsPerFault, c.Faults))
	return e
}

// String is one line: "~1.2M records in 40k batches, 8 consumers, 4 share-partitions,
// 11m of virtual time, ~4.1M events".
func (c Cost) String() string {
	return fmt.Sprintf("~%s records in %s batches, %s consumers, %s share-partitions, %s of virtual time, ~%s events",
		Approx(c.Records), Approx(c.Batches), Approx(c.Consumers), Approx(c.SharePartitions), formatMs(c.VirtualMs), Approx(c.Events))
}

// Approx prints a count with a k/M/G suffix and two significant digits past it.
func Approx(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.3gG", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.3gM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.3gk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// SatAdd adds without overflowing: the sum, or math.MaxInt64.
func SatAdd(a, b int64) int64 { return satAdd(a, b) }

// SatMul multiplies without overflowing: the product, or math.MaxInt64.
func SatMul(a, b int64) int64 { return satMul(a, b) }

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satFloat(f float64) int64 {
	if f >= math.MaxInt64 || math.IsNaN(f) {
		return math.MaxInt64
	}
	return int64(f)
}

// Limits are the hard bounds of a workload scenario: beyond them a run would take hours to
// days or more memory than a workstation has, so the loader refuses it with the key that
// crosses the line. Below them, the CLI still asks for confirmation of a big run (Cost).
var Limits = struct {
	// VirtualMs bounds duration + heal (366 days).
	VirtualMs int64
	// RecordsPerSecond bounds the sum of the producers' rates.
	RecordsPerSecond float64
	// BatchRecords bounds the records of one fixed-size producer batch: Kafka's batch.size
	// and max.request.size (1 MiB by default) keep real batches far below it.
	BatchRecords int
	// Records bounds what the producers write in the whole run.
	Records int64
	// Consumers bounds the consumer instances over every group.
	Consumers int64
	// PartitionsTimesConsumers bounds, per group, partitions read × consumer instances
	// (assignment and fetch fan-out grow with the product).
	PartitionsTimesConsumers int64
	// Events bounds the estimated events.
	Events int64
}{
	VirtualMs:                366 * 24 * 3_600_000,
	RecordsPerSecond:         5_000_000,
	BatchRecords:             100_000,
	Records:                  1_000_000_000,
	Consumers:                20_000,
	PartitionsTimesConsumers: 20_000_000,
	Events:                   20_000_000_000,
}

// limits refuses a configuration beyond Limits, naming the key that crosses the line.
func (w *wctx) limits(top *fields) {
	d, cfg := w.d, w.cfg
	c := EstimateCost(*cfg)
	if c.VirtualMs > Limits.VirtualMs {
		k := "duration"
		if cfg.HealMs > cfg.DurationMs {
			k = "heal"
		}
		d.fail(top.at(k), k, fmt.Sprintf("%s of virtual time (duration %s + heal %s)", formatMs(c.VirtualMs), formatMs(cfg.DurationMs), formatMs(cfg.HealMs)),
			fmt.Sprintf("at most %s of virtual time in one run (split a longer study into runs)", formatMs(Limits.VirtualMs)))
		return
	}
	var rate float64
	var top1 *fields
	var top1Rate float64
	for _, p := range cfg.Producers {
		rate += p.RecordsPerSecond
		if f := w.producerF[p.Name]; f != nil && p.RecordsPerSecond > top1Rate {
			top1, top1Rate = f, p.RecordsPerSecond
		}
	}
	at := func(f *fields, key string) (*yaml.Node, string) {
		if f == nil {
			return top.node, ""
		}
		if f.key[key] != nil {
			return f.val[key], f.p(key)
		}
		return f.node, f.path
	}
	if rate > Limits.RecordsPerSecond {
		n, p := at(top1, "rate")
		d.fail(n, p, fmt.Sprintf("producers writing %s records/s in all", strconv.FormatFloat(rate, 'f', -1, 64)), fmt.Sprintf("at most %s records/s in all", strconv.FormatFloat(Limits.RecordsPerSecond, 'f', -1, 64)))
		return
	}
	for _, p := range cfg.Producers {
		if p.StartMs >= cfg.DurationMs {
			n, path := at(w.producerF[p.Name], "start")
			d.fail(n, path, fmt.Sprintf("a producer starting at %s, when the main phase ends at %s", formatMs(p.StartMs), formatMs(cfg.DurationMs)),
				"a start before the end of duration (a producer that never writes is a mistake; remove it)")
			return
		}
		if p.BatchRecords > Limits.BatchRecords {
			n, path := at(w.producerF[p.Name], "batch_records")
			d.fail(n, path, fmt.Sprintf("%d records in one producer batch", p.BatchRecords),
				fmt.Sprintf("at most %d (Kafka's batch.size and max.request.size, 1 MiB by default, keep a batch far smaller)", Limits.BatchRecords))
			return
		}
	}
	if c.Records > Limits.Records {
		n, p := at(top1, "rate")
		d.fail(n, p, fmt.Sprintf("~%s records over the run (%s of production)", Approx(c.Records), formatMs(cfg.DurationMs)),
			fmt.Sprintf("at most %s records in one run (lower the rate or the duration)", Approx(Limits.Records)))
		return
	}
	if c.Consumers > Limits.Consumers {
		var big *fields
		bigN := -1
		for _, g := range cfg.Groups {
			for _, cs := range g.Consumers {
				if f := w.consumerF[cs.Name]; f != nil && cs.Count > bigN {
					big, bigN = f, cs.Count
				}
			}
		}
		n, p := at(big, "count")
		d.fail(n, p, fmt.Sprintf("%d consumer instances in all", c.Consumers), fmt.Sprintf("at most %d consumer instances", Limits.Consumers))
		return
	}
	parts := map[string]int64{}
	for _, t := range cfg.Topics {
		parts[t.Name] = int64(t.Partitions)
	}
	for _, g := range cfg.Groups {
		var np, nc int64
		for _, t := range g.Topics {
			np += parts[t]
		}
		for _, cs := range g.Consumers {
			nc += int64(cs.Count)
		}
		if np*nc > Limits.PartitionsTimesConsumers {
			n, p := at(w.groupF[g.Name], "consumers")
			d.fail(n, p, fmt.Sprintf("%d partitions × %d consumers = %s in group %q", np, nc, Approx(np*nc), g.Name),
				fmt.Sprintf("at most %s partitions × consumers per group", Approx(Limits.PartitionsTimesConsumers)))
			return
		}
	}
	if c.Events > Limits.Events {
		n, p := top.node, ""
		if top.key["duration"] != nil {
			n, p = top.val["duration"], "duration"
		}
		d.fail(n, p, "a run of ~"+Approx(c.Events)+" events ("+c.String()+")", "at most ~"+Approx(Limits.Events)+" events in one run")
	}
}
