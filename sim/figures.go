package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/dist"
	"github.com/sharesim/sharesim/sim/hist"
)

// The figures a run reports, per group, each derived here from the counters (counters.go)
// and defined in docs/metrics.md. Rates are over the measurement window; totals are over the
// whole run, healing included.

// Window is the measurement window: [StartMs, EndMs) of virtual time.
type Window struct {
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
	// WarmupMs is the part of the production window skipped at its start.
	WarmupMs int64 `json:"warmup_ms"`
}

// LengthMs is the window's length.
func (w Window) LengthMs() int64 { return w.EndMs - w.StartMs }

// Counts are a group's counts over some span of the run (see docs/metrics.md).
type Counts struct {
	Produced                 int64            `json:"produced"`
	ControlRecords           int64            `json:"control_records"`
	Deliveries               int64            `json:"deliveries"`
	Redeliveries             int64            `json:"redeliveries"`
	Processed                int64            `json:"processed"`
	ProcessedOK              int64            `json:"processed_ok"`
	FailedProcessing         int64            `json:"failed_processing"`
	Duplicates               int64            `json:"duplicates"`
	DuplicatedRecords        int64            `json:"duplicated_records"`
	DuplicatesByCause        map[string]int64 `json:"duplicates_by_cause"`
	ProcessedAfterLockExpiry int64            `json:"processed_after_lock_expiry"`
	Completed                int64            `json:"completed"`
	Finished                 map[string]int64 `json:"finished"`
	DeletedUndelivered       int64            `json:"deleted_undelivered"`
	DeletedBeforeFirstLoad   int64            `json:"deleted_before_first_load"`
	SkippedByOffsetReset     int64            `json:"skipped_by_offset_reset"`
	AcquisitionLockTimeouts  int64            `json:"AcquisitionLockTimeouts"`
	RecordAcknowledgements   map[string]int64 `json:"RecordAcknowledgements"`
	GapAcknowledgements      int64            `json:"gap_acknowledgements"`
	AckErrors                int64            `json:"acknowledgements_failed"`
	AcksLost                 int64            `json:"acknowledgements_lost"`
	SilentLoss               int64            `json:"silent_loss"`
	KeyedProcessed           int64            `json:"keyed_processed"`
	Reordered                int64            `json:"reordered"`
	BusyMs                   int64            `json:"busy_ms"`
	ClassicReprocessed       int64            `json:"classic_reprocessed"`
}

func countsOf(c *counters) Counts {
	out := Counts{
		Produced: c.produced, ControlRecords: c.controls, Deliveries: c.deliveries, Redeliveries: c.redeliveries,
		Processed: c.processed, ProcessedOK: c.processedOK, FailedProcessing: c.failedProcessing,
		Duplicates: c.duplicatesTotal(), DuplicatedRecords: c.dupRecords, DuplicatesByCause: map[string]int64{}, ProcessedAfterLockExpiry: c.processedLate,
		Completed: c.completed, Finished: map[string]int64{}, DeletedUndelivered: c.deletedUndelivered,
		DeletedBeforeFirstLoad: c.deletedBeforeLoad, SkippedByOffsetReset: c.skippedByReset,
		AcquisitionLockTimeouts: c.lockTimeouts, RecordAcknowledgements: map[string]int64{},
		GapAcknowledgements: c.acks[model.AckGap], AckErrors: c.ackErrors, AcksLost: c.acksLost, SilentLoss: c.silentLoss,
		KeyedProcessed: c.keyed, Reordered: c.reordered, BusyMs: c.busyMs, ClassicReprocessed: c.classicReprocessed,
	}
	for i, d := range c.duplicates {
		out.DuplicatesByCause[DupCause(i).String()] = d
	}
	for cause, n := range c.finished {
		if n > 0 {
			out.Finished[model.Cause(cause).String()] = n
		}
	}
	for t, n := range c.acks {
		if model.AckType(t) != model.AckGap {
			out.RecordAcknowledgements[model.AckType(t).String()] = n
		}
	}
	return out
}

// Rates are a group's rates over the measurement window.
type Rates struct {
	WindowMs int64 `json:"window_ms"`
	// ArrivalPerSec is records produced to the group's partitions per second.
	ArrivalPerSec float64 `json:"arrival_per_sec"`
	// CompletedPerSec is records completed per second (share: ACCEPT committed; classic:
	// passed by an offset commit): the group's throughput.
	CompletedPerSec float64 `json:"completed_per_sec"`
	// FinishedPerSec is records that reached any end per second: completed, or archived
	// (rejected, at the delivery limit, ...), or deleted before delivery.
	FinishedPerSec      float64 `json:"finished_per_sec"`
	DuplicatesPerHour   float64 `json:"duplicates_per_hour"`
	RedeliveriesPerHour float64 `json:"redeliveries_per_hour"`
	LockTimeoutsPerHour float64 `json:"lock_timeouts_per_hour"`
	// DuplicateFraction is duplicates per successful processing in the window.
	DuplicateFraction float64 `json:"duplicate_fraction"`
}

