package sim

import (
	"fmt"
	"math"
)

// A producer like KafkaProducer (accumulator mode, Producer.BatchBytes > 0): the application
// sends records at the configured rate; each record goes to a partition (by its key, or to
// the sticky partition when it has none) and is appended to the last batch of that
// partition's queue if it fits in batch.size bytes, else to a new batch behind it. A batch is
// sendable once it is full (a batch waits behind it or it reached batch.size), linger.ms has
// passed since it was created, or the producer is closing. The sender drains, per broker
// connection with fewer than max.in.flight.requests.per.connection requests outstanding, one
// produce request holding the first sendable batch of every partition the broker leads (up to
// max.request.size bytes). The broker appends the batches when the request arrives and
// answers; the answer frees the connection slot.
//
// Nothing here is per record: a record is a count and a byte size added to a batch, so the
// producer's memory is the batches waiting or in flight, which buffer.memory bounds. When
// more than buffer.memory bytes wait, Kafka blocks send(): the application cannot produce at
// the configured rate. The simulator refuses to go on silently slower and ends the run with
// an error naming the settings.
//
// Record timestamps: a batch carries the send time (ms) of its first record (the batch's
// base timestamp); every latency is measured from it, so it includes the time the record
// waited in the producer.

// Kafka 4.x producer defaults.
const (
	DefaultLingerMs        = 5
	DefaultBatchBytes      = 16384
	DefaultMaxInFlight     = 5
	DefaultBufferMemory    = 32 << 20
	DefaultMaxRequestBytes = 1 << 20
	// RecordBatchOverhead is the size of a record batch's header in bytes (magic v2).
	RecordBatchOverhead = 61
	// DefaultRecordBytes is the record size when Producer.RecordSize is nil.
	DefaultRecordBytes = 1000
)

// accBatch is a batch in the producer's accumulator or in flight.
type accBatch struct {
	part      int32 // index in topology.parts
	createdMs int64 // send time of its first record: the batch timestamp
	n         int   // records
	bytes     int64 // header and records
}

// accQueue is one partition's queue of batches, oldest first.
type accQueue struct {
	bs   []accBatch
	head int
}

func (q *accQueue) len() int         { return len(q.bs) - q.head }
func (q *accQueue) first() *accBatch { return &q.bs[q.head] }
func (q *accQueue) last() *accBatch  { return &q.bs[len(q.bs)-1] }
func (q *accQueue) pop() accBatch {
	b := q.bs[q.head]
	q.head++
	if q.head == len(q.bs) {
		q.bs, q.head = q.bs[:0], 0
	} else if q.head > 64 && q.head > len(q.bs)/2 {
		n := copy(q.bs, q.bs[q.head:])
		q.bs, q.head = q.bs[:n], 0
	}
	return b
}

// prodRequest is a produce request in flight.
type prodRequest struct {
	broker  int32
	batches []accBatch
	served  bool // its service time at the broker was charged (BrokerCost)
}

// accumulator is the producer's state in accumulator mode.
type accumulator struct {
	// nextArr is the send time (virtual ms, fractional) of the next record; k counts records
	// sent (constant rate) or bursts (bursts).
	nextArr float64
	k       int64
	burstAt int64 // bursts: records of the current burst still to send
	stopMs  int64
	closing bool

	queues   []accQueue // per partition of the topic
	inflight []int      // per broker: requests outstanding
	waiting  int64      // bytes in queues and in flight (buffer.memory)

	// sticky is the partition unkeyed records go to; stickyBytes what it received since the
	// producer switched to it (the switch comes after batch.size bytes).
	sticky      int32
	stickyBytes int64
	drainFrom   int // rotates the first partition of a drain

	reqs     []prodRequest
	freeReqs []int32
	wakeAt   int64 // the pending wake-up event's time (-1: none)
}

func (pc *producerClients) newAccumulator(p *producerState) *accumulator {
	t := pc.topics[p.topic]
	a := &accumulator{queues: make([]accQueue, t.cfg.Partitions), inflight: make([]int, pc.cfg.Brokers), wakeAt: -1}
	a.stopMs = pc.cfg.DurationMs
	if p.cfg.StopMs > 0 {
		a.stopMs = min(p.cfg.StopMs, pc.cfg.DurationMs)
	}
	a.nextArr = float64(p.cfg.StartMs)
	if p.cfg.Rate == RatePoisson {
		a.nextArr += pc.rProd.ExpFloat64() * 1000 / p.cfg.RecordsPerSecond
	}
	if t.cfg.Partitions > 1 {
		a.sticky = int32(pc.rProd.Intn(t.cfg.Partitions))
	}
	return a
}

