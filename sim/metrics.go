package sim

import (
	"math/bits"
	"sort"

	"github.com/sharesim/sharesim/model"
)

// Metrics the simulator records. Names follow Kafka's where Kafka has the metric
// (AcquisitionLockTimeoutPerSec, InFlightMessageCount, InFlightBatchCount,
// RecordAcknowledgementsPerSec, share lag per KIP-1226); the simulator's own metrics carry
// the sharesim prefix in reports.

// DupCause is why a record was processed successfully more than once: what happened to the
// earlier successful processing's acknowledgement.
type DupCause uint8

// Duplicate causes.
const (
	DupOther      DupCause = iota // none of the causes below was observed
	DupLockExpiry                 // the lock expired while the record was still being processed
	DupCrash                      // the consumer died after processing, before acknowledging
	DupClose                      // the consumer closed; its last poll's records were released
	DupFailover                   // the leader failed over before the acknowledgement committed
	DupLostAck                    // the acknowledgement's write failed or its response was lost
	dupCauses
)

var dupNames = [...]string{"other", "lock_expiry", "crash", "close", "failover", "lost_ack"}

// String names the cause.
func (d DupCause) String() string { return dupNames[d] }

const (
	causeCrash = DupCrash
	causeClose = DupClose
)

// recInfo is what the simulator remembers about one delivered record until it leaves the
// in-flight cache.
type recInfo struct {
	producedMs int64
	acceptedMs int64
	okBy       int32 // consumer that last processed it successfully
	okCount    uint16
	deliveries uint16
	lostCause  DupCause // why an earlier successful processing did not stick (DupOther: unknown)
	pendingOK  bool     // processed successfully, ACCEPT not confirmed
	seen       bool
	back       BackCause // why it is available again (counted on its redelivery); backHeld while acquired
	tl         int32     // slot in the record sample (0: not followed)
}

// recTrack holds recInfo for offsets base .. base+len(infos)-1.
type recTrack struct {
	base  int64
	infos []recInfo
	head  int
}

func (t *recTrack) get(off int64) *recInfo {
	if len(t.infos)-t.head == 0 {
		t.base, t.head = off, 0
		t.infos = t.infos[:0]
	}
	if off < t.base {
		// Older than anything tracked: make room at the front (rare: reload refetch).
		n := int(t.base - off)
		grown := make([]recInfo, n+len(t.infos)-t.head)
		copy(grown[n:], t.infos[t.head:])
		t.infos, t.head, t.base = grown, 0, off
	}
	i := t.head + int(off-t.base)
	for i >= len(t.infos) {
		t.infos = append(t.infos, recInfo{})
	}
	return &t.infos[i]
}

func (t *recTrack) peek(off int64) *recInfo {
	i := t.head + int(off-t.base)
	if off < t.base || i >= len(t.infos) {
		return nil
	}
	return &t.infos[i]
}

// trimTo forgets offsets below off.
func (t *recTrack) trimTo(off int64) {
	for t.head < len(t.infos) && t.base < off {
		t.infos[t.head] = recInfo{}
		t.head++
		t.base++
	}
	if t.head == len(t.infos) {
		t.infos, t.head = t.infos[:0], 0
		t.base = max(t.base, off)
	} else if t.head > len(t.infos)/2 && t.head > 1024 {
		n := copy(t.infos, t.infos[t.head:])
		t.infos, t.head = t.infos[:n], 0
	}
}

// spsoTracker measures how long SPSO stays put while records after it are in flight.
type spsoTracker struct {
	last    int64
	sinceMs int64
	init    bool
	marked  bool
}

func (t *spsoTracker) observe(w *World, s *sharePart) {
	core := s.core
	spso := core.StartOffset()
	if !t.init || spso != t.last {
		t.last, t.sinceMs, t.init, t.marked = spso, w.now, true, false
		return
	}
	if core.InFlightCount() > 1 {
		stuck := w.now - t.sinceMs
		w.metrics.spsoStuckMaxMs = max(w.metrics.spsoStuckMaxMs, stuck)
		if !t.marked && stuck > w.cfg.Kafka.RecordLockDurationMs {
			t.marked = true
			w.mark("spso-stuck")
		}
	}
}