// perSec is n events over windowMs as a rate per second (0 for an empty window).
func perSec(n, windowMs int64) float64 {
	if windowMs <= 0 {
		return 0
	}
	return float64(n) * 1000 / float64(windowMs)
}

// perHour is n events over windowMs as a rate per hour.
func perHour(n, windowMs int64) float64 { return perSec(n, windowMs) * 3600 }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// finishedTotal is every record that reached an end: completed, archived or rejected, or
// deleted before delivery (terminal causes other than ACCEPT count once they leave the
// cache; ACCEPTs count when they commit).
func finishedTotal(c *counters) int64 {
	n := c.completed + c.deletedUndelivered
	for cause, k := range c.finished {
		switch model.Cause(cause) {
		case model.CauseAccepted, model.CauseRestored, model.CauseNone, model.CauseGap: // GAP: offsets without a record
		default:
			n += k
		}
	}
	return n
}

func ratesOf(in *counters, win Window) Rates {
	ms := win.LengthMs()
	return Rates{
		WindowMs: ms, ArrivalPerSec: perSec(in.produced, ms), CompletedPerSec: perSec(in.completed, ms),
		FinishedPerSec: perSec(finishedTotal(in), ms), DuplicatesPerHour: perHour(in.duplicatesTotal(), ms),
		RedeliveriesPerHour: perHour(in.redeliveries, ms), LockTimeoutsPerHour: perHour(in.lockTimeouts, ms),
		DuplicateFraction: ratio(in.duplicatesTotal(), in.processedOK),
	}
}

// Latency is one latency distribution in virtual ms. The quantiles are nearest-rank, exact
// below hist.Exact ms and within hist.MaxRelativeError above; nil when Count is 0.
type Latency struct {
	Count   int64         `json:"count"`
	P50Ms   *int64        `json:"p50_ms"`
	P90Ms   *int64        `json:"p90_ms"`
	P99Ms   *int64        `json:"p99_ms"`
	MaxMs   *int64        `json:"max_ms"`
	MeanMs  *float64      `json:"mean_ms"`
	Buckets []hist.Bucket `json:"buckets,omitempty"`
}

func latencyOf(h *hist.Hist) Latency {
	l := Latency{Count: h.Count()}
	if h.Count() == 0 {
		return l
	}
	q := func(x float64) *int64 { v, _ := h.Quantile(x); return &v }
	mx, mean := h.Max(), h.Mean()
	l.P50Ms, l.P90Ms, l.P99Ms, l.MaxMs, l.MeanMs = q(0.5), q(0.9), q(0.99), &mx, &mean
	l.Buckets = h.Buckets(60)
	return l
}

// Latencies are a group's three latencies, for records produced inside the window.
type Latencies struct {
	// FirstDelivery is produce → the record's first delivery to a consumer.
	FirstDelivery Latency `json:"first_delivery"`
	// Processed is produce → the end of its first successful processing.
	Processed Latency `json:"processed"`
	// Completed is produce → its completion committing: share groups, the state write of
	// its ACCEPT succeeded at the leader; classic groups, an offset commit passed it.
	Completed Latency `json:"completed"`
}

// Accounting puts every offset of the group's partitions in exactly one bucket at the end of
// the run. Offsets = Σ log end offsets = records + control records; Sum adds every bucket and
// equals Offsets unless the simulator lost track of one (the records-accounted check).
type Accounting struct {
	Offsets int64 `json:"offsets"`
	// Finished offsets left the in-flight cache (share) or were committed past (classic), by
	// cause: accepted, rejected, gap, limit, log-start, compacted, aborted, restored, committed.
	Finished map[string]int64 `json:"finished"`
	// Completed but still inside the in-flight cache (terminal above SPSO), by cause.
	TerminalInCache map[string]int64 `json:"terminal_in_cache"`
	// NoRecord offsets were passed holding no record (compacted away, transaction markers).
	NoRecord int64 `json:"no_record"`
	// DeletedUndelivered offsets were deleted by the log start before any delivery,
	// DeletedBeforeFirstLoad of them before the group first read the partition.
	DeletedUndelivered     int64 `json:"deleted_undelivered"`
	DeletedBeforeFirstLoad int64 `json:"deleted_before_first_load"`
	SkippedByOffsetReset   int64 `json:"skipped_by_offset_reset"`
	// SilentLoss offsets held a record and were passed with no final state.
	SilentLoss int64 `json:"silent_loss"`
	// Unfinished offsets at the end, by state: available, acquired, write-pending (a state
	// write outstanding), unread (not read into the cache yet), not-loaded (the partition's
	// state is not loaded on its leader), uncommitted (classic).
	Unfinished      map[string]int64 `json:"unfinished"`
	UnfinishedTotal int64            `json:"unfinished_total"`
	Sum             int64            `json:"sum"`
	Balanced        bool             `json:"balanced"`
}

