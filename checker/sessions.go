package checker

import (
	"fmt"
	"sort"

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
	core    *model.SharePartition
	reloads []int64 // virtual times at which the leader's in-memory share-partition changed
}

// observeCore notes a change of the leader's share-partition (a reload).
func (c *Checker) observeCore(w *sim.World, i sim.SharePartitionInfo, st *spState) {
	if st.ev.core != i.Core {
		if st.ev.core != nil || len(st.ev.reloads) > 0 {
			st.ev.reloads = append(st.ev.reloads, w.NowMs())
		}
		st.ev.core = i.Core
	}
}

// observeEvent checks the sessions that ended and the writes that reached the share
// coordinator during the event.
func (c *Checker) observeEvent(w *sim.World) {
	if c.on[checkLeaveReleasesAll] {
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
	if c.on[checkNoOlderEpochWrite] {
		for _, a := range w.AppliedWrites() {
			if a.Accepted && (a.WriteLeaderEpoch < a.StoreLeaderEpoch || a.WriteStateEpoch < a.StoreStateEpoch) {
				c.report(Violation{Check: checkNoOlderEpochWrite, TimeMs: w.NowMs(), Event: c.events, Group: a.Group, Partition: a.Partition,
					Message: fmt.Sprintf("the share coordinator accepted a write with leader epoch %d, state epoch %d after seeing %d, %d",
						a.WriteLeaderEpoch, a.WriteStateEpoch, a.StoreLeaderEpoch, a.StoreStateEpoch)})
			}
		}
	}
}

// checkDeliveryCounts compares the delivery counts of each record's deliveries made by one
// leader: they must all differ (each acquisition adds one, nothing takes one away in 4.2).
func (c *Checker) checkDeliveryCounts(h []sim.Op) {
	if c.on[checkDeliveryLimit] {
		limit := c.cfg.Kafka.DeliveryCountLimit
		for _, op := range h {
			for _, r := range op.Acquired {
				if op.Kind == "fetch" && int(r.DeliveryCount) > limit {
					c.report(Violation{Check: checkDeliveryLimit, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
						Offsets: fmt.Sprintf("%d-%d", r.First, r.Last), Message: fmt.Sprintf("delivered with delivery count %d, above the limit %d", r.DeliveryCount, limit)})
					break
				}
			}
		}
	}
	if !c.on[checkDeliveryCounts] || c.cfg.Kafka.Version < model.Kafka42 {
		return
	}
	type delivery struct {
		key       string
		off       int64
		life      int
		dc        int16
		callMs    int64
		retMs     int64
		member    string
		group, sp string
	}
	var ds []delivery
	for _, op := range h {
		if op.Kind != "fetch" || op.ReturnMs < 0 || len(op.Acquired) == 0 {
			continue
		}
		key := op.Group + "\x00" + op.Partition
		var reloads []int64
		if st := c.sps[key]; st != nil {
			reloads = st.ev.reloads
		}
		// The leader that served the fetch: the one alive over the whole call.
		a := sort.Search(len(reloads), func(k int) bool { return reloads[k] >= op.CallMs })
		b := sort.Search(len(reloads), func(k int) bool { return reloads[k] > op.ReturnMs })
		if a != b {
			continue // a reload during the call: which leader served it is unknown
		}
		for _, r := range op.Acquired {
			for off := r.First; off <= r.Last; off++ {
				ds = append(ds, delivery{key: key, off: off, life: a, dc: r.DeliveryCount, callMs: op.CallMs, retMs: op.ReturnMs,
					member: op.Client, group: op.Group, sp: op.Partition})
			}
		}
	}
	sort.SliceStable(ds, func(i, j int) bool {
		x, y := &ds[i], &ds[j]
		if x.key != y.key {
			return x.key < y.key
		}
		if x.off != y.off {
			return x.off < y.off
		}
		if x.life != y.life {
			return x.life < y.life
		}
		return x.dc < y.dc
	})
	for i := 1; i < len(ds); i++ {
		p, d := &ds[i-1], &ds[i]
		if p.key == d.key && p.off == d.off && p.life == d.life && p.dc == d.dc {
			c.report(Violation{Check: checkDeliveryCounts, TimeMs: d.retMs, Group: d.group, Partition: d.sp, Member: d.member,
				Offsets: fmt.Sprint(d.off), Message: fmt.Sprintf("delivered twice by one leader with delivery count %d (fetches at %d ms and %d ms)", d.dc, p.callMs, d.callMs)})
		}
	}
}