// accWake handles a producer wake-up: records sent until now join batches, sendable
// batches are drained, and the next wake-up is scheduled.
func (pc *producerClients) accWake(p *producerState, e event) {
	a := p.acc
	if e.x != a.wakeAt {
		return // superseded by an earlier wake-up
	}
	a.wakeAt = -1
	if !a.closing && (pc.healing || pc.now >= a.stopMs) {
		a.closing = true
	}
	if !a.closing {
		pc.accArrivals(p)
		if pc.err != nil {
			return
		}
		if pc.now >= a.stopMs {
			a.closing = true
		}
	}
	pc.accDrain(p)
	pc.accSchedule(p)
}

// accArrivals adds every record sent before now+1 (and before the stop) to the batches.
func (pc *producerClients) accArrivals(p *producerState) {
	a, cfg := p.acc, p.cfg
	limit := float64(pc.now + 1)
	stop := float64(a.stopMs)
	perRec := 1000 / cfg.RecordsPerSecond
	for a.nextArr < limit && a.nextArr < stop {
		pc.accAdd(p, int64(a.nextArr))
		switch cfg.Rate {
		case RateConstant:
			// Record k at start + k × interval, computed from k so rounding never drifts.
			a.k++
			a.nextArr = float64(cfg.StartMs) + float64(a.k)*perRec
		case RatePoisson:
			a.nextArr += pc.rProd.ExpFloat64() * perRec
		case RateBursts:
			a.burstAt++
			if a.burstAt >= int64(cfg.BurstRecords) {
				a.burstAt = 0
				a.k++
				a.nextArr = float64(cfg.StartMs + a.k*cfg.BurstEveryMs)
			}
		}
		if pc.err != nil {
			return
		}
	}
	if a.waiting > p.cfg.bufferMemory() {
		pc.err = fmt.Errorf("producer %q: %d bytes wait to be sent at %d ms, more than buffer.memory (%d): it cannot send %.0f records/s to %d partitions with batch.size=%d, linger.ms=%d, max.in.flight.requests.per.connection=%d and this network latency (Kafka would block send()); raise batch.size, linger.ms or max.in.flight.requests.per.connection, or lower the rate",
			cfg.Name, a.waiting, pc.now, cfg.bufferMemory(), cfg.RecordsPerSecond, len(a.queues), cfg.BatchBytes, cfg.lingerMs(), cfg.maxInFlight())
	}
}

// accAdd appends one record sent at ms to its partition's last batch, or a new one.
func (pc *producerClients) accAdd(p *producerState, ms int64) {
	a, cfg := p.acc, p.cfg
	size := int64(DefaultRecordBytes)
	if cfg.RecordSize != nil {
		size = max(1, cfg.RecordSize.Sample(pc.rProd))
	}
	if size+RecordBatchOverhead > cfg.maxRequestBytes() {
		pc.err = fmt.Errorf("producer %q: a record of %d bytes exceeds max.request.size (%d); Kafka refuses it (RecordTooLargeException)", cfg.Name, size, cfg.maxRequestBytes())
		return
	}
	var part int32
	if cfg.Keys > 0 {
		part = int32(pc.rProd.Intn(cfg.Keys) % len(a.queues))
	} else {
		part = a.sticky
		a.stickyBytes += size
		if a.stickyBytes >= cfg.BatchBytes && len(a.queues) > 1 {
			// Kafka's built-in partitioner moves on after batch.size bytes, to a random
			// partition other than the current one.
			a.stickyBytes = 0
			next := int32(pc.rProd.Intn(len(a.queues) - 1))
			if next >= a.sticky {
				next++
			}
			a.sticky = next
		}
	}
	q := &a.queues[part]
	if q.len() == 0 || q.last().bytes+size > cfg.BatchBytes {
		first := pc.topics[p.topic].first
		q.bs = append(q.bs, accBatch{part: first + part, createdMs: ms, bytes: RecordBatchOverhead})
		a.waiting += RecordBatchOverhead
	}
	b := q.last()
	b.n++
	b.bytes += size
	a.waiting += size
}

// sendable says whether the first batch of q may be drained now.
func (pc *producerClients) sendable(p *producerState, q *accQueue) bool {
	if q.len() == 0 {
		return false
	}
	b := q.first()
	return p.acc.closing || q.len() > 1 || b.bytes >= p.cfg.BatchBytes || pc.now >= b.createdMs+p.cfg.lingerMs()
}

