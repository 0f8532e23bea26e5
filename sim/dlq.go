package sim

import (
	"errors"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/dist"
)

// dlqManager is the leaders' dead-letter queue manager (Kafka 4.4): produce attempts to
// the dead-letter topic, retries, and the ARCHIVED write that ends a step.
type dlqManager struct {
	*engine
	*topology

	coord   *shareCoordinator
	leaders *leaders
	metrics *metrics

	// Dead-letter queue (dlq.go): steps on their way, per-group figures, fault windows.
	dlqs    []dlqRec
	freeDLQ []int32
	dlqBuf  []model.DLQRequest
	dlqFail int   // > 0: DLQ produce attempts fail
	dlqSlow int64 // > 0: DLQ produce latency override
}

// The dead-letter topic of Kafka 4.4 (KIP-1191). A share-partition whose DLQ step starts
// asks for a produce (model.DLQRequest); the leader's DLQ manager performs it: each attempt
// takes DeadLetterQueue.ProduceLatency and fails while a dlq-fail fault is on (or at random
// with ProduceFailPerMillion); a failed attempt is retried after Kafka's backoff (2, 4, 8,
// 16 s with ±20 % jitter) up to five attempts, then the step ends failed. Either way the core
// archives the records and issues one more write. The DLQ manager belongs to the broker, not
// to the share-partition object: a produce still runs when its leader lost the
// share-partition meanwhile (its record reaches the topic; its ARCHIVED write goes to the
// share coordinator, which fences it once a newer leader has read the state).

// DeadLetterQueue configures the dead-letter topic's produce path.
type DeadLetterQueue struct {
	// ProduceLatency is how long one produce attempt takes (nil: 5 ms).
	ProduceLatency dist.Dist
	// ProduceFailPerMillion is the chance that an attempt fails with a retriable error.
	ProduceFailPerMillion int64
}

// DLQMetrics are a group's dead-letter-queue figures (Kafka 4.4 with the queue on).
type DLQMetrics struct {
	// RecordsRejected and RecordsDeliveryLimit count records produced to the dead-letter
	// topic by cause (Kafka's CLIENT_REJECT and DELIVERY_COUNT_EXCEEDED); together they are
	// Kafka's DeadLetterQueueRecordCount.
	RecordsRejected      int64 `json:"records_rejected"`
	RecordsDeliveryLimit int64 `json:"records_delivery_limit"`
	// ProduceFailed counts records archived after every produce attempt failed (no DLQ
	// record); ProduceRequests and FailedProduceRequests count attempts (Kafka's
	// DeadLetterQueueTotalProduceRequestsPerSec and ...FailedProduceRequestsPerSec).
	ProduceFailed         int64 `json:"produce_failed"`
	ProduceRequests       int64 `json:"produce_requests"`
	FailedProduceRequests int64 `json:"failed_produce_requests"`
	// Duplicates counts records produced again (a new leader resumed a step whose record
	// already reached the topic, or the old leader's produce finished after a failover).
	Duplicates int64 `json:"duplicates"`
	// BypassedAtLimit counts records archived at the delivery limit, or rejected, with the
	// queue on but never produced: a failed write whose lock had fired (Kafka's rollback
	// archives with no DLQ step).
	BypassedAtLimit int64 `json:"bypassed"`
	// Unexplained counts the records BypassedAtLimit cannot explain by such a rollback: the
	// dlq-exactly-once check fails on them.
	Unexplained int64 `json:"unexplained"`
	// HeldMaxMs is the longest a DLQ step took (ARCHIVING, holding SPSO), in virtual ms.
	HeldMaxMs int64 `json:"held_max_ms"`
}

// dlqRec is one DLQ step on its way.
type dlqRec struct {
	sp       int32
	core     *model.SharePartition
	q        model.DLQRequest
	attempts int
	startMs  int64
	inUse    bool
}

var errDLQProduce = errors.New("dead-letter queue produce failed after every attempt")

