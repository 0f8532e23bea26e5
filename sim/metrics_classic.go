package sim

// What the metrics follow about classic groups: the records their polls returned, processed
// and committed past, per partition of the group.

// classicStats are the metrics' state of one classic group, by the group's partition index.
type classicStats struct {
	// doneTo[i] is the accounting frontier: every offset below it was committed past,
	// deleted or skipped (-1 before the group first read the partition); healDoneTo[i] is
	// doneTo[i] when the healing phase started.
	doneTo, healDoneTo []int64
	// readMax[i] is the highest offset a poll ever returned (first deliveries).
	readMax []int64
	// processedMax[i] is the highest offset ever processed.
	processedMax []int64
	// processedOK[i] holds the offsets processed successfully at or above the committed
	// offset: a processing of one of them again is a duplicate. (Threads finish records out
	// of order, so an offset below processedMax may be a first.)
	processedOK []offsetSet
}

// classicGroupAdded starts (or, after partitions were added, extends) following classic
// group g.
func (m *metrics) classicGroupAdded(g *groupState) {
	for len(m.cls) <= int(g.idx) {
		m.cls = append(m.cls, classicStats{})
	}
	cs := &m.cls[g.idx]
	for len(cs.doneTo) < len(g.parts) {
		cs.doneTo = append(cs.doneTo, -1)
		cs.readMax = append(cs.readMax, -1)
		cs.processedMax = append(cs.processedMax, -1)
		cs.processedOK = append(cs.processedOK, offsetSet{})
	}
}

// classicDelivered counts record off of the group's i-th partition p that a poll of c
// returned.
func (m *metrics) classicDelivered(c *consumer, p *partition, i int32, off int64) {
	cs := &m.cls[c.group]
	g := m.gc(c.group)
	if gx := &m.gx[c.group]; gx.firstDeliveryMs < 0 {
		gx.firstDeliveryMs = m.now
	}
	g.deliveries++
	m.cc(c.idx).deliveries++
	if off <= cs.readMax[i] {
		g.redeliveries++
		return
	}
	cs.readMax[i] = off
	g.delivered++
	if b, ok := p.log.BatchAt(off); ok && m.inWindow(b.TimestampMs) {
		m.lat[c.group].firstDelivery.Add(m.now - b.TimestampMs)
	}
}

// classicProcessed counts c's processing of d, a record of partition p, ending: ok, or
// failed (the consumer crashes). A successful processing of a record processed before,
// at or above the committed offset, is a duplicate (the group rewound to an older commit).
func (m *metrics) classicProcessed(c *consumer, d delivery, p *partition, ok bool) {
	g, cc := m.gc(c.group), m.cc(c.idx)
	g.processed++
	cc.processed++
	g.busyMs += m.now - d.startMs
	cc.busyMs += m.now - d.startMs
	if !ok {
		g.failedProcessing++
		return
	}
	cs := &m.cls[c.group]
	g.processedOK++
	cc.processedOK++
	cs.processedMax[d.sp] = max(cs.processedMax[d.sp], d.off)
	if before := cs.processedOK[d.sp].add(d.off); before > 0 {
		if before == 1 {
			g.dupRecords++
		}
		g.classicReprocessed++
		g.duplicates[DupRewind]++
		m.mark("classic-reprocessed")
	} else {
		if b, ok := p.log.BatchAt(d.off); ok && m.inWindow(b.TimestampMs) {
			m.lat[c.group].processed.Add(m.now - b.TimestampMs)
		}
	}
	m.noteOrder(c.group, p.idx, d.off)
}

// classicFirstRead accounts for what lay below group g's first read position pos of its
// i-th partition: deleted before the group first read it, or skipped by auto.offset.reset.
func (m *metrics) classicFirstRead(g *groupState, i int32, pos int64) {
	cs := &m.cls[g.idx]
	cs.processedOK[i].raiseFloor(pos)
	if cs.doneTo[i] >= 0 {
		return
	}
	p := m.parts[g.parts[i]]
	gc := m.gc(g.idx)
	logStart := p.log.StartOffset()
	gc.deletedUndelivered += min(logStart, pos)
	gc.deletedBeforeLoad += min(logStart, pos)
	gc.skippedByReset += max(0, pos-logStart)
	cs.doneTo[i] = pos
}

// classicLogStartPassed is a fetch of group g finding the log start of its i-th partition at
// start, past its position: what lies between was never read.
func (m *metrics) classicLogStartPassed(g *groupState, i int32, start int64) {
	cs := &m.cls[g.idx]
	if cs.doneTo[i] >= 0 && cs.doneTo[i] < start {
		m.gc(g.idx).deletedUndelivered += start - cs.doneTo[i]
		cs.doneTo[i] = start
	}
}

// classicCommitted accounts for the offsets a commit of off on group g's i-th partition
// passes for the first time: records complete now (the produce-to-completion latency of a
// classic group ends at the commit), offsets without a record are passed.
func (m *metrics) classicCommitted(g *groupState, i int32, off int64) {
	cs := &m.cls[g.idx]
	cs.processedOK[i].raiseFloor(off)
	from := cs.doneTo[i]
	if from < 0 || off <= from {
		return
	}
	p := m.parts[g.parts[i]]
	gc, lat := m.gc(g.idx), &m.lat[g.idx]
	for o := from; o < off; o++ {
		b, ok := p.log.BatchAt(o)
		switch {
		case !ok && o < p.log.StartOffset():
			gc.deletedUndelivered++ // deleted before it was committed
		case !ok || !p.log.HasRecord(o):
			m.gx[g.idx].noRecord++
		default:
			gc.completed++
			if m.inWindow(b.TimestampMs) {
				lat.completed.Add(m.now - b.TimestampMs)
			}
		}
	}
	cs.doneTo[i] = off
}

func (m *metrics) classicSamples(g *groupState) []PartitionSample {
	cg := g.classic
	out := make([]PartitionSample, 0, len(g.parts))
	for i, pi := range g.parts {
		p := m.parts[pi]
		committed := max(cg.committed[i], p.log.StartOffset())
		out = append(out, PartitionSample{Group: g.cfg.Name, Partition: p.name, StartOffset: committed,
			LogStartOffset: p.log.StartOffset(), LogEndOffset: p.log.EndOffset(),
			Lag: max(0, p.log.EndOffset()-committed), Backlog: max(0, p.log.EndOffset()-committed)})
	}
	return out
}

func (m *metrics) classicFinal(g *groupState) []FinalState {
	cg, cs := g.classic, &m.cls[g.idx]
	var out []FinalState
	for i, pi := range g.parts {
		p := m.parts[pi]
		fs := FinalState{Group: g.cfg.Name, Partition: p.name, StartOffset: cg.committed[i], LogStart: p.log.StartOffset(), LogEnd: p.log.EndOffset(), Loaded: true}
		fs.Drained = cg.committed[i] >= p.log.EndOffset()
		fs.ProgressedWhileHealing = m.healing && cs.doneTo[i] > cs.healDoneTo[i]
		out = append(out, fs)
	}
	return out
}
