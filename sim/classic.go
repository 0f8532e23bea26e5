package sim

import (
	"github.com/sharesim/sharesim/model"
)

// classicClients are the classic consumers (KafkaConsumer) and their groups' rebalances
// and offset commits.
type classicClients struct {
	*engine
	*topology

	net     *network
	gcoord  *groupCoordinator
	procs   *processes
	metrics *metrics
}

// A classic consumer group on the same workload, for comparison: each partition is owned by
// at most one member (range assignment), members read from their position, commit offsets
// (auto-commit every auto.commit.interval.ms, and on revocation), and a member that dies
// stalls its partitions until the session timeout; the next owner resumes from the last
// committed offset, reprocessing what the dead member processed after its last commit.

// The classic consumer, like KafkaConsumer. The application's poll() returns up to
// max.poll.records records from the client's fetch buffer; when the buffer runs dry it sends
// a fetch (and it prefetches: a poll that empties the buffer sends the next fetch at once).
// A fetch takes the network latency to its broker, where it is answered as soon as the
// member's partitions hold fetch.min.bytes past its positions, else held until data arrives
// or fetch.max.wait.ms passes (long poll); the answer (up to max.poll.records records) takes
// the latency back. Processing runs on Threads worker slots in one of two styles:
//
//   - blocking: the records of a poll are processed on the slots, and the next poll comes
//     when all of them are done;
//   - continuous: each record starts as soon as a slot is free, and the application polls
//     whenever a slot is free and it holds fewer than HeldRecords records.
//
// The offset committed for a partition is the lowest offset the member fetched but has not
// finished processing (in the fetch buffer, in an answer on its way, or held by the
// application), else its position: a slow record holds the commit back, and after a crash
// everything from it on is processed again. Auto-commit sends it every
// auto.commit.interval.ms from poll(); commit: sync instead commits before every poll and
// waits for the answer. A commit completes (the records it passes are completed) when it
// reaches the group coordinator, one network latency after it was sent. A member that does
// not call poll() for max.poll.interval.ms leaves the group; it rejoins at its next poll.

// classicClient is one classic consumer incarnation's client state.
type classicClient struct {
	// buf holds fetched records not yet returned by poll; resp the records of the answer on
	// its way (fetching), for fetch id fetchID.
	buf, resp []delivery
	fetching  bool
	parked    bool // the fetch waits at the broker (long poll)
	// fetchServed: the fetch's request service time was charged (BrokerCost)
	fetchServed bool
	fetchID     int64
	// held[head:] are the records poll returned and not all finished, oldest first;
	// done[k] says held[k] finished; records start in order, held[head:nextStart] have
	// started. seqBase is the sequence number of held[0].
	held      []delivery
	done      []bool
	head      int
	nextStart int
	seqBase   int64
	running   int
	unfished  int  // held records not done
	wantData  bool // the application waits in poll() for a fetch answer
	// lastPollMs is when the application last called poll(); pollTimer says the
	// max.poll.interval.ms timer is queued.
	lastPollMs int64
	pollTimer  bool
}

func (cls *classicClients) clientOf(c *consumer) *classicClient {
	if c.cl == nil {
		c.cl = &classicClient{}
	}
	return c.cl
}

// start joins a classic consumer and starts its poll loop. A new incarnation starts
// from the committed offsets of the partitions it still owns.
func (cls *classicClients) start(c *consumer) {
	g := cls.groups[c.group]
	c.cl = &classicClient{}
	for _, i := range g.assignment[c.idx] {
		if g.classic.owner[i] == c.idx {
			g.classic.position[i] = -1
		}
	}
	cls.gcoord.heartbeatNow(c)
	cls.push(cls.now+cls.cfg.Membership.HeartbeatIntervalMs, event{kind: evHeartbeat, a: c.idx, gen: c.gen})
	cls.poll(c)
}

