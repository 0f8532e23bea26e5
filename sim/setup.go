package sim

import (
	"fmt"
	"strconv"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/plog"
	"github.com/sharesim/sharesim/sim/rng"
)

// build creates the actors from the configuration and schedules the first events.
func (w *World) build() error {
	cfg := &w.cfg
	topicIdx := map[string]int32{}
	for ti := range cfg.Topics {
		t := cfg.Topics[ti]
		if t.RetentionCheckIntervalMs <= 0 {
			t.RetentionCheckIntervalMs = 300000
		}
		ts := &topicState{cfg: t, first: int32(len(w.parts))}
		w.topics = append(w.topics, ts)
		topicIdx[t.Name] = int32(ti)
		for n := 0; n < t.Partitions+cfg.addedPartitions(t.Name); n++ { // with add-partitions' reserve (partitions.go)
			idx := int32(len(w.parts))
			w.parts = append(w.parts, &partition{
				idx: idx, topic: int32(ti), num: int32(n), name: t.Name + "/" + strconv.Itoa(n),
				log: plog.New(), leader: idx % int32(cfg.Brokers), leaderEpoch: 1,
			})
		}
		if t.Segments {
			for _, p := range w.topicParts(int32(ti)) {
				p.log.Segmented(t.segmentBytes(), t.segmentMs())
			}
		}
		if t.RetentionMs >= 0 || t.RetentionRecords >= 0 || (t.Segments && t.RetentionBytes >= 0) {
			w.push(t.RetentionCheckIntervalMs, event{kind: evRetention, a: int32(ti)})
		}
	}
	for b := 0; b < cfg.Brokers; b++ {
		w.brokers = append(w.brokers, &broker{idx: int32(b), sessions: map[int32][]int32{}})
	}
	for pi := range cfg.Producers {
		p := &cfg.Producers[pi]
		ps := &producerState{idx: int32(pi), cfg: p, topic: topicIdx[p.Topic]}
		w.producers = append(w.producers, ps)
		if p.BatchBytes > 0 {
			ps.acc = w.newAccumulator(ps)
			ps.acc.wakeAt = p.StartMs
			w.push(p.StartMs, event{kind: evProduce, a: int32(pi), x: p.StartMs})
			continue
		}
		w.push(p.StartMs, event{kind: evProduce, a: int32(pi)})
	}
	w.metrics.lastKey = make([][]keyLast, len(cfg.Groups))
	w.metrics.keys = rng.NewDeriver(w.seed, "key")
	w.metrics.g = make([]counters, len(cfg.Groups))
	w.metrics.gx = make([]groupExtra, len(cfg.Groups))
	for gi := range w.metrics.gx {
		w.metrics.gx[gi].firstDeliveryMs = -1
	}
	w.initKafkaMetrics()
	w.metrics.lat = make([]latencies, len(cfg.Groups))
	w.metrics.silentLossFirst = -1
	w.initWindows()
	for gi := range cfg.Groups {
		if err := w.buildGroup(int32(gi), topicIdx); err != nil {
			return err
		}
	}
	w.metrics.c = make([]consumerCounters, len(w.consumers))
	w.buildGroupConfigs()
	if err := w.buildFaults(); err != nil {
		return err
	}
	w.push(0, event{kind: evMetrics})
	if cfg.HealMs > 0 {
		w.push(cfg.DurationMs, event{kind: evHeal})
	}
	return nil
}

func (w *World) buildGroup(gi int32, topicIdx map[string]int32) error {
	g := &w.cfg.Groups[gi]
	gs := &groupState{idx: gi, cfg: g, lastHB: map[int32]int64{}, token: map[int32]int64{}, assignment: map[int32][]int32{}}
	w.groups = append(w.groups, gs)
	for _, tn := range g.Topics {
		for _, p := range w.topicParts(topicIdx[tn]) {
			gs.parts = append(gs.parts, p.idx)
			p.readers = append(p.readers, gi)
			if g.Type != ShareGroup {
				continue
			}
			s := &sharePart{id: int32(len(w.shares)), group: gi, part: p.idx, store: model.NewStateStore(0, -1).ForConfig(w.cfg.Kafka), frontier: -1}
			w.shares = append(w.shares, s)
			p.shares = append(p.shares, s.id)
			gs.sps = append(gs.sps, s.id)
		}
	}
	if g.Type == ClassicGroup {
		gs.classic = newClassicGroup(w, gs)
	}
	for si := range g.Consumers {
		spec := &g.Consumers[si]
		for k := 0; k < spec.Count; k++ {
			name := spec.Name
			if spec.Count > 1 {
				name = fmt.Sprintf("%s-%d", spec.Name, k)
			}
			c := &consumer{idx: int32(len(w.consumers)), group: gi, spec: spec, name: name}
			w.consumers = append(w.consumers, c)
			w.push(spec.StartMs, event{kind: evConsumerStart, a: c.idx})
		}
	}
	return nil
}

// ConsumerNames lists the consumer instances in creation order.
func (w *World) ConsumerNames() []string {
	out := make([]string, len(w.consumers))
	for i, c := range w.consumers {
		out[i] = c.name
	}
	return out
}
