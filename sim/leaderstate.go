package sim

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
)

// A share-partition's life on its leader: the state read that loads it (from the share
// coordinator, at the first fetch after a leader change), the acquisition locks that fire at
// its core's deadlines, the state writes' answers, eviction, failover, config changes, and
// what the leader tells the metrics after every operation on the core (afterCoreOp).

// afterCoreOp reschedules the lock-expiry event and collects finalized offsets.
func (l *leaders) afterCoreOp(s *sharePart) {
	core := s.core
	if core == nil {
		return
	}
	s.finals = core.DrainFinalized(s.finals[:0])
	l.dlq.take(s, core)
	l.metrics.coreOp(s, s.finals)
	d, ok := core.NextDeadline()
	if ok && s.expiryOn && s.expiryAt == d {
		return
	}
	if s.expiryOn {
		l.q.Cancel(s.expiryH)
		s.expiryOn = false
	}
	if ok {
		s.expiryOn, s.expiryAt = true, d
		s.expiryH = l.push(d, event{kind: evExpire, a: s.id})
	}
}

// expire fires the locks due on a share-partition.
func (l *leaders) expire(sp int32) {
	s := l.shares[sp]
	s.expiryOn = false
	if s.core == nil {
		return
	}
	n, ws := l.fireLocks(s, l.now)
	if d, ok := s.core.NextDeadline(); ok && d <= l.now {
		// The core promised a lock due at d, but firing the locks due now left it due:
		// rescheduling would spin at the same virtual time forever.
		l.err = fmt.Errorf("internal error: share-partition %s: the core's next lock deadline %d ms is still due after ExpireLocks at %d ms (it fired nothing); time would not advance", l.parts[s.part].name, d, l.now)
		return
	}
	if n > 0 {
		l.mark("lock-expired")
		l.line("expire").str("p", l.parts[s.part].name).num("records", n).end()
	}
	for _, wr := range ws {
		l.coord.sendWrite(s, wr, -1)
	}
	l.afterCoreOp(s)
	l.wake(s)
}

// fireLocks fires s's acquisition locks due at atMs and returns how many records' locks
// timed out and the state writes that follow (the metrics learn both).
func (l *leaders) fireLocks(s *sharePart, atMs int64) (int64, []*model.Write) {
	before, timers := s.core.Stats().AcquisitionLockTimeouts, s.core.Stats().LockTimerOffsets
	ws := s.core.ExpireLocks(atMs, nil)
	n := s.core.Stats().AcquisitionLockTimeouts - before
	l.metrics.locksFired(s, timers, n, ws)
	return n, ws
}

// expireAll is a lock-expiry fault on partition p: every lock of its share-partitions fires
// now, as if its timer had run out (Kafka counts each timeout).
func (l *leaders) expireAll(p *partition) {
	for _, sp := range p.shares {
		s := l.shares[sp]
		if s.core == nil {
			continue
		}
		l.history.recordHidden(HiddenLockExpiry, s, 0, 0)
		_, ws := l.fireLocks(s, l.now+l.cfg.Kafka.RecordLockDurationMs*1000)
		for _, wr := range ws {
			l.coord.sendWrite(s, wr, -1)
		}
		l.afterCoreOp(s)
		l.wake(s)
	}
}

// failover is a leader-failover fault on partition p: its leadership moves to the next
// broker with a new leader epoch, and the new leader reloads each share-partition at its
// next fetch.
func (l *leaders) failover(p *partition) {
	old := p.leader
	p.leader = (p.leader + 1) % int32(l.cfg.Brokers)
	p.leaderEpoch++
	l.line("fault").str("fault", "leader-failover").str("p", p.name).num("from", int64(old)).num("to", int64(p.leader)).num("epoch", int64(p.leaderEpoch)).end()
	for _, sp := range p.shares {
		l.evict(l.shares[sp], "failover")
	}
}

// configChanged is a config change of group g reaching its share-partitions: each reads the
// new values at its next use, and fetches parked on them look again.
func (l *leaders) configChanged(g int32, next model.GroupConfig) {
	for _, sp := range l.groups[g].sps {
		s := l.shares[sp]
		for _, core := range []*model.SharePartition{s.core, s.initCore} {
			if core != nil {
				core.ApplyGroupConfig(next)
			}
		}
		if s.core != nil {
			l.wake(s)
		}
	}
}

// readFloor is the lowest offset of partition p a share group may still read (the lowest
// start offset of its share-partitions); false when one is not initialised yet and may read
// from anywhere.
func (l *leaders) readFloor(p *partition) (int64, bool) {
	floor := p.log.EndOffset()
	for _, sp := range p.shares {
		s := l.shares[sp]
		st := l.coord.store(s).StartOffset()
		if s.core != nil {
			st = min(s.core.StartOffset(), st)
			if st < 0 {
				st = s.core.StartOffset()
			}
		}
		if st < 0 {
			return 0, false
		}
		floor = min(floor, st)
	}
	return floor, true
}

