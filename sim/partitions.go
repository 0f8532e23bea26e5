package sim

import (
	"fmt"
	"strconv"

	"github.com/sharesim/sharesim/model"
)

// Partitions added to a topic during a run (the add-partitions fault, CreatePartitions in
// Kafka). The world reserves them when it is built: a topic's partitions, its first ones and
// those any add-partitions fault will add, lie next to each other in topology.parts, so a
// topic's partition i stays at topicState.first+i. A reserved partition is dormant, holds no
// records and is seen by no one until its fault fires: topicState.cfg.Partitions counts only
// the partitions that exist so far, and everything that reads a topic (producers, groups,
// retention, faults) goes through it.
//
// When a fault fires, the partitions it adds exist at once for the producers (they learn new
// partitions at their next metadata refresh, which the simulator does not delay) and for
// classic groups reading the topic, which rebalance. A share group follows Kafka's group
// coordinator (GroupMetadataManager.shareGroupHeartbeat): the next heartbeat of any member
// sees the new metadata and initialises a share-partition for each new partition
// (maybeCreateInitializeShareGroupStateRequest; model.InitialStartOffset decides the stored
// start offset, per version), which takes a share coordinator write; the first heartbeat
// after that assigns them (initializedAssignmentPending), and each member learns its part at
// its own heartbeat. The leader loads a share-partition at the first fetch, where a stored
// start offset of -1 is resolved by share.auto.offset.reset (latest: the log end then).

// addedShare is a share-partition created by an add-partitions fault, with what its first
// load found (for the checkers: AddedSharePartitions).
type addedShare struct {
	share      int32
	atMs       int64
	topicKnown bool
	stored     int64 // the start offset the store was initialised with
	loaded     bool
	loadStart  int64 // the core's start offset at its first load
	logStart   int64 // the log start offset at its first load
}

// partitionGrowth is the world's record of partitions added during the run.
type partitionGrowth struct {
	// pending[g] lists share group g's new partitions its coordinator has not initialised
	// yet; initing[g] the share-partitions being initialised, assignable from readyAt[g].
	pending [][]int32
	initing [][]int32
	readyAt []int64
}

func (h *history) addedSharePartitions() []AddedSharePartition {
	out := make([]AddedSharePartition, 0, len(h.added))
	for _, a := range h.added {
		s := h.shares[a.share]
		out = append(out, AddedSharePartition{Group: h.groups[s.group].cfg.Name, Partition: h.parts[s.part].name,
			AtMs: a.atMs, TopicKnown: a.topicKnown, StoredStartOffset: a.stored,
			Loaded: a.loaded, LoadStartOffset: a.loadStart, LoadLogStart: a.logStart})
	}
	return out
}

// addedPartitions is the number of partitions the add-partitions faults of the
// configuration add to topic, the world's reserve for it.
func (c *Config) addedPartitions(topic string) int {
	n := 0
	for _, f := range c.Faults {
		if f.Kind == FaultAddPartitions && f.Target == topic {
			n += f.Count
		}
	}
	return n
}

// PartitionsAt is how many partitions topic has when fault fi (an index in c.Faults) fires
// at atMs: its first ones and those of the add-partitions faults that fire before it. Faults
// of the same millisecond fire in the order of the list, so an add-partitions fault at atMs
// counts when it comes before fi. -1: no such topic. Partitions are numbered in the order
// they are added, so the topic's partitions at that moment are 0 to PartitionsAt-1.
func (c *Config) PartitionsAt(topic string, atMs int64, fi int) int {
	n := -1
	for _, t := range c.Topics {
		if t.Name == topic {
			n = t.Partitions
		}
	}
	if n < 0 {
		return -1
	}
	for j, f := range c.Faults {
		if f.Kind == FaultAddPartitions && f.Target == topic && f.AtMs < c.DurationMs && (f.AtMs < atMs || f.AtMs == atMs && j < fi) {
			n += f.Count
		}
	}
	return n
}

// maxTopicPartitions bounds a topic's partitions, those added during the run included.
const maxTopicPartitions = 10000

// validateAddPartitions checks an add-partitions fault: it names a topic, adds at least one
// partition, happens once, and the topic stays within maxTopicPartitions.
func (c *Config) validateAddPartitions(f Fault) error {
	if f.Kind != FaultAddPartitions {
		if f.Count != 0 {
			return fmt.Errorf("fault %s: count belongs to add-partitions faults", f.Kind)
		}
		return nil
	}
	if f.EveryMs != 0 || f.PerMillion != 0 {
		return fmt.Errorf("fault add-partitions: happens once at its time (no every, no probability)")
	}
	if f.Count < 1 {
		return fmt.Errorf("fault add-partitions: count = %d, expected at least 1 partition to add", f.Count)
	}
	for _, t := range c.Topics {
		if t.Name == f.Target {
			if total := t.Partitions + c.addedPartitions(t.Name); total > maxTopicPartitions {
				return fmt.Errorf("fault add-partitions: topic %q would have %d partitions, expected at most %d", t.Name, total, maxTopicPartitions)
			}
			return nil
		}
	}
	return fmt.Errorf("fault add-partitions: no topic named %q", f.Target)
}

