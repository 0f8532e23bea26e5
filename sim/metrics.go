package sim

import (
	"slices"
	"sort"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/hist"
	"github.com/sharesim/sharesim/sim/plog"
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
	DupRewind                     // classic group: processed again after resuming from an older committed offset
	dupCauses
)

var dupNames = [...]string{"other", "lock_expiry", "crash", "close", "failover", "lost_ack", "rewind"}

// String names the cause.
func (d DupCause) String() string { return dupNames[d] }

const (
	causeCrash = DupCrash
	causeClose = DupClose
)

// recInfo is what the simulator remembers about one delivered record until it leaves the
// in-flight cache.
type recInfo struct {
	producedMs  int64
	completedMs int64 // when its ACCEPT's state write committed (0: not yet)
	okBy        int32 // consumer that last processed it successfully
	okCount     uint16
	deliveries  uint16
	held        uint16   // deliveries of it a client holds and has not finished processing
	lostCause   DupCause // why an earlier successful processing did not stick (DupOther: unknown)
	pendingOK   bool     // processed successfully, ACCEPT not confirmed
	seen        bool
	back        BackCause // why it is available again (counted on its redelivery); backHeld while acquired
	tl          int32     // slot in the record sample (0: not followed)
	// producer is the producer of its batch + 1 as its first delivery found it (0: a marker,
	// or no batch), which keyOfDelivered needs instead of a log lookup.
	producer int32
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

// span is get for every offset of [first, last] at once: their infos in offset order (valid
// until the track next changes size).
func (t *recTrack) span(first, last int64) []recInfo {
	t.get(first)
	i := t.head + int(first-t.base)
	j := i + int(last-first) + 1
	if j > len(t.infos) {
		n := len(t.infos)
		t.infos = slices.Grow(t.infos, j-n)[:j]
		clear(t.infos[n:])
	}
	return t.infos[i:j]
}

func (t *recTrack) peek(off int64) *recInfo {
	i := t.head + int(off-t.base)
	if off < t.base || i >= len(t.infos) {
		return nil
	}
	return &t.infos[i]
}

// tracked returns the infos of the offsets of [first, last] that are tracked (peek finds
// them: a run, as the track holds a run of offsets), in offset order, and the offset of the
// first of them.
func (t *recTrack) tracked(first, last int64) ([]recInfo, int64) {
	lo, hi := max(first, t.base), min(last, t.base+int64(len(t.infos)-t.head)-1)
	if lo > hi {
		return nil, lo
	}
	return t.infos[t.head+int(lo-t.base) : t.head+int(hi-t.base)+1], lo
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

// start sizes the per-group figures for groups groups.
func (m *metrics) start(groups int) {
	m.lastKey = make([][]keyLast, groups)
	m.g = make([]counters, groups)
	m.gx = make([]groupExtra, groups)
	for gi := range m.gx {
		m.gx[gi].firstDeliveryMs = -1
	}
	m.kx = make([]kafkaGroup, groups)
	m.lat = make([]latencies, groups)
	m.silentLossFirst = -1
	m.initWindows()
}

// consumerAdded sizes the per-consumer counters for consumer slot c.
func (m *metrics) consumerAdded(c *consumer) {
	for len(m.c) <= int(c.idx) {
		m.c = append(m.c, consumerCounters{})
	}
}

// shareStats are what the metrics follow about one share-partition.
type shareStats struct {
	track recTrack
	// lsoCounted is the highest log start offset whose deleted offsets were counted.
	lsoCounted int64
	// frontier is the next offset not yet accounted for as finished (-1 before the first
	// load); every offset below it was finalized, deleted, skipped by the offset reset, or
	// held no record.
	frontier int64
	spso     spsoTracker
	// healFrontier is frontier when the healing phase started.
	healFrontier int64
	// lingering follows records that left the cache while clients held them.
	lingering map[int64]lingering
	// dlqDone marks offsets at or above frontier whose DLQ step ended (dlq.go).
	dlqDone map[int64]uint8
}

// st returns what the metrics follow about s.
func (m *metrics) st(s *sharePart) *shareStats { return &m.sps[s.id] }

// shareAdded starts following a new share-partition.
func (m *metrics) shareAdded(s *sharePart) {
	for len(m.sps) <= int(s.id) {
		m.sps = append(m.sps, shareStats{frontier: -1})
	}
}

// spsoTracker measures how long SPSO stays put while records after it are in flight.
type spsoTracker struct {
	last    int64
	sinceMs int64
	init    bool
	marked  bool
}

func (t *spsoTracker) observe(m *metrics, s *sharePart) {
	core := s.core
	spso := core.StartOffset()
	if !t.init || spso != t.last {
		t.last, t.sinceMs, t.init, t.marked = spso, m.now, true, false
		return
	}
	if core.InFlightCount() <= 1 {
		// Nothing waits behind the start offset: time idle is not time stuck.
		t.sinceMs, t.marked = m.now, false
		return
	}
	stuck := m.now - t.sinceMs
	gx := &m.gx[s.group]
	gx.spsoStuckMaxMs = max(gx.spsoStuckMaxMs, stuck)
	if !t.marked && stuck > m.configs.lockDurationMs(s.group) {
		t.marked = true
		m.mark("spso-stuck")
	}
}

type metrics struct {
	*engine
	*topology

	logs *logs

	configs *groupConfigs
	coord   *shareCoordinator

	sps []shareStats   // by share-partition
	cls []classicStats // by group (classic groups)

	// World-wide counts (requests and writes are not any one group's).
	produced, producedBatches int64
	writes, writesFailed      int64
	requests, ackRequests     int64
	// shareFetches and shareAcknowledges count ShareFetch and ShareAcknowledge requests.
	shareFetches, shareAcknowledges int64
	// brokerDelayMs sums the delays the broker cost model added (queueing and service).
	brokerDelayMs int64
	renewRequests int64
	bufferWaitMs  int64

	g   []counters         // by group
	c   []consumerCounters // by consumer slot
	gx  []groupExtra       // by group: distributions over the whole run
	lat []latencies        // by group: records produced inside the measurement window
	kx  []kafkaGroup       // by group: Kafka's distributions and gauge maxima
	kp  []kafkaPart        // by share-partition: the state Kafka's metrics need

	series          []Sample
	lastKey         [][]keyLast // [group][key], off -1 when unseen
	silentLossFirst int64

	win          windows
	dlqMetrics   []DLQMetrics
	dlqRollbacks []int64
	sample       *sampler // Options.SampleRecords
}

// groupExtra are one group's distributions and extremes over the whole run.
type groupExtra struct {
	dcHist            [12]int64 // finished offsets by delivery count (last bucket: or more)
	dcHistArchived    [12]int64 // the part of dcHist that finished without ACCEPT
	redeliverBy       [backCauses]int64
	reorderDist       hist.Hist // reorder distance in offsets
	reorderMaxOffsets int64
	reorderMaxMs      int64
	spsoStuckMaxMs    int64
	// firstDeliveryMs is when a consumer of the group was first handed a record (-1: never).
	firstDeliveryMs int64
	// noRecord counts offsets a start offset passed that held no record (compaction,
	// transaction markers) and that no finalization covered.
	noRecord int64
}

// histRun gathers equal values on their way to one histogram: the records of a producer
// batch share their produce time and are delivered, or completed, at one time, so the
// latencies of a range of records mostly repeat. add and flush count exactly what Add
// would count.
type histRun struct{ v, n int64 }

func (r *histRun) add(h *hist.Hist, v int64) {
	if v != r.v || r.n == 0 {
		r.next(h, v)
		return
	}
	r.n++
}

// next flushes the run and starts one of v.
func (r *histRun) next(h *hist.Hist, v int64) {
	r.flush(h)
	r.v, r.n = v, 1
}

func (r *histRun) flush(h *hist.Hist) {
	if r.n > 0 {
		h.AddN(r.v, r.n)
		r.n = 0
	}
}

type keyLast struct {
	off int64
	ms  int64
}

// inWindow reports whether a record produced at producedMs counts in the latency figures:
// those cover records produced inside the measurement window.
func (m *metrics) inWindow(producedMs int64) bool {
	return producedMs >= m.win.atMs[snapStart] && producedMs < m.win.atMs[snapEnd]
}

// appended counts n records a producer appended to p.
func (m *metrics) appended(p *partition, n int) {
	m.produced += int64(n)
	m.producedBatches++
	for _, gi := range p.readers {
		m.gc(gi).produced += int64(n)
	}
}

// markerAppended counts a transaction marker appended to p (an offset without a record).
func (m *metrics) markerAppended(p *partition) {
	for _, gi := range p.readers {
		m.gc(gi).controls++
	}
}

// polled counts the time the records a poll returned waited in the client's buffer.
func (m *metrics) polled(batch []delivery) {
	for _, d := range batch {
		m.bufferWaitMs += m.now - d.acquiredMs
	}
}

// renewsSent counts n ShareAcknowledge requests carrying RENEW.
func (m *metrics) renewsSent(n int) { m.renewRequests += int64(n) }

// requestSent counts a share request a client sends, and the acknowledgements it carries
// (Kafka's acknowledgements-send-total).
func (m *metrics) requestSent(r *request) {
	m.requests++
	if r.kind == reqFetch {
		m.shareFetches++
	} else if r.kind == reqAck {
		m.shareAcknowledges++
	}
	if r.kind == reqAck || len(r.acks) > 0 {
		m.ackRequests++
	}
	m.acksSent(r)
}

// brokerDelay counts ms the broker cost model added to a request or a response.
func (m *metrics) brokerDelay(ms int64) { m.brokerDelayMs += ms }

// delivered records the records a fetch acquired.
func (m *metrics) delivered(s *sharePart, r *request, ar model.AcquiredRange) {
	ss := m.st(s)
	p := m.parts[s.part]
	g, gx := m.gc(s.group), &m.gx[s.group]
	n := ar.Last - ar.First + 1
	if gx.firstDeliveryMs < 0 {
		gx.firstDeliveryMs = m.now
	}
	g.deliveries += n
	m.cc(r.consumer).deliveries += n
	if ar.DeliveryCount > 1 {
		g.redeliveries += n
		m.mark("redelivery")
	}
	var b plog.Batch // the batch holding off, once looked up (b.Last < off: not yet)
	found := false
	b.Last = ar.First - 1
	firstLat := &m.lat[s.group].firstDelivery
	var lats histRun
	infos := ss.track.span(ar.First, ar.Last)
	for k := range infos {
		off, info := ar.First+int64(k), &infos[k]
		if !info.seen {
			info.seen = true
			if off > b.Last {
				b, found = p.log.BatchAt(off)
				if !found {
					b.Last = off // look again at the next offset
				}
			}
			if found {
				info.producedMs = b.TimestampMs
				if !b.Control {
					info.producer = b.Producer + 1
				}
			}
			g.delivered++
			if ar.DeliveryCount == 1 && m.inWindow(info.producedMs) {
				lats.add(firstLat, m.now-info.producedMs)
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
			gx.redeliverBy[cause]++
		}
		info.back = backHeld
		if m.sample != nil {
			m.lifeAcquired(s, info, r.member, ar.DeliveryCount)
		}
	}
	lats.flush(firstLat)
}

// lingering is what the simulator keeps about a record that left the in-flight cache while
// clients still held deliveries of it: whether one of its processings succeeded, and how many
// deliveries are still out. It is dropped when the last one is finished or dropped, so its
// size is bounded by the records clients hold.
type lingering struct {
	okCount uint16
	held    uint16
}

// received records the deliveries of s's records [from, to) reaching their client.
func (m *metrics) received(s *sharePart, from, to int64) {
	ss := m.st(s)
	infos, lo := ss.track.tracked(from, to-1)
	for k := range infos {
		infos[k].held++
	}
	if len(infos) == int(to-from) || len(ss.lingering) == 0 {
		return
	}
	for off := from; off < to; off++ { // the offsets the track does not hold
		if off >= lo && off < lo+int64(len(infos)) {
			continue
		}
		if l, ok := ss.lingering[off]; ok {
			l.held++
			ss.lingering[off] = l
		}
	}
}

// unheld records that a client finished (or dropped) a delivery.
func (m *metrics) unheld(ss *shareStats, off int64) {
	if info := ss.track.peek(off); info != nil {
		if info.held > 0 {
			info.held--
		}
		return
	}
	if l, ok := ss.lingering[off]; ok {
		if l.held <= 1 {
			delete(ss.lingering, off)
			return
		}
		l.held--
		ss.lingering[off] = l
	}
}

// dropped records that a restarting consumer lost the deliveries it held.
func (m *metrics) dropped(c *consumer) {
	if m.groups[c.group].classic != nil {
		return
	}
	for _, d := range c.buffer {
		m.unheld(&m.sps[d.sp], d.off)
	}
	for i, d := range c.batch {
		if i >= len(c.done) || !c.done[i] {
			m.unheld(&m.sps[d.sp], d.off)
		}
	}
}

// abandoned adds the processing time a dying consumer spent on records it will never
// finish: its threads were busy until now (busy time is otherwise counted when a
// processing ends).
func (m *metrics) abandoned(c *consumer) {
	var ms int64
	if cl := c.cl; cl != nil {
		for k := cl.head; k < cl.nextStart && k < len(cl.held); k++ {
			if !cl.done[k] {
				ms += m.now - cl.held[k].startMs
			}
		}
	} else {
		for i := 0; i < c.next && i < len(c.batch); i++ {
			if i >= len(c.done) || !c.done[i] {
				ms += m.now - c.batch[i].startMs
			}
		}
	}
	m.gc(c.group).busyMs += ms
	m.cc(c.idx).busyMs += ms
}

// processed records one processing completion that took durMs, of delivery d of s's
// record on partition p.
func (m *metrics) processed(c *consumer, s *sharePart, p *partition, d *delivery, ok bool, durMs int64) {
	g, cc := m.gc(c.group), m.cc(c.idx)
	g.processed++
	cc.processed++
	g.busyMs += durMs
	cc.busyMs += durMs
	ss := m.st(s)
	late := m.now > d.deadline
	info := ss.track.peek(d.off)
	if info == nil {
		// The record left the cache while this delivery was out (its lock expired, the
		// delivery limit or the log start archived it): a duplicate only if one of its
		// processings had succeeded before.
		l, known := ss.lingering[d.off]
		m.unheld(ss, d.off)
		if !ok {
			g.failedProcessing++
			return
		}
		if late {
			g.processedLate++
			m.mark("processed-after-lock-expiry")
		}
		g.processedOK++
		cc.processedOK++
		if !known || l.okCount > 0 {
			if !known || l.okCount == 1 {
				g.dupRecords++ // unknown: it may have been counted before (an upper bound then)
			}
			g.duplicates[DupLockExpiry]++
			m.mark("duplicate-processing")
		}
		if known {
			if cur, still := ss.lingering[d.off]; still {
				cur.okCount++
				ss.lingering[d.off] = cur
			}
		}
		m.noteOrder(s.group, s.part, d.off)
		return
	}
	if info.held > 0 {
		info.held-- // the client is done with this delivery (unheld)
	}
	if m.sample != nil {
		m.lifeEvent(info, "processed", c.member, processedDetail(ok, late))
	}
	if !ok {
		g.failedProcessing++
		return
	}
	g.processedOK++
	cc.processedOK++
	info.okCount++
	if info.okCount == 1 && info.seen && m.inWindow(info.producedMs) {
		m.lat[s.group].processed.Add(m.now - info.producedMs)
	}
	if info.okCount == 2 {
		g.dupRecords++
	}
	if info.okCount >= 2 {
		cause := info.lostCause
		if late && cause == DupOther {
			cause = DupLockExpiry // this processing is the one that outlived its lock
		}
		g.duplicates[cause]++
		m.mark("duplicate-processing")
	}
	info.lostCause = DupOther
	if d.epoch != p.leaderEpoch {
		info.lostCause = DupFailover // acquired from a former leader: the ack cannot stick
	}
	info.pendingOK, info.okBy = true, c.idx
	if late {
		g.processedLate++
		info.lostCause = DupLockExpiry
		m.mark("processed-after-lock-expiry")
	}
	key, keyed := m.logs.keyOfDelivered(p, d.off, info)
	m.noteKeyOrder(s.group, d.off, key, keyed)
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

// noteOrder measures reordering among records of the same key (per group).
func (m *metrics) noteOrder(gi, pi int32, off int64) {
	key, ok := m.logs.keyOf(m.parts[pi], off)
	m.noteKeyOrder(gi, off, key, ok)
}

// noteKeyOrder is noteOrder for a record whose key is known (keyed false: it has none).
func (m *metrics) noteKeyOrder(gi int32, off, key int64, keyed bool) {
	if !keyed {
		return
	}
	g, gx := m.gc(gi), &m.gx[gi]
	g.keyed++
	keys := m.lastKey[gi]
	if int64(len(keys)) <= key {
		for int64(len(keys)) <= key {
			keys = append(keys, keyLast{off: -1})
		}
		m.lastKey[gi] = keys
	}
	last := keys[key]
	if last.off > off {
		g.reordered++
		gx.reorderMaxOffsets = max(gx.reorderMaxOffsets, last.off-off)
		gx.reorderMaxMs = max(gx.reorderMaxMs, m.now-last.ms)
		gx.reorderDist.Add(last.off - off)
		m.mark("reordered")
		return
	}
	keys[key] = keyLast{off: off, ms: m.now}
}

// acksLost follows acknowledgements whose request timed out: the client never learns
// their outcome.
func (m *metrics) acksLost(r *request, pa *partAcks) {
	s := m.shares[pa.sp]
	ss := m.st(s)
	m.gc(s.group).acksLost += int64(len(pa.entries))
	for _, e := range pa.entries {
		info := ss.track.peek(e.off)
		if info != nil && e.t == model.AckAccept && info.pendingOK && info.lostCause == DupOther {
			info.lostCause = DupLostAck
		}
		m.lifeEvent(info, "ack-lost", r.member, e.t.String())
	}
}

// ackApplied follows acknowledgements as a leader applies them, with code.
func (m *metrics) ackApplied(r *request, pa *partAcks, code model.ErrorCode) {
	s := m.shares[pa.sp]
	ss := m.st(s)
	if code == model.ErrNone && m.sample == nil { // the common case, without the tests per entry
		for _, e := range pa.entries {
			if info := ss.track.peek(e.off); info != nil {
				noteAckBack(info, e.t)
			}
		}
		return
	}
	for _, e := range pa.entries {
		info := ss.track.peek(e.off)
		if info == nil {
			continue
		}
		if code != model.ErrNone {
			if m.sample != nil {
				m.lifeEvent(info, "ack", r.member, e.t.String()+" "+code.String())
			}
			continue
		}
		if m.sample != nil {
			m.lifeEvent(info, "ack", r.member, e.t.String())
		}
		noteAckBack(info, e.t)
	}
}

// noteAckBack notes what an applied acknowledgement of type t means for how the record may
// come back: released, or (accepted, rejected) only in a way the simulator did not see.
func noteAckBack(info *recInfo, t model.AckType) {
	switch t {
	case model.AckRelease:
		info.back = BackRelease
	case model.AckRenew:
	default:
		if info.back == backHeld {
			info.back = BackOther
		}
	}
}

// acksCompleted counts a request's acknowledgements the way Kafka's
// RecordAcknowledgementsPerSec does: per partition, once the acknowledgement completed
// without error, which is after its state write committed. It runs once per request, when
// its last write completed.
func (m *metrics) acksCompleted(r *request) {
	for i := range r.acks {
		pa := &r.acks[i]
		if r.result(pa.sp).ackCode != model.ErrNone {
			continue
		}
		g := m.gc(m.shares[pa.sp].group)
		for _, e := range pa.entries {
			g.acks[e.t]++
		}
	}
}

// writeCommitted records the ACCEPTs a state write made durable: their records are
// complete now (the produce-to-completion latency ends here, not when a response reaches
// the client).
func (m *metrics) writeCommitted(s *sharePart, wr *model.Write) {
	ss := m.st(s)
	if wr.Kind != model.WriteAck {
		return
	}
	g, lat := m.gc(s.group), &m.lat[s.group].completed
	var lats histRun
	for _, b := range wr.Batches {
		if b.State != model.Acknowledged {
			continue
		}
		infos, _ := ss.track.tracked(b.First, b.Last)
		for k := range infos {
			info := &infos[k]
			if !info.seen || info.completedMs != 0 {
				continue
			}
			info.completedMs = m.now
			g.completed++
			if m.inWindow(info.producedMs) {
				lats.add(lat, m.now-info.producedMs)
			}
		}
	}
	lats.flush(lat)
}

// ackAnswered records the outcome the client learns for its acknowledgements.
func (m *metrics) ackAnswered(r *request, pa *partAcks, code model.ErrorCode) {
	s := m.shares[pa.sp]
	ss := m.st(s)
	if code != model.ErrNone {
		m.gc(s.group).ackErrors += int64(len(pa.entries))
		m.mark("ack-error-" + code.String())
	}
	for _, e := range pa.entries {
		if e.t != model.AckAccept {
			continue
		}
		info := ss.track.peek(e.off)
		if info == nil {
			continue
		}
		switch {
		case code == model.ErrNone:
			info.pendingOK = false
		case info.lostCause == DupOther && code == model.ErrInvalidRecordState:
			info.lostCause = DupLockExpiry
		case info.lostCause == DupOther:
			info.lostCause = DupLostAck
		}
	}
}

// writeSent counts a state write sent to the share coordinator.
func (m *metrics) writeSent() { m.writes++ }

// writeDone follows a state write's answer: failed (an acknowledgement's write failing rolls
// it back), or committed; current says it was issued by s's current core.
func (m *metrics) writeDone(s *sharePart, wr *model.Write, err error, current bool) {
	if err != nil {
		m.writesFailed++
		if wr.Kind != model.WriteExpiry && wr.Kind != model.WriteDLQ {
			m.mark("ack-write-rolled-back")
		}
		return
	}
	if current {
		m.writeCommitted(s, wr)
	}
}

// expired attributes records processed but not yet accepted whose lock expired.
func (m *metrics) expired(s *sharePart, ws []*model.Write) {
	ss := m.st(s)
	for _, wr := range ws {
		for _, b := range wr.Batches {
			for off := b.First; off <= b.Last; off++ {
				info := ss.track.peek(off)
				if info != nil && info.pendingOK && info.lostCause == DupOther {
					info.lostCause = DupLockExpiry
				}
				if info != nil {
					info.back = BackLockExpiry
					m.lifeEvent(info, "lock-expired", "", "")
				}
			}
		}
	}
}

// released records why the records a leaving or dead member held are available again.
func (m *metrics) released(s *sharePart, member model.MemberID, wr *model.Write, crash bool) {
	ss := m.st(s)
	cause, detail := BackRelease, "leave"
	if crash {
		cause, detail = BackCrash, "crash"
	}
	for _, b := range wr.Batches {
		for off := b.First; off <= b.Last; off++ {
			if info := ss.track.peek(off); info != nil {
				info.back = cause
				m.lifeEvent(info, "released", member, detail)
			}
		}
	}
}

// evicted is s's core about to be discarded on its leader (failover, eviction). Offsets below
// the start offset whose cached batch was not dropped yet are final but not logged by the
// model (it logs whole batches as they go): they are counted now. Records processed but not
// yet accepted lose their acceptance.
func (m *metrics) evicted(s *sharePart) {
	ss := m.st(s)
	start := s.core.StartOffset()
	s.core.ForEachRecord(func(v model.RecordView) bool {
		if v.Offset >= start {
			return false
		}
		cause := v.Cause
		if cause == model.CauseNone {
			cause = model.CauseRestored
		}
		m.finalized(s, model.Finalized{First: v.Offset, Last: v.Offset, State: v.State, DeliveryCount: v.DeliveryCount, Cause: cause})
		return true
	})
	for i := ss.track.head; i < len(ss.track.infos); i++ {
		info := &ss.track.infos[i]
		if info.pendingOK && info.lostCause == DupOther {
			info.lostCause = DupFailover
		}
		if info.back == backHeld {
			info.back = BackFailover
			m.lifeEvent(info, "reverted", "", "")
		}
	}
}

// consumerGone attributes the records a dying consumer processed but did not get
// accepted.
func (m *metrics) consumerGone(c *consumer, cause DupCause) {
	for i, d := range c.batch {
		if i >= len(c.done) || !c.done[i] {
			continue
		}
		info := m.sps[d.sp].track.peek(d.off)
		if info != nil && info.pendingOK && info.okBy == c.idx && info.lostCause == DupOther {
			info.lostCause = cause
		}
	}
}

// coreOp follows a leader's operation on s's core: the gauges' maxima, the offsets that
// left the in-flight cache (finals, drained from the core), and how long the start offset
// stays put.
func (m *metrics) coreOp(s *sharePart, finals []model.Finalized) {
	ss := m.st(s)
	m.gauges(s)
	for _, f := range finals {
		m.noteDLQFinal(s, f)
		m.finalized(s, f)
	}
	ss.spso.observe(m, s)
}

// logStartMoving is a leader about to move s's start offset to the log start logStart (a
// fetch found the next fetch offset below it).
func (m *metrics) logStartMoving(s *sharePart, logStart int64) {
	ss := m.st(s)
	core := s.core
	beyond := core.EndOffset() + 1
	if core.InFlightCount() == 0 {
		beyond = core.EndOffset()
	}
	// Offsets below ss.lsoCounted were accounted for at an earlier move (the head rule can
	// step SPSO back below the log start, and the next fetch applies the move again).
	// They are counted as deleted when the accounting frontier passes them (checkGap).
	if never := logStart - max(beyond, core.StartOffset(), ss.lsoCounted); never > 0 {
		m.mark("retention-deleted-undelivered")
	}
	ss.lsoCounted = max(ss.lsoCounted, logStart)
}

// loaded is a leader's load of s's state completing with core, from snap.
func (m *metrics) loaded(s *sharePart, core *model.SharePartition, snap model.Snapshot) {
	ss := m.st(s)
	m.loadEnded(s)
	p := m.parts[s.part]
	if ss.frontier < 0 {
		// First load: offsets below the start offset were never offered to the group
		// (share.auto.offset.reset).
		// Offsets below the log start were deleted before the group first read the
		// partition; those between the log start and the start offset were skipped.
		ss.frontier = core.StartOffset()
		g := m.gc(s.group)
		logStart := p.log.StartOffset()
		g.skippedByReset += max(0, core.StartOffset()-logStart)
		if before := min(logStart, core.StartOffset()); before > 0 {
			g.deletedUndelivered += before
			g.deletedBeforeLoad += before
		}
		ss.lsoCounted = max(ss.lsoCounted, logStart)
	}
	// Load's head rule already dropped the terminal prefix of the stored state; those
	// offsets never come out of DrainFinalized, so they are counted here (finalized
	// ignores what an earlier leader already finalized).
	for _, pb := range snap.Batches {
		first, last := pb.First, min(pb.Last, core.StartOffset()-1)
		if first <= last && pb.State.Terminal() {
			cause := model.CauseRestored
			if pb.State == model.Archived && int(pb.DeliveryCount) >= m.configs.kafkaOf(s.group).DeliveryCountLimit {
				cause = model.CauseLimit // archived on its last attempt
			}
			m.finalized(s, model.Finalized{First: first, Last: last, State: pb.State, DeliveryCount: pb.DeliveryCount, Cause: cause})
		}
	}
}

// healStarted is the healing phase starting: progress is measured from here.
func (m *metrics) healStarted() {
	for _, s := range m.shares {
		m.st(s).healFrontier = m.st(s).frontier
	}
	for i := range m.cls {
		m.cls[i].healDoneTo = append([]int64(nil), m.cls[i].doneTo...)
	}
}

// finalized records offsets that left the in-flight cache with their final state.
func (m *metrics) finalized(s *sharePart, f model.Finalized) {
	ss := m.st(s)
	if f.Last < ss.frontier {
		return // finalized by an earlier leader already (a reload redoes its work)
	}
	if f.First > ss.frontier && ss.frontier >= 0 {
		m.checkGap(s, ss.frontier, f.First-1)
	}
	f.First = max(f.First, ss.frontier)
	ss.frontier = f.Last + 1
	n := f.Last - f.First + 1
	g, gx := m.gc(s.group), &m.gx[s.group]
	g.finished[f.Cause] += n
	dc := int(f.DeliveryCount)
	if dc >= len(gx.dcHist) {
		dc = len(gx.dcHist) - 1
	}
	gx.dcHist[dc] += n
	if f.Cause != model.CauseAccepted {
		gx.dcHistArchived[dc] += n
	}
	if m.sample != nil {
		for off := f.First; off <= f.Last; off++ {
			m.lifeFinished(s, off, ss.track.peek(off), f.Cause.String())
		}
	}
	switch f.Cause {
	case model.CauseLimit:
		m.mark("archived-at-limit")
	case model.CauseLogStart:
		m.mark("archived-by-retention")
	}
	infos, from := ss.track.tracked(f.First, f.Last)
	for k := range infos {
		if info := &infos[k]; info.held > 0 {
			if ss.lingering == nil {
				ss.lingering = map[int64]lingering{}
			}
			ss.lingering[from+int64(k)] = lingering{okCount: info.okCount, held: info.held}
		}
	}
	ss.track.trimTo(f.Last + 1)
}

// checkGap accounts for offsets SPSO passed without finalizing them: below the log start
// (deleted before delivery), or holding no record (compaction). A record still in the log
// would have been lost silently.
func (m *metrics) checkGap(s *sharePart, from, to int64) {
	p := m.parts[s.part]
	if del := min(to+1, p.log.StartOffset()) - from; del > 0 {
		m.gc(s.group).deletedUndelivered += del
	}
	for off := max(from, p.log.StartOffset()); off <= to; off++ {
		if !p.log.HasRecord(off) {
			m.gx[s.group].noRecord++
			continue
		}
		{
			m.gc(s.group).silentLoss++
			m.mark("silent-loss")
			if m.silentLossFirst < 0 {
				m.silentLossFirst = off
			}
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }
func sortInts(s []int)       { sort.Ints(s) }
