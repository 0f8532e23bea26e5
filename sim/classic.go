package sim

import (
	"github.com/sharesim/sharesim/model"
)

// A classic consumer group on the same workload, for comparison: each partition is owned by
// at most one member (range assignment), members read from their position, commit offsets
// (auto-commit every auto.commit.interval.ms, and on revocation), and a member that dies
// stalls its partitions until the session timeout; the next owner resumes from the last
// committed offset, reprocessing what the dead member processed after its last commit.

type classicGroup struct {
	g *groupState
	// committed[i] is the committed offset of the group's i-th partition (-1: none).
	committed []int64
	// owner[i] is the consumer owning the i-th partition (-1: none).
	owner []int32
	// position[i] is the owner's next offset to read.
	position []int64
	// processedMax[i] is the highest offset ever processed (for reprocessing counts).
	processedMax []int64
	// lastCommitMs[c] is when consumer c last committed.
	lastCommitMs map[int32]int64
	// doneTo[i] is the accounting frontier of the i-th partition: every offset below it was
	// committed past, deleted or skipped (-1 before the group first read it).
	doneTo []int64
	// readMax[i] is the highest offset ever returned by a poll (first deliveries).
	readMax []int64
	// healDoneTo[i] is doneTo[i] when the healing phase started.
	healDoneTo []int64
}

func newClassicGroup(w *World, g *groupState) *classicGroup {
	n := len(g.parts)
	cg := &classicGroup{g: g, committed: make([]int64, n), owner: make([]int32, n), position: make([]int64, n),
		processedMax: make([]int64, n), lastCommitMs: map[int32]int64{}, doneTo: make([]int64, n), readMax: make([]int64, n)}
	for i := range cg.committed {
		cg.committed[i], cg.owner[i], cg.position[i], cg.processedMax[i], cg.doneTo[i], cg.readMax[i] = -1, -1, -1, -1, -1, -1
	}
	return cg
}

// commit sets the committed offset of the group's i-th partition and accounts for the
// offsets it passes for the first time: records complete now (the produce-to-completion
// latency of a classic group ends at the commit), offsets without a record are passed.
func (w *World) classicCommit(g *groupState, i int32, off int64) {
	cg := g.classic
	cg.committed[i] = off
	from := cg.doneTo[i]
	if from < 0 || off <= from {
		return
	}
	p := w.parts[g.parts[i]]
	gc, lat := w.gc(g.idx), &w.metrics.lat[g.idx]
	for o := from; o < off; o++ {
		b, ok := p.log.BatchAt(o)
		switch {
		case !ok && o < p.log.StartOffset():
			gc.deletedUndelivered++ // deleted before it was committed
		case !ok || !p.log.HasRecord(o):
			w.metrics.gx[g.idx].noRecord++
		default:
			gc.completed++
			if w.inWindow(b.TimestampMs) {
				lat.completed.Add(w.now - b.TimestampMs)
			}
		}
	}
	cg.doneTo[i] = off
}

