package sim

import (
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/hist"
)

// Kafka's share-group metrics, under Kafka's names and with Kafka's meaning (Kafka 4.2's
// SharePartitionMetrics, ShareGroupMetrics, the group coordinator's share-partition lag and
// the share consumer's consumer-share-fetch-manager-metrics). docs/metrics.md maps each to
// its MBean and says where sharesim's own figure of the same name differs. They are
// reported beside sharesim's figures, never instead of them.
//
// Counts that a window can difference live in kafkaCounts, inside each group's counters;
// distributions and gauge extremes over the whole run live in kafkaGroup; the state Kafka
// keeps per share-partition to compute them lives in kafkaPart.

// kafkaCounts are one group's running counts of Kafka's meters (RecordAcknowledgementsPerSec
// is counters.acks). Like all of counters it holds int64 values only (see addInt64s).
type kafkaCounts struct {
	// lockTimerOffsets is AcquisitionLockTimeoutPerSec's count: every offset of a firing
	// acquisition-lock timer's range (model.Stats.LockTimerOffsets).
	lockTimerOffsets int64
	// acksSent is the share consumers' acknowledgements-send-total: offsets put in a
	// ShareFetch or ShareAcknowledge when it is sent (GAP and RENEW included).
	acksSent int64
}

// kafkaGroup are one group's Kafka distributions and gauge maxima over the whole run.
type kafkaGroup struct {
	fetchLockMs    hist.Hist // FetchLockTimeMs samples, ms
	fetchLockRatio hist.Hist // FetchLockRatio samples, percent (0–100, Kafka's integer)
	loadMs         hist.Hist // PartitionLoadTimeMs samples, ms
	// inFlightMsgMax and inFlightBatchMax are the largest InFlightMessageCount and
	// InFlightBatchCount any of the group's share-partitions reached (after every core
	// operation, so exact, not sampled).
	inFlightMsgMax, inFlightBatchMax int64
	// lagMax is the largest sum of the group's share-partition lags at a sample.
	lagMax int64
}

// kafkaPart is the state Kafka keeps per share-partition (SharePartition) for its metrics.
// A new leader's share-partition starts afresh.
type kafkaPart struct {
	// lockHeld: a fetch holds the fetch lock since lockFromMs; releasedMs is when it was
	// last released (released: at least once on this share-partition).
	lockHeld   bool
	released   bool
	lockFromMs int64
	releasedMs int64
	idleMs     int64 // the idle time before the current hold (Kafka's fetchLockIdleDurationMs)
	// loadStartMs is when the share-partition being loaded was created; loadWaiters the
	// ShareFetch requests that found it loading (each adds a PartitionLoadTimeMs sample
	// when the load completes).
	loadStartMs int64
	loadWaiters int64
}

func (m *metrics) kpart(s *sharePart) *kafkaPart {
	for int(s.id) >= len(m.kp) {
		m.kp = append(m.kp, kafkaPart{})
	}
	return &m.kp[s.id]
}

// locksFired follows acquisition locks firing on s: the offsets of the lock timers that
// fired since the core's LockTimerOffsets stat was timersBefore (Kafka's
// AcquisitionLockTimeoutPerSec), and n records whose lock timed out with their writes ws.
func (m *metrics) locksFired(s *sharePart, timersBefore, n int64, ws []*model.Write) {
	m.gc(s.group).kafka.lockTimerOffsets += s.core.Stats().LockTimerOffsets - timersBefore
	if n > 0 {
		m.gc(s.group).lockTimeouts += n
		m.expired(s, ws)
	}
}

// gauges follows the gauges' maxima after a core operation.
func (m *metrics) gauges(s *sharePart) {
	kx := &m.kx[s.group]
	kx.inFlightMsgMax = max(kx.inFlightMsgMax, s.core.InFlightCount())
	kx.inFlightBatchMax = max(kx.inFlightBatchMax, int64(s.core.CachedBatchCount()))
}

// fetchLockTaken is a fetch taking s's fetch lock to read and acquire.
func (m *metrics) fetchLockTaken(s *sharePart) {
	kp := m.kpart(s)
	kp.lockHeld, kp.lockFromMs = true, m.now
	kp.idleMs = 0
	if kp.released {
		kp.idleMs = m.now - kp.releasedMs
	}
}

// fetchLockReleased ends the hold and records FetchLockTimeMs and FetchLockRatio as
// SharePartition.releaseFetchLock does.
func (m *metrics) fetchLockReleased(s *sharePart) {
	kp := m.kpart(s)
	if !kp.lockHeld {
		return
	}
	held := m.now - kp.lockFromMs
	kx := &m.kx[s.group]
	kx.fetchLockMs.Add(held)
	kx.fetchLockRatio.Add(fetchLockRatio(held, kp.idleMs))
	kp.lockHeld, kp.released, kp.releasedMs = false, true, m.now
}