// commitOffset is the offset c commits for the group's i-th partition: the lowest
// offset it fetched but has not finished, else its position.
func (cls *classicClients) commitOffset(c *consumer, i int32) int64 {
	cg := cls.groups[c.group].classic
	off := cg.position[i]
	cl := c.cl
	if cl == nil {
		return off
	}
	for k := cl.head; k < len(cl.held); k++ {
		if d := cl.held[k]; d.sp == i && !cl.done[k] && d.off < off {
			off = d.off
		}
	}
	for _, d := range cl.buf {
		if d.sp == i && d.off < off {
			off = d.off
		}
	}
	if cl.fetching {
		for _, d := range cl.resp {
			if d.sp == i && d.off < off {
				off = d.off
			}
		}
	}
	return off
}

// sendCommit sends c's commit for every partition it owns; it reaches the group
// coordinator one network latency later.
func (cls *classicClients) sendCommit(c *consumer) {
	g := cls.groups[c.group]
	cg := g.classic
	cg.lastCommitMs[c.idx] = cls.now
	lat := cls.net.latency()
	for _, i := range g.assignment[c.idx] {
		if cg.position[i] >= 0 && cg.owner[i] == c.idx {
			if off := cls.commitOffset(c, i); off > cg.committed[i] {
				cls.push(cls.now+lat, event{kind: evClassicCommit, a: g.idx, b: i, x: off})
			}
		}
	}
}

// commitOnClose is close(): a synchronous commit of every partition c owns.
func (cls *classicClients) commitOnClose(c *consumer) { cls.maybeCommit(c, true) }

// maybeCommit auto-commits when the interval passed (or always, with force: close).
func (cls *classicClients) maybeCommit(c *consumer, force bool) {
	g := cls.groups[c.group]
	interval := g.cfg.AutoCommitIntervalMs
	if interval <= 0 {
		interval = 5000
	}
	if force {
		// close(): a synchronous commit, applied at once.
		for _, i := range g.assignment[c.idx] {
			if g.classic.position[i] >= 0 && g.classic.owner[i] == c.idx {
				cls.commitArrived(g, i, cls.commitOffset(c, i))
			}
		}
		return
	}
	if c.spec.Commit == CommitSync || cls.now-g.classic.lastCommitMs[c.idx] < interval {
		return
	}
	cls.sendCommit(c)
}

// poll is the application calling poll().
func (cls *classicClients) poll(c *consumer) {
	if !c.alive() {
		return
	}
	g := cls.groups[c.group]
	cl := cls.clientOf(c)
	if !g.isMember(c.idx) {
		cls.gcoord.heartbeatNow(c) // rejoin after leaving for max.poll.interval.ms
	}
	cl.lastPollMs = cls.now
	if !cl.pollTimer {
		// One timer per incarnation, re-armed when it fires early (like the session check).
		cl.pollTimer = true
		cls.push(cls.now+c.spec.maxPollIntervalMs(), event{kind: evClassicPollTimeout, a: c.idx, gen: c.gen})
	}
	if cg := g.classic; cg.rebalancing {
		if !cg.joined[c.idx] && g.isMember(c.idx) {
			cls.join(g, c)
			cls.maybeAssign(g)
		}
		if cg.rebalancing {
			cl.wantData = false
			if cl.running == 0 {
				c.state = cIdle // waits in poll() for the assignment
			}
			return
		}
	}
	cls.maybeCommit(c, false)
	if len(g.assignment[c.idx]) == 0 {
		cl.wantData = false
		if cl.running == 0 {
			c.state = cIdle
		}
		return
	}
	room := c.spec.MaxPollRecords
	if c.spec.Style == StyleContinuous {
		room = min(room, c.spec.heldRecords()-cl.unfished)
	}
	n := min(room, len(cl.buf))
	if n == 0 {
		cl.wantData = true
		if cl.running == 0 {
			c.state = cPolling
		}
		cls.sendFetch(c)
		return
	}
	cl.wantData = false
	for _, d := range cl.buf[:n] {
		cls.metrics.classicDelivered(c, cls.parts[g.parts[d.sp]], d.sp, d.off)
		d.acquiredMs = cls.now
		cl.held = append(cl.held, d)
		cl.done = append(cl.done, false)
		cl.unfished++
	}
	cl.buf = append(cl.buf[:0], cl.buf[n:]...)
	if len(cl.buf) == 0 {
		cls.sendFetch(c) // prefetch
	}
	c.state = cProcessing
	cls.startRecords(c)
}

