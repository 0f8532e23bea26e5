package scenarios

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

// ScriptResult is the outcome of running a scripted scenario.
type ScriptResult struct {
	Name string
	File string
	// Pass is true when every expectation held and no step failed.
	Pass bool
	// Steps is the number of steps run.
	Steps int
	// Failures lists every failed expectation or step, in step order.
	Failures []Failure
	// Log has one line per step describing what it did and what the core answered.
	Log []string
}

// Failure is one failed expectation (or a step that could not be carried out).
type Failure struct {
	File string
	// Step is the step's number (from 1) and Action its action.
	Step   int
	Action string
	// Line and Column locate the step; ExpectLine the expectation (0 if none).
	Line, Column int
	ExpectLine   int
	// What names the expectation: acquired, error, spso, states[3], consistency, ...
	What            string
	Expected, Found string
}

// String formats the failure as file:line:column: step N (action): what: expected X, found Y.
func (f Failure) String() string {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return fmt.Sprintf("%s: step %d (%s): %s: expected %s, found %s", loc, f.Step, f.Action, f.What, f.Expected, f.Found)
}

// String summarises the result: PASS, or FAIL with one line per failure.
func (r *ScriptResult) String() string {
	if r.Pass {
		return fmt.Sprintf("PASS %s (%d steps)", r.Name, r.Steps)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL %s (%d steps, %d failures)", r.Name, r.Steps, len(r.Failures))
	for _, f := range r.Failures {
		b.WriteString("\n  " + f.String())
	}
	return b.String()
}

type logBatch struct {
	model.LogBatch
	ts int64
}

type openWrite struct {
	w      *model.Write
	doomed model.ErrorCode       // fail_next_write armed when it was issued: the error it fails with
	sp     *model.SharePartition // the share-partition (leader) that issued it
	stale  bool                  // issued by an earlier leader (failover with pending_writes: late)
	orphan bool                  // its share-partition was discarded (Reset): the outcome reaches no one
}

// runner drives one share-partition as its leader would: it keeps the log, reads it from
// the next fetch offset, sends state writes to a model.StateStore, and rebuilds the
// share-partition from that store on failover.
type runner struct {
	cfg      model.Config
	sp       *model.SharePartition
	store    *model.StateStore
	log      []logBatch
	hw       int64
	logStart int64
	now      int64
	epoch    int32
	open     []openWrite
	failNext []model.ErrorCode // errors of the next writes to fail, in order
	res      *ScriptResult
	// inRead is a read step waiting for its acquire step (nil when none): the
	// share-partition's fetch lock is held until then.
	inRead *scriptRead
	// slowLoad: state reads on a (new) leader wait for a load_state step.
	slowLoad bool

	// With invariants: true, the spcheck invariants run after every step.
	inv      bool
	prev     spcheck.View
	cur      spcheck.View
	info     spcheck.Step
	accepted map[int64]bool
	// regressed: a late write moved the stored start offset back (Kafka 4.2, 4.3); tainted:
	// the current leader loaded the store after that (spcheck.Step.StartRegressed).
	regressed, tainted bool
	maxBatch           int64
	// newlyAccepted are offsets whose ACCEPT a client saw succeed during this step.
	newlyAccepted []int64
	// logView is the log as the core reads it (read), rebuilt from log when logDirty.
	logView  []model.LogBatch
	logDirty bool
	// credit and unchecked pace the core's self-check (consistency).
	credit    int64
	unchecked bool
}

// RunScript runs a scripted scenario and checks its expectations. The error is non-nil
// only if s is not a scripted scenario or the share-partition cannot be created; failed
// expectations are reported in the result.
func RunScript(s *Scenario) (*ScriptResult, error) {
	sc, err := s.Script()
	if err != nil {
		return nil, err
	}
	sp, err := model.New(sc.Kafka, sc.StartOffset)
	if err != nil {
		return nil, &Error{File: s.file, Path: "kafka", Found: err.Error(), Expected: "a configuration the share-partition accepts"}
	}
	r := &runner{
		cfg: sc.Kafka, sp: sp, store: model.NewStateStore(sc.StateEpoch, -1).ForConfig(sc.Kafka),
		hw: sc.StartOffset, logStart: sc.StartOffset, epoch: 1,
		res: &ScriptResult{Name: s.Name(), File: s.file},
	}
	if _, err := r.store.Read(r.epoch); err != nil {
		return nil, &Error{File: s.file, Found: err.Error(), Expected: "a fresh share coordinator"}
	}
	sp.SetEpochs(sc.StateEpoch, r.epoch)
	if sc.Invariants {
		r.inv, r.accepted = true, map[int64]bool{}
		r.prev.Capture(sp)
	}
	for i := range sc.Steps {
		r.step(&sc.Steps[i])
		r.res.Steps++
	}
	if r.unchecked && len(sc.Steps) > 0 && len(r.res.Failures) == 0 {
		r.consistency(&sc.Steps[len(sc.Steps)-1], true)
	}
	r.res.Pass = len(r.res.Failures) == 0
	return r.res, nil
}

// outcome is what one step did.
type outcome struct {
	code     model.ErrorCode // the error the client (or caller) sees
	msg      string
	coreErr  bool // the core rejected the call (not a write failure the script asked for)
	acquired string
	ranges   []model.AcquiredRange
	desc     string
}

func (r *runner) failure(st *Step, what, expected, found string) {
	f := Failure{File: r.res.File, Step: st.N, Action: st.Action, Line: st.Line, Column: st.Column, What: what, Expected: expected, Found: found}
	if st.Expect != nil {
		f.ExpectLine = st.Expect.Line
	}
	r.res.Failures = append(r.res.Failures, f)
}

func (r *runner) step(st *Step) {
	r.info = spcheck.Step{MaxRecords: int64(st.Fetch.MaxRecords)}
	o := r.do(st)
	line := fmt.Sprintf("step %d %s: %s", st.N, st.Action, o.desc)
	if o.code != model.ErrNone {
		line += " → " + o.code.String()
	}
	r.res.Log = append(r.res.Log, line)
	e := st.Expect
	if o.coreErr && (e == nil || e.Error == nil) {
		found := o.code.String()
		if o.msg != "" {
			found += " (" + o.msg + ")"
		}
		r.failure(st, "error", "NONE", found)
	}
	if e != nil {
		r.check(st, e, o)
	}
	if r.inv {
		r.invariants(st, o)
		return
	}
	r.consistency(st, false)
}

// consistencyCredit is how many cached records' worth of consistency checking each step
// earns. CheckConsistency reads the whole cache (up to the in-flight cap, 2000 records by
// default), so checking after every step of a 120 000-step script took minutes; a step
// is checked when the credit covers the cache, which is every step while the cache holds
// at most consistencyCredit records (every built-in script), and the last step always.
const consistencyCredit = 64

// consistency runs the core's self-check after st when the credit allows it, or when last.
func (r *runner) consistency(st *Step, last bool) {
	r.credit += consistencyCredit
	span := r.sp.EndOffset() - r.sp.StartOffset() + 1
	if !last && r.credit < span {
		r.unchecked = true
		return
	}
	r.credit, r.unchecked = 0, false
	if err := r.sp.CheckConsistency(); err != nil {
		r.failure(st, "consistency", "the core's invariants to hold", err.Error())
	}
}

// invariants evaluates the spcheck invariants on the step just run (invariants: true).
func (r *runner) invariants(st *Step, o outcome) {
	switch st.Action {
	case ActFetch:
		r.info.Kind, r.info.Member, r.info.Acquired = spcheck.StepFetch, model.MemberID(st.Member), o.ranges
	case ActLeave:
		r.info.Kind, r.info.Member = spcheck.StepLeave, model.MemberID(st.Member)
	case ActFailover:
		r.info.NewLeader = true
	}
	r.info.LogStart, r.info.MaxLogBatch, r.info.StartRegressed = r.logStart, r.maxBatch, r.tainted
	r.cur.Capture(r.sp)
	if v := spcheck.Check(&r.cfg, r.sp, &r.prev, &r.cur, &r.info, func(off int64) bool { return r.accepted[off] }, true); v != nil {
		r.failure(st, "invariant "+v.Invariant, "the invariant to hold", v.Msg)
	}
	r.prev, r.cur = r.cur, r.prev
	// Acceptances confirmed during this step count from the next one.
	for _, off := range r.newlyAccepted {
		r.accepted[off] = true
	}
	r.newlyAccepted = r.newlyAccepted[:0]
}

func (r *runner) do(st *Step) outcome {
	var o outcome
	setErr := func(err error) {
		o.code, o.coreErr = model.CodeOf(err), true
		if err != nil {
			o.msg = err.Error()
		}
	}
	switch st.Action {
	case ActProduce:
		var parts []string
		for _, n := range st.Batches {
			b := logBatch{LogBatch: model.LogBatch{First: r.hw, Last: r.hw + int64(n) - 1, Aborted: st.Aborted}, ts: r.now}
			r.maxBatch = max(r.maxBatch, int64(n))
			r.log = append(r.log, b)
			if !r.logDirty {
				r.logView = append(r.logView, b.LogBatch)
			}
			r.hw += int64(n)
			parts = append(parts, fmt.Sprintf("%d-%d", b.First, b.Last))
		}
		o.desc = "batches " + strings.Join(parts, " ")
		if st.Aborted {
			o.desc += " (aborted)"
		}
	case ActFetch, ActRead:
		if r.inRead != nil {
			r.failure(st, st.Action, "no read waiting for its acquire (the fetch lock is held)", fmt.Sprintf("%s's read at %d (step %d)", r.inRead.member, r.inRead.f, r.inRead.step))
			return o
		}
		if err := r.initialize(); err != nil {
			setErr(err)
			o.desc = fmt.Sprintf("%s: share-partition %s", st.Member, r.sp.State())
			return o
		}
		f := r.sp.NextFetchOffset()
		if f < r.logStart && r.sp.CanAcquire() {
			// The read fails with OFFSET_OUT_OF_RANGE; the leader applies the log start (§5.3).
			r.sp.MoveLogStartOffset(r.logStart)
			o.desc = fmt.Sprintf("%s from %d: below the log start %d, nothing acquired", st.Member, f, r.logStart)
			return o
		}
		read := r.read(f)
		if st.MaxBatches > 0 && len(read) > st.MaxBatches {
			read = read[:st.MaxBatches]
		}
		if st.Action == ActRead {
			fr, err := r.sp.BeginFetch()
			if err != nil {
				setErr(err)
				return o
			}
			if !fr.Open {
				read = nil // the gate is closed: nothing is read
			}
			r.inRead = &scriptRead{member: st.Member, p: st.Fetch, f: fr.FetchOffset, read: read, step: st.N}
			o.desc = fmt.Sprintf("%s from %d: %d log batches read", st.Member, fr.FetchOffset, len(read))
			return o
		}
		rs, err := r.sp.Acquire(r.now, model.MemberID(st.Member), st.Fetch, read, nil)
		if err != nil {
			setErr(err)
		}
		o.acquired, o.ranges = renderAcquired(rs), rs
		o.desc = fmt.Sprintf("%s from %d: %q", st.Member, f, o.acquired)
	case ActAcquire:
		pr := r.inRead
		if pr == nil {
			r.failure(st, st.Action, "a read step waiting for its acquire", "none")
			return o
		}
		r.inRead = nil
		rs, err := r.sp.AcquireFetched(r.now, model.MemberID(pr.member), pr.p, pr.f, pr.read, nil)
		if err != nil {
			setErr(err)
		}
		o.acquired, o.ranges = renderAcquired(rs), rs
		o.desc = fmt.Sprintf("%s's read at %d: %q", pr.member, pr.f, o.acquired)
	case ActReinitialize:
		start := st.Offset
		if err := r.store.Reinitialize(st.StateEpoch, start); err != nil {
			setErr(err)
		}
		o.desc = fmt.Sprintf("state epoch %d, start offset %d", st.StateEpoch, start)
	case ActLoadState:
		if r.sp.State() != model.PartitionInitializing {
			r.failure(st, st.Action, "a share-partition whose state read is outstanding (failover with load: slow)", r.sp.State().String())
			return o
		}
		var rerr error
		if st.ErrorCode != model.ErrNone {
			rerr = &model.Error{Code: st.ErrorCode, Offset: -1, Msg: "state read failed"}
		}
		if err := r.completeLoad(rerr); err != nil {
			o.code, o.msg = model.CodeOf(err), err.Error()
		}
		o.desc = fmt.Sprintf("share-partition %s, start %d", r.sp.State(), r.sp.StartOffset())
	case ActAck:
		w, err := r.sp.Acknowledge(r.now, model.MemberID(st.Member), st.Acks)
		if err != nil {
			setErr(err)
		} else {
			o.code = r.handle(w, st.Write)
		}
		o.desc = st.Member + " " + renderAcks(st.Acks)
	case ActAdvance:
		target := r.now + st.AdvanceMs
		fired := 0
		var stuck error
		r.now, stuck = advanceLocks(r.sp, r.now, target, func(ws []*model.Write) {
			clones := make([]*model.Write, len(ws))
			for i, w := range ws {
				clones[i] = w.Clone()
			}
			for _, w := range clones {
				r.handleClone(w, st.Write)
			}
			fired += len(ws)
		})
		if stuck != nil {
			r.failure(st, "advance", "the core to fire every lock due by "+formatMs(r.now), stuck.Error())
		}
		r.now = target
		o.desc = fmt.Sprintf("to %s (%d expiry writes)", formatMs(r.now), fired)
	case ActExpire:
		ws := r.sp.FireLock(st.Offset, nil)
		clones := make([]*model.Write, len(ws))
		for i, w := range ws {
			clones[i] = w.Clone()
		}
		for _, w := range clones {
			r.handleClone(w, st.Write)
		}
		o.desc = fmt.Sprintf("the lock of offset %d fires (%d expiry writes)", st.Offset, len(ws))
	case ActLeave:
		w := r.sp.ReleaseMember(r.now, model.MemberID(st.Member))
		o.code = r.handle(w, st.Write)
		o.desc = st.Member
	case ActDLQ:
		var q *model.DLQRequest
		for _, x := range r.sp.OutstandingDLQ(nil) {
			if x.First <= st.Offset && st.Offset <= x.Last {
				q = &x
				break
			}
		}
		if q == nil {
			r.failure(st, "dlq", "an outstanding dead-letter-queue produce covering the offset", fmt.Sprintf("none covers %d", st.Offset))
			return o
		}
		var perr error
		if st.DLQFailed {
			perr = fmt.Errorf("DLQ produce failed after every attempt")
		}
		w, err := r.sp.CompleteDLQ(r.now, q.ID, perr)
		if err != nil {
			setErr(err)
			return o
		}
		r.handle(w, st.Write)
		o.desc = fmt.Sprintf("DLQ produce of %d-%d (%s) ends", q.First, q.Last, q.Cause)
	case ActMoveLogStart:
		switch {
		case st.Offset > r.hw:
			r.failure(st, "move_log_start", fmt.Sprintf("an offset <= the log end %d", r.hw), strconv.FormatInt(st.Offset, 10))
		case st.Offset < r.logStart:
			r.failure(st, "move_log_start", fmt.Sprintf("an offset >= the log start %d", r.logStart), strconv.FormatInt(st.Offset, 10))
		default:
			r.logStart = st.Offset
			keep := r.log[:0]
			for _, b := range r.log {
				if b.Last >= st.Offset {
					keep = append(keep, b)
				}
			}
			r.log, r.logDirty = keep, true
			r.sp.MoveLogStartOffset(st.Offset)
		}
		o.desc = fmt.Sprintf("log start %d", r.logStart)
	case ActCompact:
		removed := 0
		keep := r.log[:0:0]
		for _, b := range r.log {
			inside := b.First >= st.First && b.Last <= st.Last
			overlaps := b.Last >= st.First && b.First <= st.Last
			if overlaps && !inside {
				r.failure(st, "compact", "a range made of whole producer batches", fmt.Sprintf("batch %d-%d only partly inside %d-%d", b.First, b.Last, st.First, st.Last))
				return o
			}
			if inside {
				removed++
				continue
			}
			keep = append(keep, b)
		}
		if removed == 0 {
			r.failure(st, "compact", "a range holding producer batches", fmt.Sprintf("no batch inside %d-%d", st.First, st.Last))
		}
		r.log, r.logDirty = keep, true
		o.desc = fmt.Sprintf("removed %d batches", removed)
	case ActFailover:
		if st.PendingWrites == "stored" {
			for _, ow := range r.open {
				if ow.doomed == model.ErrNone && !ow.stale {
					r.storeWrite(ow.w)
				}
			}
		}
		dropped := 0
		keep := r.open[:0]
		for _, ow := range r.open {
			switch {
			case ow.stale:
			case st.PendingWrites == "late":
				ow.stale = true
			default:
				dropped++
				continue
			}
			keep = append(keep, ow)
		}
		r.open = keep
		r.sp.Fence()
		r.inRead = nil // the old leader's fetch is lost with it
		r.epoch++
		r.slowLoad = st.SlowLoad
		sp, err := model.NewUninitialized(r.cfg, r.epoch)
		if err != nil {
			setErr(err)
			return o
		}
		r.sp = sp
		if err := r.initialize(); err != nil && !st.SlowLoad {
			setErr(err)
			return o
		}
		o.desc = fmt.Sprintf("leader epoch %d, %d outstanding writes %s, %s, start %d", r.epoch, dropped, st.PendingWrites, r.sp.State(), r.sp.StartOffset())
	case ActFailNext:
		for range st.Count {
			r.failNext = append(r.failNext, st.ErrorCode)
		}
		o.desc = fmt.Sprintf("%d writes will fail (next with %s)", len(r.failNext), r.failNext[0])
	case ActCommitWrite, ActFailWrite:
		sel := r.selectWrites(st.Which)
		if len(sel) == 0 {
			r.failure(st, st.Action, "an outstanding write "+st.Which, fmt.Sprintf("%d outstanding writes %s", len(r.open), r.openIDs()))
			return o
		}
		for _, ow := range sel {
			if st.Action == ActFailWrite {
				ow.doomed = st.ErrorCode
			}
			code, err := r.complete(ow, st.Action == ActCommitWrite)
			if err != nil {
				setErr(err)
				return o
			}
			o.code = code
		}
		o.desc = fmt.Sprintf("%d writes", len(sel))
	}
	return o
}

// scriptRead is a read step's fetch waiting for its acquire step.
type scriptRead struct {
	member string
	p      model.FetchParams
	f      int64
	read   []model.LogBatch
	step   int
}

// initialize is what a share fetch does first on the leader (Kafka's maybeInitialize in
// the share-partition manager): a FAILED or FENCED share-partition is dropped and a new one
// created at the current leader epoch; an EMPTY one starts its state read, which completes
// at once unless the script asked for slow loads (then load_state completes it). The error
// is the one the fetch reports.
func (r *runner) initialize() error {
	if st := r.sp.State(); st == model.PartitionFailed || st == model.PartitionFenced {
		for i := range r.open {
			if r.open[i].sp == r.sp {
				r.open[i].orphan = true
			}
		}
		if err := r.sp.Reset(r.epoch); err != nil {
			return err
		}
	}
	read, err := r.sp.MaybeInitialize()
	if err != nil || !read {
		return err
	}
	if r.slowLoad {
		return &model.Error{Code: model.ErrLeaderNotAvailable, Offset: -1, Msg: "state read in progress"}
	}
	return r.completeLoad(nil)
}

// completeLoad answers the outstanding state read: from the share coordinator, or with
// readErr. A log start beyond the loaded start offset is applied at once.
func (r *runner) completeLoad(readErr error) error {
	var snap model.Snapshot
	start := int64(-1)
	if readErr == nil {
		var err error
		snap, err = r.store.Read(r.epoch)
		r.tainted = r.regressed
		if err != nil {
			readErr = err
		} else if start = snap.StartOffset; start < 0 {
			if start, err = model.ResolveStartOffset(r.cfg.AutoOffsetReset, r.now, r.logStart, r.hw, r.offsetForTime); err != nil {
				return err
			}
		}
	}
	if err := r.sp.CompleteInitialize(snap, readErr, start); err != nil {
		return err
	}
	if r.logStart > r.sp.StartOffset() {
		r.sp.MoveLogStartOffset(r.logStart)
	}
	return nil
}

// read returns the log batches a read at offset f returns: from the batch holding f (or
// the first after it) to the end.
// read is the log from offset f on: the batches that end at or after f. The log is in
// offset order, so it is a suffix, found by binary search and shared, not copied (a scan
// and a copy per fetch made a 60 000-pair script quadratic). The result's capacity ends
// at its length, so a caller's append cannot write into the log.
func (r *runner) read(f int64) []model.LogBatch {
	if r.logDirty {
		r.logView = r.logView[:0]
		for _, b := range r.log {
			r.logView = append(r.logView, b.LogBatch)
		}
		r.logDirty = false
	}
	i := sort.Search(len(r.logView), func(i int) bool { return r.logView[i].Last >= f })
	if i == len(r.logView) {
		return nil
	}
	return r.logView[i:len(r.logView):len(r.logView)]
}

func (r *runner) offsetForTime(ms int64) (int64, bool) {
	for _, b := range r.log {
		if b.ts >= ms {
			return b.First, true
		}
	}
	return 0, false
}

// handle issues a write the core returned and deals with it as the step asks.
func (r *runner) handle(w *model.Write, mode string) model.ErrorCode {
	if w == nil {
		return model.ErrNone
	}
	return r.handleClone(w.Clone(), mode)
}

func (r *runner) handleClone(w *model.Write, mode string) model.ErrorCode {
	ow := openWrite{w: w, sp: r.sp}
	if len(r.failNext) > 0 {
		ow.doomed = r.failNext[0]
		r.failNext = r.failNext[1:]
	}
	if mode == WritePending {
		r.open = append(r.open, ow)
		return model.ErrNone
	}
	code, _ := r.complete(ow, mode == WriteCommit)
	return code
}

// complete ends a write: the share coordinator stores it (commit, unless doomed or fenced)
// or fails it, and the share-partition learns the outcome.
func (r *runner) complete(ow openWrite, commit bool) (model.ErrorCode, error) {
	for i, x := range r.open {
		if x.w == ow.w {
			r.open = append(r.open[:i], r.open[i+1:]...)
			break
		}
	}
	var werr error
	switch {
	case commit && ow.doomed == model.ErrNone:
		werr = r.storeWrite(ow.w)
	case ow.doomed != model.ErrNone:
		werr = &model.Error{Code: ow.doomed, Offset: -1, Msg: "state write failed"}
	default:
		werr = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1, Msg: "state write failed"}
	}
	if !ow.orphan {
		if err := ow.sp.CompleteWrite(r.now, ow.w.ID, werr); err != nil {
			return model.CodeOf(err), err
		}
	}
	if ow.sp == r.sp && ow.w.Kind != model.WriteExpiry && model.IsFencingWriteError(werr) {
		// The leader discards the share-partition; the next fetch builds a new one.
		r.sp.Fence()
		r.inRead = nil
	}
	if r.inv && !ow.stale {
		if werr == nil {
			r.info.Committed = append(r.info.Committed, ow.w.Batches...)
		} else {
			r.info.RolledBack = append(r.info.RolledBack, ow.w.Batches...)
		}
	}
	if werr == nil && r.inv {
		spcheck.AcceptedOffsets(ow.w, func(off int64) { r.newlyAccepted = append(r.newlyAccepted, off) })
	}
	return model.AckErrorForWriteFailure(werr), nil
}