type metrics struct {
	produced, producedBatches    int64
	deliveries, redeliveries     int64
	processed, processedOK       int64
	failedProcessing             int64
	duplicates                   [dupCauses]int64
	acks                         [5]int64
	ackErrors, acksLost          int64
	lockTimeouts                 int64
	final                        [9]int64 // finalized offsets by model.Cause
	deletedUndelivered           int64
	writes, writesFailed         int64
	requests, ackRequests        int64
	renewRequests                int64
	bufferWaitMs                 int64
	dcHist                       [12]int64
	dcHistArchived               [12]int64 // the part of dcHist that finished without ACCEPT
	redeliverBy                  [backCauses]int64
	groupE2E                     []latencyHist // by group
	reorderDist                  []latencyHist // by group: reorder distance in offsets
	e2e                          latencyHist
	keyed, reordered             int64
	reorderMaxOffsets            int64
	reorderMaxMs                 int64
	spsoStuckMaxMs               int64
	processedAfterLockExpiry     int64
	series                       []Sample
	lastKey                      [][]keyLast // [group][key], off -1 when unseen
	consumerProcessed            map[int32]int64
	classicRedeliveredFromCommit int64
	skippedByReset               int64
	silentLoss                   int64
	silentLossFirst              int64
}

type keyLast struct {
	off int64
	ms  int64
}

// latencyHist is a log-linear histogram of milliseconds: 8 sub-buckets per power of two.
type latencyHist struct {
	counts [400]int64
	n      int64
	sum    int64
	max    int64
}

func (h *latencyHist) add(ms int64) {
	ms = max(ms, 0)
	h.counts[histBucket(ms)]++
	h.n++
	h.sum += ms
	h.max = max(h.max, ms)
}

func histBucket(ms int64) int {
	if ms < 8 {
		return int(ms)
	}
	e := 63 - leadingZeros(uint64(ms)) // ms in [2^e, 2^(e+1))
	sub := int((ms >> (e - 3)) & 7)
	b := 8 + (e-3)*8 + sub
	return min(b, 399)
}

func histLow(b int) int64 {
	if b < 8 {
		return int64(b)
	}
	e := (b-8)/8 + 3
	sub := int64((b - 8) % 8)
	return (8 + sub) << (e - 3)
}

func leadingZeros(x uint64) int { return bits.LeadingZeros64(x) }

// quantile returns an upper estimate of the q-quantile.
func (h *latencyHist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	target := int64(q*float64(h.n-1)) + 1
	var cum int64
	for b, c := range h.counts {
		cum += c
		if cum >= target {
			if b+1 < len(h.counts) {
				return min(histLow(b+1)-1, h.max)
			}
			return h.max
		}
	}
	return h.max
}

// noteDelivery records the records a fetch acquired.
func (w *World) noteDelivery(s *sharePart, r *request, ar model.AcquiredRange) {
	p := w.parts[s.part]
	n := ar.Last - ar.First + 1
	w.metrics.deliveries += n
	if ar.DeliveryCount > 1 {
		w.metrics.redeliveries += n
		w.mark("redelivery")
	}
	for off := ar.First; off <= ar.Last; off++ {
		info := s.track.get(off)
		if !info.seen {
			info.seen = true
			if b, ok := p.log.BatchAt(off); ok {
				info.producedMs = b.TimestampMs
			}
		}
		info.deliveries++
		if info.deliveries > 1 || ar.DeliveryCount > 1 {
			// Delivered before (a reload may not have counted it). Still marked held: it
			// came back in a way the simulator did not see (a rolled-back write, ...).
			cause := info.back
			if cause == backHeld {
				cause = BackOther
			}
			w.metrics.redeliverBy[cause]++
		}
		info.back = backHeld
		w.lifeAcquired(s, info, r.member, ar.DeliveryCount)
	}
}