// fetchLockRatio is Kafka's FetchLockRatio sample, in percent truncated to an integer: the
// hold's share of the hold plus the idle time before it; 100 when both are 0, and
// 100 ÷ idle when the hold took 0 ms (Kafka's formula, whose unit there is 1/ms).
func fetchLockRatio(heldMs, idleMs int64) int64 {
	var r float64
	switch {
	case heldMs+idleMs == 0:
		r = 1
	case heldMs == 0:
		r = 1 / float64(idleMs)
	default:
		r = float64(heldMs) / float64(heldMs+idleMs)
	}
	return int64(r * 100)
}

// fetchLockReset forgets the fetch lock's history: a new share-partition on a new leader.
func (m *metrics) fetchLockReset(s *sharePart) {
	kp := m.kpart(s)
	kp.lockHeld, kp.released = false, false
}

// loadStarted records when a share-partition's load began.
func (m *metrics) loadStarted(s *sharePart) {
	kp := m.kpart(s)
	kp.loadStartMs = m.now
	m.fetchLockReset(s)
}

// loadWaiting records a ShareFetch that arrived while s was loading.
func (m *metrics) loadWaiting(s *sharePart) { m.kpart(s).loadWaiters++ }

// loadEnded adds one PartitionLoadTimeMs sample per ShareFetch that waited for the load
// (Kafka records one per fetch whose initialization future was not done, also when the
// load failed).
func (m *metrics) loadEnded(s *sharePart) {
	kp := m.kpart(s)
	kx := &m.kx[s.group]
	for ; kp.loadWaiters > 0; kp.loadWaiters-- {
		kx.loadMs.Add(m.now - kp.loadStartMs)
	}
}

// acksSent counts the offsets a request carries acknowledgements for, as the share
// consumer's acknowledgements-send-total does when it sends them.
func (m *metrics) acksSent(r *request) {
	for i := range r.acks {
		pa := &r.acks[i]
		m.gc(m.shares[pa.sp].group).kafka.acksSent += int64(len(pa.entries))
	}
}

// KafkaMetrics are one share group's figures under Kafka's names (docs/metrics.md, Kafka's
// metrics). Meters are given as counts over the run, counts in the window and the window's
// mean rate; histograms over the whole run; gauges at their maximum and at the end.
type KafkaMetrics struct {
	// SharePartition is kafka.server:type=SharePartitionMetrics, summed or maximized over
	// the group's share-partitions (Kafka tags each with group, topic and partition).
	SharePartition SharePartitionMetrics `json:"SharePartitionMetrics"`
	// ShareGroup is kafka.server:type=ShareGroupMetrics restricted to this group (Kafka's are
	// broker-wide, without a group tag).
	ShareGroup ShareGroupMetrics `json:"ShareGroupMetrics"`
	// Lag is the share-partition lag DescribeShareGroupOffsets reports (KIP-1226).
	Lag ShareLag `json:"share_partition_lag"`
	// Consumer is the share consumers' consumer-share-fetch-manager-metrics, summed over the
	// group's consumers.
	Consumer ConsumerShareFetchMetrics `json:"consumer_share_fetch_manager_metrics"`
}

// SharePartitionMetrics are the group's kafka.server:type=SharePartitionMetrics.
type SharePartitionMetrics struct {
	// InFlightMessageCount (gauge): SPEO − SPSO + 1 of a share-partition (0 with an empty
	// cache), whatever the records' states. Max is the largest any share-partition reached,
	// End the sum over the share-partitions at the end.
	InFlightMessageCountMax int64 `json:"InFlightMessageCount_max"`
	InFlightMessageCountEnd int64 `json:"InFlightMessageCount_end"`
	// InFlightBatchCount (gauge): entries of the in-flight cache.
	InFlightBatchCountMax int64 `json:"InFlightBatchCount_max"`
	InFlightBatchCountEnd int64 `json:"InFlightBatchCount_end"`
	// AcquisitionLockTimeoutPerSec (meter): every offset of a firing lock timer's range,
	// marked before the handler looks at the records (offsets whose acknowledgement write
	// is outstanding count too).
	AcquisitionLockTimeoutCount         int64   `json:"AcquisitionLockTimeoutPerSec_count"`
	AcquisitionLockTimeoutCountInWindow int64   `json:"AcquisitionLockTimeoutPerSec_in_window"`
	AcquisitionLockTimeoutPerSec        float64 `json:"AcquisitionLockTimeoutPerSec"`
	// FetchLockTimeMs (histogram): how long each fetch held a share-partition's fetch lock
	// (read and acquire); 0 ms when the log read takes no time (no log_read_latency).
	FetchLockTimeMs KafkaHistogram `json:"FetchLockTimeMs"`
	// FetchLockRatio (histogram): per hold, the hold ÷ (hold + idle time before it) × 100,
	// truncated; Kafka's formula gives 100 ÷ idle ms for a 0 ms hold.
	FetchLockRatio KafkaHistogram `json:"FetchLockRatio"`
}

