package proptest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/model/refspec"
	"pgregory.net/rapid"
)

const (
	lockMs        = 1000
	logBatchMax   = 6 // producer batch size 1..logBatchMax
	compactGapMax = 3 // a compaction gap skips 1..compactGapMax offsets
)

var members = []string{"m1", "m2", "m3"}

// pair is one outstanding write as issued by the core and by the spec.
type pair struct {
	core *model.Write // a clone, stable after CompleteWrite
	spec *refspec.Write
}

// machine drives the core and the spec side by side.
type machine struct {
	cfg    model.Config
	core   *model.SharePartition
	spec   *refspec.Spec
	cstore *model.StateStore
	sstore *refspec.Store

	log              []model.LogBatch
	logStart, logEnd int64
	now              int64
	epoch            int32
	writes           []pair
	held             map[string][]model.AcquiredRange // recent acquisitions, to aim acks at
	// inRead is a share fetch between its log read and its acquire (nil when none). It
	// holds the partition's fetch lock: no other fetch starts until it is acquired.
	inRead *pendingRead
	// stateEpoch is the share coordinator's current state epoch.
	stateEpoch int32
	// limitLowered: a 4.3 group config change lowered the delivery count limit, after
	// which Kafka leaves AVAILABLE records at or above the new limit.
	limitLowered bool

	rebuilding bool // inside rebuild: fenced late writes do not rebuild again

	dead  bool     // a known core bug was hit: stop comparing
	trace []string // actions so far, printed with a failure (rapid truncates its log)

	// storeRegressed: the share coordinator's stored start offset moved back (4.2, 4.3).
	storeRegressed bool
	// Invariant memory, reset on failover (a new leader may legitimately show less).
	lastSPSO  int64
	lastViews map[int64]model.RecordView
}

func newMachine(t *rapid.T, v model.Version) *machine {
	cfg := model.DefaultConfig()
	cfg.Version = v
	cfg.RelaxRanges = true
	cfg.RecordLockDurationMs = lockMs
	cfg.DeliveryCountLimit = rapid.IntRange(2, 5).Draw(t, "limit")
	cfg.PartitionMaxRecordLocks = rapid.IntRange(3, 20).Draw(t, "cap")
	if rapid.IntRange(0, 3).Draw(t, "readCommitted") == 0 {
		cfg.IsolationLevel = model.ReadCommitted
	}
	if v >= model.Kafka43 {
		cfg.DisableRenewAcknowledge = rapid.IntRange(0, 3).Draw(t, "noRenew") == 0
	}
	if v >= model.Kafka44 && rapid.IntRange(0, 3).Draw(t, "dlq") != 0 {
		cfg.DLQTopic = "dlq.proptest" // the dead-letter queue on, most of the time
	}
	core, err := model.New(cfg, 0)
	if err != nil {
		t.Fatalf("model.New: %v", err)
	}
	// Worlds start at a non-zero state epoch as often as not: a core that lost the epoch
	// anywhere (load, reset, writes) is fenced by the share coordinator.
	se := int32(rapid.IntRange(0, 3).Draw(t, "stateEpoch"))
	m := &machine{
		cfg: cfg, core: core, spec: refspec.New(specConfig(cfg), 0),
		cstore: model.NewStateStore(se, -1).ForVersion(v), sstore: refspec.NewStore(se, -1), stateEpoch: se,
		held: map[string][]model.AcquiredRange{}, lastViews: map[int64]model.RecordView{},
	}
	m.sstore.V = specConfig(cfg).Version
	m.core.SetEpochs(se, 0)
	m.spec.SetEpochs(se, 0)
	return m
}

func (m *machine) logf(t *rapid.T, format string, args ...any) {
	m.trace = append(m.trace, fmt.Sprintf(format, args...))
	t.Logf(format, args...)
}

func (m *machine) fatalf(t fataler, format string, args ...any) {
	t.Fatalf(format+"\nconfig %s limit %d cap %d %v\ntrace:\n  %s", append(args, m.cfg.Version,
		m.cfg.DeliveryCountLimit, m.cfg.PartitionMaxRecordLocks, m.cfg.IsolationLevel, strings.Join(m.trace, "\n  "))...)
}

func specConfig(c model.Config) refspec.Config {
	v := refspec.V42
	switch c.Version {
	case model.Kafka41:
		v = refspec.V41
	case model.Kafka43:
		v = refspec.V43
	case model.Kafka44:
		v = refspec.V44
	}
	return refspec.Config{Version: v, LockMs: c.RecordLockDurationMs, Limit: c.DeliveryCountLimit,
		Cap: int64(c.PartitionMaxRecordLocks), ReadCommitted: c.IsolationLevel == model.ReadCommitted,
		NoRenew: c.DisableRenewAcknowledge, DLQ: c.DLQEnabled()}
}

