package sim

import (
	"math"
)

// producerClients are the producers: fixed-batch producers and KafkaProducer-style
// accumulators (kproducer.go), sending to the partition leaders' logs.
type producerClients struct {
	*engine
	*topology

	logs    *logs
	net     *network
	metrics *metrics
}

// Producers, retention and compaction: the partition logs' side of the world.

type producerState struct {
	idx   int32
	cfg   *Producer
	topic int32
	// next is the sticky partition (no keys); txn is the open transaction id (0: none) and
	// txnBatches the batches written in it.
	next       int32
	txn        int64
	txnBatches int
	txnSeq     int64
	k          int64   // batches produced, for constant-rate spacing
	nextMs     float64 // Poisson: the next batch's time (fractional ms, so gaps below 1 ms add up)
	// acc is the KafkaProducer-style accumulator (BatchBytes > 0), else nil (fixed batches).
	acc *accumulator
	// records and batches count what it appended.
	records, batches int64
}

// meanBatchRecords is the producer's records per batch: fixed in fixed-batch mode, the mean
// so far in accumulator mode (batches depend on the rate, linger.ms and the connection).
func (p *producerState) meanBatchRecords() float64 {
	switch {
	case p.cfg.BatchRecords > 0:
		return float64(p.cfg.BatchRecords)
	case p.batches > 0:
		return float64(p.records) / float64(p.batches)
	}
	return 1
}

// Fixed-batch mode (Producer.BatchRecords): every batch holds BatchRecords records and is
// appended the moment its last record is sent; no linger, no requests in flight. Several
// batches may fall in one millisecond: nothing caps the rate.

// batchAtMs is the time of the producer's k-th batch (k from 0): start + k × interval
// rounded to the nearest ms, computed from k so rounding never drifts.
func (p *producerState) batchAtMs(k int64) int64 {
	perBatchMs := 1000 * float64(p.cfg.BatchRecords) / p.cfg.RecordsPerSecond
	return msAt(float64(p.cfg.StartMs) + math.Round(float64(k)*perBatchMs))
}

// farFutureMs is a time past every run (366 days at most) that int64 arithmetic on it
// cannot overflow: a batch time beyond it is clamped to it, never converted as is (a float
// above MaxInt64 converts to MinInt64, a time in the past that would produce forever).
const farFutureMs = int64(1) << 60

// msAt converts a fractional virtual time to whole ms, clamped to farFutureMs.
func msAt(ms float64) int64 {
	if !(ms < float64(farFutureMs)) {
		return farFutureMs
	}
	return int64(ms)
}

// produce writes the batches due now (or one burst) and schedules the next.
func (pc *producerClients) produce(e event) {
	p := pc.producers[e.a]
	if p.acc != nil {
		pc.accWake(p, e)
		return
	}
	if pc.healing || (p.cfg.StopMs > 0 && pc.now >= p.cfg.StopMs) || pc.now >= pc.cfg.DurationMs {
		return
	}
	switch p.cfg.Rate {
	case RateBursts:
		for left := p.cfg.BurstRecords; left > 0; left -= p.cfg.BatchRecords {
			pc.produceBatch(p, min(left, p.cfg.BatchRecords))
		}
		pc.push(pc.now+p.cfg.BurstEveryMs, event{kind: evProduce, a: p.idx})
	case RatePoisson:
		perBatchMs := 1000 * float64(p.cfg.BatchRecords) / p.cfg.RecordsPerSecond
		if p.k == 0 {
			p.k, p.nextMs = 1, float64(pc.now)
		}
		// Exponential gaps accumulate in fractional ms; each batch falls in the ms its time
		// rounds down to.
		for msAt(p.nextMs) <= pc.now {
			pc.produceBatch(p, p.cfg.BatchRecords)
			p.nextMs += perBatchMs * pc.rWork.ExpFloat64()
		}
		pc.push(msAt(p.nextMs), event{kind: evProduce, a: p.idx})
	default:
		for p.batchAtMs(p.k) <= pc.now {
			pc.produceBatch(p, p.cfg.BatchRecords)
			p.k++
		}
		pc.push(p.batchAtMs(p.k), event{kind: evProduce, a: p.idx})
	}
}

// produceBatch writes one fixed-mode batch of n records sent now.
func (pc *producerClients) produceBatch(p *producerState, n int) {
	t := pc.topics[p.topic]
	var pi int32
	if p.cfg.Keys > 0 {
		key := int32(pc.rWork.Intn(p.cfg.Keys))
		pi = t.first + key%int32(t.cfg.Partitions)
	} else {
		pi = t.first + p.next
		p.next = (p.next + 1) % int32(t.cfg.Partitions)
	}
	pc.appendBatch(p, pi, n, int64(n)*DefaultRecordBytes+RecordBatchOverhead, pc.now)
}

// appendBatch sends producer p's batch of n records (bytes on disk) with timestamp ts to
// partition pi, where it is appended at once: the one place a producer's records enter a
// log. A transactional producer opens a transaction with its first batch and commits (or
// aborts) it TxnCommitDelayMs after its TxnBatches-th.
func (pc *producerClients) appendBatch(p *producerState, pi int32, n int, bytes, ts int64) {
	part := pc.parts[pi]
	if p.cfg.Transactional && p.txn == 0 {
		p.txnSeq++
		p.txn = int64(p.idx)<<32 | p.txnSeq
	}
	pc.logs.append(part, p, n, bytes, ts)
	p.records += int64(n)
	p.batches++
	if p.cfg.Transactional {
		p.txnBatches++
		if p.txnBatches >= p.cfg.TxnBatches {
			pc.push(pc.now+p.cfg.TxnCommitDelayMs, event{kind: evTxnCommit, a: p.idx, x: p.txn, b: pi})
			p.txn, p.txnBatches = 0, 0
		}
	}
	pc.logs.newData(part)
}

// txnCommit ends a transaction: a control marker on every partition it wrote (we track the
// last one; the producer keeps each transaction on one partition at a time).
func (pc *producerClients) txnCommit(e event) {
	p := pc.producers[e.a]
	commit := !(p.cfg.AbortPerMillion > 0 && pc.rWork.Bool(uint64(p.cfg.AbortPerMillion), 1_000_000))
	pc.logs.endTxn(p, pc.parts[e.b], e.x, commit)
}

// build creates the producers and schedules their first sends.
func (pc *producerClients) build(topicIdx map[string]int32) {
	for pi := range pc.cfg.Producers {
		p := &pc.cfg.Producers[pi]
		ps := &producerState{idx: int32(pi), cfg: p, topic: topicIdx[p.Topic]}
		pc.producers = append(pc.producers, ps)
		if p.BatchBytes > 0 {
			ps.acc = pc.newAccumulator(ps)
			ps.acc.wakeAt = p.StartMs
			pc.push(p.StartMs, event{kind: evProduce, a: int32(pi), x: p.StartMs})
			continue
		}
		pc.push(p.StartMs, event{kind: evProduce, a: int32(pi)})
	}
}