// takeDLQ starts the DLQ steps core asked for.
func (dm *dlqManager) takeDLQ(s *sharePart, core *model.SharePartition) {
	if dm.cfg.Kafka.Version < model.Kafka44 {
		return
	}
	dm.dlqBuf = core.TakeDLQRequests(dm.dlqBuf[:0])
	for _, q := range dm.dlqBuf {
		var id int32
		if n := len(dm.freeDLQ); n > 0 {
			id = dm.freeDLQ[n-1]
			dm.freeDLQ = dm.freeDLQ[:n-1]
		} else {
			dm.dlqs = append(dm.dlqs, dlqRec{})
			id = int32(len(dm.dlqs) - 1)
		}
		dm.dlqs[id] = dlqRec{sp: s.id, core: core, q: q, startMs: dm.now, inUse: true}
		dm.line("dlq").str("p", dm.parts[s.part].name).num("first", q.First).num("last", q.Last).str("cause", q.Cause.String()).end()
		dm.push(dm.now+dm.dlqLatency(), event{kind: evDLQAttempt, ref: id})
	}
}

func (dm *dlqManager) dlqLatency() int64 {
	if dm.dlqSlow > 0 {
		return dm.dlqSlow
	}
	if dm.cfg.DeadLetterQueue.ProduceLatency == nil {
		return 5
	}
	return dm.cfg.DeadLetterQueue.ProduceLatency.Sample(dm.rNet)
}

// dlqAttempt is one produce attempt's answer.
func (dm *dlqManager) dlqAttempt(id int32) {
	d := &dm.dlqs[id]
	s := dm.shares[d.sp]
	st := dm.metrics.dlqStats(s.group)
	d.attempts++
	st.ProduceRequests++
	fail := dm.dlqFail > 0 || (dm.cfg.DeadLetterQueue.ProduceFailPerMillion > 0 && dm.rFault.Bool(uint64(dm.cfg.DeadLetterQueue.ProduceFailPerMillion), 1_000_000))
	if fail {
		st.FailedProduceRequests++
		if d.attempts < model.DLQMaxAttempts {
			back := model.DLQBackoffMs(d.attempts)
			j := int64(float64(back) * model.DLQBackoffJitterRatio)
			back += dm.rFault.Int63n(2*j+1) - j
			dm.push(dm.now+min(back, model.DLQBackoffMaxMs)+dm.dlqLatency(), event{kind: evDLQAttempt, ref: id})
			return
		}
	}
	rec := *d
	dm.dlqs[id] = dlqRec{}
	dm.freeDLQ = append(dm.freeDLQ, id)
	q := rec.q
	n := q.Last - q.First + 1
	var perr error
	if fail {
		perr = errDLQProduce
		st.ProduceFailed += n
		dm.mark("dlq-failed")
	} else {
		if q.Cause == model.CauseRejected {
			st.RecordsRejected += n
		} else {
			st.RecordsDeliveryLimit += n
		}
		dm.metrics.noteDLQProduced(s, q)
	}
	st.HeldMaxMs = max(st.HeldMaxMs, dm.now-rec.startMs)
	dm.metrics.noteDLQDone(s, q, !fail)
	code := model.ErrNone
	if fail {
		code = model.ErrUnknownServerError
	}
	dm.line("dlq-done").str("p", dm.parts[s.part].name).num("first", q.First).num("last", q.Last).num("attempts", int64(rec.attempts)).str("code", code.String()).end()
	wr, err := rec.core.CompleteDLQ(dm.now, q.ID, perr)
	if err != nil {
		return // the share-partition was reset meanwhile: nothing to archive
	}
	if rec.core != s.core {
		// The old share-partition's ARCHIVED write still goes to the share coordinator,
		// which fences it if a newer leader has read the state since.
		dm.coord.sendWriteFrom(s, rec.core, wr, -1)
		return
	}
	dm.coord.sendWrite(s, wr, -1)
	dm.leaders.afterCoreOp(s)
	dm.leaders.wake(s)
}

