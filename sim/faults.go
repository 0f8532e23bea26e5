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

	procs     *processes
	share     *shareClients
	net       *network
	logs      *logs
	leaders   *leaders
	coord     *shareCoordinator
	dlq       *dlqManager
	configs   *groupConfigs
	gcoord    *groupCoordinator
	metrics   *metrics
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

func (inj *faultInjector) buildFaults() error {
	for i, f := range inj.cfg.Faults {
		if err := inj.checkTarget(f, i); err != nil {
			return err
		}
		inj.scheduled = append(inj.scheduled, faultState{cfg: f})
	}
	if sw := inj.cfg.Swarm; sw != nil && len(sw.Kinds) > 0 {
		for i := 0; i < sw.Count; i++ {
			k := sw.Kinds[inj.rFault.Intn(len(sw.Kinds))]
			f := Fault{Kind: k, AtMs: inj.rFault.Int63n(max(1, inj.cfg.DurationMs)), RestartAfterMs: 5000 + inj.rFault.Int63n(30000),
				DurationMs: 1000 + inj.rFault.Int63n(60000), ValueMs: 1 + inj.rFault.Int63n(1000)}
			inj.scheduled = append(inj.scheduled, faultState{cfg: f})
		}
	}
	for i, f := range inj.scheduled {
		inj.push(f.cfg.AtMs, event{kind: evFault, a: int32(i)})
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
func (inj *faultInjector) checkTarget(f Fault, fi int) error {
	if f.Target == "" {
		return nil
	}
	switch {
	case isConsumerFault(f.Kind):
		if len(inj.consumersNamed(f.Target)) == 0 {
			return fmt.Errorf("fault %s: no consumer named %q", f.Kind, f.Target)
		}
	case isPartitionFault(f.Kind):
		topic, num := splitPartitionName(f.Target)
		n := inj.cfg.PartitionsAt(topic, f.AtMs, fi)
		if num < 0 || num >= n {
			if n < 0 || num < 0 || num >= inj.cfg.PartitionsAt(topic, math.MaxInt64, len(inj.cfg.Faults)) {
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
func (inj *faultInjector) consumersNamed(name string) []*consumer {
	var out []*consumer
	for _, c := range inj.consumers {
		if c.name == name || c.spec.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func (inj *faultInjector) partitionNamed(name string) *partition {
	for _, p := range inj.parts {
		if !inj.live(p) {
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
func (inj *faultInjector) pickConsumer(target string, holding bool) *consumer {
	cands := inj.consumers
	if target != "" {
		cands = inj.consumersNamed(target)
	}
	var alive []*consumer
	for _, c := range cands {
		if c.alive() && (!holding || inj.holdsRecords(c)) {
			alive = append(alive, c)
		}
	}
	if len(alive) > 0 || holding {
		cands = alive
	}
	if len(cands) == 0 {
		return nil
	}
	return cands[inj.rFault.Intn(len(cands))]
}

func (inj *faultInjector) pickPartition(target string) *partition {
	if target != "" {
		return inj.partitionNamed(target)
	}
	parts := inj.liveParts()
	if len(parts) == 0 {
		return nil
	}
	return parts[inj.rFault.Intn(len(parts))]
}

// fault fires one scheduled fault.
func (inj *faultInjector) fault(e event) {
	fs := &inj.scheduled[e.a]
	f := fs.cfg
	if inj.healing {
		return
	}
	if e.b != faultRetry { // a scheduled firing, not a holding fault's wait (holding.go)
		if f.EveryMs > 0 {
			until := f.UntilMs
			if until <= 0 {
				until = inj.cfg.DurationMs
			}
			if inj.now+f.EveryMs < until {
				inj.push(inj.now+f.EveryMs, event{kind: evFault, a: e.a})
			}
		}
		if f.PerMillion > 0 && !inj.rFault.Bool(uint64(f.PerMillion), 1_000_000) {
			return
		}
	}
	if f.Holding && !inj.holdingReady(fs, e) {
		return
	}
	fs.fired++
	inj.mark("fault-" + f.Kind.String())
	switch {
	case isConsumerFault(f.Kind):
		inj.consumerFault(f, e.a)
	case isPartitionFault(f.Kind):
		inj.partitionFault(f)
	case f.Kind == FaultConfigChange:
		inj.configs.configChange(e.a)
	case f.Kind == FaultAddPartitions:
		inj.gcoord.addPartitions(f)
	default:
		inj.windowFault(f, e.a, +1)
	}
}

func (inj *faultInjector) consumerFault(f Fault, fi int32) {
	c := inj.pickConsumer(f.Target, f.Holding)
	if c == nil || !c.alive() {
		return
	}
	inj.line("fault").str("fault", f.Kind.String()).str("client", string(c.member)).end()
	switch f.Kind {
	case FaultKill:
		inj.procs.kill(c, f.RestartAfterMs)
	case FaultHostLoss:
		inj.procs.hostLoss(c, f.RestartAfterMs)
	case FaultClose:
		inj.procs.close(c, f.RestartAfterMs)
	case FaultHang:
		inj.procs.hang(c, fi, f.RestartAfterMs)
	case FaultNetCut:
		inj.net.cut(c, f.DurationMs)
	case FaultPause:
		inj.procs.pause(c, f.DurationMs)
	}
}

func (inj *faultInjector) partitionFault(f Fault) {
	p := inj.pickPartition(f.Target)
	if p == nil {
		return
	}
	switch f.Kind {
	case FaultLeaderFailover:
		inj.leaders.failover(p)
	case FaultDeleteRecords:
		inj.logs.deleteRecords(p, max(1, f.ValueMs))
	case FaultLockExpiry:
		inj.line("fault").str("fault", "lock-expiry").str("p", p.name).end()
		inj.leaders.expireAll(p)
	}
}

// windowFault starts (+1) or ends (-1) a fault that lasts DurationMs.
func (inj *faultInjector) windowFault(f Fault, fi int32, dir int) {
	switch f.Kind {
	case FaultWriteFail:
		inj.coord.failWrites(dir, f.Error, f.Reads)
	case FaultCoordinatorSlow:
		if dir > 0 {
			inj.coord.slowWrites(max(1, f.ValueMs))
		} else {
			inj.coord.slowWrites(0)
		}
	case FaultDLQFail:
		inj.dlq.failAttempts(dir)
	case FaultDLQSlow:
		if dir > 0 {
			inj.dlq.slowAttempts(max(1, f.ValueMs))
		} else {
			inj.dlq.slowAttempts(0)
		}
	case FaultDownstreamOutage:
		inj.procs.downstreamOutage(dir)
	case FaultRenewStall:
		inj.share.stallRenewals(dir)
	}
	state := "start"
	if dir < 0 {
		state = "end"
	}
	inj.line("fault").str("fault", f.Kind.String()).str("window", state).end()
	if dir > 0 {
		inj.push(inj.now+f.DurationMs, event{kind: evFaultEnd, a: fi, b: -1})
	}
}

// faultEnd ends a window fault, or restarts a hung consumer.
func (inj *faultInjector) faultEnd(e event) {
	f := inj.scheduled[e.a].cfg
	if e.b >= 0 {
		c := inj.consumers[e.b]
		if c.state == cHung && int64(c.gen) == e.x {
			inj.procs.restartHung(c)
		}
		return
	}
	if inj.healing {
		return // heal() already cleared every window
	}
	inj.windowFault(f, e.a, -1)
}

// heal starts the healing phase: faults stop, producers stop, every consumer recovers.
func (inj *faultInjector) heal() {
	inj.healing = true
	inj.metrics.healStarted()
	inj.coord.heal()
	inj.share.heal()
	inj.dlq.heal()
	inj.line("heal").end()
	inj.net.heal()
	inj.procs.heal()
}
