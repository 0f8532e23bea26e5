package sim

// groupCoordinator is the group coordinator: membership, heartbeats, session timeouts,
// assignment, and share-partitions of partitions added during the run.
type groupCoordinator struct {
	*engine
	*topology

	classic *classicClients
	coord   *shareCoordinator
	metrics *metrics
	history *history

	grown partitionGrowth // partitions added during the run (partitions.go)
}

// Group membership: heartbeats, the session timeout, and Kafka's simple assignor for share
// groups (several members per partition when members outnumber partitions). Leaders never
// consult the assignment: it only decides whom a member fetches from.

// groupState is one consumer group.
type groupState struct {
	idx int32
	cfg *Group
	// sps lists the group's share-partitions (share groups) in topic, partition order; parts
	// lists the group's partitions. Both are topology; the rest is the group coordinator's
	// (classic: the classic clients' rebalance and commits, classicgroup.go).
	sps   []int32
	parts []int32
	// members in join order.
	members []int32
	lastHB  map[int32]int64
	token   map[int32]int64
	epoch   int32
	// assignment[c] is member c's target assignment (share-partition ids or partitions).
	assignment map[int32][]int32
	classic    *classicGroup
}

func (g *groupState) isMember(c int32) bool {
	for _, m := range g.members {
		if m == c {
			return true
		}
	}
	return false
}

// newShare creates group g's share-partition of partition p, whose durable state starts at
// start (-1: unset); it is not assignable yet (g.sps).
func (gc *groupCoordinator) newShare(g *groupState, p *partition, start int64) *sharePart {
	s := &sharePart{id: int32(len(gc.shares)), group: g.idx, part: p.idx}
	gc.coord.addStore(s, start)
	gc.metrics.shareAdded(s)
	gc.shares = append(gc.shares, s)
	p.shares = append(p.shares, s.id)
	return s
}

// heartbeatNow is a ShareGroupHeartbeat reaching the group coordinator: join if needed,
// refresh the session, and learn the target assignment.
func (gc *groupCoordinator) heartbeatNow(c *consumer) {
	g := gc.groups[c.group]
	g.lastHB[c.idx] = gc.now
	gc.shareGroupHeartbeatGrowth(g) // new partitions (partitions.go)
	if !g.isMember(c.idx) {
		g.members = append(g.members, c.idx)
		g.token[c.idx]++
		gc.line("join").str("client", string(c.member)).str("group", g.cfg.Name).end()
		gc.reassign(g)
		gc.push(gc.now+gc.cfg.Membership.SessionTimeoutMs, event{kind: evSessionCheck, a: c.idx, x: g.token[c.idx]})
	}
	c.assignment = g.assignment[c.idx]
}

// sessionCheck fences a member whose heartbeats stopped for the session timeout.
func (gc *groupCoordinator) sessionCheck(e event) {
	c := gc.consumers[e.a]
	g := gc.groups[c.group]
	if !g.isMember(c.idx) || g.token[c.idx] != e.x {
		return
	}
	due := g.lastHB[c.idx] + gc.cfg.Membership.SessionTimeoutMs
	if gc.now < due {
		gc.push(due, event{kind: evSessionCheck, a: c.idx, x: e.x})
		return
	}
	gc.mark("member-session-timeout")
	gc.line("fence-member").str("client", string(c.member)).str("group", g.cfg.Name).end()
	gc.removeMember(g, c.idx)
}

// leaveGroup is a heartbeat with member epoch -1.
func (gc *groupCoordinator) leaveGroup(c *consumer) {
	g := gc.groups[c.group]
	if g.isMember(c.idx) {
		gc.line("leave").str("client", string(c.member)).str("group", g.cfg.Name).end()
		gc.removeMember(g, c.idx)
	}
}

func (gc *groupCoordinator) removeMember(g *groupState, ci int32) {
	for i, m := range g.members {
		if m == ci {
			g.members = append(g.members[:i], g.members[i+1:]...)
			break
		}
	}
	g.token[ci]++
	delete(g.assignment, ci)
	gc.reassign(g)
}

// reassign recomputes the target assignment of a group.
func (gc *groupCoordinator) reassign(g *groupState) {
	g.epoch++
	if g.cfg.Type == ClassicGroup {
		gc.classic.rebalance(g)
		return
	}
	g.assignment = map[int32][]int32{}
	for i, slots := range ShareAssignment(len(g.members), len(g.sps)) {
		var list []int32
		for _, p := range slots {
			list = append(list, g.sps[p])
		}
		g.assignment[g.members[i]] = list
	}
	gc.line("assign").str("group", g.cfg.Name).num("epoch", int64(g.epoch)).num("members", int64(len(g.members))).end()
}

// ShareAssignment is the simple share assignor for m members (in join order) and p
// partitions: with m ≤ p each partition goes to one member, round robin; with m > p each
// partition goes to ⌈m/p⌉ distinct members and every member gets one or two partitions.
// It returns, for each member, its partition indices in ascending order.
func ShareAssignment(m, p int) [][]int {
	out := make([][]int, m)
	if m == 0 || p == 0 {
		return out
	}
	if m <= p {
		for i := 0; i < p; i++ {
			out[i%m] = append(out[i%m], i)
		}
		return out
	}
	k := (m + p - 1) / p
	for i := 0; i < p; i++ {
		for j := 0; j < k; j++ {
			mem := (i + j*p) % m
			out[mem] = append(out[mem], i)
		}
	}
	for _, l := range out {
		sortInts(l)
	}
	return out
}

// build creates the groups, with the share-partitions of share groups (each stored with
// an unset start offset) and the bookkeeping of classic groups.
func (gc *groupCoordinator) build(topicIdx map[string]int32) {
	for gi := range gc.cfg.Groups {
		g := &gc.cfg.Groups[gi]
		gs := &groupState{idx: int32(gi), cfg: g, lastHB: map[int32]int64{}, token: map[int32]int64{}, assignment: map[int32][]int32{}}
		gc.groups = append(gc.groups, gs)
		for _, tn := range g.Topics {
			for _, p := range gc.topicParts(topicIdx[tn]) {
				gs.parts = append(gs.parts, p.idx)
				p.readers = append(p.readers, int32(gi))
				if g.Type == ShareGroup {
					gs.sps = append(gs.sps, gc.newShare(gs, p, -1).id)
				}
			}
		}
		if g.Type == ClassicGroup {
			gs.classic = newClassicGroup(gs)
			gc.metrics.classicGroupAdded(gs)
		}
	}
}