// startRecords starts held records on free worker slots, in order.
func (cls *classicClients) startRecords(c *consumer) {
	cl := c.cl
	threads := max(c.spec.Threads, 1)
	for ; cl.nextStart < len(cl.held) && cl.running < threads; cl.nextStart++ {
		k := cl.nextStart
		cl.running++
		cl.held[k].startMs = cls.now
		d := c.spec.Processing.Sample(cls.rProc)
		if c.spec.SlowFactor != 1 {
			d = int64(float64(d) * c.spec.SlowFactor)
		}
		cls.push(cls.now+d, event{kind: evClassicDone, a: c.idx, gen: c.gen, x: cl.seqBase + int64(k)})
	}
}

// sendFetch sends a fetch for c's partitions unless one is out.
func (cls *classicClients) sendFetch(c *consumer) {
	cl := c.cl
	g := cls.groups[c.group]
	if cl.fetching || len(g.assignment[c.idx]) == 0 {
		return
	}
	cl.fetching, cl.parked, cl.fetchServed = true, false, false
	cl.fetchID++
	cl.resp = cl.resp[:0]
	at := cls.now + cls.net.latency()
	if cls.net.isCut(c) {
		at = max(at, cls.net.cutEnd(c)) // the request is retried once the network is back
	}
	cls.push(at, event{kind: evClassicFetch, a: c.idx, gen: c.gen, x: cl.fetchID})
}

// fetchArrive is the fetch at the broker: answered now if fetch.min.bytes are there,
// else held until data arrives or fetch.max.wait.ms passes.
func (cls *classicClients) fetchArrive(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || !c.alive() || c.cl == nil || c.cl.fetchID != e.x || !c.cl.fetching {
		return
	}
	if bc := cls.cfg.BrokerCost; bc != nil && !c.cl.fetchServed {
		c.cl.fetchServed = true
		if d := cls.net.serve(cls.broker(c), bc.ClassicFetchRequestMs); d > 0 {
			cls.push(cls.now+d, e)
			return
		}
	}
	if cls.bytesAvailable(c) >= c.spec.fetchMinBytes() {
		cls.answer(c)
		return
	}
	c.cl.parked = true
	cls.push(cls.now+c.spec.MaxWaitMs, event{kind: evClassicFetchWait, a: c.idx, gen: c.gen, x: e.x})
}

// fetchWait ends a held fetch's wait.
func (cls *classicClients) fetchWait(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || c.cl == nil || c.cl.fetchID != e.x || !c.cl.parked {
		return
	}
	cls.answer(c)
}

// newData answers classic fetches held on partition p (long poll).
func (cls *classicClients) newData(p *partition) {
	for _, gi := range p.readers {
		if g := cls.groups[gi]; g.classic != nil {
			cls.wake(g, p.idx)
		}
	}
}

// wake answers the held fetches of members owning the group's i-th partition once
// enough data is there (a produce appended to it).
func (cls *classicClients) wake(g *groupState, pi int32) {
	cg := g.classic
	for i, p := range g.parts {
		if p != pi || cg.owner[i] < 0 {
			continue
		}
		c := cls.consumers[cg.owner[i]]
		if c.cl != nil && c.cl.parked && c.alive() && cls.bytesAvailable(c) >= c.spec.fetchMinBytes() {
			cls.answer(c)
		}
	}
}