func (a *Accounting) add(m *map[string]int64, k string, n int64) {
	if n == 0 {
		return
	}
	if *m == nil {
		*m = map[string]int64{}
	}
	(*m)[k] += n
}

// accounting classifies every offset of group gi at the end of the run.
func (m *metrics) accounting(gi int32) Accounting {
	g, c := m.groups[gi], m.gc(gi)
	a := Accounting{Finished: map[string]int64{}, TerminalInCache: map[string]int64{}, Unfinished: map[string]int64{},
		DeletedUndelivered: c.deletedUndelivered, DeletedBeforeFirstLoad: c.deletedBeforeLoad,
		SkippedByOffsetReset: c.skippedByReset, SilentLoss: c.silentLoss, NoRecord: m.gx[gi].noRecord}
	for cause, n := range c.finished {
		if n > 0 {
			a.Finished[model.Cause(cause).String()] = n
		}
	}
	for _, sp := range g.sps {
		m.accountShare(&a, m.shares[sp])
	}
	if g.classic != nil {
		m.accountClassic(&a, g)
	}
	for _, n := range a.Unfinished {
		a.UnfinishedTotal += n
	}
	a.Sum = a.NoRecord + a.DeletedUndelivered + a.SkippedByOffsetReset + a.SilentLoss + a.UnfinishedTotal
	for _, n := range a.Finished {
		a.Sum += n
	}
	for _, n := range a.TerminalInCache {
		a.Sum += n
	}
	a.Balanced = a.Sum == a.Offsets
	return a
}

// accountShare adds one share-partition's end state: offsets at or above its frontier (every
// offset below it was counted as it finished, was deleted or skipped).
func (m *metrics) accountShare(a *Accounting, s *sharePart) {
	ss := m.st(s)
	p := m.parts[s.part]
	logStart, logEnd := p.log.StartOffset(), p.log.EndOffset()
	a.Offsets += logEnd
	if ss.frontier < 0 {
		// Never loaded: what retention removed was deleted before the first load.
		a.DeletedUndelivered += logStart
		a.DeletedBeforeFirstLoad += logStart
		a.add(&a.Unfinished, "not-loaded", logEnd-logStart)
		return
	}
	from := ss.frontier
	if s.core == nil {
		// Evicted or failed over and not reloaded yet: the durable state says where the
		// start is; what lies above it is unfinished as far as anyone knows.
		a.add(&a.Unfinished, "not-loaded", max(0, logEnd-max(from, logStart)))
		a.DeletedUndelivered += max(0, logStart-from)
		return
	}
	core := s.core
	spso := core.StartOffset()
	// gap classifies offsets [lo, hi) that no cached batch holds.
	gap := func(lo, hi int64) {
		if lo >= hi {
			return
		}
		if del := min(hi, logStart) - lo; del > 0 {
			a.DeletedUndelivered += del // the leader applies the move at its next fetch
			lo += del
		}
		if above := hi - max(lo, spso); above > 0 {
			a.add(&a.Unfinished, "unread", above) // not read yet (beyond the cache, or a reload's gap window)
			hi -= above
		}
		for off := lo; off < hi; off++ { // below SPSO, passed without a final state
			if p.log.HasRecord(off) {
				a.SilentLoss++
			} else {
				a.NoRecord++
			}
		}
	}
	next := from
	core.ForEachRecord(func(v model.RecordView) bool {
		if v.Offset < from {
			return true
		}
		gap(next, v.Offset)
		next = v.Offset + 1
		switch {
		case v.Pending:
			a.add(&a.Unfinished, "write-pending", 1)
		case v.State.Terminal():
			a.add(&a.TerminalInCache, v.Cause.String(), 1)
		case v.State == model.Acquired:
			a.add(&a.Unfinished, "acquired", 1)
		case v.State == model.Archiving:
			a.add(&a.Unfinished, "archiving", 1) // 4.4: waiting for its DLQ step
		default:
			a.add(&a.Unfinished, "available", 1)
		}
		return true
	})
	gap(next, logEnd)
}