// accDrain sends produce requests on every connection with a free slot.
func (pc *producerClients) accDrain(p *producerState) {
	a := p.acc
	first := pc.topics[p.topic].first
	n := len(a.queues)
	for b := range a.inflight {
		for a.inflight[b] < p.cfg.maxInFlight() {
			var req prodRequest
			var bytes int64
			for k := 0; k < n; k++ {
				i := (a.drainFrom + k) % n
				q := &a.queues[i]
				if pc.parts[first+int32(i)].leader != int32(b) || !pc.sendable(p, q) {
					continue
				}
				if len(req.batches) > 0 && bytes+q.first().bytes > p.cfg.maxRequestBytes() {
					continue
				}
				bytes += q.first().bytes
				req.batches = append(req.batches, q.pop())
			}
			if len(req.batches) == 0 {
				break
			}
			a.drainFrom = (a.drainFrom + 1) % n
			req.broker = int32(b)
			a.inflight[b]++
			ri := pc.newProdRequest(a, req)
			pc.push(pc.now+pc.net.produceLatency(), event{kind: evProduceArrive, a: p.idx, ref: ri})
		}
	}
}

func (pc *producerClients) newProdRequest(a *accumulator, req prodRequest) int32 {
	if n := len(a.freeReqs); n > 0 {
		ri := a.freeReqs[n-1]
		a.freeReqs = a.freeReqs[:n-1]
		req.batches = append(a.reqs[ri].batches[:0], req.batches...)
		a.reqs[ri] = req
		return ri
	}
	a.reqs = append(a.reqs, req)
	return int32(len(a.reqs) - 1)
}

// accSchedule queues the next wake-up: the next record's send time, or the earliest
// linger deadline of a partition whose connection has a free slot.
func (pc *producerClients) accSchedule(p *producerState) {
	a := p.acc
	next := int64(math.MaxInt64)
	if !a.closing {
		if a.nextArr < float64(a.stopMs) {
			next = msAt(a.nextArr)
		} else {
			next = a.stopMs
		}
	}
	first := pc.topics[p.topic].first
	for i := range a.queues {
		q := &a.queues[i]
		if q.len() == 0 || a.inflight[pc.parts[first+int32(i)].leader] >= p.cfg.maxInFlight() {
			continue
		}
		next = min(next, max(pc.now+1, q.first().createdMs+p.cfg.lingerMs()))
	}
	if next == math.MaxInt64 || (a.wakeAt >= 0 && a.wakeAt <= next) {
		return
	}
	a.wakeAt = max(next, pc.now)
	pc.push(a.wakeAt, event{kind: evProduce, a: p.idx, x: a.wakeAt})
}

// produceArrive appends a produce request's batches at the leader and sends the answer.
func (pc *producerClients) produceArrive(e event) {
	p := pc.producers[e.a]
	req := &p.acc.reqs[e.ref]
	if bc := pc.cfg.BrokerCost; bc != nil && !req.served {
		req.served = true
		var n, bytes int64
		for _, b := range req.batches {
			n += int64(b.n)
			bytes += b.bytes
		}
		if d := max(pc.net.serve(req.broker, bc.ProduceRequestMs+bc.ProduceRecordMs*float64(n)), pc.net.transfer(req.broker, bytes)); d > 0 {
			pc.push(pc.now+d, e)
			return
		}
	}
	for _, b := range req.batches {
		pc.appendBatch(p, b.part, b.n, b.bytes, b.createdMs)
		p.acc.waiting -= b.bytes
	}
	pc.push(pc.now+pc.net.produceLatency(), event{kind: evProduceResponse, a: e.a, ref: e.ref})
}

// produceResponse frees the request's connection slot and drains again.
func (pc *producerClients) produceResponse(e event) {
	p := pc.producers[e.a]
	a := p.acc
	a.inflight[a.reqs[e.ref].broker]--
	a.freeReqs = append(a.freeReqs, e.ref)
	pc.accDrain(p)
	pc.accSchedule(p)
}

func (p *Producer) lingerMs() int64 { return max(0, p.LingerMs) }

func (p *Producer) maxInFlight() int {
	if p.MaxInFlight <= 0 {
		return DefaultMaxInFlight
	}
	return p.MaxInFlight
}

func (p *Producer) bufferMemory() int64 {
	if p.BufferMemory <= 0 {
		return DefaultBufferMemory
	}
	return p.BufferMemory
}

func (p *Producer) maxRequestBytes() int64 {
	if p.MaxRequestBytes <= 0 {
		return DefaultMaxRequestBytes
	}
	return p.MaxRequestBytes
}

// MaxBatchRecords is the most records one batch of the producer can hold: BatchRecords in
// fixed-batch mode; in accumulator mode as many of the smallest records as fit in
// batch.size after the header (at least one).
func (p *Producer) MaxBatchRecords() int64 {
	if p.BatchBytes <= 0 {
		return int64(max(p.BatchRecords, 1))
	}
	smallest := float64(DefaultRecordBytes)
	if p.RecordSize != nil {
		smallest = max(1, math.Floor(p.RecordSize.Quantile(0)))
	}
	return max(1, int64(float64(p.BatchBytes-RecordBatchOverhead)/smallest))
}