// bytesAvailable is what c's partitions hold past its positions, in bytes (records ×
// the topic's mean record size).
func (cls *classicClients) bytesAvailable(c *consumer) int64 {
	g := cls.groups[c.group]
	cg := g.classic
	var n int64
	for _, i := range g.assignment[c.idx] {
		p := cls.parts[g.parts[i]]
		pos := cg.position[i]
		if pos < 0 {
			pos = cg.committed[i]
		}
		upTo := p.log.EndOffset()
		if cls.cfg.Kafka.IsolationLevel == model.ReadCommitted {
			upTo = p.log.LastStableOffset()
		}
		if pos < 0 {
			if upTo > p.log.StartOffset() {
				return 1 << 62 // never read: the first fetch resolves the start offset
			}
			continue
		}
		n += max(0, upTo-max(pos, p.log.StartOffset())) * cls.recordBytes(p.topic)
	}
	return n
}

// answer reads up to max.poll.records records from c's partitions at the broker and
// sends them back.
func (cls *classicClients) answer(c *consumer) {
	g := cls.groups[c.group]
	cg := g.classic
	cl := c.cl
	cl.parked = false
	budget := c.spec.MaxPollRecords
	owned := g.assignment[c.idx]
	start := 0
	if len(owned) > 1 {
		start = cls.rSchedule.Intn(len(owned))
	}
	for k := 0; k < len(owned) && budget > 0; k++ {
		i := owned[(start+k)%len(owned)]
		p := cls.parts[g.parts[i]]
		pos := cg.position[i]
		if pos < 0 {
			pos = cg.committed[i]
			if pos < 0 {
				pos, _ = model.ResolveStartOffset(cls.cfg.Kafka.AutoOffsetReset, cls.now, p.log.StartOffset(), p.log.EndOffset(), p.log.OffsetForTime)
				cg.committed[i] = pos
				cls.metrics.classicFirstRead(g, i, pos)
			}
		}
		if start := p.log.StartOffset(); pos < start {
			cls.metrics.classicLogStartPassed(g, i, start)
			pos = start
		}
		upTo := p.log.EndOffset()
		if cls.cfg.Kafka.IsolationLevel == model.ReadCommitted {
			upTo = p.log.LastStableOffset()
		}
		p.readBuf = p.log.Read(pos, int64(budget), upTo, p.readBuf[:0])
		for _, lb := range p.readBuf {
			for off := max(lb.First, pos); off <= lb.Last && budget > 0; off++ {
				if !(lb.Aborted && cls.cfg.Kafka.IsolationLevel == model.ReadCommitted) && p.log.HasRecord(off) {
					cl.resp = append(cl.resp, delivery{sp: i, off: off})
					budget--
				}
				pos = off + 1
			}
		}
		cg.position[i] = pos
	}
	extra := int64(0)
	if bc := cls.cfg.BrokerCost; bc != nil && len(cl.resp) > 0 {
		b := cls.broker(c)
		n := int64(len(cl.resp))
		extra = max(cls.net.serve(b, bc.ClassicFetchRecordMs*float64(n)), cls.net.transfer(b, n*cls.recordBytes(cls.parts[g.parts[cl.resp[0].sp]].topic)))
	}
	cls.push(cls.now+cls.net.latency()+extra, event{kind: evClassicFetchDone, a: c.idx, gen: c.gen, x: cl.fetchID})
}

// broker is the broker a classic consumer's fetch goes to: the leader of its first
// partition (the simulator sends one fetch for all of a member's partitions).
func (cls *classicClients) broker(c *consumer) int32 {
	g := cls.groups[c.group]
	if owned := g.assignment[c.idx]; len(owned) > 0 {
		return cls.parts[g.parts[owned[0]]].leader
	}
	return 0
}

// fetchDone is the answer reaching the client: records of partitions it still owns
// join the buffer.
func (cls *classicClients) fetchDone(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || !c.alive() || c.cl == nil || c.cl.fetchID != e.x {
		return
	}
	cl := c.cl
	cg := cls.groups[c.group].classic
	cl.fetching = false
	for _, d := range cl.resp {
		if cg.owner[d.sp] == c.idx && cg.position[d.sp] > d.off {
			cl.buf = append(cl.buf, d)
		}
	}
	cl.resp = cl.resp[:0]
	if cls.now < c.pausedUntil {
		cls.push(c.pausedUntil, event{kind: evClassicPoll, a: c.idx, gen: c.gen, x: 2})
		return
	}
	if cl.wantData {
		cls.poll(c)
	}
}