// storeWrite sends a write to the share coordinator, noting its epochs for the invariants.
func (r *runner) storeWrite(w *model.Write) error {
	sw := spcheck.StoreWrite{WriteLeaderEpoch: w.LeaderEpoch, WriteStateEpoch: w.StateEpoch,
		StoreLeaderEpoch: r.store.LeaderEpoch(), StoreStateEpoch: r.store.StateEpoch()}
	before := r.store.StartOffset()
	err := r.store.Write(w)
	sw.Accepted = err == nil
	r.regressed = r.regressed || r.store.StartOffset() < before
	r.info.Writes = append(r.info.Writes, sw)
	return err
}

func (r *runner) selectWrites(which string) []openWrite {
	var cur, stale []openWrite
	for _, ow := range r.open {
		if ow.stale {
			stale = append(stale, ow)
		} else {
			cur = append(cur, ow)
		}
	}
	if which == "stale" {
		which = "stale:1"
	}
	if n, ok := strings.CutPrefix(which, "stale:"); ok {
		k, _ := strconv.Atoi(n)
		if k < 1 || k > len(stale) {
			return nil
		}
		return []openWrite{stale[k-1]}
	}
	if len(cur) == 0 {
		return nil
	}
	switch which {
	case "all":
		return cur
	case "oldest":
		return []openWrite{cur[0]}
	case "newest":
		return []openWrite{cur[len(cur)-1]}
	}
	id, _ := strconv.ParseUint(which, 10, 64)
	for _, ow := range cur {
		if uint64(ow.w.ID) == id {
			return []openWrite{ow}
		}
	}
	return nil
}