// accountClassic adds a classic group's end state.
func (m *metrics) accountClassic(a *Accounting, g *groupState) {
	doneTo := m.cls[g.idx].doneTo
	a.add(&a.Finished, "committed", m.gc(g.idx).completed)
	for i, pi := range g.parts {
		p := m.parts[pi]
		logEnd := p.log.EndOffset()
		a.Offsets += logEnd
		if doneTo[i] < 0 {
			a.DeletedUndelivered += p.log.StartOffset()
			a.DeletedBeforeFirstLoad += p.log.StartOffset()
			a.add(&a.Unfinished, "not-loaded", logEnd-p.log.StartOffset())
			continue
		}
		a.add(&a.Unfinished, "uncommitted", logEnd-doneTo[i])
	}
}

// KeepUp says whether a group kept up with its arrivals in the window, and if not, why.
type KeepUp struct {
	// KeptUp: the backlog grew over the window's second half by at most 5 % of the records
	// that arrived in it plus one poll (max.poll.records) per consumer.
	KeptUp bool `json:"kept_up"`
	// ArrivalPerSec and FinishedPerSec are over the whole window.
	ArrivalPerSec  float64 `json:"arrival_per_sec"`
	FinishedPerSec float64 `json:"finished_per_sec"`
	// BacklogStart, BacklogMid and BacklogEnd are the unfinished offsets at the window's
	// start, middle and end; BacklogGrowthPerSec is (end − mid) over the second half.
	BacklogStart        int64   `json:"backlog_start"`
	BacklogMid          int64   `json:"backlog_mid"`
	BacklogEnd          int64   `json:"backlog_end"`
	BacklogGrowthPerSec float64 `json:"backlog_growth_per_sec"`
	// ConsumersWithWork of Consumers were handed at least one record in the window.
	Consumers         int `json:"consumers"`
	ConsumersWithWork int `json:"consumers_with_work"`
	// Top10Share is the fraction of the window's successful processings done by the busiest
	// 10 % of consumers (at least one).
	Top10Share float64 `json:"top10_share"`
	// MeanBusy is the mean over consumers of the fraction of thread time spent processing.
	MeanBusy float64 `json:"mean_busy"`
	// Limits are the capacity bounds that follow from the configuration, in records/s: over
	// the whole window, time-weighted over the configurations in force when config-change
	// or add-partitions faults move them (capphases.go).
	Limits []Limit `json:"limits"`
	// Phases are the bounds of each stretch of the window with one configuration in force,
	// when there are several (absent otherwise).
	Phases []LimitPhase `json:"phases,omitempty"`
	// Reason says in one line why it did not keep up, and Advice what would help (empty when
	// it kept up).
	Reason string `json:"reason,omitempty"`
	Advice string `json:"advice,omitempty"`
}

// Limit is one capacity bound on a group's completion rate.
type Limit struct {
	// Name is processing, in-flight-cap or partitions.
	Name string `json:"name"`
	// RecordsPerSec is the most the bound lets the group finish per second.
	RecordsPerSec float64 `json:"records_per_sec"`
	// Explain shows the arithmetic.
	Explain string `json:"explain"`
}

// ConsumerFigures are one consumer slot's figures over the window.
type ConsumerFigures struct {
	Name        string  `json:"name"`
	Deliveries  int64   `json:"deliveries"`
	Processed   int64   `json:"processed"`
	ProcessedOK int64   `json:"processed_ok"`
	BusyMs      int64   `json:"busy_ms"`
	Threads     int     `json:"threads"`
	Busy        float64 `json:"busy"` // BusyMs / (window × threads)
}

// keepUpTolerance is the share of the second half's arrivals the backlog may grow by.
const keepUpTolerance = 0.05

