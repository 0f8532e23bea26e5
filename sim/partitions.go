package sim

import (
	"fmt"
	"strconv"

	"github.com/sharesim/sharesim/model"
)

// Partitions added to a topic during a run (the add-partitions fault, CreatePartitions in
// Kafka). The world reserves them when it is built: a topic's partitions, its first ones and
// those any add-partitions fault will add, lie next to each other in World.parts, so a
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
	shares []addedShare
	// byShare maps a share-partition id to its index in shares.
	byShare map[int32]int
	// pending[g] lists share group g's new partitions its coordinator has not initialised
	// yet; initing[g] the share-partitions being initialised, assignable from readyAt[g].
	pending [][]int32
	initing [][]int32
	readyAt []int64
}

// AddedSharePartition describes a share-partition an add-partitions fault created.
type AddedSharePartition struct {
	Group, Partition string
	// AtMs is when the partition was added; TopicKnown whether the group already read the
	// topic then (a member had joined), which is what model.InitialStartOffset asks.
	AtMs       int64
	TopicKnown bool
	// StoredStartOffset is the start offset the share coordinator was initialised with
	// (-1: share.auto.offset.reset decides at the first load).
	StoredStartOffset int64
	// Loaded says whether a leader ever loaded it; then LoadStartOffset is the start offset
	// it began at and LoadLogStart the log start offset at that moment.
	Loaded          bool
	LoadStartOffset int64
	LoadLogStart    int64
}

