package sim

import (
	"math/bits"
	"strconv"

	"github.com/sharesim/sharesim/sim/plog"
	"github.com/sharesim/sharesim/sim/rng"
)

// The partitions' logs (sim/plog holds one): producers append batches and transaction
// markers, retention and compaction remove batches, and the metrics tick drops the metadata
// no reader needs any more. Keys are a pure function of a record's offset (keyOf).

// logs is the partitions' logs: appends from producers, transaction markers, retention,
// compaction, and forgetting what no reader needs.
type logs struct {
	*engine
	*topology

	leaders *leaders
	classic *classicClients
	metrics *metrics
	history *history

	keys rng.Deriver // the record keys' family: rng.Derive(seed, "key", ·) (keyOf)
}

// append appends producer p's batch of n records (bytes, timestamp ts) to part's log: some
// of its records are poison (Producer.PoisonPerMillion), and the batch may be chosen for
// compaction (CompactedPerMillion).
func (lg *logs) append(part *partition, p *producerState, n int, bytes, ts int64) {
	b := part.log.AppendSized(n, bytes, ts, p.idx, p.txn)
	lg.metrics.appended(part, n)
	if p.cfg.PoisonPerMillion > 0 {
		for off := b.First; off <= b.Last; off++ {
			if lg.rWork.Bool(uint64(p.cfg.PoisonPerMillion), 1_000_000) {
				part.poison = append(part.poison, off)
			}
		}
	}
	if p.cfg.CompactedPerMillion > 0 && lg.rWork.Bool(uint64(p.cfg.CompactedPerMillion), 1_000_000) {
		lg.push(lg.now+compactionLagMs, event{kind: evCompaction, a: part.idx, x: b.First})
	}
	lg.lineOf(&fProduce).f(&part.pField).fnum(&fFirst, b.First).fnum(&fLast, b.Last).end()
}

// newData tells part's readers that records (or a transaction marker) arrived: fetches
// parked at the share leaders and classic fetches held at the broker look again.
func (lg *logs) newData(part *partition) {
	lg.leaders.newData(part)
	lg.classic.newData(part)
}

// endTxn ends producer p's transaction txn on its topic: a control marker on every
// partition the transaction wrote to and on last, the partition of its last batch.
func (lg *logs) endTxn(p *producerState, last *partition, txn int64, commit bool) {
	for _, pt := range lg.topicParts(p.topic) {
		if pt.log.IsOpen(txn) || pt == last {
			pt.log.AppendControl(lg.now, p.idx, txn, commit)
			lg.metrics.markerAppended(pt)
			lg.line("txn-end").str("p", pt.name).num("txn", txn).str("commit", boolStr(commit)).end()
			if !commit {
				lg.mark("txn-aborted")
			}
			lg.leaders.newData(pt)
		}
	}
}

// compactionLagMs is when the log cleaner removes a batch chosen for compaction.
const compactionLagMs = 60000

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// deleteRecords is a delete-records fault on p: the log start moves forward by n records.
func (lg *logs) deleteRecords(p *partition, n int64) {
	to := p.log.DeleteRecords(p.log.StartOffset() + n)
	lg.line("fault").str("fault", "delete-records").str("p", p.name).num("start", to).end()
}

// compaction removes a batch from the log, as the log cleaner would.
func (lg *logs) compaction(e event) {
	p := lg.parts[e.a]
	if p.log.Compact(e.x) {
		lg.mark("compacted")
		lg.line("compact").str("p", p.name).num("offset", e.x).end()
		lg.history.recordCompaction(p, e.x)
	}
}

// retention applies a topic's retention to its partitions.
func (lg *logs) retention(ti int32) {
	t := lg.topics[ti]
	for _, p := range lg.topicParts(ti) {
		var start, deleted int64
		if t.cfg.Segments {
			start, deleted = p.log.ApplySegmentRetention(lg.now, t.cfg.RetentionMs, t.cfg.RetentionBytes)
		} else {
			start, deleted = p.log.ApplyRetention(lg.now, t.cfg.RetentionMs, t.cfg.RetentionRecords)
		}
		if deleted > 0 {
			lg.mark("retention-deleted")
			lg.line("retention").str("p", p.name).num("start", start).num("deleted", deleted).end()
		}
		lg.forgetLog(p)
	}
	lg.push(lg.now+t.cfg.RetentionCheckIntervalMs, event{kind: evRetention, a: ti})
}

// forgetAll drops the log metadata no reader needs any more, on every partition (at each
// metrics tick).
func (lg *logs) forgetAll() {
	for _, p := range lg.parts {
		lg.forgetLog(p)
	}
}