func (m *metrics) keepUp(gi int32, win Window, in *counters, cons []ConsumerFigures) KeepUp {
	wt := &m.win
	k := KeepUp{ArrivalPerSec: perSec(in.produced, win.LengthMs()), FinishedPerSec: perSec(finishedTotal(in), win.LengthMs()),
		Consumers: len(cons)}
	if len(wt.taken[snapEnd].backlog) > int(gi) {
		k.BacklogStart, k.BacklogMid, k.BacklogEnd = wt.taken[snapStart].backlog[gi], wt.taken[snapMid].backlog[gi], wt.taken[snapEnd].backlog[gi]
	}
	half := wt.atMs[snapEnd] - wt.atMs[snapMid]
	growth := k.BacklogEnd - k.BacklogMid
	k.BacklogGrowthPerSec = perSec(growth, half)
	var arrivedHalf int64
	if len(wt.taken[snapEnd].groups) > int(gi) {
		arrivedHalf = wt.taken[snapEnd].groups[gi].produced - wt.taken[snapMid].groups[gi].produced
	}
	var slack int64 // one poll per consumer of the group
	for _, cs := range m.groups[gi].cfg.Consumers {
		slack += int64(max(cs.Count, 1) * cs.MaxPollRecords)
	}
	var oks []int64
	var busy float64
	for _, c := range cons {
		if c.Deliveries > 0 {
			k.ConsumersWithWork++
		}
		oks = append(oks, c.ProcessedOK)
		busy += c.Busy
	}
	if len(cons) > 0 {
		k.MeanBusy = busy / float64(len(cons))
		sort.Slice(oks, func(i, j int) bool { return oks[i] > oks[j] })
		top := max(1, (len(oks)+9)/10)
		var all, topN int64
		for i, n := range oks {
			all += n
			if i < top {
				topN += n
			}
		}
		k.Top10Share = ratio(topN, all)
	}
	backlogOK := float64(growth) <= keepUpTolerance*float64(arrivedHalf)+float64(slack)
	// Records that left the backlog without completing (archived at the delivery limit, by
	// retention, rejected) count as finished, so the backlog alone calls a group that gives
	// up on most of its records one that kept up: it must also complete at least half of
	// what arrived (plus one poll per consumer, for a window with few arrivals).
	completedOK := 2*(in.completed+slack) >= in.produced
	k.KeptUp = backlogOK && completedOK
	k.Limits, k.Phases = m.capacityLimits(gi, in, win)
	switch {
	case !backlogOK:
		k.Reason, k.Advice = m.explainOverload(gi, k)
	case !completedOK:
		k.Reason = fmt.Sprintf("the backlog did not grow, but only %.1f of the %.1f records/s that arrived completed: %.1f/s ended otherwise (%s)",
			perSec(in.completed, win.LengthMs()), k.ArrivalPerSec, math.Max(0, k.FinishedPerSec-perSec(in.completed, win.LengthMs())), endedOtherwise(in))
		k.Advice = "look at why records end without completing: the delivery count limit, failures, retention"
	}
	return k
}

// endedOtherwise lists the window's offsets that ended without completing, by cause.
func endedOtherwise(in *counters) string {
	var parts []string
	for cause, n := range in.finished {
		switch model.Cause(cause) {
		case model.CauseAccepted, model.CauseRestored, model.CauseNone, model.CauseGap:
			continue
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", model.Cause(cause), n))
		}
	}
	if in.deletedUndelivered > 0 {
		parts = append(parts, fmt.Sprintf("deleted before delivery %d", in.deletedUndelivered))
	}
	if len(parts) == 0 {
		return "none finished otherwise: nothing completed"
	}
	return strings.Join(parts, ", ")
}

// capacityLimits are the bounds the configuration puts on a group's completion rate. The
// processing bound is Little's law over the processing slots: slots ÷ mean processing time,
// divided by the deliveries each record needed in the window. The in-flight cap bound: a
// share-partition holds at most group.share.partition.max.record.locks records, each for
// about the time its consumer takes for a whole poll (blocking style: max.poll.records ×
// mean ÷ threads), so each partition finishes at most cap ÷ that time. The cap, the lock
// and the partitions are those in force: each phase of the window in which they stay put
// gets its own bounds, and the window's are their time-weighted means (capphases.go).
func (m *metrics) capacityLimits(gi int32, in *counters, win Window) ([]Limit, []LimitPhase) {
	phases := m.capPhasesOf(gi, win.StartMs, win.EndMs)
	per := make([][]Limit, len(phases))
	var out []LimitPhase
	for i := range phases {
		per[i] = m.phaseLimits(gi, in, &phases[i])
		if len(phases) > 1 {
			out = append(out, LimitPhase{FromMs: phases[i].fromMs, ToMs: phases[i].toMs, Limits: per[i]})
		}
	}
	return combinePhaseLimits(phases, per), out
}