// noteProcessed records one processing completion.
func (w *World) noteProcessed(c *consumer, d delivery, ok bool) {
	w.metrics.processed++
	w.metrics.consumerProcessed[c.idx]++
	s := w.shares[d.sp]
	late := w.now > d.deadline
	if ok && late && d.off < s.track.base {
		// The record left the cache while this delivery's lock was expired: another
		// delivery finished it, so this processing is a lock-expiry duplicate.
		w.metrics.processedOK++
		w.metrics.processedAfterLockExpiry++
		w.metrics.duplicates[DupLockExpiry]++
		w.mark("duplicate-processing")
		w.mark("processed-after-lock-expiry")
		w.noteOrder(s, d.off)
		return
	}
	info := s.track.get(d.off)
	w.lifeEvent(info, "processed", c.member, processedDetail(ok, late))
	if !ok {
		w.metrics.failedProcessing++
		return
	}
	w.metrics.processedOK++
	info.okCount++
	if info.okCount >= 2 {
		cause := info.lostCause
		if late && cause == DupOther {
			cause = DupLockExpiry // this processing is the one that outlived its lock
		}
		w.metrics.duplicates[cause]++
		w.mark("duplicate-processing")
	}
	info.lostCause = DupOther
	if d.epoch != w.parts[s.part].leaderEpoch {
		info.lostCause = DupFailover // acquired from a former leader: the ack cannot stick
	}
	info.pendingOK, info.okBy = true, c.idx
	if late {
		w.metrics.processedAfterLockExpiry++
		info.lostCause = DupLockExpiry
		w.mark("processed-after-lock-expiry")
	}
	w.noteOrder(s, d.off)
}

func processedDetail(ok, late bool) string {
	switch {
	case !ok:
		return "failed"
	case late:
		return "late"
	}
	return "ok"
}

// groupHist returns group g's histogram of a per-group set, growing the set as needed.
func groupHist(hs *[]latencyHist, g int32) *latencyHist {
	for int32(len(*hs)) <= g {
		*hs = append(*hs, latencyHist{})
	}
	return &(*hs)[g]
}

// noteOrder measures reordering among records of the same key (per group).
func (w *World) noteOrder(s *sharePart, off int64) {
	p := w.parts[s.part]
	key, ok := w.keyOf(p, off)
	if !ok {
		return
	}
	w.metrics.keyed++
	keys := w.metrics.lastKey[s.group]
	for int64(len(keys)) <= key {
		keys = append(keys, keyLast{off: -1})
	}
	w.metrics.lastKey[s.group] = keys
	last := keys[key]
	if last.off > off {
		w.metrics.reordered++
		w.metrics.reorderMaxOffsets = max(w.metrics.reorderMaxOffsets, last.off-off)
		w.metrics.reorderMaxMs = max(w.metrics.reorderMaxMs, w.now-last.ms)
		groupHist(&w.metrics.reorderDist, s.group).add(last.off - off)
		w.mark("reordered")
		return
	}
	keys[key] = keyLast{off: off, ms: w.now}
}

// noteAckOutcome counts acknowledgements as a broker applies them (or as lost).
func (w *World) noteAckOutcome(r *request, pa *partAcks, code model.ErrorCode, lost bool) {
	if lost {
		w.metrics.acksLost += int64(len(pa.entries))
		s := w.shares[pa.sp]
		for _, e := range pa.entries {
			info := s.track.peek(e.off)
			if info != nil && e.t == model.AckAccept && info.pendingOK && info.lostCause == DupOther {
				info.lostCause = DupLostAck
			}
			w.lifeEvent(info, "ack-lost", r.member, e.t.String())
		}
		return
	}
	if code == model.ErrNone {
		for _, e := range pa.entries {
			w.metrics.acks[e.t]++
		}
	}
	s := w.shares[pa.sp]
	for _, e := range pa.entries {
		info := s.track.peek(e.off)
		if info == nil {
			continue
		}
		if code != model.ErrNone {
			if w.sample != nil {
				w.lifeEvent(info, "ack", r.member, e.t.String()+" "+code.String())
			}
			continue
		}
		w.lifeEvent(info, "ack", r.member, e.t.String())
		switch e.t {
		case model.AckRelease:
			info.back = BackRelease
		case model.AckRenew:
		default:
			if info.back == backHeld {
				info.back = BackOther
			}
		}
	}
}