// ShareGroupMetrics are the group's part of kafka.server:type=ShareGroupMetrics.
type ShareGroupMetrics struct {
	// RecordAcknowledgementsPerSec (meter, tag ackType Accept, Release, Reject, Renew):
	// offsets of a partition's acknowledgement batches counted once its acknowledgement
	// completed without error (after its state write), GAP not counted.
	RecordAcknowledgementsCount    map[string]int64   `json:"RecordAcknowledgementsPerSec_count"`
	RecordAcknowledgementsInWindow map[string]int64   `json:"RecordAcknowledgementsPerSec_in_window"`
	RecordAcknowledgementsPerSec   map[string]float64 `json:"RecordAcknowledgementsPerSec"`
	// PartitionLoadTimeMs (histogram): from a share-partition's creation on its leader to its
	// load completing (or failing), one sample per ShareFetch that found it loading.
	PartitionLoadTimeMs KafkaHistogram `json:"PartitionLoadTimeMs"`
}

// ShareLag is the group's share-partition lag from the persisted state: log end − persisted
// start offset − persisted delivery-complete count, per share-partition, so it trails the
// leader by one state write. A share-partition with nothing persisted has no lag (-1 in
// Kafka) and is left out of the sums.
type ShareLag struct {
	End int64 `json:"lag_end"`
	// Max is the largest sum at a sample of the time series (0 without samples).
	Max int64 `json:"lag_max"`
	// Unknown counts share-partitions without a lag at the end.
	Unknown int `json:"partitions_without_lag"`
	// BacklogEnd is sharesim's backlog at the end, from the leaders' state, for comparison.
	BacklogEnd int64 `json:"sharesim_backlog_end"`
}

// ConsumerShareFetchMetrics are the group's consumer-share-fetch-manager-metrics
// acknowledgement figures.
type ConsumerShareFetchMetrics struct {
	// AcknowledgementsSendTotal: offsets sent in acknowledgements (GAP and RENEW included),
	// counted at sending; the rate is the window's mean (Kafka's is a 30 s windowed rate).
	AcknowledgementsSendTotal int64   `json:"acknowledgements-send-total"`
	AcknowledgementsSendRate  float64 `json:"acknowledgements-send-rate"`
	// AcknowledgementsErrorTotal: offsets whose acknowledgement the client learnt failed:
	// an error code in the response, or the request timed out.
	AcknowledgementsErrorTotal int64   `json:"acknowledgements-error-total"`
	AcknowledgementsErrorRate  float64 `json:"acknowledgements-error-rate"`
}

// KafkaHistogram summarises a Kafka histogram's samples over the whole run (Kafka's own
// quantiles come from a decaying reservoir biased to the last minutes). Quantiles are
// nearest-rank, nil without samples.
type KafkaHistogram struct {
	Count int64    `json:"count"`
	Mean  *float64 `json:"mean"`
	P50   *int64   `json:"p50"`
	P99   *int64   `json:"p99"`
	Max   *int64   `json:"max"`
}

func kafkaHistogram(h *hist.Hist) KafkaHistogram {
	out := KafkaHistogram{Count: h.Count()}
	if h.Count() == 0 {
		return out
	}
	q := func(x float64) *int64 { v, _ := h.Quantile(x); return &v }
	mx, mean := h.Max(), h.Mean()
	out.Mean, out.P50, out.P99, out.Max = &mean, q(0.5), q(0.99), &mx
	return out
}

// kafkaAckTypes are RecordAcknowledgementsPerSec's ackType tag values, by model.AckType.
var kafkaAckTypes = map[model.AckType]string{model.AckAccept: "Accept", model.AckRelease: "Release", model.AckReject: "Reject", model.AckRenew: "Renew"}