// phaseLimits are capacityLimits for one phase of the window.
func (m *metrics) phaseLimits(gi int32, in *counters, ph *capPhase) []Limit {
	g := m.groups[gi]
	var slots, rate float64 // rate: records per ms all slots together can process
	var mpr, threads, count int
	for _, cs := range g.cfg.Consumers {
		n := max(cs.Count, 1)
		t := max(cs.Threads, 1)
		mean := cs.Processing.Mean() * slowFactor(&cs)
		slots += float64(n * t)
		if mean > 0 {
			rate += float64(n*t) / mean
		}
		mpr += cs.MaxPollRecords * n
		threads += t * n
		count += n
	}
	if slots == 0 || count == 0 || rate == 0 {
		return nil
	}
	// meanMs is the slots' harmonic mean processing time: slots ÷ meanMs is the sum of every
	// slot's own rate, so faster consumers count for what they do.
	meanMs := slots / rate
	perRecord := math.Max(1, ratio(in.deliveries, in.deliveries-in.redeliveries))
	var out []Limit
	if meanMs > 0 {
		out = append(out, Limit{Name: "processing", RecordsPerSec: slots * 1000 / meanMs / perRecord,
			Explain: fmt.Sprintf("%.0f processing slots ÷ mean processing %.0f ms ÷ %.2f deliveries per record", slots, meanMs, perRecord)})
	}
	parts := ph.parts
	if l, ok := m.stragglerLimit(gi, perRecord, parts); ok {
		out = append(out, l)
	}
	if g.cfg.Type == ClassicGroup {
		if meanMs > 0 && parts < count {
			perThread := float64(threads) / float64(count)
			out = append(out, Limit{Name: "partitions", RecordsPerSec: float64(parts) * perThread * 1000 / meanMs / perRecord,
				Explain: fmt.Sprintf("a classic group uses at most one consumer per partition: %d partitions × %.0f threads ÷ mean processing %.0f ms", parts, perThread, meanMs)})
		}
		return out
	}
	capRecs := float64(ph.cfg.PartitionMaxRecordLocks)
	poll := float64(mpr) / float64(count)
	hold := m.recordsPerFetch(gi, poll)
	perThread := float64(threads) / float64(count)
	if meanMs > 0 && hold > 0 {
		lock := float64(ph.cfg.RecordLockDurationMs)
		pollMs := hold * meanMs / perThread // a blocking consumer acknowledges a poll when it has processed all of it
		if pollMs > lock {
			out = append(out, Limit{Name: "lock-duration", RecordsPerSec: 0,
				Explain: fmt.Sprintf("a poll of %.0f records takes ≈ %.0f ms to process (× %.0f ms ÷ %.0f threads), longer than the %.0f ms lock, so its acknowledgements arrive after the locks expired",
					hold, pollMs, meanMs, perThread, lock)})
		}
		busyPer := math.Max(1, math.Floor(capRecs/hold))
		holdMs := math.Min(pollMs, lock) // a lock ends the hold at the latest
		out = append(out, Limit{Name: "in-flight-cap", RecordsPerSec: float64(parts) * capRecs * 1000 / holdMs / perRecord,
			Explain: fmt.Sprintf("%d partitions × cap %.0f records, each held ≈ %.0f ms (a fetch of %.0f records × %.0f ms ÷ %.0f threads, at most the lock): at most %.0f consumers per partition hold records",
				parts, capRecs, holdMs, hold, meanMs, perThread, busyPer)})
	}
	return out
}

// stragglerLimit is the blocking-straggler bound: a blocking consumer polls again only
// when every record of its poll is done, so a poll of h records on t threads takes at least
// max(h × mean ÷ t, E[the slowest of h processing times]) and the consumer finishes at most
// h records per that time. Only blocking specs count; a classic group's consumers without a
// partition do nothing, so a spec counts for at most its share of the parts partitions.
func (m *metrics) stragglerLimit(gi int32, perRecord float64, parts int) (Limit, bool) {
	g := m.groups[gi]
	var rate float64 // records per ms
	var explain []string
	tighter := false // the slowest record, not the sum of the poll, sets some spec's pace
	total := 0
	for _, cs := range g.cfg.Consumers {
		total += max(cs.Count, 1)
	}
	for _, cs := range g.cfg.Consumers {
		if cs.Style != StyleBlocking || cs.Processing == nil {
			return Limit{}, false // a continuous client does not wait for its slowest record
		}
		n := float64(max(cs.Count, 1))
		if g.cfg.Type == ClassicGroup && total > parts {
			n = n * float64(parts) / float64(total)
		}
		t := float64(max(cs.Threads, 1))
		h := float64(max(cs.MaxPollRecords, 1))
		if g.cfg.Type != ClassicGroup {
			h = m.recordsPerFetch(gi, h)
		}
		f := slowFactor(&cs)
		mean := cs.Processing.Mean() * f
		slowest := expectedMax(cs.Processing, int(h)) * f
		poll := math.Max(h*mean/t, slowest)
		if poll <= 0 {
			return Limit{}, false
		}
		tighter = tighter || slowest > h*mean/t
		rate += n * h / poll
		explain = append(explain, fmt.Sprintf("%.0f consumers × %.0f records per poll ÷ %.0f ms per poll (the slowest of %.0f records ≈ %.0f ms; %.0f × %.0f ms ÷ %.0f threads = %.0f ms)",
			n, h, poll, h, slowest, h, mean, t, h*mean/t))
	}
	if rate <= 0 || !tighter {
		return Limit{}, false
	}
	return Limit{Name: "blocking-straggler", RecordsPerSec: rate * 1000 / perRecord, Explain: strings.Join(explain, " + ")}, true
}

