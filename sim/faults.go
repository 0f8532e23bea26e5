package sim

import (
	"fmt"
	"strings"
)

// faultInjector fires the configured and swarm faults and starts the healing phase.
type faultInjector struct {
	*engine
	*topology
	w *World
}

// Faults on a schedule (at, every, with probability) and, for swarm testing, drawn from the
// seed. Each firing is counted as a mark "fault-<kind>". The healing phase stops them all.

type faultState struct {
	cfg   Fault
	fired int64
}

func (w *World) buildFaults() error {
	for _, f := range w.cfg.Faults {
		if err := w.checkTarget(f); err != nil {
			return err
		}
		w.scheduled = append(w.scheduled, faultState{cfg: f})
	}
	if sw := w.cfg.Swarm; sw != nil && len(sw.Kinds) > 0 {
		for i := 0; i < sw.Count; i++ {
			k := sw.Kinds[w.rFault.Intn(len(sw.Kinds))]
			f := Fault{Kind: k, AtMs: w.rFault.Int63n(max(1, w.cfg.DurationMs)), RestartAfterMs: 5000 + w.rFault.Int63n(30000),
				DurationMs: 1000 + w.rFault.Int63n(60000), ValueMs: 1 + w.rFault.Int63n(1000)}
			w.scheduled = append(w.scheduled, faultState{cfg: f})
		}
	}
	for i, f := range w.scheduled {
		w.push(f.cfg.AtMs, event{kind: evFault, a: int32(i)})
	}
	return nil
}

func isConsumerFault(k FaultKind) bool {
	switch k {
	case FaultKill, FaultClose, FaultHang, FaultNetCut, FaultPause, FaultHostLoss:
		return true
	}
	return false
}

func isPartitionFault(k FaultKind) bool {
	switch k {
	case FaultLeaderFailover, FaultDeleteRecords, FaultLockExpiry:
		return true
	}
	return false
}

// checkTarget verifies that a fault's target names something in the world.
func (w *World) checkTarget(f Fault) error {
	if f.Target == "" {
		return nil
	}
	switch {
	case isConsumerFault(f.Kind):
		if len(w.consumersNamed(f.Target)) == 0 {
			return fmt.Errorf("fault %s: no consumer named %q", f.Kind, f.Target)
		}
	case isPartitionFault(f.Kind):
		if w.partitionNamed(f.Target) == nil {
			return fmt.Errorf("fault %s: no partition %q (expected topic/number)", f.Kind, f.Target)
		}
	}
	return nil
}

