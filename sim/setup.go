package sim

import (
	"fmt"
	"strconv"

	"github.com/sharesim/sharesim/sim/plog"
)

// wire creates the actors and gives each the actors it sends messages to: this is the
// actor map of docs/simulator.md.
func wire(w *World) {
	e, t := &w.engine, &w.topology
	reqs := &requests{}
	w.metrics, w.history = new(metrics), new(history)
	w.logs, w.prod, w.leaders, w.coord, w.net = new(logs), new(producerClients), new(leaders), new(shareCoordinator), new(network)
	w.procs, w.share, w.classic, w.gcoord = new(processes), new(shareClients), new(classicClients), new(groupCoordinator)
	w.faults, w.dlq, w.configs = new(faultInjector), new(dlqManager), new(groupConfigs)

	*w.metrics = metrics{engine: e, topology: t, logs: w.logs, configs: w.configs, coord: w.coord}
	*w.history = history{engine: e, topology: t, reqs: reqs}
	*w.logs = logs{engine: e, topology: t, leaders: w.leaders, classic: w.classic, coord: w.coord, metrics: w.metrics, history: w.history}
	*w.prod = producerClients{engine: e, topology: t, logs: w.logs, net: w.net, metrics: w.metrics}
	*w.leaders = leaders{engine: e, topology: t, coord: w.coord, net: w.net, dlq: w.dlq, configs: w.configs, reqs: reqs, metrics: w.metrics, history: w.history}
	*w.coord = shareCoordinator{engine: e, topology: t, leaders: w.leaders, metrics: w.metrics, history: w.history}
	*w.net = network{engine: e, topology: t, leaders: w.leaders, reqs: reqs, metrics: w.metrics}
	*w.procs = processes{engine: e, topology: t, share: w.share, classic: w.classic, gcoord: w.gcoord, net: w.net, metrics: w.metrics, history: w.history}
	*w.share = shareClients{engine: e, topology: t, net: w.net, leaders: w.leaders, gcoord: w.gcoord, configs: w.configs, procs: w.procs, reqs: reqs, metrics: w.metrics, history: w.history}
	*w.classic = classicClients{engine: e, topology: t, net: w.net, gcoord: w.gcoord, procs: w.procs, metrics: w.metrics}
	*w.gcoord = groupCoordinator{engine: e, topology: t, classic: w.classic, coord: w.coord, metrics: w.metrics, history: w.history}
	*w.faults = faultInjector{engine: e, topology: t, procs: w.procs, share: w.share, net: w.net, logs: w.logs, leaders: w.leaders, coord: w.coord, dlq: w.dlq, configs: w.configs, gcoord: w.gcoord, metrics: w.metrics, history: w.history}
	*w.dlq = dlqManager{engine: e, topology: t, coord: w.coord, leaders: w.leaders, metrics: w.metrics}
	*w.configs = groupConfigs{engine: e, topology: t, leaders: w.leaders}
}

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
		w.leaders.brokers = append(w.leaders.brokers, &broker{idx: int32(b), sessions: map[int32][]int32{}})
	}
	for pi := range cfg.Producers {
		p := &cfg.Producers[pi]
		ps := &producerState{idx: int32(pi), cfg: p, topic: topicIdx[p.Topic]}
		w.producers = append(w.producers, ps)
		if p.BatchBytes > 0 {
			ps.acc = w.prod.newAccumulator(ps)
			ps.acc.wakeAt = p.StartMs
			w.push(p.StartMs, event{kind: evProduce, a: int32(pi), x: p.StartMs})
			continue
		}
		w.push(p.StartMs, event{kind: evProduce, a: int32(pi)})
	}
	w.metrics.start(len(cfg.Groups))
	for gi := range cfg.Groups {
		w.buildGroup(int32(gi), topicIdx)
	}
	w.configs.buildGroupConfigs()
	if err := w.faults.buildFaults(); err != nil {
		return err
	}
	w.push(0, event{kind: evMetrics})
	if cfg.HealMs > 0 {
		w.push(cfg.DurationMs, event{kind: evHeal})
	}
	return nil
}

func (w *World) buildGroup(gi int32, topicIdx map[string]int32) {
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
			gs.sps = append(gs.sps, w.gcoord.newShare(gs, p, -1).id)
		}
	}
	if g.Type == ClassicGroup {
		gs.classic = newClassicGroup(gs)
		w.metrics.classicGroupAdded(gs)
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
			w.net.addConsumer(c)
			w.metrics.consumerAdded(c)
			w.push(spec.StartMs, event{kind: evConsumerStart, a: c.idx})
		}
	}
}