func (r *runner) openIDs() string {
	ids := make([]string, len(r.open))
	for i, ow := range r.open {
		ids[i] = strconv.FormatUint(uint64(ow.w.ID), 10)
	}
	return "[" + strings.Join(ids, " ") + "]"
}

func renderAcks(rs []model.AckRange) string {
	parts := make([]string, len(rs))
	for i, a := range rs {
		ts := make([]string, len(a.Types))
		for j, t := range a.Types {
			ts[j] = strings.ToLower(t.String())
		}
		parts[i] = fmt.Sprintf("%d-%d:%s", a.First, a.Last, strings.Join(ts, ","))
	}
	return strings.Join(parts, " ")
}

func (r *runner) check(st *Step, e *Expect, o outcome) {
	if e.Acquired != nil && *e.Acquired != o.acquired {
		r.failure(st, "acquired", quoteRanges(*e.Acquired), quoteRanges(o.acquired))
	}
	if e.Error != nil && *e.Error != o.code.String() {
		found := o.code.String()
		if o.msg != "" {
			found += " (" + o.msg + ")"
		}
		r.failure(st, "error", *e.Error, found)
	}
	ints := []struct {
		what string
		want *int64
		got  int64
	}{
		{"spso", e.SPSO, r.sp.StartOffset()},
		{"speo", e.SPEO, r.sp.EndOffset()},
		{"in_flight", e.InFlight, r.sp.InFlightCount()},
		{"next_fetch_offset", e.NextFetchOffset, -1},
		{"outstanding_writes", e.OutstandingWrites, int64(len(r.open))},
		{"stored_start_offset", e.StoredStartOffset, r.store.StartOffset()},
	}
	for _, c := range ints {
		if c.want == nil {
			continue
		}
		got := c.got
		if c.what == "next_fetch_offset" {
			got = r.sp.NextFetchOffset()
		}
		if got != *c.want {
			r.failure(st, c.what, strconv.FormatInt(*c.want, 10), strconv.FormatInt(got, 10))
		}
	}
	if e.CanAcquire != nil {
		if got := r.sp.CanAcquire(); got != *e.CanAcquire {
			r.failure(st, "can_acquire", strconv.FormatBool(*e.CanAcquire), strconv.FormatBool(got))
		}
	}
	for _, h := range e.Held {
		if got := r.sp.HeldBy(model.MemberID(h.Member)); got != h.Count {
			r.failure(st, "held."+h.Member, strconv.FormatInt(h.Count, 10), strconv.FormatInt(got, 10))
		}
	}
	for _, oe := range e.States {
		for off := oe.First; off <= oe.Last; off++ {
			v, ok := r.sp.Record(off)
			if got, match := matchRecord(oe, v, ok); !match {
				r.failure(st, "states["+strconv.FormatInt(off, 10)+"]", oe.Text, got)
				break
			}
		}
	}
	if len(e.Stored) > 0 {
		snap := r.store.Snapshot()
		for _, oe := range e.Stored {
			for off := oe.First; off <= oe.Last; off++ {
				var pb *model.PersistedBatch
				for i := range snap.Batches {
					if snap.Batches[i].First <= off && off <= snap.Batches[i].Last {
						pb = &snap.Batches[i]
					}
				}
				if got, match := matchStored(oe, pb); !match {
					r.failure(st, "stored["+strconv.FormatInt(off, 10)+"]", oe.Text, got)
					break
				}
			}
		}
	}
}