// noteAckResult records the outcome the client learns for its acknowledgements.
func (w *World) noteAckResult(r *request, pa *partAcks, code model.ErrorCode) {
	s := w.shares[pa.sp]
	if code != model.ErrNone {
		w.metrics.ackErrors += int64(len(pa.entries))
		w.mark("ack-error-" + code.String())
	}
	for _, e := range pa.entries {
		if e.t != model.AckAccept {
			continue
		}
		info := s.track.peek(e.off)
		if info == nil {
			continue
		}
		switch {
		case code == model.ErrNone:
			info.pendingOK = false
			info.acceptedMs = w.now
		case info.lostCause == DupOther && code == model.ErrInvalidRecordState:
			info.lostCause = DupLockExpiry
		case info.lostCause == DupOther:
			info.lostCause = DupLostAck
		}
	}
}

func (w *World) noteWriteFailed(s *sharePart, wr *model.Write) { w.mark("ack-write-rolled-back") }

// noteExpired attributes records processed but not yet accepted whose lock expired.
func (w *World) noteExpired(s *sharePart, ws []*model.Write) {
	for _, wr := range ws {
		for _, b := range wr.Batches {
			for off := b.First; off <= b.Last; off++ {
				info := s.track.peek(off)
				if info != nil && info.pendingOK && info.lostCause == DupOther {
					info.lostCause = DupLockExpiry
				}
				if info != nil {
					info.back = BackLockExpiry
					w.lifeEvent(info, "lock-expired", "", "")
				}
			}
		}
	}
}

// noteReleased records why the records a leaving or dead member held are available again.
func (w *World) noteReleased(s *sharePart, member model.MemberID, wr *model.Write) {
	cause, detail := BackRelease, "leave"
	if w.crashing {
		cause, detail = BackCrash, "crash"
	}
	for _, b := range wr.Batches {
		for off := b.First; off <= b.Last; off++ {
			if info := s.track.peek(off); info != nil {
				info.back = cause
				w.lifeEvent(info, "released", member, detail)
			}
		}
	}
}

// noteEvicted attributes records processed but not yet accepted when the leader's state is
// lost.
func (w *World) noteEvicted(s *sharePart) {
	for i := s.track.head; i < len(s.track.infos); i++ {
		info := &s.track.infos[i]
		if info.pendingOK && info.lostCause == DupOther {
			info.lostCause = DupFailover
		}
		if info.back == backHeld {
			info.back = BackFailover
			w.lifeEvent(info, "reverted", "", "")
		}
	}
}

// noteConsumerGone attributes the records a dying consumer processed but did not get
// accepted.
func (w *World) noteConsumerGone(c *consumer, cause DupCause) {
	for i, d := range c.batch {
		if i >= len(c.done) || !c.done[i] {
			continue
		}
		info := w.shares[d.sp].track.peek(d.off)
		if info != nil && info.pendingOK && info.okBy == c.idx && info.lostCause == DupOther {
			info.lostCause = cause
		}
	}
}