func (m *machine) actions() map[string]func(*rapid.T) {
	// rapid picks keys uniformly: repeated keys weight the common operations, and the
	// disruptive ones (release, log-start move, failover) fire only part of the time.
	acts := map[string]func(*rapid.T){
		"":          m.check,
		"produce":   m.produce,
		"produce2":  m.produce,
		"produce3":  m.produce,
		"fetch":     m.fetch,
		"fetch2":    m.fetch,
		"fetch3":    m.fetch,
		"fetch4":    m.fetch,
		"read":      m.read,
		"read2":     m.read,
		"acquire":   m.acquire,
		"acquire2":  m.acquire,
		"ack":       m.ack,
		"ackHeld":   m.ackHeld,
		"ackOwned":  m.ackOwned,
		"ackOwned2": m.ackOwned,
		"ackOwned3": m.ackOwned,
		"time":      m.advance,
		"time2":     m.advance,
		"complete":  m.complete,
		"complete2": m.complete,
		"release":   m.sometimes(2, m.release),
		"logStart":  m.sometimes(3, m.moveLogStart),
		"failover":  m.sometimes(4, m.failover),
		"reinit":    m.sometimes(6, m.reinit),
	}
	if m.cfg.Version >= model.Kafka43 {
		acts["groupConfig"] = m.sometimes(3, m.groupConfig)
	}
	if m.cfg.Version >= model.Kafka44 {
		acts["dlq"] = m.dlq
		acts["dlq2"] = m.dlq
		acts["dlqGate"] = m.sometimes(6, m.dlqGate)
	}
	for name, act := range acts {
		acts[name] = func(t *rapid.T) {
			if !m.dead {
				coverage.steps.Add(1)
				act(t)
			}
		}
	}
	return acts
}

// sometimes runs act with probability 1/n.
func (m *machine) sometimes(n int, act func(*rapid.T)) func(*rapid.T) {
	return func(t *rapid.T) {
		if rapid.IntRange(1, n).Draw(t, "roll") == 1 {
			act(t)
		}
	}
}

// ---- actions ----

func (m *machine) produce(t *rapid.T) {
	first := m.logEnd
	if rapid.IntRange(0, 7).Draw(t, "gapRoll") == 0 {
		first += int64(rapid.IntRange(1, compactGapMax).Draw(t, "gap"))
	}
	size := int64(rapid.IntRange(1, logBatchMax).Draw(t, "size"))
	b := model.LogBatch{First: first, Last: first + size - 1, Aborted: rapid.IntRange(0, 5).Draw(t, "abortRoll") == 0}
	m.log = append(m.log, b)
	m.logEnd = b.Last + 1
	m.logf(t, "produce %+v", b)
}

// pendingRead is a share fetch that has read the log and not yet acquired.
type pendingRead struct {
	member string
	p      model.FetchParams
	f      int64
	read   []model.LogBatch
}

// fetch is the one-step share fetch: gate, read at the next fetch offset, acquire.
func (m *machine) fetch(t *rapid.T) {
	if m.inRead != nil {
		m.logf(t, "fetch: fetch lock held by a read at %d", m.inRead.f)
		return
	}
	if pr := m.drawRead(t); pr != nil {
		m.doAcquire(t, pr, true)
	}
}

// read is the first half of a share fetch: the gate and the log read, with the acquire
// left for a later step so that other operations land in between.
func (m *machine) read(t *rapid.T) {
	if m.inRead != nil {
		return
	}
	if pr := m.drawRead(t); pr != nil {
		fr, err := m.core.BeginFetch()
		if err != nil || !fr.Open || fr.FetchOffset != pr.f {
			m.fatalf(t, "BeginFetch %+v, %v disagrees with the gate and next fetch offset %d", fr, err, pr.f)
		}
		m.logf(t, "read %s at %d %+v → %v (acquire later)", pr.member, pr.f, pr.p, pr.read)
		coverage.windows.Add(1)
		m.inRead = pr
	}
}

// acquire is the second half: the fetch acquires what it read, at the offset it read from.
func (m *machine) acquire(t *rapid.T) {
	if pr := m.inRead; pr != nil {
		m.inRead = nil
		m.doAcquire(t, pr, false)
	}
}

// drawRead draws a member and fetch parameters and reads the log at the next fetch offset,
// or returns nil when the gate is closed, the log start moved past the offset (applied
// here, as the leader does on OFFSET_OUT_OF_RANGE) or there is nothing to read.
func (m *machine) drawRead(t *rapid.T) *pendingRead {
	member := rapid.SampledFrom(members).Draw(t, "member")
	if !m.core.CanAcquire() {
		m.logf(t, "fetch %s: gate closed", member)
		return nil
	}
	f := m.core.NextFetchOffset()
	if f < m.logStart {
		m.logf(t, "fetch %s at %d: below log start %d → MoveLogStartOffset", member, f, m.logStart)
		m.core.MoveLogStartOffset(m.logStart)
		m.spec.MoveLogStartOffset(m.logStart)
		return nil
	}
	var avail []model.LogBatch
	for _, b := range m.log {
		if b.Last >= f {
			avail = append(avail, b)
		}
	}
	if len(avail) == 0 {
		return nil
	}
	read := avail[:rapid.IntRange(1, len(avail)).Draw(t, "readBatches")]
	p := model.FetchParams{
		MaxRecords: rapid.IntRange(1, 10).Draw(t, "maxRecords"),
		BatchSize:  rapid.IntRange(1, 10).Draw(t, "batchSize"),
	}
	if m.cfg.Version >= model.Kafka42 && rapid.IntRange(0, 2).Draw(t, "modeRoll") == 0 {
		p.Mode = model.RecordLimit
	}
	return &pendingRead{member: member, p: p, f: f, read: append([]model.LogBatch(nil), read...)}
}

