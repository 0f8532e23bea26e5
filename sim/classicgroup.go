package sim

// A classic group rebalances like the eager protocol: a membership change starts a
// rebalance; each member rejoins at its next poll() (so a member busy with a poll's records
// holds everyone up), giving up its partitions after committing them (onPartitionsRevoked);
// when every member has rejoined, or the rebalance timeout (max.poll.interval.ms) removed
// the ones that did not, the partitions are assigned by range over the members in join
// order and the members resume from the committed offsets.

type classicGroup struct {
	g *groupState
	// committed[i] is the committed offset of the group's i-th partition (-1: none).
	committed []int64
	// owner[i] is the consumer owning the i-th partition (-1: none).
	owner []int32
	// position[i] is the owner's next offset to read.
	position []int64
	// lastCommitMs[c] is when consumer c last committed.
	lastCommitMs map[int32]int64
	// rebalancing is set from a membership change until every member rejoined (at its
	// next poll) or the rebalance timed out; joined lists the members that rejoined, rbToken
	// names the rebalance for its timeout event, rbStartMs is when it started.
	rebalancing bool
	joined      map[int32]bool
	rbToken     int64
	rbStartMs   int64
}

func newClassicGroup(g *groupState) *classicGroup {
	cg := &classicGroup{g: g, lastCommitMs: map[int32]int64{}}
	cg.grow()
	return cg
}

// grow gives the group's bookkeeping a slot for each partition appended to its group's
// partition list, with nothing committed, owned or read yet.
func (cg *classicGroup) grow() {
	for len(cg.committed) < len(cg.g.parts) {
		cg.committed = append(cg.committed, -1)
		cg.owner = append(cg.owner, -1)
		cg.position = append(cg.position, -1)
	}
}

// floor is the lowest offset the group may still read on partition pi.
func (cg *classicGroup) floor(pi int32) int64 {
	for i, p := range cg.g.parts {
		if p == pi {
			if cg.committed[i] < 0 {
				return 0
			}
			return cg.committed[i]
		}
	}
	return 1 << 62
}

// rebalance starts a rebalance (or takes a membership change into the running one).
func (cls *classicClients) rebalance(g *groupState) {
	cg := g.classic
	if !cg.rebalancing {
		cg.rebalancing, cg.joined, cg.rbStartMs = true, map[int32]bool{}, cls.now
		cg.rbToken++
		timeout := int64(300000)
		if cs := g.cfg.Consumers; len(cs) > 0 {
			timeout = cs[0].maxPollIntervalMs()
		}
		cls.push(cls.now+timeout, event{kind: evClassicRebalanceTimeout, a: g.idx, x: cg.rbToken})
		cls.line("rebalance").str("group", g.cfg.Name).num("members", int64(len(g.members))).end()
	}
	for _, m := range g.members {
		if c := cls.consumers[m]; !cg.joined[m] && c.alive() && (c.cl == nil || c.cl.running == 0) {
			cls.join(g, c) // waiting in poll(), not processing: rejoins at once
		}
	}
	cls.maybeAssign(g)
}

// join is member c rejoining during a rebalance: it commits and gives up its
// partitions and drops what it fetched of them.
func (cls *classicClients) join(g *groupState, c *consumer) {
	cg := g.classic
	cg.joined[c.idx] = true
	for i, o := range cg.owner {
		if o != c.idx {
			continue
		}
		if cg.position[i] >= 0 {
			cls.commitArrived(g, int32(i), cls.commitOffset(c, int32(i)))
		}
		if c.cl != nil {
			c.cl.buf = dropPartition(c.cl.buf, int32(i))
		}
		cg.owner[i], cg.position[i] = -1, -1
	}
	delete(g.assignment, c.idx)
}

// maybeAssign ends the rebalance once every member rejoined.
func (cls *classicClients) maybeAssign(g *groupState) {
	cg := g.classic
	for _, m := range g.members {
		if !cg.joined[m] {
			return
		}
	}
	cg.rebalancing = false
	n, m := len(g.parts), len(g.members)
	for i := range cg.owner {
		if o := cg.owner[i]; o >= 0 {
			// A partition of a member that left without rejoining: no commit, it is dead or gone.
			cg.owner[i], cg.position[i] = -1, -1
			if c := cls.consumers[o]; c.cl != nil {
				c.cl.buf = dropPartition(c.cl.buf, int32(i))
			}
		}
	}
	g.assignment = map[int32][]int32{}
	if m > 0 {
		per, extra := n/m, n%m
		i := 0
		for k, mem := range g.members {
			cnt := per
			if k < extra {
				cnt++
			}
			for j := 0; j < cnt; j++ {
				cg.owner[i] = mem
				g.assignment[mem] = append(g.assignment[mem], int32(i))
				i++
			}
		}
	}
	if cls.now > cg.rbStartMs {
		cls.mark("classic-rebalance-waited")
	}
	cls.line("assign").str("group", g.cfg.Name).num("epoch", int64(g.epoch)).num("members", int64(m)).num("waited", cls.now-cg.rbStartMs).end()
	for _, mem := range g.members {
		if c := cls.consumers[mem]; c.alive() {
			cls.push(cls.now, event{kind: evClassicPoll, a: c.idx, gen: c.gen, x: 3})
		}
	}
}

// rebalanceTimeout removes the members that did not rejoin in time.
func (cls *classicClients) rebalanceTimeout(e event) {
	g := cls.groups[e.a]
	cg := g.classic
	if !cg.rebalancing || cg.rbToken != e.x {
		return
	}
	var late []int32
	for _, m := range g.members {
		if !cg.joined[m] {
			late = append(late, m)
		}
	}
	for _, m := range late {
		cls.mark("classic-rebalance-timeout")
		cls.line("fence-member").str("client", string(cls.consumers[m].member)).str("group", g.cfg.Name).end()
		cls.gcoord.removeMember(g, m)
	}
}

func dropPartition(ds []delivery, i int32) []delivery {
	out := ds[:0]
	for _, d := range ds {
		if d.sp != i {
			out = append(out, d)
		}
	}
	return out
}

// commitArrived applies a commit of offset off for the group's i-th partition at the
// group coordinator; commits never move the offset back.
func (cls *classicClients) commitArrived(g *groupState, i int32, off int64) {
	if off > g.classic.committed[i] {
		g.classic.committed[i] = off
		cls.metrics.classicCommitted(g, i, off)
	}
}