func quoteRanges(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

func renderRecord(v model.RecordView) string {
	s := fmt.Sprintf("%s/%d", v.State, v.DeliveryCount)
	if v.Owner != "" {
		s += "/" + string(v.Owner)
	}
	if v.Pending {
		s += "*"
	}
	return s
}

func matchRecord(oe OffsetExpect, v model.RecordView, ok bool) (string, bool) {
	if !ok {
		return "NOT_CACHED", oe.Absent
	}
	got := renderRecord(v)
	if oe.Absent || v.State != oe.State {
		return got, false
	}
	if oe.DeliveryCount >= 0 && int(v.DeliveryCount) != oe.DeliveryCount {
		return got, false
	}
	if oe.Owner != "" && string(v.Owner) != oe.Owner {
		return got, false
	}
	if oe.Pending && !v.Pending {
		return got, false
	}
	return got, true
}

func matchStored(oe OffsetExpect, pb *model.PersistedBatch) (string, bool) {
	if pb == nil {
		return "NOT_STORED", oe.Absent
	}
	got := fmt.Sprintf("%s/%d", pb.State, pb.DeliveryCount)
	if oe.Absent || pb.State != oe.State {
		return got, false
	}
	if oe.DeliveryCount >= 0 && int(pb.DeliveryCount) != oe.DeliveryCount {
		return got, false
	}
	return got, true
}

// lockClock is the part of the core that advancing time drives.
type lockClock interface {
	NextDeadline() (int64, bool)
	ExpireLocks(nowMs int64, out []*model.Write) []*model.Write
}

// advanceLocks fires every lock due up to target, in deadline order, handing each batch of
// writes to issued, and returns the time of the last firing. It has the stuck-time guard
// the simulator and the explorer have: a core that leaves a due lock unfired (a lock that
// fires late) would keep the loop at the same time forever, so that is an error at once.
func advanceLocks(sp lockClock, now, target int64, issued func([]*model.Write)) (int64, error) {
	for {
		dl, ok := sp.NextDeadline()
		if !ok || dl > target {
			return now, nil
		}
		now = max(now, dl)
		issued(sp.ExpireLocks(now, nil))
		if next, ok := sp.NextDeadline(); ok && next <= now {
			return now, fmt.Errorf("the next lock deadline %s is still due after ExpireLocks at %s (it fired nothing); time would not advance", formatMs(next), formatMs(now))
		}
	}
}