// doAcquire acquires what pr read on both sides and compares. oneStep says nothing ran
// since the read (the invariants that assume so are checked only then).
func (m *machine) doAcquire(t *rapid.T, pr *pendingRead, oneStep bool) {
	member, p, f, read := pr.member, pr.p, pr.f, pr.read
	spsoBefore := m.core.StartOffset()
	stale := false // a cached batch lies wholly below SPSO (after a log-start move)
	m.core.ForEachBatch(func(b model.BatchView) bool { stale = stale || b.Last < spsoBefore; return true })
	got, err, panicked := m.coreAcquire(member, p, f, read, oneStep)
	if panicked != nil {
		if strings.Contains(fmt.Sprint(panicked), "negative shift") &&
			m.known(t, bugThrottlePanic, "core Acquire panicked: %v", panicked) {
			return
		}
		m.fatalf(t, "core Acquire panicked: %v", panicked)
	}
	if err != nil {
		m.fatalf(t, "core Acquire: %v", err)
	}
	sread := make([]refspec.LogBatch, len(read))
	for i, b := range read {
		sread[i] = refspec.LogBatch{First: b.First, Last: b.Last, Aborted: b.Aborted}
	}
	want := m.spec.AcquireAt(m.now, member, p.MaxRecords, p.BatchSize, refspec.Mode(p.Mode), f, sread)
	how := "fetch"
	if !oneStep {
		how = "acquire (window)"
		if got != nil || want != nil {
			coverage.windowAcquired.Add(1)
		}
	}
	m.logf(t, "%s %s at %d %+v read %v → core %v spec %v", how, member, f, p, read, got, want)
	for _, r := range got {
		if oneStep && r.First < spsoBefore && !stale && m.cfg.Version >= model.Kafka42 {
			// Kafka 4.2 (and §4.3 step 4 literally) acquires below SPSO when stale
			// batches remain below it, and 4.1 has no step-4 adjustment at all
			// (§4.5); only the other cases break the invariant.
			m.fatalf(t, "invariant nothing-below-spso: acquired %+v below SPSO %d", r, spsoBefore)
		}
	}
	if !reflect.DeepEqual(coreRanges(got), want) {
		if sameOffsetsMerged(coreRanges(got), want) &&
			m.known(t, bugMergeAcrossBatches, "core %v spec %v", got, want) {
			return
		}
		if m.cfg.Version == model.Kafka42 && throttleFirstD(coreRanges(got), want, m.cfg.DeliveryCountLimit) &&
			m.known(t, readingThrottleD, "core %v spec %v", got, want) {
			return
		}
		if cutInGap(read, coreRanges(got), want) {
			if m.known(t, bugCutRoundsDownInGap, "core %v spec %v", got, want) {
				return
			}
		}
		m.fatalf(t, "acquired ranges differ: core %v, spec %v", got, want)
	}
	if w := m.core.InFlightCount(); m.cfg.Version == model.Kafka42 && len(got) > 0 && !m.storeRegressed &&
		w > int64(m.cfg.PartitionMaxRecordLocks)+logBatchMax+compactGapMax {
		m.fatalf(t, "invariant inflight-within-cap: window %d, cap %d", w, m.cfg.PartitionMaxRecordLocks)
	}
	// A new first cache batch sets SPSO to its start (§4.4); two known core slips.
	if c, sp, sb := m.core.StartOffset(), m.spec.SPSO(), m.spec.Batches(); c == spsoBefore && sp != c && sb[0].First == sp {
		if sp > c && len(sb) > 1 && m.known(t, bugSPSOSplitSpan, "core SPSO %d, spec %d", c, sp) {
			return
		}
		if sp < c && m.cfg.Version == model.Kafka41 && m.known(t, bugNewFirstBatch41, "core SPSO %d, spec %d", c, sp) {
			return
		}
	}
	if len(got) > 0 {
		coverage.acquired.Add(1)
	}
	m.held[member] = append(m.held[member], got...)
	if n := len(m.held[member]); n > 8 {
		m.held[member] = m.held[member][n-8:]
	}
}

func (m *machine) coreAcquire(member string, p model.FetchParams, f int64, read []model.LogBatch, oneStep bool) (got []model.AcquiredRange, err error, panicked any) {
	defer func() { panicked = recover() }()
	if oneStep {
		got, err = m.core.Acquire(m.now, model.MemberID(member), p, read, nil)
	} else {
		got, err = m.core.AcquireFetched(m.now, model.MemberID(member), p, f, read, nil)
	}
	return got, err, nil
}

func drawType(t *rapid.T, label string) model.AckType {
	// Mostly valid types; 5 is never valid, RENEW is invalid in 4.1.
	return model.AckType(rapid.SampledFrom([]int{0, 1, 1, 2, 2, 3, 4, 5}).Draw(t, label))
}