// consumersNamed returns the instances matching an instance or spec name.
func (w *World) consumersNamed(name string) []*consumer {
	var out []*consumer
	for _, c := range w.consumers {
		if c.name == name || c.spec.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func (w *World) partitionNamed(name string) *partition {
	for _, p := range w.parts {
		if !w.live(p) {
			continue // reserved for an add-partitions fault (partitions.go)
		}
		if p.name == name || (!strings.Contains(name, "/") && p.name == name+"/0") {
			return p
		}
	}
	return nil
}

// pickConsumer resolves a consumer target, preferring running instances.
func (w *World) pickConsumer(target string) *consumer {
	cands := w.consumers
	if target != "" {
		cands = w.consumersNamed(target)
	}
	var alive []*consumer
	for _, c := range cands {
		if c.alive() {
			alive = append(alive, c)
		}
	}
	if len(alive) > 0 {
		cands = alive
	}
	if len(cands) == 0 {
		return nil
	}
	return cands[w.rFault.Intn(len(cands))]
}

func (w *World) pickPartition(target string) *partition {
	if target != "" {
		return w.partitionNamed(target)
	}
	parts := w.liveParts()
	if len(parts) == 0 {
		return nil
	}
	return parts[w.rFault.Intn(len(parts))]
}

// fault fires one scheduled fault.
func (w *World) fault(e event) {
	fs := &w.scheduled[e.a]
	f := fs.cfg
	if w.healing {
		return
	}
	if f.EveryMs > 0 {
		until := f.UntilMs
		if until <= 0 {
			until = w.cfg.DurationMs
		}
		if w.now+f.EveryMs < until {
			w.push(w.now+f.EveryMs, event{kind: evFault, a: e.a})
		}
	}
	if f.PerMillion > 0 && !w.rFault.Bool(uint64(f.PerMillion), 1_000_000) {
		return
	}
	fs.fired++
	w.mark("fault-" + f.Kind.String())
	switch {
	case isConsumerFault(f.Kind):
		w.consumerFault(f, e.a)
	case isPartitionFault(f.Kind):
		w.partitionFault(f)
	case f.Kind == FaultConfigChange:
		w.configs.configChange(e.a)
	case f.Kind == FaultAddPartitions:
		w.addPartitions(f)
	default:
		w.windowFault(f, e.a, +1)
	}
}

func (w *World) consumerFault(f Fault, fi int32) {
	c := w.pickConsumer(f.Target)
	if c == nil || !c.alive() {
		return
	}
	w.line("fault").str("fault", f.Kind.String()).str("client", string(c.member)).end()
	switch f.Kind {
	case FaultKill:
		w.procs.kill(c, f.RestartAfterMs)
	case FaultHostLoss:
		w.procs.hostLoss(c, f.RestartAfterMs)
	case FaultClose:
		w.procs.closeConsumer(c, f.RestartAfterMs)
	case FaultHang:
		if w.groups[c.group].classic == nil {
			w.metrics.noteConsumerGone(c, causeCrash)
		}
		c.state = cHung
		if f.RestartAfterMs >= 0 {
			w.push(w.now+f.RestartAfterMs, event{kind: evFaultEnd, a: fi, b: c.idx, x: int64(c.gen)})
		}
	case FaultNetCut:
		c.cutUntil = max(c.cutUntil, w.now+f.DurationMs)
	case FaultPause:
		c.pausedUntil = max(c.pausedUntil, w.now+f.DurationMs)
	}
}

func (w *World) partitionFault(f Fault) {
	p := w.pickPartition(f.Target)
	if p == nil {
		return
	}
	switch f.Kind {
	case FaultLeaderFailover:
		old := p.leader
		p.leader = (p.leader + 1) % int32(len(w.brokers))
		p.leaderEpoch++
		w.line("fault").str("fault", "leader-failover").str("p", p.name).num("from", int64(old)).num("to", int64(p.leader)).num("epoch", int64(p.leaderEpoch)).end()
		for _, sp := range p.shares {
			w.leaders.evict(w.shares[sp], "failover")
		}
	case FaultDeleteRecords:
		to := p.log.DeleteRecords(p.log.StartOffset() + max(1, f.ValueMs))
		w.line("fault").str("fault", "delete-records").str("p", p.name).num("start", to).end()
	case FaultLockExpiry:
		w.line("fault").str("fault", "lock-expiry").str("p", p.name).end()
		for _, sp := range p.shares {
			s := w.shares[sp]
			if s.core == nil {
				continue
			}
			w.history.recordHidden(HiddenLockExpiry, s, 0, 0)
			before, timers := s.core.Stats().AcquisitionLockTimeouts, s.core.Stats().LockTimerOffsets
			ws := s.core.ExpireLocks(w.now+w.cfg.Kafka.RecordLockDurationMs*1000, nil)
			w.metrics.noteLockTimers(s, timers)
			// Every lock fired, as if its timer had run out: Kafka counts each timeout.
			if n := s.core.Stats().AcquisitionLockTimeouts - before; n > 0 {
				w.metrics.gc(s.group).lockTimeouts += n
				w.metrics.noteExpired(s, ws)
			}
			for _, wr := range ws {
				w.coord.sendWrite(s, wr, -1)
			}
			w.leaders.afterCoreOp(s)
			w.leaders.wake(s)
		}
	}
}

// windowFault starts (+1) or ends (-1) a fault that lasts DurationMs.
func (w *World) windowFault(f Fault, fi int32, dir int) {
	switch f.Kind {
	case FaultWriteFail:
		w.coord.writeFail += dir
		if dir > 0 {
			w.coord.writeFailCode = f.Error
		}
		if f.Reads {
			w.coord.readFail += dir
			if dir > 0 {
				w.coord.readFailCode = f.Error
			}
		}
	case FaultCoordinatorSlow:
		if dir > 0 {
			w.coord.coordSlow = max(1, f.ValueMs)
		} else {
			w.coord.coordSlow = 0
		}
	case FaultDLQFail:
		w.dlq.dlqFail += dir
	case FaultDLQSlow:
		if dir > 0 {
			w.dlq.dlqSlow = max(1, f.ValueMs)
		} else {
			w.dlq.dlqSlow = 0
		}
	case FaultDownstreamOutage:
		w.procs.outage += dir
	case FaultRenewStall:
		w.share.renewStall += dir
	}
	state := "start"
	if dir < 0 {
		state = "end"
	}
	w.line("fault").str("fault", f.Kind.String()).str("window", state).end()
	if dir > 0 {
		w.push(w.now+f.DurationMs, event{kind: evFaultEnd, a: fi, b: -1})
	}
}

// faultEnd ends a window fault, or restarts a hung consumer.
func (w *World) faultEnd(e event) {
	f := w.scheduled[e.a].cfg
	if e.b >= 0 {
		c := w.consumers[e.b]
		if c.state == cHung && int64(c.gen) == e.x {
			w.procs.restartHung(c)
		}
		return
	}
	if w.healing {
		return // heal() already cleared every window
	}
	w.windowFault(f, e.a, -1)
}

// restartHung kills a hung process (its connections drop) and starts a new one.
func (ps *processes) restartHung(c *consumer) {
	c.state = cProcessing // let kill run its course
	ps.kill(c, 0)
}

// heal starts the healing phase: faults stop, producers stop, every consumer recovers.
func (w *World) heal() {
	w.healing = true
	for _, s := range w.shares {
		s.healFrontier = s.frontier
	}
	for _, g := range w.groups {
		if g.classic != nil {
			g.classic.healDoneTo = append([]int64(nil), g.classic.doneTo...)
		}
	}
	w.coord.writeFail, w.coord.coordSlow, w.procs.outage, w.share.renewStall, w.coord.readFail = 0, 0, 0, 0, 0
	w.dlq.dlqFail, w.dlq.dlqSlow = 0, 0
	w.line("heal").end()
	for _, c := range w.consumers {
		c.cutUntil, c.pausedUntil = 0, 0
		switch c.state {
		case cHung:
			w.procs.restartHung(c)
		case cDead:
			w.push(w.now, event{kind: evConsumerStart, a: c.idx})
		}
	}
}