// noteFinalized records offsets that left the in-flight cache with their final state.
func (w *World) noteFinalized(s *sharePart, f model.Finalized) {
	if f.Last < s.frontier {
		return // finalized by an earlier leader already (a reload redoes its work)
	}
	if f.First > s.frontier && s.frontier >= 0 {
		w.checkGap(s, s.frontier, f.First-1)
	}
	f.First = max(f.First, s.frontier)
	s.frontier = f.Last + 1
	n := f.Last - f.First + 1
	w.metrics.final[f.Cause] += n
	dc := int(f.DeliveryCount)
	if dc >= len(w.metrics.dcHist) {
		dc = len(w.metrics.dcHist) - 1
	}
	w.metrics.dcHist[dc] += n
	if f.Cause != model.CauseAccepted {
		w.metrics.dcHistArchived[dc] += n
	}
	if w.sample != nil {
		for off := f.First; off <= f.Last; off++ {
			w.lifeFinished(s, off, s.track.peek(off), f.Cause.String())
		}
	}
	switch f.Cause {
	case model.CauseLimit:
		w.mark("archived-at-limit")
	case model.CauseLogStart:
		w.mark("archived-by-retention")
	}
	if f.Cause == model.CauseAccepted {
		for off := f.First; off <= f.Last; off++ {
			if info := s.track.peek(off); info != nil && info.seen {
				at := info.acceptedMs
				if at == 0 {
					at = w.now
				}
				w.metrics.e2e.add(at - info.producedMs)
				groupHist(&w.metrics.groupE2E, s.group).add(at - info.producedMs)
			}
		}
	}
	s.track.trimTo(f.Last + 1)
}

// checkGap accounts for offsets SPSO passed without finalizing them: below the log start
// (deleted), or holding no record (compaction). A record still in the log would have been
// lost silently.
func (w *World) checkGap(s *sharePart, from, to int64) {
	p := w.parts[s.part]
	for off := max(from, p.log.StartOffset()); off <= to; off++ {
		if p.log.HasRecord(off) {
			w.metrics.silentLoss++
			w.mark("silent-loss")
			if w.metrics.silentLossFirst < 0 {
				w.metrics.silentLossFirst = off
			}
		}
	}
}

// Sample is one point of the metrics time series.
type Sample struct {
	TimeMs     int64             `json:"time_ms"`
	Partitions []PartitionSample `json:"partitions"`
	Consumers  []ConsumerSample  `json:"consumers"`
	// Running totals at this time.
	Deliveries   int64 `json:"deliveries"`
	Redeliveries int64 `json:"redeliveries"`
	Duplicates   int64 `json:"duplicates"`
	LockTimeouts int64 `json:"lock_timeouts"`
	ProcessedOK  int64 `json:"processed_ok"`
	Produced     int64 `json:"produced"`
	// RedeliveriesByCause splits Redeliveries by why the records were available again.
	RedeliveriesByCause RedeliveryCauses `json:"redeliveries_by_cause"`
}

// PartitionSample is one share-partition (or classic group partition) at a sample time.
type PartitionSample struct {
	Group     string `json:"group"`
	Partition string `json:"partition"`
	// InFlightMessageCount and InFlightBatchCount are Kafka's SharePartitionMetrics.
	InFlightMessageCount int64 `json:"InFlightMessageCount"`
	InFlightBatchCount   int64 `json:"InFlightBatchCount"`
	StartOffset          int64 `json:"start_offset"`
	LogStartOffset       int64 `json:"log_start_offset"`
	LogEndOffset         int64 `json:"log_end_offset"`
	// Lag is KIP-1226's share lag: end offset − persisted SPSO − persisted delivery-complete
	// count (-1 when unknown).
	Lag int64 `json:"lag"`
	// Backlog is the true number of records not yet finished, from the leader's state.
	Backlog int64 `json:"backlog"`
	// OldestUnackedMs is the age of the record at the start offset.
	OldestUnackedMs int64 `json:"oldest_unacked_ms"`
}

// ConsumerSample is one consumer instance's running count of processed records.
type ConsumerSample struct {
	Name      string `json:"name"`
	Group     string `json:"group"`
	Processed int64  `json:"processed"`
}

