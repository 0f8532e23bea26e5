package sim

import (
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/eventq"
)

// Partition leaders: each holds the model cores of the share groups reading its partitions,
// serves share fetches and acknowledgements (handle, arriving from the network), parks
// fetches that found nothing (purgatory), answers them (sendResponse), keeps the clients'
// share sessions, and sends state writes and reads to the share coordinator. The life of a
// share-partition on its leader (load, locks, writes' answers, eviction) is leaderstate.go.

// leaders are the partition leaders' share side.
type leaders struct {
	*engine
	*topology

	coord   *shareCoordinator
	net     *network
	dlq     *dlqManager
	configs *groupConfigs
	reqs    *requests
	metrics *metrics
	history *history

	brokers []*broker // the share sessions each broker holds
	wakeBuf []int32
}

// sharePart is one share-partition (share group × topic-partition).
type sharePart struct {
	id    int32
	group int32
	part  int32
	// core is the leader's in-memory share-partition; nil while not loaded on the current
	// leader (after a failover or an eviction).
	core    *model.SharePartition
	loading bool
	// initCore is the share-partition being initialised (INITIALIZING) while loading, and
	// loadReq the fetch that started its state read (-1: none) with its generation.
	initCore *model.SharePartition
	loadReq  int32
	loadGen  uint32
	// waiting lists requests parked until the core is loaded or has records.
	parked []int32

	expiryOn bool
	expiryAt int64
	expiryH  eventq.Handle

	// With Config.LogReadLatency set, a share fetch reads the log and acquires one latency
	// later. fetching is the core whose fetch lock a read in flight holds (nil: none); the
	// lock of a core replaced since (failover, eviction) no longer counts. readAt and
	// readBuf are that read's fetch offset and batches.
	fetching *model.SharePartition
	readAt   int64
	readBuf  []model.LogBatch
	readSeq  int64             // numbers the reads; a completion of an older one is stale
	finals   []model.Finalized // afterCoreOp's buffer of the offsets the core finalized
}

// handle is a share request reaching its leader: its acknowledgements are applied, a
// fetch acquires what it can (or parks in purgatory), a final one closes the session.
func (l *leaders) handle(id int32) {
	r := l.reqs.at(id)
	b := l.brokers[r.broker]
	for i := range r.acks {
		l.applyAcks(id, &r.acks[i])
	}
	if r.kind == reqFetch {
		for _, sp := range r.parts {
			b.addSession(r.consumer, sp)
		}
		r.budget = r.params.MaxRecords
		l.tryAcquire(id)
	}
	if r.final {
		l.closeSession(r.consumer, r.broker, false)
	}
	l.maybeRespond(id)
}

// applyAcks applies one partition's acknowledgements of a request.
func (l *leaders) applyAcks(id int32, pa *partAcks) {
	r := l.reqs.at(id)
	s := l.shares[pa.sp]
	res := r.result(pa.sp)
	res.hasAck = true
	p := l.parts[s.part]
	switch {
	case p.leader != r.broker:
		res.ackCode = model.ErrNotLeaderOrFollower
	case s.core == nil:
		// Not loaded yet: the cache is empty, nothing is acquired here.
		res.ackCode = model.ErrInvalidRecordState
		l.ensureLoad(s, -1)
	default:
		wr, err := s.core.Acknowledge(l.now, r.member, pa.ranges)
		res.ackCode = model.CodeOf(err)
		t := l.lineOf(&fAck).f(r.clientField).f(&p.pField).fnum(&fBatches, int64(len(pa.ranges))).code(res.ackCode)
		if wr != nil {
			t.fnum(&fWriteID, int64(wr.ID))
			r.writes++
			l.coord.sendWrite(s, wr, id)
		}
		t.end()
		l.afterCoreOp(s)
	}
	l.metrics.ackApplied(r, pa, res.ackCode)
}

