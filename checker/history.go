package checker

import (
	"fmt"
	"sort"

	"github.com/sharesim/sharesim/checker/linearize"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The history checks (accepted-never-redelivered, acquired-ranges-ordered,
// delivery-count-within-limit, delivery-count-monotonic, linearizable) run on the
// client-visible history as the simulator records it (Attach), keeping per-offset state
// only for offsets that can still change:
//
//   - An offset is finished once the share coordinator's durable start offset (and the
//     leader's, if loaded) passed it at some time T: every record below it is terminal or
//     deleted, and no leader, current or next, delivers it again. It is forgotten once the
//     history horizon (sim.World.HistoryHorizonMs) passed T: every request still in flight
//     was sent after T, so no operation to come delivers it, and none of its operations is
//     still to be recorded. Checked every DeepEvery events.
//   - accepted-never-redelivered keeps the first successful ACCEPT of each open offset; a
//     finished offset can no longer be delivered, so its entry can go.
//   - delivery-count-monotonic keeps each open offset's deliveries per leader; the same.
//   - acquired-ranges-ordered and delivery-count-within-limit look at one fetch at a time.
//   - linearizable checks each finished offset's sub-history and forgets it
//     (linearize.Stream), and reports a later delivery of a finished offset as a failure.
//
// Operations wait in a queue until virtual time passed their return, so that a reload in a
// later event of the same millisecond is known (the delivery-count check compares only
// deliveries by one leader). Without Attach, Finish checks Result.History the same way, in
// one go.

// histShare is the history checks' state of one share-partition.
type histShare struct {
	// floor: offsets below it are finished and forgotten.
	floor int64
	// marks are durable start offsets seen, waiting for the history horizon to pass the
	// time they were seen; ascending in both.
	marks []floorMark
	// open holds the open offsets' state: when a client saw an ACCEPT succeed, and the
	// deliveries (delivery-count-monotonic); more holds an offset's deliveries past the
	// ones its slot has room for.
	open offsetTable[openOffset]
	more map[int64][]delivery
	// firstAt maps an open offset to the call time of its first delivery with each
	// count (index count-1), when the group's limit changes during the run.
	firstAt map[int64][]int64
	// logStarts are the log-start moves seen (hidden events), by time: atMs the time,
	// floor the new log start (nothing-below-spso-acquired).
	logStarts []floorMark
}

type floorMark struct{ atMs, floor int64 }

// openOffset is what the history checks keep of one open offset.
type openOffset struct {
	// acceptedMs is the return time of the first ACCEPT of it a client saw succeed, when
	// accepted.
	acceptedMs int64
	accepted   bool
	// nd deliveries are in d, in history order; the later ones in histShare.more.
	nd uint8
	d  [3]delivery
}

// delivery is one delivery of an offset for delivery-count-monotonic.
type delivery struct {
	callMs int64
	life   int32 // how many reloads of the leader came before the fetch
	dc     int16
}

// queued is an operation waiting for virtual time to pass its return (atMs).
type queued struct {
	op   sim.Op
	atMs int64
}

// Attach wires the history checks into the simulator's options: the history and hidden
// events are handed to the checker as they are recorded instead of being kept in the
// result, so memory follows the records in flight. Observer must still be ck.Observe.
func (c *Checker) Attach(o *sim.Options) {
	if !c.NeedsHistory() {
		return
	}
	c.streaming = true
	o.OnHistory = c.historyOp
	o.OnHidden = c.hiddenEvent
}

func (c *Checker) linOn() bool { return c.is.linearizable }

func (c *Checker) hist(group, part string) *histShare {
	key := spKey{group, part}
	hs := c.hs[key]
	if hs == nil {
		hs = &histShare{floor: -1}
		c.hs[key] = hs
	}
	return hs
}

func (c *Checker) stream() *linearize.Stream {
	if c.ls == nil {
		c.ls = linearize.NewStream(linearize.OptionsFor(c.cfg))
	}
	return c.ls
}

// historyOp takes one operation from the simulator.
func (c *Checker) historyOp(op *sim.Op) {
	if c.linOn() {
		c.stream().Add(op)
	}
	at := op.ReturnMs
	if at < 0 {
		at = c.nowMs
	}
	c.queue = append(c.queue, queued{op: *op, atMs: at})
}

// hiddenEvent takes one hidden event from the simulator.
func (c *Checker) hiddenEvent(ev *sim.HiddenEvent) {
	c.noteHidden(ev)
	if c.linOn() {
		c.stream().Hidden(ev)
	}
}

// drain checks the queued operations that returned before nowMs (all when nowMs is inf).
func (c *Checker) drain(nowMs int64) {
	n := 0
	for n < len(c.queue) && c.queue[n].atMs < nowMs {
		c.checkOp(&c.queue[n].op)
		c.queue[n] = queued{}
		n++
	}
	if n == len(c.queue) {
		c.queue = c.queue[:0]
	} else if n > 0 {
		c.queue = c.queue[:copy(c.queue, c.queue[n:])]
	}
}

// advanceFloors notes the durable start offsets and forgets the offsets whose time came.
func (c *Checker) advanceFloors(w *sim.World) {
	now, horizon := w.NowMs(), w.HistoryHorizonMs()
	w.SharePartitions(func(i sim.SharePartitionInfo) {
		if i.Store == nil {
			return
		}
		hs := c.hist(i.Group, i.Partition)
		f := i.Store.StartOffset()
		if i.Core != nil {
			f = min(f, i.Core.StartOffset())
		}
		top := hs.floor
		if n := len(hs.marks); n > 0 {
			top = hs.marks[n-1].floor
		}
		if f > top {
			hs.marks = append(hs.marks, floorMark{now, f})
		}
		k := 0
		for k < len(hs.marks) && hs.marks[k].atMs < horizon {
			k++
		}
		if k == 0 {
			return
		}
		c.forget(i.Group, i.Partition, hs, hs.marks[k-1].floor)
		hs.marks = hs.marks[:copy(hs.marks, hs.marks[k:])]
	})
}

// forget drops the state of the offsets below floor.
func (c *Checker) forget(group, part string, hs *histShare, floor int64) {
	hs.floor = floor
	hs.open.dropBelow(floor)
	for off := range hs.more {
		if off < floor {
			delete(hs.more, off)
		}
	}
	for off := range hs.firstAt {
		if off < floor {
			delete(hs.firstAt, off)
		}
	}
	if c.ls != nil {
		c.ls.Advance(group, part, floor)
	}
}

// checkOp runs the per-operation history checks on one operation, in history order.
func (c *Checker) checkOp(op *sim.Op) {
	hs := c.hist(op.Group, op.Partition)
	if op.Kind == "ack" {
		if !c.is.acceptedOnce || op.Code != "NONE" || op.ReturnMs < 0 {
			return
		}
		for _, r := range op.Acks {
			for off := max(r.First, hs.floor); off <= r.Last; off++ {
				t := r.Types[0]
				if len(r.Types) > 1 {
					t = r.Types[off-r.First]
				}
				if t == model.AckAccept {
					if o := hs.open.at(off); !o.accepted {
						o.accepted, o.acceptedMs = true, op.ReturnMs
					}
				}
			}
		}
		return
	}
	if op.Kind != "fetch" {
		return
	}
	if c.is.belowLS && len(hs.logStarts) > 0 {
		c.checkBelow(hs, op)
	}
	prev := int64(-1)
	for _, r := range op.Acquired {
		if c.is.rangesOrdered && (r.First > r.Last || r.First <= prev || r.DeliveryCount < 1) {
			c.report(Violation{Check: "acquired-ranges-ordered", TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
				Offsets: fmt.Sprintf("%d-%d", r.First, r.Last), Message: fmt.Sprintf("range %d-%d@%d after %d", r.First, r.Last, r.DeliveryCount, prev)})
		}
		prev = r.Last
		if !c.is.acceptedOnce {
			continue
		}
		for off := max(r.First, hs.floor); off <= r.Last; off++ {
			if o := hs.open.find(off); o != nil && o.accepted && op.CallMs > o.acceptedMs {
				t := o.acceptedMs
				c.report(Violation{Check: "accepted-never-redelivered", TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition,
					Member: op.Client, Offsets: fmt.Sprint(off), Message: fmt.Sprintf("accepted at %d ms, delivered again (delivery count %d)", t, r.DeliveryCount)})
			}
		}
	}
	if in, ok := c.changing(op.Group); c.is.deliveryLimit && ok {
		c.checkLimitInForce(hs, op, in)
	} else if c.is.deliveryLimit {
		limit := c.cfg.Kafka.DeliveryCountLimit
		for _, r := range op.Acquired {
			if int(r.DeliveryCount) > limit {
				c.report(Violation{Check: checkDeliveryLimit, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
					Offsets: fmt.Sprintf("%d-%d", r.First, r.Last), Message: fmt.Sprintf("delivered with delivery count %d, above the limit %d", r.DeliveryCount, limit)})
				break
			}
		}
	}
	if c.is.deliveryCounts && c.cfg.Kafka.Version >= model.Kafka42 && op.ReturnMs >= 0 && len(op.Acquired) > 0 {
		c.checkDeliveries(hs, op)
	}
}

// checkLimitInForce is delivery-count-within-limit when the group's limit changes during
// the run. A delivery with count d follows a release of the record at count d-1, which
// the limit in force then allowed (d-1 < limit); that release came after the record's
// delivery with count d-1. So d must not exceed the greatest limit in force between the
// first delivery with count d-1 the history shows (the start of the run if none) and the
// fetch's return. Raising the limit lets counts climb from the change on; lowering it
// leaves one more delivery to records released before the change, and no more.
func (c *Checker) checkLimitInForce(hs *histShare, op *sim.Op, in sim.InForce) {
	if hs.firstAt == nil {
		hs.firstAt = map[int64][]int64{}
	}
	ret := op.ReturnMs
	if ret < 0 {
		ret = c.nowMs
	}
	reported := false
	for _, r := range op.Acquired {
		for off := max(r.First, hs.floor); off <= r.Last; off++ {
			d := int(r.DeliveryCount)
			seen := hs.firstAt[off]
			from := int64(0)
			if d >= 2 && d-2 < len(seen) && seen[d-2] >= 0 {
				from = seen[d-2]
			}
			if _, hi := in.Range(from, ret, sim.LimitOf); int64(d) > hi && !reported {
				reported = true
				c.report(Violation{Check: checkDeliveryLimit, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
					Offsets: fmt.Sprint(off), Message: fmt.Sprintf("delivered with delivery count %d, above every limit in force since %d ms (at most %d)", d, from, hi)})
			}
			for len(seen) < d {
				seen = append(seen, -1)
			}
			if d >= 1 && seen[d-1] < 0 {
				seen[d-1] = op.CallMs
			}
			hs.firstAt[off] = seen
		}
	}
}

// checkDeliveries is delivery-count-monotonic for one fetch: on one leader, the deliveries
// of a record carry distinct delivery counts (each acquisition adds one, nothing takes one
// away in 4.2). A fetch with a reload during its call is not compared: which leader served
// it is unknown.
func (c *Checker) checkDeliveries(hs *histShare, op *sim.Op) {
	var reloads []int64
	if st := c.sps[spKey{op.Group, op.Partition}]; st != nil {
		reloads = st.ev.reloads
	}
	a := sort.Search(len(reloads), func(k int) bool { return reloads[k] >= op.CallMs })
	b := sort.Search(len(reloads), func(k int) bool { return reloads[k] > op.ReturnMs })
	if a != b {
		return
	}
	for _, r := range op.Acquired {
		for off := max(r.First, hs.floor); off <= r.Last; off++ {
			o := hs.open.at(off)
			if p := hs.lastDelivery(off, o, int32(a), r.DeliveryCount); p != nil {
				c.report(Violation{Check: checkDeliveryCounts, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
					Offsets: fmt.Sprint(off), Message: fmt.Sprintf("delivered twice by one leader with delivery count %d (fetches at %d ms and %d ms)", r.DeliveryCount, p.callMs, op.CallMs)})
			}
			d := delivery{callMs: op.CallMs, life: int32(a), dc: r.DeliveryCount}
			if int(o.nd) < len(o.d) {
				o.d[o.nd] = d
				o.nd++
			} else {
				if hs.more == nil {
					hs.more = map[int64][]delivery{}
				}
				hs.more[off] = append(hs.more[off], d)
			}
		}
	}
}

// lastDelivery returns the latest delivery of off (whose slot is o) by the leader life
// with delivery count dc, nil if none.
func (hs *histShare) lastDelivery(off int64, o *openOffset, life int32, dc int16) *delivery {
	if int(o.nd) == len(o.d) {
		ds := hs.more[off]
		for k := len(ds) - 1; k >= 0; k-- {
			if p := &ds[k]; p.life == life && p.dc == dc {
				return p
			}
		}
	}
	for k := int(o.nd) - 1; k >= 0; k-- {
		if p := &o.d[k]; p.life == life && p.dc == dc {
			return p
		}
	}
	return nil
}

// finishHistory checks what is left: the queued operations, the history kept in the
// result (without Attach), and every offset the linearizability check still holds.
func (c *Checker) finishHistory(res *sim.Result) {
	if !c.NeedsHistory() {
		return
	}
	c.drain(inf)
	if !c.streaming {
		if res.History == nil {
			return // nothing recorded: the history checks did not run
		}
		c.feedHistory(res.History, res.HiddenEvents)
	}
	c.finishLinearizable()
}

const inf = int64(^uint64(0) >> 1)