// sampleMetrics records one time-series point.
func (w *World) sampleMetrics() {
	smp := Sample{TimeMs: w.now, Deliveries: w.metrics.deliveries, Redeliveries: w.metrics.redeliveries,
		LockTimeouts: w.metrics.lockTimeouts, ProcessedOK: w.metrics.processedOK, Produced: w.metrics.produced,
		RedeliveriesByCause: redeliveryCauses(&w.metrics.redeliverBy)}
	for _, d := range w.metrics.duplicates {
		smp.Duplicates += d
	}
	for _, s := range w.shares {
		smp.Partitions = append(smp.Partitions, w.partitionSample(s))
	}
	for _, g := range w.groups {
		if g.classic != nil {
			smp.Partitions = append(smp.Partitions, w.classicSamples(g)...)
		}
	}
	for _, c := range w.consumers {
		smp.Consumers = append(smp.Consumers, ConsumerSample{Name: c.name, Group: w.groups[c.group].cfg.Name, Processed: w.metrics.consumerProcessed[c.idx]})
	}
	w.metrics.series = append(w.metrics.series, smp)
}

func (w *World) partitionSample(s *sharePart) PartitionSample {
	p := w.parts[s.part]
	ps := PartitionSample{Group: w.groups[s.group].cfg.Name, Partition: p.name,
		LogStartOffset: p.log.StartOffset(), LogEndOffset: p.log.EndOffset(), Lag: -1}
	if st, dcc := s.store.StartOffset(), s.store.DeliveryCompleteCount(); st >= 0 && dcc >= 0 {
		ps.Lag = max(0, p.log.EndOffset()-st-dcc)
	}
	if s.core == nil {
		ps.StartOffset = max(s.store.StartOffset(), 0)
		ps.Backlog = max(0, p.log.EndOffset()-ps.StartOffset)
		return ps
	}
	ps.InFlightMessageCount = s.core.InFlightCount()
	ps.InFlightBatchCount = int64(s.core.CachedBatchCount())
	ps.StartOffset = s.core.StartOffset()
	ps.Backlog = max(0, p.log.EndOffset()-max(ps.StartOffset, p.log.StartOffset())-s.core.DeliveryCompleteCount())
	if ps.StartOffset < p.log.EndOffset() {
		if b, ok := p.log.BatchAt(max(ps.StartOffset, p.log.StartOffset())); ok {
			ps.OldestUnackedMs = max(0, w.now-b.TimestampMs)
		}
	}
	return ps
}

// Metrics is the exported summary of a run.
type Metrics struct {
	Produced         int64 `json:"produced"`
	ProducedBatches  int64 `json:"produced_batches"`
	Deliveries       int64 `json:"deliveries"`
	Redeliveries     int64 `json:"redeliveries"`
	Processed        int64 `json:"processed"`
	ProcessedOK      int64 `json:"processed_ok"`
	FailedProcessing int64 `json:"failed_processing"`
	// Duplicates counts successful processings beyond the first, by cause.
	Duplicates        map[string]int64 `json:"duplicates"`
	DuplicatesTotal   int64            `json:"duplicates_total"`
	ProcessedLateLock int64            `json:"processed_after_lock_expiry"`
	// RecordAcknowledgements is Kafka's RecordAcknowledgementsPerSec by ackType, as totals.
	RecordAcknowledgements map[string]int64 `json:"RecordAcknowledgements"`
	AckErrors              int64            `json:"acknowledgements_error_total"`
	AcksLost               int64            `json:"acknowledgements_lost"`
	// AcquisitionLockTimeouts is Kafka's AcquisitionLockTimeoutPerSec as a total.
	AcquisitionLockTimeouts int64 `json:"AcquisitionLockTimeouts"`
	// Finalized counts offsets that left the in-flight cache, by final cause.
	Finalized          map[string]int64 `json:"finalized"`
	DeletedUndelivered int64            `json:"deleted_undelivered"`
	// DeliveryCountHist[i] counts finalized offsets delivered i times (last bucket: or more).
	DeliveryCountHist []int64 `json:"delivery_count_hist"`
	StateWrites       int64   `json:"state_writes"`
	StateWritesFailed int64   `json:"state_writes_failed"`
	Requests          int64   `json:"requests"`
	AckRequests       int64   `json:"ack_requests"`
	RenewRequests     int64   `json:"renew_requests"`
	BufferWaitMs      int64   `json:"buffer_wait_ms"`
	// E2E is produce-to-accept latency of accepted records.
	E2EP50Ms   int64        `json:"e2e_p50_ms"`
	E2EP99Ms   int64        `json:"e2e_p99_ms"`
	E2EMaxMs   int64        `json:"e2e_max_ms"`
	E2EBuckets []HistBucket `json:"e2e_buckets"`
	// Reordering among records of the same key.
	KeyedProcessed    int64 `json:"keyed_processed"`
	Reordered         int64 `json:"reordered"`
	ReorderMaxOffsets int64 `json:"reorder_max_offsets"`
	ReorderMaxMs      int64 `json:"reorder_max_ms"`
	SPSOStuckMaxMs    int64 `json:"spso_stuck_max_ms"`
	// SkippedByOffsetReset counts records produced before a share-partition was first
	// initialised that share.auto.offset.reset put out of reach (latest).
	SkippedByOffsetReset int64 `json:"skipped_by_offset_reset"`
	// SilentLoss counts records the start offset passed without any final state: never
	// expected; the no-silent-loss check fails on it.
	SilentLoss         int64    `json:"silent_loss"`
	ClassicReprocessed int64    `json:"classic_reprocessed"`
	Series             []Sample `json:"-"`
	// RedeliveriesByCause splits Redeliveries by why the records were available again.
	RedeliveriesByCause RedeliveryCauses `json:"redeliveries_by_cause"`
	// DeliveryCountArchived is the part of DeliveryCountHist that finished without ACCEPT
	// (rejected, archived at the limit, by retention, ...).
	DeliveryCountArchived []int64 `json:"delivery_count_archived"`
	// InFlightCap is group.share.partition.max.record.locks, the cap of the in-flight window.
	InFlightCap int64 `json:"in_flight_cap"`
	// Groups are per-group figures, in the configuration's order.
	Groups []GroupMetrics `json:"groups"`
}