// tryAcquire visits the request's partitions in rotated order and acquires records with the
// request's remaining budget (the budget spans the whole request).
func (l *leaders) tryAcquire(id int32) {
	r := l.reqs.at(id)
	n := len(r.parts)
	if n == 0 {
		return
	}
	start := int(l.rSchedule.Intn(n))
	for k := 0; k < n && r.budget > 0; k++ {
		sp := r.parts[(start+k)%n]
		s := l.shares[sp]
		p := l.parts[s.part]
		if p.leader != r.broker {
			r.result(sp).err = model.ErrNotLeaderOrFollower
			continue
		}
		if s.core == nil {
			l.ensureLoad(s, id)
			if s.loading && !r.parked {
				l.metrics.loadWaiting(s) // a ShareFetch arriving while the load runs
			}
			continue
		}
		locked, seq := l.fetchLockTake(s), s.readSeq
		got := l.acquireFrom(id, r, s)
		if locked && s.readSeq == seq {
			l.metrics.fetchLockReleased(s) // no log read started: the lock is released at once
		}
		r.acquired += got
		r.budget -= got
	}
}

// fetchLockTake is a fetch taking s's fetch lock to read and acquire (Kafka's
// maybeAcquireFetchLock, only on an initialized share-partition). It reports false when a
// log read in flight holds the lock.
func (l *leaders) fetchLockTake(s *sharePart) bool {
	if s.fetching != nil && s.fetching == s.core {
		return false
	}
	l.metrics.fetchLockTaken(s)
	return true
}

// acquireFrom reads the log at the core's next fetch offset and acquires for the request.
func (l *leaders) acquireFrom(id int32, r *request, s *sharePart) int {
	core := s.core
	if !core.CanAcquire() {
		if core.InFlightCount() >= int64(core.Config().PartitionMaxRecordLocks) {
			l.mark("cap-reached")
		}
		return 0
	}
	p := l.parts[s.part]
	f := core.NextFetchOffset()
	if start := p.log.StartOffset(); f < start {
		// OFFSET_OUT_OF_RANGE: the log start moved past the next fetch offset.
		l.moveLogStart(s, start)
		return 0
	}
	upTo := p.log.EndOffset()
	if l.cfg.Kafka.IsolationLevel == model.ReadCommitted {
		upTo = p.log.LastStableOffset()
	}
	if l.cfg.LogReadLatency != nil {
		return l.startRead(id, r, s, f, upTo)
	}
	p.readBuf = p.log.Read(f, int64(r.budget), upTo, p.readBuf[:0])
	if len(p.readBuf) == 0 {
		return 0
	}
	res := r.result(s.id)
	res.acquiredMs, res.epoch = l.now, p.leaderEpoch
	before := len(res.ranges)
	var err error
	params := r.params
	params.MaxRecords = r.budget
	res.ranges, err = core.Acquire(l.now, r.member, params, p.readBuf, res.ranges)
	if err != nil {
		l.err = err
		return 0
	}
	got := 0
	for _, ar := range res.ranges[before:] {
		got += int(ar.Last - ar.First + 1)
		l.metrics.delivered(s, r, ar)
	}
	if got > 0 {
		l.lineOf(&fAcquire).f(r.clientField).f(&p.pField).ranges(&fRanges, res.ranges[before:]).end()
	}
	l.afterCoreOp(s)
	return got
}

// startRead is the read half of a share fetch when the log read takes time: the batches
// are read now at fetch offset f and acquired when the read completes (logReadDone), with
// whatever happened to the share-partition in between. The share-partition's fetch lock is
// held until then; a fetch finding it held acquires nothing now and waits.
func (l *leaders) startRead(id int32, r *request, s *sharePart, f, upTo int64) int {
	if s.fetching != nil && s.fetching == s.core {
		return 0
	}
	p := l.parts[s.part]
	s.readBuf = p.log.Read(f, int64(r.budget), upTo, s.readBuf[:0])
	if len(s.readBuf) == 0 {
		return 0
	}
	s.fetching, s.readAt = s.core, f
	s.readSeq++
	r.reads++
	l.push(l.now+l.cfg.LogReadLatency.Sample(l.rNet), event{kind: evLogRead, ref: id, a: s.id, gen: r.gen, x: s.readSeq})
	l.line("log-read").str("client", string(r.member)).str("p", p.name).num("from", f).num("batches", int64(len(s.readBuf))).end()
	return 0
}

