package live

import (
	"fmt"
	"strings"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// UnsupportedError is a scenario feature live mode cannot do on a real client and broker.
// It names the scenario key; the command exits 2.
type UnsupportedError struct {
	Key, Why string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("live mode cannot run this scenario: %s: %s", e.Key, e.Why)
}

// support checks what a live run can do with cfg on target. It refuses the features that
// would change the run's meaning if left out (an error naming the key) and lists those it
// leaves to the real system (not applied: the network's own latency, the broker's own
// costs), so nothing is silently ignored.
func support(cfg *sim.Config, t Target) (notApplied []string, err error) {
	refuse := func(key, why string) error { return &UnsupportedError{Key: key, Why: why} }
	if cfg.Kafka.Version != model.Kafka42 {
		return nil, refuse("kafka.version", fmt.Sprintf("%s: live mode talks to the broker it is given; only the 4.2 rules are predicted beside it (set kafka.version: 4.2)", cfg.Kafka.Version))
	}
	if cfg.Kafka.Bug != "" || cfg.Kafka.Fix != "" {
		return nil, refuse("kafka.bug / kafka.fix", "these switch the simulator's core; a real broker has its own behaviour")
	}
	if cfg.Swarm != nil {
		return nil, refuse("swarm", "randomly drawn faults include broker-side ones a client cannot cause")
	}
	if cfg.Network.ResponseLossPerMillion > 0 {
		return nil, refuse("network.response_loss", "losing a response that took effect needs control of the broker's network")
	}
	for _, tp := range cfg.Topics {
		if tp.Segments {
			return nil, refuse("topics["+tp.Name+"].segments", "the segment layout is the broker's; set retention.ms only")
		}
		if tp.RetentionRecords >= 0 {
			return nil, refuse("topics["+tp.Name+"].retention.records", "an approximation of retention.bytes the simulator makes; a broker has no such setting")
		}
	}
	for _, p := range cfg.Producers {
		if p.Transactional {
			return nil, refuse("producers["+p.Name+"].transactional", "transactional producers are not driven live")
		}
		if p.CompactedPerMillion > 0 {
			return nil, refuse("producers["+p.Name+"].compacted", "compaction is the broker's log cleaner")
		}
	}
	for _, g := range cfg.Groups {
		for _, c := range g.Consumers {
			if c.Style == sim.StyleContinuous {
				return nil, refuse("groups["+g.Name+"].consumers["+c.Name+"].style", "continuous processing is not driven live (blocking only)")
			}
			if g.Type == sim.ClassicGroup && c.MaxPollIntervalMs > 0 {
				notApplied = append(notApplied, "consumer "+c.Name+" max.poll.interval.ms: kgo has no such client setting")
			}
		}
	}
	for _, f := range cfg.Faults {
		switch f.Kind {
		case sim.FaultKill, sim.FaultClose, sim.FaultHang, sim.FaultHostLoss, sim.FaultPause, sim.FaultNetCut,
			sim.FaultDeleteRecords, sim.FaultDownstreamOutage, sim.FaultRenewStall, sim.FaultAddPartitions:
		case sim.FaultConfigChange:
			if err := supportConfigChange(f, t); err != nil {
				return nil, err
			}
		default:
			return nil, refuse("faults[kind="+f.Kind.String()+"]", "a broker-side fault (leader moves, share coordinator trouble, forced lock expiry) that a client cannot cause")
		}
		if f.Kind == sim.FaultDeleteRecords && !strings.Contains(f.Target, "/") {
			return nil, refuse("faults[kind=delete-records].target", "name the partition (topic/partition)")
		}
	}
	notApplied = append(notApplied,
		"network.latency, request timeout: the real network's and kgo's own",
		"broker_cost, log_read_latency, share coordinator latencies: the broker's own")
	if !t.Embedded() {
		notApplied = append(notApplied, "group.share.delivery.count.limit and group.share.partition.max.record.locks: broker settings of the cluster (the prediction uses the scenario's values)")
	}
	return notApplied, nil
}