// forgetLog drops log metadata no reader needs: below every group's start offset.
func (lg *logs) forgetLog(p *partition) {
	floor, ok := lg.leaders.readFloor(p)
	if !ok {
		return // a share-partition not yet initialised may read from anywhere
	}
	for _, g := range lg.groups {
		if g.classic != nil {
			floor = min(floor, g.classic.floor(p.idx))
		}
	}
	p.log.Forget(floor)
	i := 0
	for i < len(p.poison) && p.poison[i] < floor {
		i++
	}
	if i > 0 {
		p.poison = append(p.poison[:0], p.poison[i:]...)
	}
}

// keyOf is the record key of offset off on partition p (keys are a pure function of the
// offset, so the log stores none).
func (lg *logs) keyOf(p *partition, off int64) (int64, bool) {
	prod, ok := p.log.ProducerAt(off)
	if !ok {
		return 0, false
	}
	return lg.keyFrom(p, prod, off)
}

// keyOfDelivered is keyOf for a record whose tracking info a delivery filled in: the
// producer its batch had then is the producer now (a batch's producer and marker flag never
// change, and batches leave the log only from its start), so the log is not searched.
func (lg *logs) keyOfDelivered(p *partition, off int64, info *recInfo) (int64, bool) {
	if !info.seen {
		return lg.keyOf(p, off)
	}
	if info.producer == 0 || off < p.log.KnownFrom() {
		return 0, false
	}
	return lg.keyFrom(p, info.producer-1, off)
}

// keyFrom is the key of offset off on partition p written by producer prod.
func (lg *logs) keyFrom(p *partition, prod int32, off int64) (int64, bool) {
	nParts := int64(lg.topics[p.topic].cfg.Partitions)
	ks := &p.keySpace
	if !ks.set || ks.producer != prod || ks.nParts != nParts {
		// The keys of this partition: those ≡ num mod nParts below the producer's Keys.
		*ks = keySpace{set: true, producer: prod, nParts: nParts}
		if keys := int64(lg.producers[prod].cfg.Keys); keys > 0 {
			if perPart := (keys - int64(p.num) + nParts - 1) / nParts; perPart > 0 {
				ks.perPart = newDivisor(uint64(perPart))
			}
		}
	}
	if ks.perPart.d == 0 {
		return 0, false
	}
	h := lg.keys.Derive(uint64(p.idx)<<40 ^ uint64(off)) // rng.Derive(seed, "key", ·)
	return int64(ks.perPart.mod(h))*nParts + int64(p.num), true
}

// keySpace caches what keyOf derives from the producer of a partition's records and the
// topic's partition count.
type keySpace struct {
	set      bool
	producer int32
	nParts   int64
	perPart  divisor // d = 0: the producer's records have no keys here
}

// divisor computes x mod d with a multiplication instead of a division: m = ⌊(2⁶⁴−1)/d⌋
// makes ⌊x·m/2⁶⁴⌋ the quotient or one less, so x − that·d is the remainder or the remainder
// plus d, which one comparison settles. Exact for every x and every d ≥ 1.
type divisor struct{ d, m uint64 }

func newDivisor(d uint64) divisor { return divisor{d: d, m: ^uint64(0) / d} }

func (v divisor) mod(x uint64) uint64 {
	q, _ := bits.Mul64(x, v.m)
	r := x - q*v.d
	if r >= v.d {
		r -= v.d
	}
	return r
}

// build creates the topics and their partitions (with the reserve of add-partitions
// faults) and schedules their retention checks; it returns the topics' indices by name.
func (lg *logs) build() map[string]int32 {
	cfg := lg.cfg
	lg.keys = rng.NewDeriver(lg.seed, "key")
	topicIdx := map[string]int32{}
	for ti := range cfg.Topics {
		t := cfg.Topics[ti]
		if t.RetentionCheckIntervalMs <= 0 {
			t.RetentionCheckIntervalMs = 300000
		}
		ts := &topicState{cfg: t, first: int32(len(lg.parts))}
		lg.topics = append(lg.topics, ts)
		topicIdx[t.Name] = int32(ti)
		for n := 0; n < t.Partitions+cfg.addedPartitions(t.Name); n++ { // with add-partitions' reserve (partitions.go)
			idx := int32(len(lg.parts))
			name := t.Name + "/" + strconv.Itoa(n)
			lg.parts = append(lg.parts, &partition{
				idx: idx, topic: int32(ti), num: int32(n), name: name, pField: valueField("p", name),
				log: plog.New(), leader: idx % int32(cfg.Brokers), leaderEpoch: 1,
			})
		}
		if t.Segments {
			for _, p := range lg.topicParts(int32(ti)) {
				p.log.Segmented(t.segmentBytes(), t.segmentMs())
			}
		}
		if t.RetentionMs >= 0 || t.RetentionRecords >= 0 || (t.Segments && t.RetentionBytes >= 0) {
			lg.push(t.RetentionCheckIntervalMs, event{kind: evRetention, a: int32(ti)})
		}
	}
	return topicIdx
}