// logReadDone is the acquire half: the fetch acquires what its read returned, at the
// fetch offset it read from (model.AcquireFetched), unless the share-partition's core was
// replaced meanwhile or the request was given up.
func (l *leaders) logReadDone(e event) {
	s := l.shares[e.a]
	r := l.reqs.at(e.ref)
	var core *model.SharePartition
	if e.x == s.readSeq {
		core = s.fetching
		s.fetching = nil
		if core == s.core {
			l.metrics.fetchLockReleased(s)
		}
	} // else a newer read (on a core that replaced this read's) holds the lock
	r.reads--
	switch {
	case core == nil || core != s.core:
		// The leader's share-partition was discarded (failover, eviction): the read is lost.
	case r.answered || r.budget <= 0:
	default:
		res := r.result(s.id)
		res.acquiredMs, res.epoch = l.now, l.parts[s.part].leaderEpoch
		before := len(res.ranges)
		params := r.params
		params.MaxRecords = r.budget
		var err error
		res.ranges, err = core.AcquireFetched(l.now, r.member, params, s.readAt, s.readBuf, res.ranges)
		if err != nil {
			l.err = err
			return
		}
		got := 0
		for _, ar := range res.ranges[before:] {
			got += int(ar.Last - ar.First + 1)
			l.metrics.delivered(s, r, ar)
		}
		if got > 0 {
			l.line("acquire").str("client", string(r.member)).str("p", l.parts[s.part].name).num("read_at", s.readAt).ranges(&fRanges, res.ranges[before:]).end()
		}
		r.acquired += got
		r.budget -= got
		l.afterCoreOp(s)
	}
	if r.answered {
		l.reqs.maybeFree(e.ref)
	} else {
		l.maybeRespond(e.ref)
	}
	l.wake(s) // fetches waiting for the fetch lock
}

// moveLogStart applies a log-start move past the share-partition's start (T-LSO).
func (l *leaders) moveLogStart(s *sharePart, logStart int64) {
	core := s.core
	l.metrics.logStartMoving(s, logStart)
	core.MoveLogStartOffset(logStart)
	l.history.recordHidden(HiddenLogStart, s, logStart, 0)
	l.line("log-start").str("p", l.parts[s.part].name).num("offset", logStart).end()
	l.afterCoreOp(s)
}

// maybeRespond answers the request once its acknowledgement writes completed, unless it is a
// fetch that found nothing and may still wait (then it parks in purgatory).
func (l *leaders) maybeRespond(id int32) {
	r := l.reqs.at(id)
	if r.answered || r.writes > 0 || r.reads > 0 {
		return
	}
	if r.arrived && !r.acksCounted {
		r.acksCounted = true
		l.metrics.acksCompleted(r)
	}
	if r.kind == reqFetch && r.acquired == 0 && !r.hasErr() && !r.final && !r.waitOver {
		if !r.parked {
			l.park(id)
		}
		return
	}
	l.unpark(id)
	l.respond(id)
}

func (l *leaders) park(id int32) {
	r := l.reqs.at(id)
	r.parked = true
	for _, sp := range r.parts {
		s := l.shares[sp]
		s.parked = append(s.parked, id)
	}
	r.waitH = l.push(l.now+r.maxWait, event{kind: evMaxWait, ref: id})
}

func (l *leaders) unpark(id int32) {
	r := l.reqs.at(id)
	if !r.parked {
		return
	}
	r.parked = false
	l.q.Cancel(r.waitH)
	for _, sp := range r.parts {
		s := l.shares[sp]
		for i, x := range s.parked {
			if x == id {
				s.parked = append(s.parked[:i], s.parked[i+1:]...)
				break
			}
		}
	}
}

// maxWait ends the wait of a parked fetch that found nothing in time.
func (l *leaders) maxWait(id int32) {
	r := l.reqs.at(id)
	if !r.parked {
		return
	}
	r.waitOver = true
	l.maybeRespond(id)
}