// classicFirstRead accounts for what lay below the group's first read position of its i-th
// partition: deleted before the group first read it, or skipped by auto.offset.reset.
func (w *World) classicFirstRead(g *groupState, i int32, pos int64) {
	cg := g.classic
	if cg.doneTo[i] >= 0 {
		return
	}
	p := w.parts[g.parts[i]]
	gc := w.gc(g.idx)
	logStart := p.log.StartOffset()
	gc.deletedUndelivered += min(logStart, pos)
	gc.deletedBeforeLoad += min(logStart, pos)
	gc.skippedByReset += max(0, pos-logStart)
	cg.doneTo[i] = pos
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

// classicStart joins a classic consumer and starts its poll loop.
func (w *World) classicStart(c *consumer) {
	w.heartbeatNow(c)
	w.push(w.now+w.cfg.Membership.HeartbeatIntervalMs, event{kind: evHeartbeat, a: c.idx, gen: c.gen})
	w.classicPoll(c)
}

// classicRebalance reassigns partitions by range over members in join order. Members that
// lose a partition commit their position for it first (onPartitionsRevoked), if alive.
func (w *World) classicRebalance(g *groupState) {
	cg := g.classic
	n, m := len(g.parts), len(g.members)
	newOwner := make([]int32, n)
	for i := range newOwner {
		newOwner[i] = -1
	}
	if m > 0 {
		per, extra := n/m, n%m
		i := 0
		for k, mem := range g.members {
			cnt := per
			if k < extra {
				cnt++
			}
			for j := 0; j < cnt; j++ {
				newOwner[i] = mem
				i++
			}
		}
	}
	g.assignment = map[int32][]int32{}
	for i, o := range newOwner {
		if prev := cg.owner[i]; prev >= 0 && prev != o {
			if c := w.consumers[prev]; c.alive() && cg.position[i] >= 0 {
				w.classicCommit(g, int32(i), cg.position[i])
			}
			cg.position[i] = -1
		}
		if o >= 0 && cg.owner[i] != o {
			cg.position[i] = -1 // the new owner starts from the committed offset
		}
		cg.owner[i] = o
		if o >= 0 {
			g.assignment[o] = append(g.assignment[o], int32(i))
		}
	}
	w.line("assign").str("group", g.cfg.Name).num("epoch", int64(g.epoch)).num("members", int64(m)).end()
}

// classicPoll fetches up to max.poll.records records from the member's partitions.
func (w *World) classicPoll(c *consumer) {
	if !c.alive() {
		return
	}
	g := w.groups[c.group]
	cg := g.classic
	w.classicMaybeCommit(c, false)
	c.batch, c.next = c.batch[:0], 0
	owned := g.assignment[c.idx]
	if len(owned) == 0 {
		c.state = cIdle
		w.push(w.now+c.spec.MaxWaitMs, event{kind: evClassicPoll, a: c.idx, gen: c.gen})
		return
	}
	budget := c.spec.MaxPollRecords
	start := w.rSchedule.Intn(len(owned))
	for k := 0; k < len(owned) && budget > 0; k++ {
		i := owned[(start+k)%len(owned)]
		p := w.parts[g.parts[i]]
		pos := cg.position[i]
		if pos < 0 {
			pos = cg.committed[i]
			if pos < 0 {
				pos, _ = model.ResolveStartOffset(w.cfg.Kafka.AutoOffsetReset, w.now, p.log.StartOffset(), p.log.EndOffset(), p.log.OffsetForTime)
				cg.committed[i] = pos
				w.classicFirstRead(g, i, pos)
			}
		}
		if start := p.log.StartOffset(); pos < start {
			// Retention passed the position: what lies between was never read.
			if cg.doneTo[i] >= 0 && cg.doneTo[i] < start {
				w.gc(g.idx).deletedUndelivered += start - cg.doneTo[i]
				cg.doneTo[i] = start
			}
			pos = start
		}
		upTo := p.log.EndOffset()
		if w.cfg.Kafka.IsolationLevel == model.ReadCommitted {
			upTo = p.log.LastStableOffset()
		}
		p.readBuf = p.log.Read(pos, int64(budget), upTo, p.readBuf[:0])
		for _, lb := range p.readBuf {
			for off := max(lb.First, pos); off <= lb.Last && budget > 0; off++ {
				if lb.Aborted && w.cfg.Kafka.IsolationLevel == model.ReadCommitted {
					pos = off + 1
					continue
				}
				if p.log.HasRecord(off) {
					c.batch = append(c.batch, delivery{sp: i, off: off, acquiredMs: w.now})
					budget--
					w.classicNoteDelivery(c, p, i, off)
				}
				pos = off + 1
			}
		}
		cg.position[i] = pos
	}
	if len(c.batch) == 0 {
		c.state = cPolling
		w.push(w.now+c.spec.MaxWaitMs, event{kind: evClassicPoll, a: c.idx, gen: c.gen})
		return
	}
	c.state = cProcessing
	w.classicScheduleNext(c)
}

func (w *World) classicScheduleNext(c *consumer) {
	d := c.spec.Processing.Sample(w.rProc)
	if c.spec.SlowFactor != 1 {
		d = int64(float64(d) * c.spec.SlowFactor)
	}
	w.push(w.now+d, event{kind: evClassicPoll, a: c.idx, gen: c.gen, x: 1})
	c.batch[c.next].startMs = w.now
}

// classicNoteDelivery counts one record a poll returned.
func (w *World) classicNoteDelivery(c *consumer, p *partition, i int32, off int64) {
	cg := w.groups[c.group].classic
	g := w.gc(c.group)
	g.deliveries++
	w.cc(c.idx).deliveries++
	if off <= cg.readMax[i] {
		g.redeliveries++
		return
	}
	cg.readMax[i] = off
	g.delivered++
	if b, ok := p.log.BatchAt(off); ok && w.inWindow(b.TimestampMs) {
		w.metrics.lat[c.group].firstDelivery.Add(w.now - b.TimestampMs)
	}
}

// classicStep handles a classic consumer's events: x=0 poll, x=1 one record processed.
func (w *World) classicStep(e event) {
	c := w.consumers[e.a]
	if c.gen != e.gen || !c.alive() {
		return
	}
	if w.deferIfPaused(c, e) {
		return
	}
	if e.x == 0 {
		if c.state == cPolling || c.state == cIdle {
			w.classicPoll(c)
		}
		return
	}
	if c.state != cProcessing {
		return
	}
	g := w.groups[c.group]
	cg := g.classic
	d := c.batch[c.next]
	c.next++
	{
		// Records already polled are processed even if a rebalance moved the partition.
		p := w.parts[g.parts[d.sp]]
		gc, cc := w.gc(c.group), w.cc(c.idx)
		gc.processed++
		cc.processed++
		gc.busyMs += w.now - d.startMs
		cc.busyMs += w.now - d.startMs
		if isPoison(p.poison, d.off) && c.spec.OnPoison == FailCrash {
			gc.failedProcessing++
			w.mark("consumer-crash")
			w.line("crash").str("client", string(c.member)).str("p", p.name).num("offset", d.off).end()
			w.classicKill(c, c.spec.RestartAfterCrashMs)
			return
		}
		if (w.outage > 0 || (c.spec.FailurePerMillion > 0 && w.rProc.Bool(uint64(c.spec.FailurePerMillion), 1_000_000))) && c.spec.OnFailure == FailCrash {
			gc.failedProcessing++
			w.classicKill(c, c.spec.RestartAfterCrashMs)
			return
		}
		gc.processedOK++
		cc.processedOK++
		if d.off <= cg.processedMax[d.sp] {
			gc.classicReprocessed++
			gc.duplicates[DupRewind]++
			w.mark("classic-reprocessed")
		} else {
			cg.processedMax[d.sp] = d.off
			if b, ok := p.log.BatchAt(d.off); ok && w.inWindow(b.TimestampMs) {
				w.metrics.lat[c.group].processed.Add(w.now - b.TimestampMs)
			}
		}
		w.noteOrder(c.group, p.idx, d.off)
	}
	if c.next < len(c.batch) {
		w.classicScheduleNext(c)
		return
	}
	c.state = cPolling
	w.classicPoll(c)
}

// classicMaybeCommit commits the member's positions when the auto-commit interval passed.
func (w *World) classicMaybeCommit(c *consumer, force bool) {
	g := w.groups[c.group]
	cg := g.classic
	interval := g.cfg.AutoCommitIntervalMs
	if interval <= 0 {
		interval = 5000
	}
	if !force && w.now-cg.lastCommitMs[c.idx] < interval {
		return
	}
	cg.lastCommitMs[c.idx] = w.now
	for _, i := range g.assignment[c.idx] {
		if cg.position[i] >= 0 && cg.owner[i] == c.idx {
			// Only what was processed is committed: the position minus the unprocessed tail.
			w.classicCommit(g, i, w.classicProcessedUpTo(c, i))
		}
	}
}

// classicProcessedUpTo is the offset after the last record of partition i that c processed.
func (w *World) classicProcessedUpTo(c *consumer, i int32) int64 {
	cg := w.groups[c.group].classic
	for k := c.next; k < len(c.batch); k++ {
		if c.batch[k].sp == i {
			return c.batch[k].off
		}
	}
	return cg.position[i]
}

// classicKill ends a classic consumer: no commit; its partitions wait for the session timeout.
func (w *World) classicKill(c *consumer, restartAfterMs int64) {
	if c.state == cDead {
		return
	}
	w.line("kill").str("client", string(c.member)).end()
	c.state = cDead
	c.gen++
	if restartAfterMs >= 0 {
		w.push(w.now+restartAfterMs, event{kind: evConsumerStart, a: c.idx})
	}
}

func (w *World) classicSamples(g *groupState) []PartitionSample {
	cg := g.classic
	out := make([]PartitionSample, 0, len(g.parts))
	for i, pi := range g.parts {
		p := w.parts[pi]
		committed := max(cg.committed[i], p.log.StartOffset())
		out = append(out, PartitionSample{Group: g.cfg.Name, Partition: p.name, StartOffset: committed,
			LogStartOffset: p.log.StartOffset(), LogEndOffset: p.log.EndOffset(),
			Lag: max(0, p.log.EndOffset()-committed), Backlog: max(0, p.log.EndOffset()-committed)})
	}
	return out
}

func (w *World) classicFinal(g *groupState) []FinalState {
	cg := g.classic
	var out []FinalState
	for i, pi := range g.parts {
		p := w.parts[pi]
		fs := FinalState{Group: g.cfg.Name, Partition: p.name, StartOffset: cg.committed[i], LogStart: p.log.StartOffset(), LogEnd: p.log.EndOffset(), Loaded: true}
		fs.Drained = cg.committed[i] >= p.log.EndOffset()
		fs.ProgressedWhileHealing = w.healing && cg.doneTo[i] > cg.healDoneTo[i]
		out = append(out, fs)
	}
	return out
}