func drawTypes(t *rapid.T, n int64) []model.AckType {
	switch rapid.IntRange(0, 9).Draw(t, "typesShape") {
	case 0: // wrong length or empty
		k := rapid.IntRange(0, int(n)+1).Draw(t, "badLen")
		if int64(k) == n && n > 1 {
			k++
		}
		out := make([]model.AckType, k)
		for i := range out {
			out[i] = drawType(t, "type")
		}
		return out
	case 1, 2, 3: // one type per offset
		out := make([]model.AckType, n)
		for i := range out {
			out[i] = drawType(t, "type")
		}
		return out
	}
	return []model.AckType{drawType(t, "type")}
}

// ack acknowledges random ranges around the in-flight window.
func (m *machine) ack(t *rapid.T) {
	member := rapid.SampledFrom(members).Draw(t, "member")
	lo := max(0, m.core.StartOffset()-2)
	hi := max(lo, m.core.EndOffset()+2)
	var ranges []model.AckRange
	for range rapid.IntRange(1, 3).Draw(t, "nRanges") {
		first := rapid.Int64Range(lo, hi).Draw(t, "first")
		last := first + rapid.Int64Range(-1, 4).Draw(t, "len")
		ranges = append(ranges, model.AckRange{First: first, Last: last, Types: drawTypes(t, max(1, last-first+1))})
	}
	if rapid.IntRange(0, 9).Draw(t, "unsorted") != 0 {
		sortRanges(ranges)
	}
	m.doAck(t, member, ranges)
}

// ackHeld acknowledges parts of ranges the member was given recently.
func (m *machine) ackHeld(t *rapid.T) {
	member := rapid.SampledFrom(members).Draw(t, "member")
	h := m.held[member]
	if len(h) == 0 {
		return
	}
	var ranges []model.AckRange
	for range rapid.IntRange(1, 3).Draw(t, "nRanges") {
		r := h[rapid.IntRange(0, len(h)-1).Draw(t, "which")]
		first := rapid.Int64Range(r.First, r.Last).Draw(t, "first")
		last := rapid.Int64Range(first, r.Last).Draw(t, "last")
		if rapid.IntRange(0, 2).Draw(t, "whole") == 0 {
			first, last = r.First, r.Last
		}
		ranges = append(ranges, model.AckRange{First: first, Last: last, Types: drawTypes(t, last-first+1)})
	}
	sortRanges(ranges)
	m.doAck(t, member, ranges)
}

// ackOwned acknowledges runs of offsets the member holds right now (read from the
// core's view; both sides get the same request), mostly with ACCEPT.
func (m *machine) ackOwned(t *rapid.T) {
	member := rapid.SampledFrom(members).Draw(t, "member")
	var runs []model.AckRange
	m.core.ForEachRecord(func(v model.RecordView) bool {
		if v.State == model.Acquired && !v.Pending && v.Owner == model.MemberID(member) {
			if n := len(runs); n > 0 && runs[n-1].Last == v.Offset-1 {
				runs[n-1].Last = v.Offset
			} else {
				runs = append(runs, model.AckRange{First: v.Offset, Last: v.Offset})
			}
		}
		return true
	})
	if len(runs) == 0 {
		return
	}
	var ranges []model.AckRange
	for _, r := range runs {
		if rapid.IntRange(0, 2).Draw(t, "skipRun") == 0 {
			continue
		}
		if rapid.IntRange(0, 2).Draw(t, "partRun") == 0 {
			r.First = rapid.Int64Range(r.First, r.Last).Draw(t, "first")
			r.Last = rapid.Int64Range(r.First, r.Last).Draw(t, "last")
		}
		ty := model.AckType(rapid.SampledFrom([]int{1, 1, 1, 1, 2, 2, 3, 0, 4}).Draw(t, "ownedType"))
		if m.cfg.Version == model.Kafka41 && ty == model.AckRenew {
			ty = model.AckAccept
		}
		r.Types = []model.AckType{ty}
		if rapid.IntRange(0, 4).Draw(t, "perOffset") == 0 {
			r.Types = drawTypes(t, r.Last-r.First+1)
		}
		ranges = append(ranges, r)
	}
	if len(ranges) > 0 {
		m.doAck(t, member, ranges)
	}
}

func sortRanges(rs []model.AckRange) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].First < rs[j-1].First; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func (m *machine) doAck(t *rapid.T, member string, ranges []model.AckRange) {
	sranges := make([]refspec.AckRange, len(ranges))
	for i, r := range ranges {
		ts := make([]refspec.AckType, len(r.Types))
		for j, x := range r.Types {
			ts[j] = refspec.AckType(x)
		}
		sranges[i] = refspec.AckRange{First: r.First, Last: r.Last, Types: ts}
	}
	cw, err := m.core.Acknowledge(m.now, model.MemberID(member), ranges)
	code, sw := m.spec.Acknowledge(m.now, member, sranges)
	m.logf(t, "ack %s %v → core %v/%v spec %v/%v", member, ranges, model.CodeOf(err), fmtWrite(cw), code, fmtSpecWrite(sw))
	if want := specCode(code); model.CodeOf(err) != want {
		m.fatalf(t, "ack outcome differs: core %v (%v), spec %v", model.CodeOf(err), err, want)
	}
	if err == nil {
		coverage.ackOK.Add(1)
	} else {
		coverage.ackErr.Add(1)
	}
	m.pairWrites(t, "ack", single(cw), specSingle(sw))
}