// wake retries the fetches parked on a share-partition (new data, released records, a
// completed load).
func (l *leaders) wake(s *sharePart) {
	if len(s.parked) == 0 {
		return
	}
	l.wakeBuf = append(l.wakeBuf[:0], s.parked...)
	for _, id := range l.wakeBuf {
		r := l.reqs.at(id)
		if !r.parked || r.answered {
			continue
		}
		l.tryAcquire(id)
		if r.acquired > 0 || r.hasErr() {
			l.maybeRespond(id)
		}
	}
}

// respond sends the response (or loses it).
func (l *leaders) respond(id int32) {
	r := l.reqs.at(id)
	r.answered = true
	l.net.sendResponse(id)
}

// broker is one broker's share sessions: sessions[c] lists the share-partitions consumer c
// fetched through it in its current incarnation (the share session's partitions).
type broker struct {
	idx      int32
	sessions map[int32][]int32
}

// hasSession reports whether consumer slot c has a share session on broker b.
func (l *leaders) hasSession(b, c int32) bool {
	_, ok := l.brokers[b].sessions[c]
	return ok
}

func (b *broker) addSession(c, sp int32) {
	list := b.sessions[c]
	for _, x := range list {
		if x == sp {
			return
		}
	}
	b.sessions[c] = append(list, sp)
}

// closeSession ends consumer c's share session on broker bi: every record it holds on the
// session's partitions led there is released at once (T-LEAVE); crash says its connection
// dropped (else it closed the session).
func (l *leaders) closeSession(c, bi int32, crash bool) {
	b := l.brokers[bi]
	list := b.sessions[c]
	delete(b.sessions, c)
	member := l.consumers[c].member
	for _, sp := range list {
		s := l.shares[sp]
		if s.core == nil || l.parts[s.part].leader != bi {
			continue
		}
		held := s.core.HeldBy(member)
		if wr := s.core.ReleaseMember(l.now, member); wr != nil {
			l.mark("release-on-leave")
			l.line("release").str("client", string(member)).str("p", l.parts[s.part].name).num("records", held).end()
			l.metrics.released(s, member, wr, crash)
			l.coord.sendWrite(s, wr, -1)
		}
		l.history.observeRelease(s, member)
		l.afterCoreOp(s)
	}
}

// disconnect is consumer c's connections dropping (kill): each broker ends its sessions,
// and a broker left with no session of the group evicts the group's share-partitions.
func (l *leaders) disconnect(c int32) {
	g := l.consumers[c].group
	// Fetches parked for the dropped connection are discarded with it.
	for id := range l.reqs.all {
		r := &l.reqs.all[id]
		if r.inUse && r.consumer == c && r.parked {
			l.unpark(int32(id))
			r.answered, r.done = true, true
			l.reqs.maybeFree(int32(id))
		}
	}
	for bi, b := range l.brokers {
		list, ok := b.sessions[c]
		if !ok {
			continue
		}
		parts := append([]int32(nil), list...)
		l.closeSession(c, int32(bi), true)
		if l.groupHasSession(g, b) {
			continue
		}
		for _, sp := range parts {
			s := l.shares[sp]
			if l.parts[s.part].leader == int32(bi) {
				l.evict(s, "last-session-disconnected")
			}
		}
	}
}

func (l *leaders) groupHasSession(g int32, b *broker) bool {
	for c := range b.sessions {
		if l.consumers[c].group == g {
			return true
		}
	}
	return false
}

// newData retries the fetches parked on the share-partitions of p (records or a
// transaction marker arrived).
func (l *leaders) newData(p *partition) {
	for _, sp := range p.shares {
		l.wake(l.shares[sp])
	}
}

// build creates each broker's (empty) table of share sessions.
func (l *leaders) build() {
	for b := 0; b < l.cfg.Brokers; b++ {
		l.brokers = append(l.brokers, &broker{idx: int32(b), sessions: map[int32][]int32{}})
	}
}