// addPartitions fires an add-partitions fault: the next f.Count reserved partitions of the
// topic come into being and every group reading the topic gets them.
func (gc *groupCoordinator) addPartitions(f Fault) {
	ti := int32(-1)
	for i, t := range gc.topics {
		if t.cfg.Name == f.Target {
			ti = int32(i)
		}
	}
	if ti < 0 {
		return // Validate refuses it; nothing to add to
	}
	t := gc.topics[ti]
	from := t.cfg.Partitions
	t.cfg.Partitions += f.Count
	gc.line("fault").str("fault", "add-partitions").str("topic", t.cfg.Name).num("from", int64(from)).num("to", int64(t.cfg.Partitions)).end()
	added := gc.parts[t.first+int32(from) : t.first+int32(t.cfg.Partitions)]
	if t.cfg.Segments {
		for _, p := range added {
			p.log.Segmented(t.cfg.segmentBytes(), t.cfg.segmentMs())
		}
	}
	for _, ps := range gc.producers {
		if ps.topic == ti && ps.acc != nil {
			ps.acc.queues = append(ps.acc.queues, make([]accQueue, f.Count)...)
		}
	}
	for _, g := range gc.groups {
		if !readsTopic(g.cfg, t.cfg.Name) {
			continue
		}
		for _, p := range added {
			p.readers = append(p.readers, g.idx)
			if g.classic != nil {
				g.parts = append(g.parts, p.idx)
				g.classic.grow()
				gc.metrics.classicGroupAdded(g)
				continue
			}
			gc.growthOf(g).pending[g.idx] = append(gc.grown.pending[g.idx], p.idx)
		}
		if g.classic != nil && len(g.members) > 0 {
			gc.reassign(g)
		}
	}
}

// growthOf sizes the per-group tables for group g and returns them.
func (gc *groupCoordinator) growthOf(g *groupState) *partitionGrowth {
	gr := &gc.grown
	for len(gr.pending) <= int(g.idx) {
		gr.pending, gr.initing, gr.readyAt = append(gr.pending, nil), append(gr.initing, nil), append(gr.readyAt, 0)
	}
	return gr
}

// shareGroupHeartbeatGrowth is the part of a share group's heartbeat that concerns new
// partitions, run before the member learns its assignment: share-partitions initialised by
// an earlier heartbeat whose write completed are assigned (a new group epoch), and new
// partitions not yet initialised start their initialisation.
func (gc *groupCoordinator) shareGroupHeartbeatGrowth(g *groupState) {
	gr := &gc.grown
	if g.classic != nil || int(g.idx) >= len(gr.pending) {
		return
	}
	if ids := gr.initing[g.idx]; len(ids) > 0 && gc.now >= gr.readyAt[g.idx] {
		for _, id := range ids {
			gc.insertShare(g, id)
		}
		gr.initing[g.idx] = nil
		gc.reassign(g)
	}
	if ps := gr.pending[g.idx]; len(ps) > 0 && len(gr.initing[g.idx]) == 0 {
		for _, pi := range ps {
			gr.initing[g.idx] = append(gr.initing[g.idx], gc.addSharePartition(g, gc.parts[pi]))
		}
		gr.pending[g.idx] = nil
		gr.readyAt[g.idx] = gc.now + gc.cfg.Coordinator.WriteLatency.Sample(gc.rNet)
	}
}

// readsTopic reports whether group g subscribes to topic.
func readsTopic(g *Group, topic string) bool {
	for _, tn := range g.Topics {
		if tn == topic {
			return true
		}
	}
	return false
}

// addSharePartition is the group coordinator initialising group g's share-partition of a
// new partition p, returned: the stored start offset follows model.InitialStartOffset. The
// group knows the topic once a member joined (its coordinator initialised the topic's
// share-partitions then). The share-partition is not assignable yet (insertShare).
func (gc *groupCoordinator) addSharePartition(g *groupState, p *partition) int32 {
	known := g.epoch > 0
	start := model.InitialStartOffset(gc.cfg.Kafka.Version, known)
	if gc.opts.IgnoreNewPartitionStart {
		start = model.UnsetStartOffset
	}
	s := gc.newShare(g, p, start)
	gc.history.shareAdded(s, known, start)
	gc.line("init-share-partition").str("p", p.name).str("group", g.cfg.Name).num("start", start).str("known", strconv.FormatBool(known)).end()
	return s.id
}

// insertShare makes share-partition id assignable in group g; g.sps stays in topic,
// partition order.
func (gc *groupCoordinator) insertShare(g *groupState, id int32) {
	part := gc.shares[id].part
	at := len(g.sps)
	for at > 0 && gc.shares[g.sps[at-1]].part > part {
		at--
	}
	g.sps = append(g.sps, 0)
	copy(g.sps[at+1:], g.sps[at:])
	g.sps[at] = id
}

// loaded records where an added share-partition began at its first load (it is called at
// every load).
func (h *history) loaded(s *sharePart, start, logStart int64) {
	i, ok := h.addedBy[s.id]
	if !ok {
		return
	}
	if a := &h.added[i]; !a.loaded {
		a.loaded, a.loadStart, a.logStart = true, start, logStart
	}
}

// shareAdded records share-partition s, created by an add-partitions fault: whether its
// group knew the topic, and the start offset its store began with.
func (h *history) shareAdded(s *sharePart, topicKnown bool, stored int64) {
	if h.addedBy == nil {
		h.addedBy = map[int32]int{}
	}
	h.addedBy[s.id] = len(h.added)
	h.added = append(h.added, addedShare{share: s.id, atMs: h.now, topicKnown: topicKnown, stored: stored})
}
