package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// faultInjector fires the configured and swarm faults and starts the healing phase.
type faultInjector struct {
	*engine
	*topology

	procs   *processes
	share   *shareClients
	net     *network
	logs    *logs
	leaders *leaders
	coord   *shareCoordinator
	dlq     *dlqManager
	configs *groupConfigs
	gcoord  *groupCoordinator
	metrics *metrics
	history *history

	scheduled []faultState
}

// Faults on a schedule (at, every, with probability) and, for swarm testing, drawn from the
// seed. Each firing is counted as a mark "fault-<kind>". The healing phase stops them all.

type faultState struct {
	cfg   Fault
	fired int64
	// waiting: a holding fault is waiting for its target to hold records (holding.go).
	waiting bool
}

func (fj *faultInjector) buildFaults() error {
	for i, f := range fj.cfg.Faults {
		if err := fj.checkTarget(f, i); err != nil {
			return err
		}
		fj.scheduled = append(fj.scheduled, faultState{cfg: f})
	}
	if sw := fj.cfg.Swarm; sw != nil && len(sw.Kinds) > 0 {
		for i := 0; i < sw.Count; i++ {
			k := sw.Kinds[fj.rFault.Intn(len(sw.Kinds))]
			f := Fault{Kind: k, AtMs: fj.rFault.Int63n(max(1, fj.cfg.DurationMs)), RestartAfterMs: 5000 + fj.rFault.Int63n(30000),
				DurationMs: 1000 + fj.rFault.Int63n(60000), ValueMs: 1 + fj.rFault.Int63n(1000)}
			fj.scheduled = append(fj.scheduled, faultState{cfg: f})
		}
	}
	for i, f := range fj.scheduled {
		fj.push(f.cfg.AtMs, event{kind: evFault, a: int32(i)})
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

// checkTarget verifies that fault fi's target names something in the world when it first
// fires: a partition added by an add-partitions fault is a target from its addition on.
func (fj *faultInjector) checkTarget(f Fault, fi int) error {
	if f.Target == "" {
		return nil
	}
	switch {
	case isConsumerFault(f.Kind):
		if len(fj.consumersNamed(f.Target)) == 0 {
			return fmt.Errorf("fault %s: no consumer named %q", f.Kind, f.Target)
		}
	case isPartitionFault(f.Kind):
		topic, num := splitPartitionName(f.Target)
		n := fj.cfg.PartitionsAt(topic, f.AtMs, fi)
		if num < 0 || num >= n {
			if n < 0 || num < 0 || num >= fj.cfg.PartitionsAt(topic, math.MaxInt64, len(fj.cfg.Faults)) {
				return fmt.Errorf("fault %s: no partition %q (expected topic/number)", f.Kind, f.Target)
			}
			return fmt.Errorf("fault %s: partition %q does not exist yet at %s (an add-partitions fault adds it later)", f.Kind, f.Target, FormatMs(f.AtMs))
		}
	}
	return nil
}

// splitPartitionName splits a partition target, topic/number or a topic alone (its
// partition 0); num is -1 when the number is not a plain non-negative integer.
func splitPartitionName(name string) (topic string, num int) {
	topic, s, ok := strings.Cut(name, "/")
	if !ok {
		return topic, 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strconv.Itoa(n) != s {
		return topic, -1
	}
	return topic, n
}

// consumersNamed returns the instances matching an instance or spec name.
func (fj *faultInjector) consumersNamed(name string) []*consumer {
	var out []*consumer
	for _, c := range fj.consumers {
		if c.name == name || c.spec.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func (fj *faultInjector) partitionNamed(name string) *partition {
	for _, p := range fj.parts {
		if !fj.live(p) {
			continue // reserved for an add-partitions fault (partitions.go)
		}
		if p.name == name || (!strings.Contains(name, "/") && p.name == name+"/0") {
			return p
		}
	}
	return nil
}

// pickConsumer resolves a consumer target, preferring running instances; holding: only
// running instances that hold records (holding.go).
func (fj *faultInjector) pickConsumer(target string, holding bool) *consumer {
	cands := fj.consumers
	if target != "" {
		cands = fj.consumersNamed(target)
	}
	var alive []*consumer
	for _, c := range cands {
		if c.alive() && (!holding || fj.holdsRecords(c)) {
			alive = append(alive, c)
		}
	}
	if len(alive) > 0 || holding {
		cands = alive
	}
	if len(cands) == 0 {
		return nil
	}
	return cands[fj.rFault.Intn(len(cands))]
}

func (fj *faultInjector) pickPartition(target string) *partition {
	if target != "" {
		return fj.partitionNamed(target)
	}
	parts := fj.liveParts()
	if len(parts) == 0 {
		return nil
	}
	return parts[fj.rFault.Intn(len(parts))]
}

// fault fires one scheduled fault.
func (fj *faultInjector) fault(e event) {
	fs := &fj.scheduled[e.a]
	f := fs.cfg
	if fj.healing {
		return
	}
	if e.b != faultRetry { // a scheduled firing, not a holding fault's wait (holding.go)
		if f.EveryMs > 0 {
			until := f.UntilMs
			if until <= 0 {
				until = fj.cfg.DurationMs
			}
			if fj.now+f.EveryMs < until {
				fj.push(fj.now+f.EveryMs, event{kind: evFault, a: e.a})
			}
		}
		if f.PerMillion > 0 && !fj.rFault.Bool(uint64(f.PerMillion), 1_000_000) {
			return
		}
	}
	if f.Holding && !fj.holdingReady(fs, e) {
		return
	}
	fs.fired++
	fj.mark("fault-" + f.Kind.String())
	switch {
	case isConsumerFault(f.Kind):
		fj.consumerFault(f, e.a)
	case isPartitionFault(f.Kind):
		fj.partitionFault(f)
	case f.Kind == FaultConfigChange:
		fj.configs.configChange(e.a)
	case f.Kind == FaultAddPartitions:
		fj.gcoord.addPartitions(f)
	default:
		fj.windowFault(f, e.a, +1)
	}
}

func (fj *faultInjector) consumerFault(f Fault, fi int32) {
	c := fj.pickConsumer(f.Target, f.Holding)
	if c == nil || !c.alive() {
		return
	}
	fj.line("fault").str("fault", f.Kind.String()).str("client", string(c.member)).end()
	switch f.Kind {
	case FaultKill:
		fj.procs.kill(c, f.RestartAfterMs)
	case FaultHostLoss:
		fj.procs.hostLoss(c, f.RestartAfterMs)
	case FaultClose:
		fj.procs.close(c, f.RestartAfterMs)
	case FaultHang:
		fj.procs.hang(c, fi, f.RestartAfterMs)
	case FaultNetCut:
		fj.net.cut(c, f.DurationMs)
	case FaultPause:
		fj.procs.pause(c, f.DurationMs)
	}
}

func (fj *faultInjector) partitionFault(f Fault) {
	p := fj.pickPartition(f.Target)
	if p == nil {
		return
	}
	switch f.Kind {
	case FaultLeaderFailover:
		fj.leaders.failover(p)
	case FaultDeleteRecords:
		fj.logs.deleteRecords(p, max(1, f.ValueMs))
	case FaultLockExpiry:
		fj.line("fault").str("fault", "lock-expiry").str("p", p.name).end()
		fj.leaders.expireAll(p)
	}
}

// windowFault starts (+1) or ends (-1) a fault that lasts DurationMs.
func (fj *faultInjector) windowFault(f Fault, fi int32, dir int) {
	switch f.Kind {
	case FaultWriteFail:
		fj.coord.failWrites(dir, f.Error, f.Reads)
	case FaultCoordinatorSlow:
		if dir > 0 {
			fj.coord.slowWrites(max(1, f.ValueMs))
		} else {
			fj.coord.slowWrites(0)
		}
	case FaultDLQFail:
		fj.dlq.dlqFail += dir
	case FaultDLQSlow:
		if dir > 0 {
			fj.dlq.dlqSlow = max(1, f.ValueMs)
		} else {
			fj.dlq.dlqSlow = 0
		}
	case FaultDownstreamOutage:
		fj.procs.downstreamOutage(dir)
	case FaultRenewStall:
		fj.share.stallRenewals(dir)
	}
	state := "start"
	if dir < 0 {
		state = "end"
	}
	fj.line("fault").str("fault", f.Kind.String()).str("window", state).end()
	if dir > 0 {
		fj.push(fj.now+f.DurationMs, event{kind: evFaultEnd, a: fi, b: -1})
	}
}

// faultEnd ends a window fault, or restarts a hung consumer.
func (fj *faultInjector) faultEnd(e event) {
	f := fj.scheduled[e.a].cfg
	if e.b >= 0 {
		c := fj.consumers[e.b]
		if c.state == cHung && int64(c.gen) == e.x {
			fj.procs.restartHung(c)
		}
		return
	}
	if fj.healing {
		return // heal() already cleared every window
	}
	fj.windowFault(f, e.a, -1)
}

// heal starts the healing phase: faults stop, producers stop, every consumer recovers.
func (fj *faultInjector) heal() {
	fj.healing = true
	fj.metrics.healStarted()
	fj.coord.heal()
	fj.share.heal()
	fj.dlq.dlqFail, fj.dlq.dlqSlow = 0, 0
	fj.line("heal").end()
	fj.net.heal()
	fj.procs.heal()
}