func (m *machine) advance(t *rapid.T) {
	if d, ok := m.core.NextDeadline(); ok && d > m.now && rapid.IntRange(0, 3).Draw(t, "toDeadline") == 0 {
		m.now = d
	} else {
		m.now += rapid.Int64Range(0, 2*lockMs).Draw(t, "dt")
	}
	cw := m.core.ExpireLocks(m.now, nil)
	sw := m.spec.ExpireLocks(m.now)
	m.logf(t, "time → %d: %d core / %d spec expiry writes", m.now, len(cw), len(sw))
	coverage.expiryWrites.Add(int64(len(cw)))
	m.pairWrites(t, "expiry", cw, sw)
}

func (m *machine) release(t *rapid.T) {
	member := rapid.SampledFrom(members).Draw(t, "member")
	cw := m.core.ReleaseMember(m.now, model.MemberID(member))
	sw := m.spec.ReleaseMember(member)
	m.logf(t, "release %s → core %v spec %v", member, fmtWrite(cw), fmtSpecWrite(sw))
	if m.cfg.Version == model.Kafka41 && cw != nil && (sw == nil || len(writeEntries(cw)) > len(sw.Entries)) &&
		m.known(t, bugRelease19953_41, "core %s spec %s", fmtWrite(cw), fmtSpecWrite(sw)) {
		return
	}
	if cw != nil {
		coverage.releases.Add(1)
	}
	m.pairWrites(t, "release", single(cw), specSingle(sw))
	delete(m.held, member)
}

func (m *machine) complete(t *rapid.T) {
	if len(m.writes) == 0 {
		return
	}
	i := rapid.IntRange(0, len(m.writes)-1).Draw(t, "which")
	ok := rapid.IntRange(0, 3).Draw(t, "failRoll") != 0
	m.completeAt(t, i, ok)
}

// completeAt completes writes[i]: a successful write goes to both stores first.
func (m *machine) completeAt(t *rapid.T, i int, ok bool) {
	p := m.writes[i]
	m.writes = append(m.writes[:i], m.writes[i+1:]...)
	var werr error = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1, Msg: "injected"}
	if !ok && rapid.IntRange(0, 3).Draw(t, "errRoll") == 0 {
		// Any error of the persister's vocabulary; the fencing ones discard the core.
		werr = &model.Error{Code: rapid.SampledFrom(model.PersisterErrors).Draw(t, "writeErr"), Offset: -1, Msg: "injected"}
	}
	if !ok && p.core.Kind != model.WriteExpiry {
		coverage.rollbacks.Add(1)
	}
	if ok {
		before := m.cstore.StartOffset()
		werr = m.cstore.Write(p.core)
		if werr == nil && m.cstore.StartOffset() < before {
			// Kafka 4.2/4.3's share coordinator stored a late write's lower start offset
			// (docs/findings.md, start-offset-regresses): a leader that loads it starts
			// further back, and its window can exceed the cap (Kafka's would too).
			m.storeRegressed = true
		}
		if got, want := model.CodeOf(werr), specCode(m.sstore.Write(p.spec)); got != want {
			m.fatalf(t, "store write outcome differs: core %v spec %v", got, want)
		}
	}
	m.logf(t, "complete write %d/%d ok=%v err=%v", p.core.ID, p.spec.ID, ok, werr)
	if err := m.core.CompleteWrite(m.now, p.core.ID, werr); err != nil {
		m.fatalf(t, "core CompleteWrite(%d): %v", p.core.ID, err)
	}
	if !m.spec.CompleteWrite(p.spec.ID, werr == nil) {
		m.fatalf(t, "spec CompleteWrite(%d): unknown id", p.spec.ID)
	}
	if p.core.Kind != model.WriteExpiry && model.IsFencingWriteError(werr) && !m.rebuilding {
		// The leader discards the fenced share-partition; the next fetch builds a new
		// one at the same leader epoch from the (re-initialised) state.
		m.logf(t, "write %d fenced (%v): rebuild", p.core.ID, werr)
		m.rebuild(t)
	}
}

// reinit re-initialises the durable state (alter offsets, resubscription) with a higher
// state epoch and a new start offset (or none); the leader finds out at its next write.
func (m *machine) reinit(t *rapid.T) {
	m.stateEpoch += int32(rapid.IntRange(1, 2).Draw(t, "epochStep"))
	start := int64(-1)
	if rapid.Bool().Draw(t, "reinitStart") {
		start = rapid.Int64Range(m.logStart, max(m.logStart, m.logEnd)).Draw(t, "reinitOffset")
	}
	m.cstore.Reinitialize(m.stateEpoch, start)
	m.sstore.Reinitialize(m.stateEpoch, start)
	coverage.reinits.Add(1)
	m.logf(t, "reinitialize: state epoch %d, start %d", m.stateEpoch, start)
}