// dlqStats returns a group's DLQ figures.
func (m *metrics) dlqStats(g int32) *DLQMetrics {
	for int(g) >= len(m.dlqMetrics) {
		m.dlqMetrics = append(m.dlqMetrics, DLQMetrics{})
		m.dlqRollbacks = append(m.dlqRollbacks, 0)
	}
	return &m.dlqMetrics[g]
}

// dlqMetricsOf returns group g's DLQ figures, or nil when the queue is off.
func (m *metrics) dlqMetricsOf(g int) *DLQMetrics {
	if !m.cfg.Kafka.DLQEnabled() && !m.dlqEverOn(int32(g)) {
		return nil
	}
	out := *m.dlqStats(int32(g))
	return &out
}

// noteDLQProduced counts records produced again as duplicates: already produced and not
// yet finished, or already finished (below the accounting frontier).
func (m *metrics) noteDLQProduced(s *sharePart, q model.DLQRequest) {
	st := m.dlqStats(s.group)
	for off := q.First; off <= q.Last; off++ {
		if off < m.st(s).frontier || m.st(s).dlqDone[off]&dlqProduced != 0 {
			st.Duplicates++
			m.mark("dlq-duplicate")
		}
	}
}

const (
	dlqProduced uint8 = 1 << iota
	dlqEnded
)

// noteDLQDone remembers which offsets ended a DLQ step (until they are finalized).
func (m *metrics) noteDLQDone(s *sharePart, q model.DLQRequest, produced bool) {
	if m.st(s).dlqDone == nil {
		m.st(s).dlqDone = map[int64]uint8{}
	}
	mark := dlqEnded
	if produced {
		mark |= dlqProduced
	}
	for off := max(q.First, m.st(s).frontier); off <= q.Last; off++ {
		m.st(s).dlqDone[off] |= mark
	}
}

// noteDLQFinal checks an offset range leaving the cache with the queue on: a record
// rejected or archived at the limit must have ended a DLQ step; rollbacks after a fired
// lock explain the ones that did not (model.Stats.ArchivedNoDLQ).
func (m *metrics) noteDLQFinal(s *sharePart, f model.Finalized) {
	if !m.cfg.Kafka.DLQEnabled() || m.dlqToggled(s.group) {
		return
	}
	dlqCause := f.Cause == model.CauseLimit || f.Cause == model.CauseRejected
	st := m.dlqStats(s.group)
	for off := f.First; off <= f.Last; off++ {
		v := m.st(s).dlqDone[off]
		if dlqCause && v&dlqEnded == 0 {
			st.BypassedAtLimit++
		}
		if v != 0 {
			delete(m.st(s).dlqDone, off)
		}
	}
	st.Unexplained = max(0, st.BypassedAtLimit-m.dlqRollbacks[s.group])
}

// rollbacks counts the records a completed write's rollback archived at the limit
// with the queue on (before is the core's count before CompleteWrite).
func (m *metrics) rollbacks(s *sharePart, core *model.SharePartition, before int64) {
	if n := core.Stats().ArchivedNoDLQ - before; n > 0 {
		m.dlqStats(s.group)
		for int(s.group) >= len(m.dlqRollbacks) {
			m.dlqRollbacks = append(m.dlqRollbacks, 0)
		}
		m.dlqRollbacks[s.group] += n
	}
}

// dlqEverOn reports whether a config change turned group g's dead-letter queue on.
func (m *metrics) dlqEverOn(g int32) bool {
	for _, st := range m.configs.configSteps {
		if st.Group == g && st.Accepted() && st.After.DLQEnabled() {
			return true
		}
	}
	return false
}

// dlqToggled reports whether a config change turned group g's dead-letter queue off or
// on during the run. The accounting of records that bypassed the queue then does not
// apply: a record rejected while the queue was off rightly never reaches it.
func (m *metrics) dlqToggled(g int32) bool {
	for _, st := range m.configs.configSteps {
		if st.Group == g && st.Accepted() && st.Before.DLQEnabled() != st.After.DLQEnabled() {
			return true
		}
	}
	return false
}