// AddedSharePartitions lists the share-partitions created by add-partitions faults, in the
// order they were created.
func (w *World) AddedSharePartitions() []AddedSharePartition {
	out := make([]AddedSharePartition, 0, len(w.grown.shares))
	for _, a := range w.grown.shares {
		s := w.shares[a.share]
		out = append(out, AddedSharePartition{Group: w.groups[s.group].cfg.Name, Partition: w.parts[s.part].name,
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

// live reports whether partition p exists yet (it is not a reserve of a later
// add-partitions fault).
func (w *World) live(p *partition) bool {
	return p.num < int32(w.topics[p.topic].cfg.Partitions)
}

// addPartitions fires an add-partitions fault: the next f.Count reserved partitions of the
// topic come into being and every group reading the topic gets them.
func (w *World) addPartitions(f Fault) {
	ti := int32(-1)
	for i, t := range w.topics {
		if t.cfg.Name == f.Target {
			ti = int32(i)
		}
	}
	if ti < 0 {
		return // Validate refuses it; nothing to add to
	}
	t := w.topics[ti]
	from := t.cfg.Partitions
	t.cfg.Partitions += f.Count
	w.line("fault").str("fault", "add-partitions").str("topic", t.cfg.Name).num("from", int64(from)).num("to", int64(t.cfg.Partitions)).end()
	added := w.parts[t.first+int32(from) : t.first+int32(t.cfg.Partitions)]
	if t.cfg.Segments {
		for _, p := range added {
			p.log.Segmented(t.cfg.segmentBytes(), t.cfg.segmentMs())
		}
	}
	for _, ps := range w.producers {
		if ps.topic == ti && ps.acc != nil {
			ps.acc.queues = append(ps.acc.queues, make([]accQueue, f.Count)...)
		}
	}
	for _, g := range w.groups {
		if !readsTopic(g.cfg, t.cfg.Name) {
			continue
		}
		for _, p := range added {
			p.readers = append(p.readers, g.idx)
			if g.classic != nil {
				g.parts = append(g.parts, p.idx)
				g.classic.grow()
				continue
			}
			w.growthOf(g).pending[g.idx] = append(w.grown.pending[g.idx], p.idx)
		}
		if g.classic != nil && len(g.members) > 0 {
			w.reassign(g)
		}
	}
}

// growthOf sizes the per-group tables for group g and returns them.
func (w *World) growthOf(g *groupState) *partitionGrowth {
	gr := &w.grown
	for len(gr.pending) <= int(g.idx) {
		gr.pending, gr.initing, gr.readyAt = append(gr.pending, nil), append(gr.initing, nil), append(gr.readyAt, 0)
	}
	return gr
}

// shareGroupHeartbeatGrowth is the part of a share group's heartbeat that concerns new
// partitions, run before the member learns its assignment: share-partitions initialised by
// an earlier heartbeat whose write completed are assigned (a new group epoch), and new
// partitions not yet initialised start their initialisation.
func (w *World) shareGroupHeartbeatGrowth(g *groupState) {
	gr := &w.grown
	if g.classic != nil || int(g.idx) >= len(gr.pending) {
		return
	}
	if ids := gr.initing[g.idx]; len(ids) > 0 && w.now >= gr.readyAt[g.idx] {
		for _, id := range ids {
			w.insertShare(g, id)
		}
		gr.initing[g.idx] = nil
		w.reassign(g)
	}
	if ps := gr.pending[g.idx]; len(ps) > 0 && len(gr.initing[g.idx]) == 0 {
		for _, pi := range ps {
			gr.initing[g.idx] = append(gr.initing[g.idx], w.addSharePartition(g, w.parts[pi]))
		}
		gr.pending[g.idx] = nil
		gr.readyAt[g.idx] = w.now + w.cfg.Coordinator.WriteLatency.Sample(w.rNet)
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
func (w *World) addSharePartition(g *groupState, p *partition) int32 {
	known := g.epoch > 0
	start := model.InitialStartOffset(w.cfg.Kafka.Version, known)
	if w.opts.IgnoreNewPartitionStart {
		start = model.UnsetStartOffset
	}
	s := &sharePart{id: int32(len(w.shares)), group: g.idx, part: p.idx,
		store: model.NewStateStore(0, start).ForConfig(w.cfg.Kafka), frontier: -1}
	w.shares = append(w.shares, s)
	p.shares = append(p.shares, s.id)
	if w.grown.byShare == nil {
		w.grown.byShare = map[int32]int{}
	}
	w.grown.byShare[s.id] = len(w.grown.shares)
	w.grown.shares = append(w.grown.shares, addedShare{share: s.id, atMs: w.now, topicKnown: known, stored: start})
	w.line("init-share-partition").str("p", p.name).str("group", g.cfg.Name).num("start", start).str("known", strconv.FormatBool(known)).end()
	return s.id
}

// insertShare makes share-partition id assignable in group g; g.sps stays in topic,
// partition order.
func (w *World) insertShare(g *groupState, id int32) {
	part := w.shares[id].part
	at := len(g.sps)
	for at > 0 && w.shares[g.sps[at-1]].part > part {
		at--
	}
	g.sps = append(g.sps, 0)
	copy(g.sps[at+1:], g.sps[at:])
	g.sps[at] = id
}

// noteFirstLoad records where an added share-partition began at its first load.
func (w *World) noteFirstLoad(s *sharePart, start, logStart int64) {
	i, ok := w.grown.byShare[s.id]
	if !ok {
		return
	}
	if a := &w.grown.shares[i]; !a.loaded {
		a.loaded, a.loadStart, a.logStart = true, start, logStart
	}
}

// grow gives a classic group's bookkeeping a slot for each partition appended to its
// group's partition list, with nothing committed, owned, read or accounted yet.
func (cg *classicGroup) grow() {
	for len(cg.committed) < len(cg.g.parts) {
		cg.committed = append(cg.committed, -1)
		cg.owner = append(cg.owner, -1)
		cg.position = append(cg.position, -1)
		cg.processedMax = append(cg.processedMax, -1)
		cg.processedOK = append(cg.processedOK, offsetSet{})
		cg.doneTo = append(cg.doneTo, -1)
		cg.readMax = append(cg.readMax, -1)
	}
}

// liveParts is World.parts without the partitions reserved for add-partitions faults that
// have not fired yet (World.parts itself when there are none).
func (w *World) liveParts() []*partition {
	n := 0
	for _, t := range w.topics {
		n += t.cfg.Partitions
	}
	if n == len(w.parts) {
		return w.parts
	}
	out := make([]*partition, 0, n)
	for _, p := range w.parts {
		if w.live(p) {
			out = append(out, p)
		}
	}
	return out
}