// kafkaMetrics derives share group gi's Kafka figures (nil for a classic group).
func (m *metrics) kafkaMetrics(gi int32, win Window, in *counters) *KafkaMetrics {
	g := m.groups[gi]
	if g.classic != nil {
		return nil
	}
	tot, kx := &m.g[gi], &m.kx[gi]
	ms := win.LengthMs()
	k := &KafkaMetrics{}
	sp := &k.SharePartition
	sp.InFlightMessageCountMax, sp.InFlightBatchCountMax = kx.inFlightMsgMax, kx.inFlightBatchMax
	sp.AcquisitionLockTimeoutCount = tot.kafka.lockTimerOffsets
	sp.AcquisitionLockTimeoutCountInWindow = in.kafka.lockTimerOffsets
	sp.AcquisitionLockTimeoutPerSec = perSec(in.kafka.lockTimerOffsets, ms)
	sp.FetchLockTimeMs, sp.FetchLockRatio = kafkaHistogram(&kx.fetchLockMs), kafkaHistogram(&kx.fetchLockRatio)
	sg := &k.ShareGroup
	sg.RecordAcknowledgementsCount, sg.RecordAcknowledgementsInWindow = map[string]int64{}, map[string]int64{}
	sg.RecordAcknowledgementsPerSec = map[string]float64{}
	for t, name := range kafkaAckTypes {
		sg.RecordAcknowledgementsCount[name] = tot.acks[t]
		sg.RecordAcknowledgementsInWindow[name] = in.acks[t]
		sg.RecordAcknowledgementsPerSec[name] = perSec(in.acks[t], ms)
	}
	sg.PartitionLoadTimeMs = kafkaHistogram(&kx.loadMs)
	k.Lag.Max = kx.lagMax
	for _, si := range g.sps {
		s := m.shares[si]
		ps := m.partitionSample(s)
		if ps.Lag < 0 {
			k.Lag.Unknown++
		} else {
			k.Lag.End += ps.Lag
		}
		k.Lag.BacklogEnd += ps.Backlog
		sp.InFlightMessageCountEnd += ps.InFlightMessageCount
		sp.InFlightBatchCountEnd += ps.InFlightBatchCount
	}
	c := &k.Consumer
	c.AcknowledgementsSendTotal = tot.kafka.acksSent
	c.AcknowledgementsSendRate = perSec(in.kafka.acksSent, ms)
	c.AcknowledgementsErrorTotal = tot.ackErrors + tot.acksLost
	c.AcknowledgementsErrorRate = perSec(in.ackErrors+in.acksLost, ms)
	return k
}

// KafkaSample is one group's Kafka figures at a sample time (groups.csv, series.json):
// gauges summed over its share-partitions, meters as running counts.
type KafkaSample struct {
	InFlightMessageCount int64 `json:"InFlightMessageCount"`
	InFlightBatchCount   int64 `json:"InFlightBatchCount"`
	// Lag sums the share-partitions that have one (-1 when none has).
	Lag                         int64 `json:"share_partition_lag"`
	AcquisitionLockTimeoutCount int64 `json:"AcquisitionLockTimeoutPerSec_count"`
	AcceptCount                 int64 `json:"RecordAcknowledgementsPerSec_Accept_count"`
	ReleaseCount                int64 `json:"RecordAcknowledgementsPerSec_Release_count"`
	RejectCount                 int64 `json:"RecordAcknowledgementsPerSec_Reject_count"`
	RenewCount                  int64 `json:"RecordAcknowledgementsPerSec_Renew_count"`
	AcksSentTotal               int64 `json:"acknowledgements-send-total"`
	AcksErrorTotal              int64 `json:"acknowledgements-error-total"`
}

// kafkaSample fills group gi's Kafka sample from its partitions' samples.
func (m *metrics) kafkaSample(gi int32, parts []PartitionSample) KafkaSample {
	c := m.gc(gi)
	ks := KafkaSample{Lag: -1, AcquisitionLockTimeoutCount: c.kafka.lockTimerOffsets,
		AcceptCount: c.acks[model.AckAccept], ReleaseCount: c.acks[model.AckRelease], RejectCount: c.acks[model.AckReject],
		RenewCount: c.acks[model.AckRenew], AcksSentTotal: c.kafka.acksSent, AcksErrorTotal: c.ackErrors + c.acksLost}
	if m.groups[gi].classic != nil {
		return ks
	}
	name := m.groups[gi].cfg.Name
	for i := range parts {
		p := &parts[i]
		if p.Group != name {
			continue
		}
		ks.InFlightMessageCount += p.InFlightMessageCount
		ks.InFlightBatchCount += p.InFlightBatchCount
		if p.Lag >= 0 {
			ks.Lag = max(ks.Lag, 0) + p.Lag
		}
	}
	kx := &m.kx[gi]
	kx.lagMax = max(kx.lagMax, ks.Lag)
	return ks
}