// groupConfig changes Kafka 4.3's dynamic group configs on both sides.
func (m *machine) groupConfig(t *rapid.T) {
	limit := rapid.IntRange(2, 5).Draw(t, "newLimit")
	cap := rapid.IntRange(3, 20).Draw(t, "newCap")
	renew := rapid.Bool().Draw(t, "renew")
	if err := m.core.SetDeliveryCountLimit(limit); err != nil {
		m.fatalf(t, "SetDeliveryCountLimit: %v", err)
	}
	if err := m.core.SetPartitionMaxRecordLocks(cap); err != nil {
		m.fatalf(t, "SetPartitionMaxRecordLocks: %v", err)
	}
	if err := m.core.SetRenewAcknowledge(renew); err != nil {
		m.fatalf(t, "SetRenewAcknowledge: %v", err)
	}
	m.limitLowered = m.limitLowered || limit < m.cfg.DeliveryCountLimit
	m.cfg = m.core.Config()
	m.spec.SetGroupConfig(limit, int64(cap), renew)
	m.logf(t, "group config: limit %d cap %d renew %v", limit, cap, renew)
}

// dlq ends one outstanding dead-letter-queue produce (4.4) on both sides, produced or
// failed (the core archives either way), and pairs the ARCHIVED writes.
func (m *machine) dlq(t *rapid.T) {
	qs := m.core.OutstandingDLQ(nil)
	if len(qs) == 0 {
		return
	}
	q := qs[rapid.IntRange(0, len(qs)-1).Draw(t, "dlqWhich")]
	var perr error
	if rapid.IntRange(0, 3).Draw(t, "dlqFail") == 0 {
		perr = fmt.Errorf("injected DLQ produce failure")
	}
	cw, err := m.core.CompleteDLQ(m.now, q.ID, perr)
	if err != nil {
		m.fatalf(t, "CompleteDLQ(%d): %v", q.ID, err)
	}
	sw := m.spec.CompleteDLQ(q.First, q.Last)
	coverage.dlqSteps.Add(1)
	m.logf(t, "DLQ %d-%d (%s, err %v) → core %v spec %v", q.First, q.Last, q.Cause, perr, fmtWrite(cw), fmtSpecWrite(sw))
	m.pairWrites(t, "dlq", single(cw), specSingle(sw))
}

// dlqGate sets or clears errors.deadletterqueue.topic.name (4.4) on both sides.
func (m *machine) dlqGate(t *rapid.T) {
	topic := ""
	if rapid.Bool().Draw(t, "dlqOn") {
		topic = "dlq.proptest"
	}
	if err := m.core.SetDLQTopic(topic); err != nil {
		m.fatalf(t, "SetDLQTopic: %v", err)
	}
	m.cfg = m.core.Config()
	m.spec.SetDLQ(m.cfg.DLQEnabled())
	m.logf(t, "DLQ gate %v", m.cfg.DLQEnabled())
}

func (m *machine) moveLogStart(t *rapid.T) {
	if m.logStart >= m.logEnd {
		return
	}
	m.logStart = rapid.Int64Range(m.logStart+1, min(m.logEnd, m.logStart+8)).Draw(t, "logStart")
	eager := rapid.Bool().Draw(t, "eager")
	m.logf(t, "log start → %d (eager %v)", m.logStart, eager)
	coverage.lsoMoves.Add(1)
	if eager {
		m.core.MoveLogStartOffset(m.logStart)
		m.spec.MoveLogStartOffset(m.logStart)
	}
}

// failover completes, abandons or leaves as zombies the outstanding writes, then
// rebuilds both sides from their stores under a new leader epoch.
func (m *machine) failover(t *rapid.T) {
	var zombies []pair
	for len(m.writes) > 0 {
		switch rapid.IntRange(0, 2).Draw(t, "fate") {
		case 0:
			m.completeAt(t, 0, true)
		case 1:
			m.writes = m.writes[1:] // lost with the old leader
		default:
			zombies = append(zombies, m.writes[0])
			m.writes = m.writes[1:]
		}
	}
	m.epoch++
	m.inRead = nil // the old leader's fetch is lost with it
	coverage.failovers.Add(1)
	csnap, err := m.cstore.Read(m.epoch)
	if err != nil {
		m.fatalf(t, "core store Read: %v", err)
	}
	ssnap, code := m.sstore.Read(m.epoch)
	if code != refspec.OK {
		m.fatalf(t, "spec store Read: %v", code)
	}
	if got, want := snapEntries(csnap), specSnapEntries(ssnap); !reflect.DeepEqual(got, want) ||
		csnap.StartOffset != ssnap.StartOffset {
		m.fatalf(t, "stores differ: core start %d %v, spec start %d %v", csnap.StartOffset, got, ssnap.StartOffset, want)
	}
	for _, z := range zombies { // the old leader's late writes must be fenced now
		cerr, scode := m.cstore.Write(z.core), m.sstore.Write(z.spec)
		if model.CodeOf(cerr) != specCode(scode) || cerr == nil {
			m.fatalf(t, "zombie write: core %v spec %v (want fenced)", cerr, scode)
		}
	}
	m.core.Fence()
	m.install(t, csnap, ssnap)
	m.logf(t, "failover epoch %d: snapshot start %d batches %v", m.epoch, csnap.StartOffset, csnap.Batches)
}