// writeDone is a state write's answer reaching the leader: the core that issued it (s's
// current one, or one the leader has discarded since) completes it, and the request waiting
// for it (req ≥ 0) is answered once its writes are all done.
func (l *leaders) writeDone(s *sharePart, core *model.SharePartition, wr *model.Write, req int32, err error) {
	l.metrics.writeDone(s, wr, err, core == s.core)
	noDLQ := core.Stats().ArchivedNoDLQ
	if cerr := core.CompleteWrite(l.now, wr.ID, err); cerr != nil {
		l.err = cerr
		return
	}
	l.metrics.rollbacks(s, core, noDLQ)
	if core != s.core {
		l.dlq.take(s, core) // the broker's DLQ manager serves the old share-partition too
	}
	if core == s.core {
		if model.IsFencingWriteError(err) && wr.Kind != model.WriteDLQ { // DLQ phase 2 only logs its write's failure
			l.evict(s, "fenced-write")
		} else {
			l.afterCoreOp(s)
			l.wake(s)
		}
	}
	if req >= 0 {
		r := l.reqs.at(req)
		r.writes--
		if err != nil {
			r.result(s.id).ackCode = model.AckErrorForWriteFailure(err)
		}
		l.maybeRespond(req)
	}
}

// ensureLoad starts reading the share-partition's state on its current leader: a new
// share-partition value, EMPTY, whose MaybeInitialize starts the read (Kafka's
// maybeInitialize). Fetches meanwhile wait (Kafka answers them LEADER_NOT_AVAILABLE
// internally and parks them). req is the fetch that starts the read (-1: none).
func (l *leaders) ensureLoad(s *sharePart, req int32) {
	if s.core != nil || s.loading {
		return
	}
	core, err := model.NewUninitialized(l.configs.kafkaOf(s.group), l.parts[s.part].leaderEpoch)
	if err == nil {
		core.ApplyGroupConfig(l.configs.groupConfig(s.group)) // the stored group values, unclamped
		_, err = core.MaybeInitialize()
	}
	if err != nil {
		l.err = fmt.Errorf("internal error: share-partition %s: %w", l.parts[s.part].name, err)
		return
	}
	s.loading, s.initCore, s.loadReq = true, core, req
	l.metrics.loadStarted(s)
	if req >= 0 {
		s.loadGen = l.reqs.at(req).gen
	}
	l.coord.requestRead(s)
}

// loadDone completes the state read and makes the core ACTIVE (§5.4, §8.3), or FAILED
// when the read fails: then the fetch that started it gets the mapped error and the next
// fetch starts a new share-partition.
func (l *leaders) loadDone(sp int32) {
	s := l.shares[sp]
	s.loading = false
	core := s.initCore
	s.initCore = nil
	p := l.parts[s.part]
	if core == nil || core.LeaderEpoch() != p.leaderEpoch {
		l.ensureLoad(s, -1) // leadership moved during the read: start again
		return
	}
	snap, code, err := l.coord.read(s, p.leaderEpoch)
	if code != model.ErrNone {
		err := core.CompleteInitialize(model.Snapshot{}, &model.Error{Code: code, Offset: -1, Msg: "injected read failure"}, 0)
		fc := model.CodeOf(err)
		l.line("load-failed").str("p", p.name).str("code", code.String()).str("answer", fc.String()).end()
		l.mark("load-failed")
		l.metrics.loadEnded(s)
		if id := s.loadReq; id >= 0 {
			if r := l.reqs.at(id); r.inUse && r.gen == s.loadGen && !r.answered {
				r.result(s.id).err = fc
				l.maybeRespond(id)
			}
		}
		return
	}
	if err != nil {
		l.line("load-failed").str("p", p.name).str("err", err.Error()).end()
		return
	}
	start := int64(0)
	if snap.StartOffset < 0 {
		start, err = model.ResolveStartOffset(l.cfg.Kafka.AutoOffsetReset, l.now, p.log.StartOffset(), p.log.EndOffset(), p.log.OffsetForTime)
		if err != nil {
			l.line("load-failed").str("p", p.name).str("err", err.Error()).end()
			return
		}
	}
	if err := core.CompleteInitialize(snap, nil, start); err != nil {
		l.line("load-failed").str("p", p.name).str("err", err.Error()).end()
		l.mark("load-failed")
		return
	}
	core.TrackFinalized(true)
	l.history.loaded(s, core.StartOffset(), p.log.StartOffset())
	l.metrics.loaded(s, core, snap)
	s.core = core
	if len(snap.Batches) > 0 || snap.StartOffset >= 0 {
		l.mark("failover-reload")
	}
	l.line("load").str("p", p.name).str("group", l.groups[s.group].cfg.Name).num("spso", core.StartOffset()).num("speo", core.EndOffset()).end()
	l.afterCoreOp(s)
	l.wake(s)
}

// evict discards a share-partition's core on its leader (§8.5); the next fetch reloads it.
func (l *leaders) evict(s *sharePart, why string) {
	if s.core == nil {
		return
	}
	l.metrics.evicted(s)
	s.core.Fence()
	s.core = nil
	if s.expiryOn {
		l.q.Cancel(s.expiryH)
		s.expiryOn = false
	}
	l.line("evict").str("p", l.parts[s.part].name).str("why", why).end()
	l.history.recordHidden(HiddenReload, s, 0, 0)
	l.wake(s)
}