// expectedMax is the expected largest of n independent draws of d, by the midpoint rule
// over its quantile function: E[max] = ∫₀¹ Q(u^(1/n)) du.
func expectedMax(d dist.Dist, n int) float64 {
	if n <= 1 {
		return d.Mean()
	}
	const steps = 400
	var sum float64
	for i := 0; i < steps; i++ {
		u := (float64(i) + 0.5) / steps
		sum += d.Quantile(math.Pow(u, 1/float64(n)))
	}
	return sum / steps
}

// recordsPerFetch is how many records one fetch of a consumer asking for poll records
// holds: in batch_optimized mode whole producer batches, so at least one batch.
func (m *metrics) recordsPerFetch(gi int32, poll float64) float64 {
	if m.groupAcquireMode(gi) == model.RecordLimit {
		return poll
	}
	b := m.producerBatch(gi)
	if b <= 0 {
		return poll
	}
	return math.Ceil(poll/b) * b
}

// producerBatch is the mean records per producer batch on the group's topics (0: none).
func (m *metrics) producerBatch(gi int32) float64 {
	g := m.groups[gi]
	var n, sum float64
	for i, p := range m.cfg.Producers {
		for _, t := range g.cfg.Topics {
			if p.Topic == t {
				n++
				sum += m.producers[i].meanBatchRecords()
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// heldBack lists what may hold a group below its bounds: a classic group has no locks.
func heldBack(classic bool) string {
	if classic {
		return "faults, rebalances, a partition owned by a slow consumer"
	}
	return "faults, lock expiries, rebalances"
}

// explainOverload names the tightest capacity bound below the arrival rate, and what would
// lift it.
func (m *metrics) explainOverload(gi int32, k KeepUp) (reason, advice string) {
	var tight *Limit
	for i := range k.Limits {
		l := &k.Limits[i]
		if tight == nil || l.RecordsPerSec < tight.RecordsPerSec {
			tight = l
		}
	}
	win := m.win.atMs
	if p, l, ok := phaseBelow(k, win[snapMid]); ok && (tight == nil || tight.RecordsPerSec >= k.ArrivalPerSec) {
		// No bound of the whole window is below the arrival rate, but one of a phase in the
		// second half (where the backlog grew) is: that phase's configuration held it back.
		tight = &Limit{Name: l.Name, RecordsPerSec: l.RecordsPerSec,
			Explain: fmt.Sprintf("from %s to %s, with the configuration then in force: %s", FormatMs(p.FromMs), FormatMs(p.ToMs), l.Explain)}
	}
	if first, ok := m.firstConsumerStart(gi); !ok || first >= win[snapEnd] {
		at := "never"
		if ok {
			at = "at " + FormatMs(first)
		}
		return fmt.Sprintf("no consumer of the group ran in the window (%s–%s): the first starts %s, so the %d records that arrived waited",
				FormatMs(win[snapStart]), FormatMs(win[snapEnd]), at, k.BacklogEnd),
			"start the consumers earlier, or measure from when they run (warmup)"
	} else if late := first - win[snapStart]; late > (win[snapEnd]-win[snapStart])/10 {
		reason = fmt.Sprintf("no consumer ran before %s, %s into the window, so the records of that time waited; ", FormatMs(first), FormatMs(late))
		if tight == nil || tight.RecordsPerSec >= k.ArrivalPerSec {
			return reason + fmt.Sprintf("no capacity bound is below the arrival rate of %.1f/s", k.ArrivalPerSec),
				"a warmup of at least " + FormatMs(late) + " measures the group once it runs"
		}
	}
	if tight == nil || tight.RecordsPerSec >= k.ArrivalPerSec {
		reason += fmt.Sprintf("the backlog grew by %.1f records/s in the second half of the window, although no capacity bound is below the arrival rate of %.1f/s", k.BacklogGrowthPerSec, k.ArrivalPerSec)
		if m.groups[gi].classic != nil {
			// A classic group has no locks or start offset; a partition goes at the pace of
			// the one consumer that owns it, which the group-wide bounds do not see.
			return reason + " (faults, rebalances, or a partition owned by a consumer slower than the partition's arrivals?)",
				"look at the committed offsets per partition (the offsets plot) and each consumer's busy fraction"
		}
		return reason + " (faults, lock expiries, a stuck start offset?)", "look at the redeliveries by cause and the start offset plot"
	}
	need := k.ArrivalPerSec / math.Max(tight.RecordsPerSec, 1e-9)
	reason += fmt.Sprintf("%s limits it to %.1f records/s (%s) while %.1f/s arrive; it finished %.1f/s",
		tight.Name, tight.RecordsPerSec, tight.Explain, k.ArrivalPerSec, k.FinishedPerSec)
	if k.FinishedPerSec < 0.8*tight.RecordsPerSec {
		// Far below even the tightest bound: something else held the group back as well.
		if stuck := m.gx[gi].spsoStuckMaxMs; stuck > 0 && m.groups[gi].classic == nil {
			reason += fmt.Sprintf(", well below that bound: something else held it back too (faults, lock expiries, a start offset that stood still up to %s?)", FormatMs(stuck))
		} else {
			reason += ", well below that bound: something else held it back too (" + heldBack(m.groups[gi].classic != nil) + "?)"
		}
	}
	switch tight.Name {
	case "processing":
		advice = fmt.Sprintf("about %.1f× the processing slots (more consumers or threads) or processing %.1f× faster", need, need)
	case "partitions":
		advice = fmt.Sprintf("about %.1f× the partitions, or a share group", need)
	case "blocking-straggler":
		advice = fmt.Sprintf("about %.1f× the throughput: a consumer waits for the slowest record of each poll, so smaller polls (max.poll.records), more consumers, or processing that does not wait for the whole poll (continuous style, or acknowledging each record as it finishes)", need)
	case "lock-duration":
		// The shortest lock in force in the window: the one a poll outlasted.
		lo, _ := m.configs.groupInForce(gi).Range(m.win.atMs[snapStart], m.win.atMs[snapEnd], LockMsOf)
		lock := float64(lo)
		// The largest poll whose processing fits in the lock, for the slowest consumer spec.
		most := math.Inf(1)
		for _, cs := range m.groups[gi].cfg.Consumers {
			if mean := cs.Processing.Mean() * slowFactor(&cs); mean > 0 {
				most = math.Min(most, math.Floor(lock*float64(max(cs.Threads, 1))/mean))
			}
		}
		return reason, fmt.Sprintf("max.poll.records of at most %.0f, a share.record.lock.duration.ms above the poll's processing time, more threads per consumer, or acknowledging each record as it finishes", math.Max(1, most))
	case "in-flight-cap":
		hint := "raise group.share.partition.max.record.locks or lower max.poll.records"
		if m.groupAcquireMode(gi) != model.RecordLimit && m.producerBatch(gi) > 1 {
			hint += ", or share.acquire.mode=record_limit (producer batches of " + fmt.Sprintf("%.0f", m.producerBatch(gi)) + " records are acquired whole)"
		}
		advice = fmt.Sprintf("about %.1f× the in-flight capacity: %s, or more partitions", need, hint)
	}
	return reason, advice
}

// phaseBelow returns the tightest bound below the arrival rate among the phases that reach
// into the window's second half (after midMs), and its phase.
func phaseBelow(k KeepUp, midMs int64) (LimitPhase, Limit, bool) {
	var bp LimitPhase
	var bl Limit
	found := false
	for _, p := range k.Phases {
		if p.ToMs <= midMs {
			continue
		}
		for _, l := range p.Limits {
			if l.RecordsPerSec < k.ArrivalPerSec && (!found || l.RecordsPerSec < bl.RecordsPerSec) {
				bp, bl, found = p, l, true
			}
		}
	}
	return bp, bl, found
}

// firstConsumerStart is when the group's first consumer instance starts (false: none).
func (m *metrics) firstConsumerStart(gi int32) (int64, bool) {
	first, ok := int64(0), false
	for _, cs := range m.groups[gi].cfg.Consumers {
		if !ok || cs.StartMs < first {
			first, ok = cs.StartMs, true
		}
	}
	return first, ok
}

// FormatMs prints virtual milliseconds as the printed summary does: 850ms, 12.5s, 3m20s, 1h02m.
func FormatMs(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "s"
	case ms < 3_600_000:
		return fmt.Sprintf("%dm%02ds", ms/60_000, ms%60_000/1000)
	}
	return fmt.Sprintf("%dh%02dm", ms/3_600_000, ms%3_600_000/60_000)
}

// groupAcquireMode is the share.acquire.mode of the group's first consumer spec.
func (m *metrics) groupAcquireMode(gi int32) model.AcquireMode {
	if cs := m.groups[gi].cfg.Consumers; len(cs) > 0 {
		return cs[0].AcquireMode
	}
	return model.BatchOptimized
}

func slowFactor(cs *ConsumerSpec) float64 {
	if cs.SlowFactor <= 0 {
		return 1
	}
	return cs.SlowFactor
}