// pollTimeout: no poll() for max.poll.interval.ms; the member leaves the group.
func (cls *classicClients) pollTimeout(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || !c.alive() || c.cl == nil {
		return
	}
	if due := c.cl.lastPollMs + c.spec.maxPollIntervalMs(); cls.now < due {
		cls.push(due, event{kind: evClassicPollTimeout, a: c.idx, gen: c.gen})
		return
	}
	c.cl.pollTimer = false
	cls.mark("max-poll-interval-exceeded")
	cls.gcoord.leaveGroup(c)
}

// step handles the application's poll events (x=0: poll; x=2: a fetch answer
// arrived during a pause).
func (cls *classicClients) step(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || !c.alive() {
		return
	}
	if cls.procs.deferIfPaused(c, e) {
		return
	}
	cl := cls.clientOf(c)
	switch {
	case e.x == 3:
		if cl.running == 0 && cl.unfished == 0 || c.spec.Style == StyleContinuous && cl.running < max(c.spec.Threads, 1) {
			cls.poll(c) // the rebalance ended: poll with the new assignment
		}
	case e.x == 2 && !cl.wantData:
	case c.state == cPolling || c.state == cIdle || cl.wantData:
		cls.poll(c)
	case e.x == 0 && c.state == cProcessing && cl.running == 0 && cl.unfished == 0:
		cls.poll(c) // after a commitSync
	}
}

// processDone is one record's processing ending.
func (cls *classicClients) processDone(e event) {
	c := cls.consumers[e.a]
	if c.gen != e.gen || !c.alive() {
		return
	}
	if cls.procs.deferIfPaused(c, e) {
		return
	}
	g := cls.groups[c.group]
	cl := c.cl
	k := int(e.x - cl.seqBase)
	d := cl.held[k]
	cl.running--
	// Records already polled are processed even if a rebalance moved the partition.
	p := cls.parts[g.parts[d.sp]]
	if isPoison(p.poison, d.off) && c.spec.OnPoison == FailCrash {
		cls.metrics.classicProcessed(c, d, p, false)
		cls.mark("consumer-crash")
		cls.line("crash").str("client", string(c.member)).str("p", p.name).num("offset", d.off).end()
		cls.procs.kill(c, c.spec.RestartAfterCrashMs)
		return
	}
	if (cls.procs.outageOn() || (c.spec.FailurePerMillion > 0 && cls.rProc.Bool(uint64(c.spec.FailurePerMillion), 1_000_000))) && c.spec.OnFailure == FailCrash {
		cls.metrics.classicProcessed(c, d, p, false)
		cls.procs.kill(c, c.spec.RestartAfterCrashMs)
		return
	}
	cls.metrics.classicProcessed(c, d, p, true)
	cl.done[k] = true
	cl.unfished--
	// Pass the finished prefix; copy down once it is more than half the slice.
	for cl.head < len(cl.held) && cl.done[cl.head] {
		cl.head++
	}
	if cl.head == len(cl.held) || (cl.head > 64 && cl.head > len(cl.held)/2) {
		n := copy(cl.held, cl.held[cl.head:])
		copy(cl.done, cl.done[cl.head:])
		cl.held, cl.done = cl.held[:n], cl.done[:n]
		cl.seqBase += int64(cl.head)
		cl.nextStart -= cl.head
		cl.head = 0
	}
	cls.startRecords(c)
	if c.spec.Style == StyleContinuous {
		if cl.running < max(c.spec.Threads, 1) && cl.unfished < c.spec.heldRecords() && !cl.wantData {
			cls.poll(c)
		}
		return
	}
	if cl.unfished > 0 {
		return
	}
	if c.spec.Commit == CommitSync {
		// commitSync, then poll once the answer is back.
		cls.sendCommit(c)
		rtt := cls.net.latency() * 2
		cls.push(cls.now+rtt, event{kind: evClassicPoll, a: c.idx, gen: c.gen})
		return
	}
	c.state = cPolling
	cls.poll(c)
}