// GroupMetrics are one group's latency and reordering figures.
type GroupMetrics struct {
	Name string `json:"name"`
	Type string `json:"type"` // share or classic
	// E2E is produce-to-accept latency (classic groups: produce to processed).
	E2EP50Ms   int64        `json:"e2e_p50_ms"`
	E2EP99Ms   int64        `json:"e2e_p99_ms"`
	E2EMaxMs   int64        `json:"e2e_max_ms"`
	E2EBuckets []HistBucket `json:"e2e_buckets"`
	// ReorderBuckets is the distribution of reorder distances in offsets: how far before
	// the newest processed record of the same key an out-of-order record was (LowMs and
	// HighMs hold offsets here).
	ReorderBuckets []HistBucket `json:"reorder_distance_buckets"`
}

// HistBucket is one non-empty histogram bucket: values in [LowMs, HighMs].
type HistBucket struct {
	LowMs  int64 `json:"low_ms"`
	HighMs int64 `json:"high_ms"`
	Count  int64 `json:"count"`
}

func (m *metrics) export(w *World) Metrics {
	out := Metrics{
		Produced: m.produced, ProducedBatches: m.producedBatches, Deliveries: m.deliveries, Redeliveries: m.redeliveries,
		Processed: m.processed, ProcessedOK: m.processedOK, FailedProcessing: m.failedProcessing,
		Duplicates: map[string]int64{}, ProcessedLateLock: m.processedAfterLockExpiry,
		RecordAcknowledgements: map[string]int64{}, AckErrors: m.ackErrors, AcksLost: m.acksLost,
		AcquisitionLockTimeouts: m.lockTimeouts, Finalized: map[string]int64{}, DeletedUndelivered: m.deletedUndelivered,
		DeliveryCountHist: append([]int64(nil), m.dcHist[:]...), StateWrites: m.writes, StateWritesFailed: m.writesFailed,
		Requests: m.requests, AckRequests: m.ackRequests, RenewRequests: m.renewRequests, BufferWaitMs: m.bufferWaitMs,
		E2EP50Ms: m.e2e.quantile(0.5), E2EP99Ms: m.e2e.quantile(0.99), E2EMaxMs: m.e2e.max,
		KeyedProcessed: m.keyed, Reordered: m.reordered, ReorderMaxOffsets: m.reorderMaxOffsets, ReorderMaxMs: m.reorderMaxMs,
		SPSOStuckMaxMs: m.spsoStuckMaxMs, SkippedByOffsetReset: m.skippedByReset, SilentLoss: m.silentLoss, ClassicReprocessed: m.classicRedeliveredFromCommit, Series: m.series,
	}
	for i, d := range m.duplicates {
		out.Duplicates[DupCause(i).String()] = d
		out.DuplicatesTotal += d
	}
	for t, n := range m.acks {
		out.RecordAcknowledgements[model.AckType(t).String()] = n
	}
	for c, n := range m.final {
		if n > 0 {
			out.Finalized[model.Cause(c).String()] = n
		}
	}
	out.E2EBuckets = m.e2e.buckets()
	out.RedeliveriesByCause = redeliveryCauses(&m.redeliverBy)
	out.DeliveryCountArchived = append([]int64(nil), m.dcHistArchived[:]...)
	out.InFlightCap = int64(w.cfg.Kafka.PartitionMaxRecordLocks)
	for gi, g := range w.groups {
		gm := GroupMetrics{Name: g.cfg.Name, Type: "share"}
		if g.cfg.Type == ClassicGroup {
			gm.Type = "classic"
		}
		if gi < len(m.groupE2E) {
			h := &m.groupE2E[gi]
			gm.E2EP50Ms, gm.E2EP99Ms, gm.E2EMaxMs, gm.E2EBuckets = h.quantile(0.5), h.quantile(0.99), h.max, h.buckets()
		}
		if gi < len(m.reorderDist) {
			gm.ReorderBuckets = m.reorderDist[gi].buckets()
		}
		out.Groups = append(out.Groups, gm)
	}
	return out
}

