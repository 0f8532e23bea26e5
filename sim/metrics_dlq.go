package sim

import (
	"github.com/sharesim/sharesim/model"
)

// The dead-letter queue's figures (Kafka 4.4): produce attempts, records produced by cause,
// duplicates, and the records that bypassed the queue (the dlq-exactly-once check).

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

// dlqAttempted counts a DLQ produce attempt for s, failed or not.
func (m *metrics) dlqAttempted(s *sharePart, failed bool) {
	st := m.dlqStats(s.group)
	st.ProduceRequests++
	if failed {
		st.FailedProduceRequests++
	}
}

// dlqStepEnded follows a DLQ step of s that started at startMs ending: its records were
// produced to the dead-letter topic, or every attempt failed.
func (m *metrics) dlqStepEnded(s *sharePart, q model.DLQRequest, produced bool, startMs int64) {
	st := m.dlqStats(s.group)
	n := q.Last - q.First + 1
	switch {
	case !produced:
		st.ProduceFailed += n
	case q.Cause == model.CauseRejected:
		st.RecordsRejected += n
	default:
		st.RecordsDeliveryLimit += n
	}
	if produced {
		m.noteDLQProduced(s, q)
	}
	st.HeldMaxMs = max(st.HeldMaxMs, m.now-startMs)
	m.noteDLQDone(s, q, produced)
}

// noteDLQProduced counts records produced again as duplicates: already produced and not
// yet finished, or already finished (below the accounting frontier).
func (m *metrics) noteDLQProduced(s *sharePart, q model.DLQRequest) {
	ss := m.st(s)
	st := m.dlqStats(s.group)
	for off := q.First; off <= q.Last; off++ {
		if off < ss.frontier || ss.dlqDone[off]&dlqProduced != 0 {
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
	ss := m.st(s)
	if ss.dlqDone == nil {
		ss.dlqDone = map[int64]uint8{}
	}
	mark := dlqEnded
	if produced {
		mark |= dlqProduced
	}
	for off := max(q.First, ss.frontier); off <= q.Last; off++ {
		ss.dlqDone[off] |= mark
	}
}

// noteDLQFinal checks an offset range leaving the cache with the queue on: a record
// rejected or archived at the limit must have ended a DLQ step; rollbacks after a fired
// lock explain the ones that did not (model.Stats.ArchivedNoDLQ).
func (m *metrics) noteDLQFinal(s *sharePart, f model.Finalized) {
	ss := m.st(s)
	if !m.cfg.Kafka.DLQEnabled() || m.dlqToggled(s.group) {
		return
	}
	dlqCause := f.Cause == model.CauseLimit || f.Cause == model.CauseRejected
	st := m.dlqStats(s.group)
	for off := f.First; off <= f.Last; off++ {
		v := ss.dlqDone[off]
		if dlqCause && v&dlqEnded == 0 {
			st.BypassedAtLimit++
		}
		if v != 0 {
			delete(ss.dlqDone, off)
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
	for _, st := range m.configs.steps() {
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
	for _, st := range m.configs.steps() {
		if st.Group == g && st.Accepted() && st.Before.DLQEnabled() != st.After.DLQEnabled() {
			return true
		}
	}
	return false
}
