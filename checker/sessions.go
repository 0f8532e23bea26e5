package checker

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Checks on what an event did beyond the share-partitions' state (a session ending, a write
// reaching the share coordinator) and on delivery counts across the history. They come from
// the list of invariants behind real Kafka bugs, and the bug zoo (model.Bugs) proves each
// catches one (docs/checking.md).

const (
	checkLeaveReleasesAll  = "leave-releases-all"
	checkNoOlderEpochWrite = "no-older-epoch-write"
	checkDeliveryCounts    = "delivery-count-monotonic"
	checkDeliveryLimit     = "delivery-count-within-limit"
)

func init() {
	Catalogue = append(Catalogue,
		Info{checkLeaveReleasesAll, "event", "When a member's share session ends (close or dropped connection), none of its records on that leader stays ACQUIRED: all are released at once (§7.5). Kafka 4.1 stopped at another member's offset inside a per-offset batch (KAFKA-19953)."},
		Info{checkNoOlderEpochWrite, "event", "The share coordinator never accepts a state write whose leader or state epoch is older than one it has seen: a deposed leader's late write is fenced (§8.2)."},
		Info{checkDeliveryLimit, "history", "No delivery carries a delivery count above group.share.delivery.count.limit: a record that reached the limit is archived, never made available again (§3.2; a failover may repeat a count but never exceeds the limit)."},
		Info{checkDeliveryCounts, "history", "Kafka 4.2: on one leader, the deliveries of a record carry distinct, growing delivery counts; a session release must not lower the count (KAFKA-19972; Kafka 4.1 lowers it, so 4.1 is exempt). Deliveries whose fetch spans a reload are not compared."},
	)
	DefaultChecks = append(DefaultChecks, checkLeaveReleasesAll, checkNoOlderEpochWrite, checkDeliveryLimit, checkDeliveryCounts)
}

// spEvents is per-share-partition state of these checks.
type spEvents struct {
	core   *model.SharePartition
	loaded bool // a leader has loaded the share-partition before
}

// observeCore notes a change of the leader's share-partition (a reload) for
// delivery-count-monotonic, which compares only deliveries by one leader.
func (c *Checker) observeCore(w *sim.World, i *sim.SharePartitionInfo, st *spState) {
	if st.ev.core != i.Core {
		if st.ev.loaded && c.is.deliveryCounts {
			c.toHist(histMsg{kind: msgReload, key: spKey{i.Group, i.Partition}, a: w.NowMs()})
		}
		st.ev.core, st.ev.loaded = i.Core, st.ev.loaded || i.Core != nil
	}
}

// observeEvent checks the sessions that ended and the writes that reached the share
// coordinator during the event.
func (c *Checker) observeEvent(w *sim.World) {
	if c.is.leaveReleases {
		for _, d := range w.Departures() {
			w.SharePartitions(func(i sim.SharePartitionInfo) {
				if i.Group != d.Group || i.Partition != d.Partition || i.Core == nil {
					return
				}
				if n := i.Core.HeldBy(d.Member); n > 0 {
					var offs []int64
					i.Core.ForEachRecord(func(v model.RecordView) bool {
						if v.State == model.Acquired && !v.Pending && v.Owner == d.Member {
							offs = append(offs, v.Offset)
						}
						return len(offs) < 8
					})
					c.report(Violation{Check: checkLeaveReleasesAll, TimeMs: w.NowMs(), Event: c.events, Group: d.Group, Partition: d.Partition,
						Member: string(d.Member), Offsets: fmt.Sprint(offs), Message: fmt.Sprintf("%d records still ACQUIRED after the member's share session ended", n)})
				}
			})
		}
	}
	if c.is.olderEpochWrite {
		for _, a := range w.AppliedWrites() {
			if a.Accepted && (a.WriteLeaderEpoch < a.StoreLeaderEpoch || a.WriteStateEpoch < a.StoreStateEpoch) {
				c.report(Violation{Check: checkNoOlderEpochWrite, TimeMs: w.NowMs(), Event: c.events, Group: a.Group, Partition: a.Partition,
					Message: fmt.Sprintf("the share coordinator accepted a write with leader epoch %d, state epoch %d after seeing %d, %d",
						a.WriteLeaderEpoch, a.WriteStateEpoch, a.StoreLeaderEpoch, a.StoreStateEpoch)})
			}
		}
	}
}