// buckets lists the non-empty buckets.
func (h *latencyHist) buckets() []HistBucket {
	var out []HistBucket
	for b, c := range h.counts {
		if c > 0 {
			hi := histLow(b+1) - 1
			if b+1 >= len(h.counts) {
				hi = h.max
			}
			out = append(out, HistBucket{LowMs: histLow(b), HighMs: hi, Count: c})
		}
	}
	return out
}

// FinalState describes one share-partition (or classic group partition) at the end.
type FinalState struct {
	Group       string `json:"group"`
	Partition   string `json:"partition"`
	StartOffset int64  `json:"start_offset"`
	LogStart    int64  `json:"log_start_offset"`
	LogEnd      int64  `json:"log_end_offset"`
	InFlight    int64  `json:"in_flight"`
	Acquired    int64  `json:"acquired"`
	Loaded      bool   `json:"loaded"`
	Drained     bool   `json:"drained"`
}

func (w *World) finalStates() []FinalState {
	var out []FinalState
	for _, s := range w.shares {
		p := w.parts[s.part]
		fs := FinalState{Group: w.groups[s.group].cfg.Name, Partition: p.name, LogStart: p.log.StartOffset(), LogEnd: p.log.EndOffset()}
		if s.core != nil {
			fs.Loaded = true
			fs.StartOffset = s.core.StartOffset()
			fs.InFlight = s.core.InFlightCount()
			s.core.ForEachRecord(func(v model.RecordView) bool {
				if v.State == model.Acquired {
					fs.Acquired++
				}
				return true
			})
		} else {
			fs.StartOffset = s.store.StartOffset()
		}
		fs.Drained = fs.StartOffset >= fs.LogEnd || (fs.Loaded && fs.StartOffset+fs.InFlight >= fs.LogEnd && s.core.DeliveryCompleteCount() == fs.InFlight)
		out = append(out, fs)
	}
	for _, g := range w.groups {
		if g.classic != nil {
			out = append(out, w.classicFinal(g)...)
		}
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
func sortInts(s []int)       { sort.Ints(s) }
