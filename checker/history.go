package checker

import (
	"fmt"
	"runtime"
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

// histChecks is the history checks' state: what they keep of the history, their
// violations, and the linearizability check. In a simulated run with Attach it is fed
// messages (histMsg) by the checker, on a goroutine of its own when there is a second
// processor (histPipe); only that goroutine touches it then, until Finish.
type histChecks struct {
	// Read-only, shared with the Checker.
	cfg *sim.Config
	is  *enabled
	tl  *timelines

	limit    int
	perCheck map[string]int // CheckHistory: the limit is per check
	out      []Violation
	outTag   []uint64 // when each violation was found (Checker.tag)
	tag      uint64   // what is being checked now

	streaming bool // Attach: the history comes as it is recorded
	nowMs     int64
	hs        map[spKey]*histShare
	ls        *linearize.Stream
	lin       *linearize.Result
	queue     []queued
	// reloads lists, per share-partition, the virtual times at which its leader's
	// in-memory share-partition changed (delivery-count-monotonic).
	reloads map[spKey][]int64
}

func newHistChecks(cfg *sim.Config, is *enabled, tl *timelines, limit int) *histChecks {
	return &histChecks{cfg: cfg, is: is, tl: tl, limit: limit, hs: map[spKey]*histShare{}, reloads: map[spKey][]int64{}}
}

// report keeps a violation, as Checker.report does.
func (h *histChecks) report(v Violation) {
	if h.perCheck != nil {
		if h.perCheck[v.Check] < h.limit {
			h.perCheck[v.Check]++
			h.out, h.outTag = append(h.out, v), append(h.outTag, h.tag)
		}
		return
	}
	if len(h.out) < h.limit {
		h.out, h.outTag = append(h.out, v), append(h.outTag, h.tag)
	}
}

// Attach wires the history checks into the simulator's options: the history and hidden
// events are handed to the checker as they are recorded instead of being kept in the
// result, so memory follows the records in flight. Observer must still be ck.Observe, and
// Finish (or Close, for a run that does not finish) must follow the run. With a second
// processor the history checks run beside the simulation, on a goroutine of their own.
func (c *Checker) Attach(o *sim.Options) {
	if !c.NeedsHistory() {
		return
	}
	c.h.streaming = true
	o.OnHistory = c.historyOp
	o.OnHidden = c.hiddenEvent
	c.beside = runtime.GOMAXPROCS(0) > 1 && !c.syncHistory
}

// historyOp takes one operation from the simulator. It waits in the queue until virtual
// time passed its return (a lost one: the time of the last event observed).
func (c *Checker) historyOp(op *sim.Op) {
	at := op.ReturnMs
	if at < 0 {
		at = c.nowMs
	}
	c.pendMin = min(c.pendMin, at)
	c.pendMax = max(c.pendMax, at)
	c.toHist(histMsg{kind: msgOp, op: *op, a: at})
}

// hiddenEvent takes one hidden event from the simulator.
func (c *Checker) hiddenEvent(ev *sim.HiddenEvent) {
	e := *ev
	c.toHist(histMsg{kind: msgHidden, ev: &e})
}

// toHist hands a message to the history checks: to their goroutine, or at once.
func (c *Checker) toHist(m histMsg) {
	if c.beside {
		if c.pipe == nil {
			c.pipe = startHistPipe(c.h) // at the first message: a run that never starts leaves nothing running
		}
		c.pipe.send(&m)
		return
	}
	c.h.apply(&m)
}

// histMsg is what the checker tells the history checks: an operation, a hidden event, a
// reload seen, that virtual time reached a (tick, tagged), or a durable start offset f
// seen at b with the history horizon at c (floor).
type histMsg struct {
	kind    msgKind
	key     spKey
	a, b, c int64
	tag     uint64
	op      sim.Op
	ev      *sim.HiddenEvent
}

type msgKind uint8

const (
	msgOp msgKind = iota
	msgHidden
	msgReload
	msgTick
	msgFloor
)

// apply acts on one message.
func (h *histChecks) apply(m *histMsg) {
	switch m.kind {
	case msgOp:
		if h.linOn() {
			h.stream().Add(&m.op)
		}
		h.queue = append(h.queue, queued{op: m.op, atMs: m.a})
	case msgHidden:
		h.noteHidden(m.ev)
		if h.linOn() {
			h.stream().Hidden(m.ev)
		}
	case msgReload:
		h.reloads[m.key] = append(h.reloads[m.key], m.a)
	case msgTick:
		h.nowMs, h.tag = m.a, m.tag
		h.drain(m.a)
	case msgFloor:
		h.floorSeen(m.key, m.a, m.b, m.c)
	}
}

func (h *histChecks) linOn() bool { return h.is.linearizable }

func (h *histChecks) hist(group, part string) *histShare {
	key := spKey{group, part}
	hs := h.hs[key]
	if hs == nil {
		hs = &histShare{floor: -1}
		h.hs[key] = hs
	}
	return hs
}

func (h *histChecks) stream() *linearize.Stream {
	if h.ls == nil {
		h.ls = linearize.NewStream(linearize.OptionsFor(*h.cfg))
	}
	return h.ls
}

// drain checks the queued operations that returned before nowMs (all when nowMs is inf).
func (h *histChecks) drain(nowMs int64) {
	n := 0
	for n < len(h.queue) && h.queue[n].atMs < nowMs {
		h.checkOp(&h.queue[n].op)
		h.queue[n] = queued{}
		n++
	}
	if n == len(h.queue) {
		h.queue = h.queue[:0]
	} else if n > 0 {
		h.queue = h.queue[:copy(h.queue, h.queue[n:])]
	}
}

// advanceFloors tells the history checks the durable start offsets and the history
// horizon.
func (c *Checker) advanceFloors(w *sim.World) {
	now, horizon := w.NowMs(), w.HistoryHorizonMs()
	w.SharePartitions(func(i sim.SharePartitionInfo) {
		if i.Store == nil {
			return
		}
		f := i.Store.StartOffset()
		if i.Core != nil {
			f = min(f, i.Core.StartOffset())
		}
		c.toHist(histMsg{kind: msgFloor, key: spKey{i.Group, i.Partition}, a: f, b: now, c: horizon})
	})
}

// floorSeen notes a share-partition's durable start offset f seen at virtual time now, and
// forgets the offsets whose time came: those below a start offset seen before horizon.
func (h *histChecks) floorSeen(key spKey, f, now, horizon int64) {
	hs := h.hist(key.group, key.part)
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
	h.forget(key.group, key.part, hs, hs.marks[k-1].floor)
	hs.marks = hs.marks[:copy(hs.marks, hs.marks[k:])]
}

// forget drops the state of the offsets below floor.
func (h *histChecks) forget(group, part string, hs *histShare, floor int64) {
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
	if h.ls != nil {
		h.ls.Advance(group, part, floor)
	}
}

// checkOp runs the per-operation history checks on one operation, in history order.
func (h *histChecks) checkOp(op *sim.Op) {
	hs := h.hist(op.Group, op.Partition)
	if op.Kind == "ack" {
		if !h.is.acceptedOnce || op.Code != "NONE" || op.ReturnMs < 0 {
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
	if h.is.belowLS && len(hs.logStarts) > 0 {
		h.checkBelow(hs, op)
	}
	prev := int64(-1)
	for _, r := range op.Acquired {
		if h.is.rangesOrdered && (r.First > r.Last || r.First <= prev || r.DeliveryCount < 1) {
			h.report(Violation{Check: "acquired-ranges-ordered", TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
				Offsets: fmt.Sprintf("%d-%d", r.First, r.Last), Message: fmt.Sprintf("range %d-%d@%d after %d", r.First, r.Last, r.DeliveryCount, prev)})
		}
		prev = r.Last
		if !h.is.acceptedOnce {
			continue
		}
		for off := max(r.First, hs.floor); off <= r.Last; off++ {
			if o := hs.open.find(off); o != nil && o.accepted && op.CallMs > o.acceptedMs {
				t := o.acceptedMs
				h.report(Violation{Check: "accepted-never-redelivered", TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition,
					Member: op.Client, Offsets: fmt.Sprint(off), Message: fmt.Sprintf("accepted at %d ms, delivered again (delivery count %d)", t, r.DeliveryCount)})
			}
		}
	}
	if in, ok := h.tl.changing(op.Group); h.is.deliveryLimit && ok {
		h.checkLimitInForce(hs, op, in)
	} else if h.is.deliveryLimit {
		limit := h.cfg.Kafka.DeliveryCountLimit
		for _, r := range op.Acquired {
			if int(r.DeliveryCount) > limit {
				h.report(Violation{Check: checkDeliveryLimit, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
					Offsets: fmt.Sprintf("%d-%d", r.First, r.Last), Message: fmt.Sprintf("delivered with delivery count %d, above the limit %d", r.DeliveryCount, limit)})
				break
			}
		}
	}
	if h.is.deliveryCounts && h.cfg.Kafka.Version >= model.Kafka42 && op.ReturnMs >= 0 && len(op.Acquired) > 0 {
		h.checkDeliveries(hs, op)
	}
}

// checkLimitInForce is delivery-count-within-limit when the group's limit changes during
// the run. A delivery with count d follows a release of the record at count d-1, which
// the limit in force then allowed (d-1 < limit); that release came after the record's
// delivery with count d-1. So d must not exceed the greatest limit in force between the
// first delivery with count d-1 the history shows (the start of the run if none) and the
// fetch's return. Raising the limit lets counts climb from the change on; lowering it
// leaves one more delivery to records released before the change, and no more.
func (h *histChecks) checkLimitInForce(hs *histShare, op *sim.Op, in sim.InForce) {
	if hs.firstAt == nil {
		hs.firstAt = map[int64][]int64{}
	}
	ret := op.ReturnMs
	if ret < 0 {
		ret = h.nowMs
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
				h.report(Violation{Check: checkDeliveryLimit, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
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
func (h *histChecks) checkDeliveries(hs *histShare, op *sim.Op) {
	reloads := h.reloads[spKey{op.Group, op.Partition}]
	a := sort.Search(len(reloads), func(k int) bool { return reloads[k] >= op.CallMs })
	b := sort.Search(len(reloads), func(k int) bool { return reloads[k] > op.ReturnMs })
	if a != b {
		return
	}
	for _, r := range op.Acquired {
		for off := max(r.First, hs.floor); off <= r.Last; off++ {
			o := hs.open.at(off)
			if p := hs.lastDelivery(off, o, int32(a), r.DeliveryCount); p != nil {
				h.report(Violation{Check: checkDeliveryCounts, TimeMs: op.ReturnMs, Group: op.Group, Partition: op.Partition, Member: op.Client,
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
// result (without Attach), and every offset the linearizability check still holds. The
// history checks' goroutine has stopped (Close).
func (c *Checker) finishHistory(res *sim.Result) {
	if !c.NeedsHistory() {
		return
	}
	h := c.h
	if h.streaming {
		h.nowMs = c.nowMs
	}
	h.tag = c.tag(phaseFinishHistory)
	h.drain(inf)
	if !h.streaming {
		if res.History == nil {
			return // nothing recorded: the history checks did not run
		}
		h.feedHistory(res.History, res.HiddenEvents)
	}
	h.tag = c.tag(phaseFinishLinearizable)
	h.finishLinearizable()
}

const inf = int64(^uint64(0) >> 1)