// rebuild replaces a fenced share-partition at the same leader epoch (Kafka's manager
// dropping it; the next fetch creates a new one and reads the state). The old one's
// outstanding writes still reach the share coordinator and must be fenced there.
func (m *machine) rebuild(t *rapid.T) {
	m.rebuilding = true
	defer func() { m.rebuilding = false }()
	for _, z := range m.writes {
		cerr, scode := m.cstore.Write(z.core), m.sstore.Write(z.spec)
		if model.CodeOf(cerr) != specCode(scode) {
			m.fatalf(t, "late write of a fenced share-partition: core %v spec %v", cerr, scode)
		}
	}
	m.writes = nil
	m.inRead = nil
	m.core.Fence()
	csnap, err := m.cstore.Read(m.epoch)
	if err != nil {
		m.fatalf(t, "core store Read: %v", err)
	}
	ssnap, code := m.sstore.Read(m.epoch)
	if code != refspec.OK {
		m.fatalf(t, "spec store Read: %v", code)
	}
	m.install(t, csnap, ssnap)
	m.logf(t, "rebuild at epoch %d: state epoch %d start %d batches %v", m.epoch, csnap.StateEpoch, csnap.StartOffset, csnap.Batches)
}

// install builds the new core and spec from the snapshots, the core either with Load or
// through the lifecycle (Reset of the fenced value, MaybeInitialize, sometimes a failed
// state read first, CompleteInitialize).
func (m *machine) install(t *rapid.T, csnap model.Snapshot, ssnap refspec.Snapshot) {
	if csnap.StateEpoch != ssnap.StateEpoch || csnap.StateEpoch != m.stateEpoch {
		m.fatalf(t, "snapshot state epochs: core %d spec %d, want %d", csnap.StateEpoch, ssnap.StateEpoch, m.stateEpoch)
	}
	cfg := m.core.Config()
	var core *model.SharePartition
	if rapid.Bool().Draw(t, "viaLifecycle") {
		core = m.core
		if err := core.Reset(m.epoch); err != nil {
			m.fatalf(t, "Reset: %v", err)
		}
		for rapid.IntRange(0, 3).Draw(t, "initFails") == 0 {
			if read, err := core.MaybeInitialize(); !read || err != nil {
				m.fatalf(t, "MaybeInitialize on EMPTY: %v %v", read, err)
			}
			code := rapid.SampledFrom(model.PersisterErrors).Draw(t, "readErr")
			err := core.CompleteInitialize(model.Snapshot{}, &model.Error{Code: code, Offset: -1}, m.logStart)
			if model.CodeOf(err) != model.PersisterError(&model.Error{Code: code}) || core.State() != model.PartitionFailed {
				m.fatalf(t, "failed read %v: %v, state %v", code, err, core.State())
			}
			coverage.initFailures.Add(1)
			if err := core.Reset(m.epoch); err != nil {
				m.fatalf(t, "Reset after FAILED: %v", err)
			}
		}
		if read, err := core.MaybeInitialize(); !read || err != nil {
			m.fatalf(t, "MaybeInitialize on EMPTY: %v %v", read, err)
		}
		// While the state read is outstanding: fetches wait, acknowledgements find nothing.
		if _, err := core.MaybeInitialize(); model.CodeOf(err) != model.ErrLeaderNotAvailable {
			m.fatalf(t, "MaybeInitialize while INITIALIZING: %v", err)
		}
		if _, err := core.BeginFetch(); model.CodeOf(err) != model.ErrLeaderNotAvailable {
			m.fatalf(t, "BeginFetch while INITIALIZING: %v", err)
		}
		if w, err := core.Acknowledge(m.now, "m1", []model.AckRange{{First: m.logStart, Last: m.logStart, Types: []model.AckType{model.AckAccept}}}); w != nil ||
			(err != nil && model.CodeOf(err) != model.ErrInvalidRecordState) {
			m.fatalf(t, "Acknowledge while INITIALIZING: %v %v", w, err)
		}
		if err := core.CompleteInitialize(csnap, nil, m.logStart); err != nil {
			m.fatalf(t, "CompleteInitialize: %v", err)
		}
	} else {
		var err error
		if core, err = model.Load(cfg, csnap, m.epoch, m.logStart); err != nil {
			m.fatalf(t, "model.Load: %v", err)
		}
	}
	spec, err := refspec.Load(specConfig(cfg), ssnap, m.epoch, m.logStart)
	if err != nil {
		m.fatalf(t, "refspec.Load: %v", err)
	}
	if core.StateEpoch() != m.stateEpoch {
		m.fatalf(t, "loaded core has state epoch %d, want %d", core.StateEpoch(), m.stateEpoch)
	}
	m.core, m.spec = core, spec
	m.held = map[string][]model.AcquiredRange{}
	m.lastViews = map[int64]model.RecordView{}
	m.lastSPSO = m.core.StartOffset()
}

// ---- writes ----

func single(w *model.Write) []*model.Write {
	if w == nil {
		return nil
	}
	return []*model.Write{w}
}

func specSingle(w *refspec.Write) []*refspec.Write {
	if w == nil {
		return nil
	}
	return []*refspec.Write{w}
}

func (m *machine) pairWrites(t *rapid.T, what string, cw []*model.Write, sw []*refspec.Write) {
	if len(cw) != len(sw) {
		if what == "expiry" && len(cw) > len(sw) && straddles(sw) {
			if m.known(t, bugExpirySplitWrites, "core %v spec %v", fmtWrites(cw), fmtSpecWrites(sw)) {
				return
			}
		}
		m.fatalf(t, "%s: core issued %d writes %v, spec %d %v", what, len(cw), fmtWrites(cw), len(sw), fmtSpecWrites(sw))
	}
	for i := range cw {
		if err := sameWrite(cw[i], sw[i]); err != nil {
			m.fatalf(t, "%s write %d: %v\ncore %s\nspec %s", what, i, err, fmtWrite(cw[i]), fmtSpecWrite(sw[i]))
		}
		m.writes = append(m.writes, pair{core: cw[i].Clone(), spec: sw[i]})
	}
}

// straddles reports whether one of the writes holds offsets on both sides of its
// start offset (a whole batch that contained SPSO when its lock fired).
func straddles(ws []*refspec.Write) bool {
	for _, w := range ws {
		if n := len(w.Entries); n > 0 && w.Entries[0].Offset < w.StartOffset && w.Entries[n-1].Offset >= w.StartOffset {
			return true
		}
	}
	return false
}

type entry struct {
	Offset int64
	State  model.State
	DC     int
}

func writeEntries(w *model.Write) []entry {
	var out []entry
	for _, b := range w.Batches {
		for o := b.First; o <= b.Last; o++ {
			out = append(out, entry{o, b.State, int(b.DeliveryCount)})
		}
	}
	return out
}

func specEntries(es []refspec.Entry) []entry {
	var out []entry
	for _, e := range es {
		out = append(out, entry{e.Offset, model.State(e.State), e.DC})
	}
	return out
}

func snapEntries(s model.Snapshot) []entry {
	return writeEntries(&model.Write{Batches: s.Batches})
}

func specSnapEntries(s refspec.Snapshot) []entry {
	var out []entry
	for _, b := range s.Batches {
		for o := b.First; o <= b.Last; o++ {
			out = append(out, entry{o, model.State(b.State), b.DC})
		}
	}
	return out
}

func sameWrite(c *model.Write, s *refspec.Write) error {
	kinds := map[refspec.WriteKind]model.WriteKind{refspec.KindAck: model.WriteAck,
		refspec.KindRelease: model.WriteRelease, refspec.KindExpiry: model.WriteExpiry, refspec.KindDLQ: model.WriteDLQ}
	switch {
	case c.Kind != kinds[s.Kind]:
		return fmt.Errorf("kind %v vs %v", c.Kind, s.Kind)
	case c.StartOffset != s.StartOffset:
		return fmt.Errorf("start offset %d vs %d", c.StartOffset, s.StartOffset)
	case c.StateEpoch != s.StateEpoch || c.LeaderEpoch != s.LeaderEpoch:
		return fmt.Errorf("epochs %d/%d vs %d/%d", c.StateEpoch, c.LeaderEpoch, s.StateEpoch, s.LeaderEpoch)
	case c.DeliveryCompleteCount != s.DeliveryCompleteCount:
		return fmt.Errorf("deliveryCompleteCount %d vs %d", c.DeliveryCompleteCount, s.DeliveryCompleteCount)
	case !reflect.DeepEqual(writeEntries(c), specEntries(s.Entries)):
		return fmt.Errorf("content differs")
	}
	return nil
}

func fmtWrite(w *model.Write) string {
	if w == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%v start %d dcc %d %v}", w.Kind, w.StartOffset, w.DeliveryCompleteCount, writeEntries(w))
}

func fmtSpecWrite(w *refspec.Write) string {
	if w == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%d start %d dcc %d %v}", w.Kind, w.StartOffset, w.DeliveryCompleteCount, specEntries(w.Entries))
}

func fmtWrites(ws []*model.Write) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmtWrite(w))
	}
	return out
}

func fmtSpecWrites(ws []*refspec.Write) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmtSpecWrite(w))
	}
	return out
}

func specCode(c refspec.Code) model.ErrorCode {
	return map[refspec.Code]model.ErrorCode{refspec.OK: model.ErrNone, refspec.InvalidRequest: model.ErrInvalidRequest,
		refspec.InvalidRecordState: model.ErrInvalidRecordState, refspec.FencedLeaderEpoch: model.ErrFencedLeaderEpoch,
		refspec.FencedStateEpoch: model.ErrFencedStateEpoch}[c]
}

func coreRanges(rs []model.AcquiredRange) []refspec.Range {
	var out []refspec.Range
	for _, r := range rs {
		out = append(out, refspec.Range{First: r.First, Last: r.Last, DC: int(r.DeliveryCount)})
	}
	return out
}
