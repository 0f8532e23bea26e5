package explore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

// The harness drives one share-partition the way scripted scenarios do (scenarios.RunScript):
// a fixed log, writes sent to a model.StateStore, failover rebuilding the share-partition from
// it. Every explorer action maps to one script step, so a path replays as a script.

// kind is an action kind.
type kind uint8

const (
	actFetch    kind = iota + 1 // a member fetches (a: member, b: budget index, c: mode, d: short read)
	actAck                      // a member acknowledges (a: member, b: first, c: last, d: type)
	actFire                     // the lock held by offset b fires
	actCommit                   // outstanding write number b (canonical order) succeeds
	actFail                     // outstanding write number b fails
	actStale                    // stale write number b of an earlier leader reaches the coordinator
	actLeave                    // member a's share session ends
	actLogStart                 // the log start offset moves to b
	actFailover                 // the leader fails over; d = 1: outstanding writes stay on their way
	actRead                     // a member's fetch reads the log (a, b, c, d as for actFetch); its acquire comes later
	actAcquire                  // the waiting read's fetch acquires what it read
	actDLQ                      // 4.4: outstanding DLQ produce number b (canonical order) ends; d = 1: it failed
)

// Action is one explorer step, packed: kind, then operands a, b, c (8 bits) and d (4 bits).
type Action uint32

func mk(k kind, a, b, c, d int) Action {
	return Action(uint32(k)<<28 | uint32(a&255)<<20 | uint32(b&255)<<12 | uint32(c&255)<<4 | uint32(d&15))
}

func (a Action) kind() kind { return kind(a >> 28) }
func (a Action) a() int     { return int(a>>20) & 255 }
func (a Action) b() int     { return int(a>>12) & 255 }
func (a Action) c() int     { return int(a>>4) & 255 }
func (a Action) d() int     { return int(a) & 15 }

// Describe renders the action for people (with the scope's parameters).
func (a Action) Describe(s *Scope) string {
	switch a.kind() {
	case actFetch:
		d := fmt.Sprintf("%s fetches (max %d", memberName(a.a()), s.MaxRecords[a.b()])
		if a.c() == 1 {
			d += ", record_limit"
		}
		if a.d() == 1 {
			d += ", one producer batch read"
		}
		return d + ")"
	case actAck:
		return fmt.Sprintf("%s acks %d-%d %s", memberName(a.a()), a.b(), a.c(), strings.ToLower(model.AckType(a.d()).String()))
	case actFire:
		return fmt.Sprintf("the lock of offset %d fires", a.b())
	case actCommit:
		return fmt.Sprintf("write #%d succeeds", a.b()+1)
	case actFail:
		return fmt.Sprintf("write #%d fails", a.b()+1)
	case actStale:
		return fmt.Sprintf("stale write #%d reaches the share coordinator", a.b()+1)
	case actLeave:
		return fmt.Sprintf("%s's share session ends", memberName(a.a()))
	case actLogStart:
		return fmt.Sprintf("the log start moves to %d", a.b())
	case actFailover:
		if a.d() == 1 {
			return "leader failover (outstanding writes still on their way)"
		}
		return "leader failover (outstanding writes lost)"
	case actRead:
		d := fmt.Sprintf("%s's fetch reads the log (max %d", memberName(a.a()), s.MaxRecords[a.b()])
		if a.c() == 1 {
			d += ", record_limit"
		}
		if a.d() == 1 {
			d += ", one producer batch read"
		}
		return d + ")"
	case actAcquire:
		return "the waiting fetch acquires what it read"
	case actDLQ:
		if a.d() == 1 {
			return fmt.Sprintf("DLQ produce #%d fails", a.b()+1)
		}
		return fmt.Sprintf("DLQ produce #%d succeeds", a.b()+1)
	}
	return fmt.Sprintf("Action(%#x)", uint32(a))
}

var errWriteFailed = &model.Error{Code: model.ErrCoordinatorNotAvailable, Offset: -1, Msg: "state write failed"}

var errDLQFailed = errors.New("dead-letter queue produce failed after every attempt")

// coreError is an error the share-partition or the share coordinator answered where the
// faithful core never does (an API contract broken, a state that cannot be loaded): the
// explorer reports it as a violation named core-error.
type coreError struct{ err error }

func (e *coreError) Error() string { return e.err.Error() }

// pendingRead is a fetch that has read the log and not yet acquired.
type pendingRead struct {
	on                bool
	m, b, mode, short uint8
	off               int64 // the fetch offset it read from
}

// appendRead appends the pending read's encoding with its member renamed by perm.
func (r *pendingRead) appendRead(b []byte, perm []int16) []byte {
	if !r.on {
		return append(b, 0)
	}
	m := int16(r.m)
	if perm != nil {
		m = perm[m]
	}
	b = append(b, 1, byte(m), r.b, r.mode<<1|r.short)
	return binary.AppendUvarint(b, uint64(r.off))
}

// harness is one explored state, live or decoded.
type harness struct {
	sc       *Scope
	cfg      model.Config
	members  []model.MemberID
	log      []model.LogBatch
	hw       int64
	maxBatch int64

	sp       *model.SharePartition
	store    *model.StateStore
	logStart int64
	lsoMoves int
	accepted uint64 // offsets whose ACCEPT a client saw succeed
	dlqd     uint64 // offsets this leader sent to the dead-letter topic (Scope.DLQ)
	qbuf     []model.DLQRequest
	zombies  []*model.Write
	// rd is the fetch waiting between its log read and its acquire (Scope.Window): Kafka
	// serialises the fetches of a share-partition, so there is at most one.
	rd pendingRead
	// With a coordinator whose stored start offset can move back (trackStart: Kafka 4.2 and
	// 4.3 without the fix start-offset-regresses), regressed says a late write moved it back
	// on this path, and tainted that the current leader was loaded after that: its fetches
	// may deliver again a record whose ACCEPT succeeded (the finding start-offset-regresses).
	trackStart, regressed, tainted bool
	// live is true for a harness replaying a path (not decoded): its writes and stale
	// writes are then not in canonical order.
	live bool

	codec  model.StateCodec
	zbuf   []byte
	zord   []int
	zspans [][2]int
	ids    []model.WriteID
	holder []int64
	rbuf   []model.AcquiredRange
	wbuf   []*model.Write
	ack    [1]model.AckRange
	types  [1]model.AckType
	zpool  []*model.Write
	zused  int
	key    []byte
	loaded map[string][]byte // failover results by stored state, epoch and log start
	owners []int16           // scratch for the symmetry reduction: the owners in encoding order
	// perm is the index in perms of the renaming the last encode applied; the store's
	// encoding lies at [encFrom, encTo) of what it appended.
	perm           uint8
	encFrom, encTo int

	// A decoded parent keeps its store's encoding (storeEnc, in the parent's bytes), and a
	// scratch harness copying it notes which parent (from, by gen) its store and stale writes
	// came from: a step that does not touch the store (storeStep) leaves both as the parent's,
	// so the next copy skips them and the child's encoding reuses the parent's bytes.
	gen        uint64
	storeEnc   []byte
	from       uint64
	storeDirty bool
}

// storeStep reports whether an action may change the share coordinator's state, the stale
// writes or what clients saw accepted (all only on a write reaching the coordinator or a
// failover).
func (a Action) storeStep() bool {
	switch a.kind() {
	case actCommit, actStale, actFailover:
		return true
	}
	return false
}

func newHarness(sc *Scope) (*harness, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	cfg, _ := sc.Config()
	h := &harness{sc: sc, cfg: cfg, loaded: map[string][]byte{}}
	for i := 0; i < sc.Members; i++ {
		h.members = append(h.members, memberName(i))
	}
	for _, n := range sc.Batches {
		h.log = append(h.log, model.LogBatch{First: h.hw, Last: h.hw + int64(n) - 1})
		h.hw += int64(n)
		h.maxBatch = max(h.maxBatch, int64(n))
	}
	sp, err := model.New(cfg, 0)
	if err != nil {
		return nil, err
	}
	sp.AddMembers(h.members...)
	sp.SetEpochs(0, 1)
	h.sp = sp
	h.store = model.NewStateStore(0, -1).ForConfig(cfg)
	if v := sc.StoreVersion(); v != sc.Version {
		h.store.ForVersion(v)
	}
	h.trackStart = h.store.Version() < model.Kafka44 && !cfg.Fixed(model.FixStartOffsetRegresses)
	if _, err := h.store.Read(1); err != nil {
		return nil, err
	}
	return h, nil
}

// clone returns a fresh harness for the same scope with its own scratch space and
// share-partition (decode into it before use).
func (h *harness) clone() *harness {
	c, _ := newHarness(h.sc)
	return c
}

// encode appends the state's canonical encoding to b.
func (h *harness) encode(b []byte) []byte { return h.encodeWith(b, nil) }

// encodeWith is encode with the store's encoding given (nil: encode it). It notes where the
// store's encoding lies in what it appended (encFrom, encTo).
func (h *harness) encodeWith(b, store []byte) []byte {
	start := len(b)
	b, h.perm = h.canonicalSP(b)
	h.encFrom = len(b) - start
	switch {
	case store != nil:
		b = append(b, store...)
	case h.storeDead():
		b = h.store.AppendEpochs(b)
	default:
		b = h.store.AppendState(b)
	}
	h.encTo = len(b) - start
	b = binary.AppendUvarint(b, uint64(h.logStart))
	b = append(b, byte(h.lsoMoves))
	b = binary.AppendUvarint(b, h.accepted)
	if h.sc.DLQ {
		b = binary.AppendUvarint(b, h.dlqd)
	}
	if h.trackStart {
		b = append(b, h.startFlags())
	}
	b = binary.AppendUvarint(b, uint64(len(h.zombies)))
	if len(h.zombies) == 0 {
		return b
	}
	h.zombieOrder()
	for _, i := range h.zord {
		b = model.AppendWriteState(b, h.zombies[i])
	}
	return b
}

// startFlags encodes regressed (only while a failover can still read the store: with the
// store dead nothing reads it again) and tainted.
func (h *harness) startFlags() byte {
	var f byte
	if h.regressed && !h.storeDead() {
		f = 1
	}
	if h.tainted {
		f |= 2
	}
	return f
}

// zombieOrder sorts the stale writes by their encodings into h.zord.
func (h *harness) zombieOrder() {
	h.zbuf = h.zbuf[:0]
	h.zord = h.zord[:0]
	spans := h.zspans[:0]
	for i, w := range h.zombies {
		from := len(h.zbuf)
		h.zbuf = model.AppendWriteState(h.zbuf, w)
		spans = append(spans, [2]int{from, len(h.zbuf)})
		h.zord = append(h.zord, i)
	}
	h.zspans = spans
	o := h.zord
	for i := 1; i < len(o); i++ {
		for j := i; j > 0; j-- {
			a, b := spans[o[j]], spans[o[j-1]]
			if bytes.Compare(h.zbuf[a[0]:a[1]], h.zbuf[b[0]:b[1]]) >= 0 {
				break
			}
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

var errTrailing = errors.New("explore: trailing bytes in a state")

// decode overwrites the harness with an encoded state.
func (h *harness) decode(b []byte) error {
	rest, err := h.codec.Decode(h.sp, b)
	if err != nil {
		return err
	}
	if rest, err = h.rd.decode(rest); err != nil {
		return err
	}
	from := len(b) - len(rest)
	if rest, err = h.store.DecodeState(rest); err != nil {
		return err
	}
	h.storeEnc = b[from : len(b)-len(rest) : len(b)-len(rest)]
	h.gen++
	x, n := binary.Uvarint(rest)
	if n <= 0 || len(rest) < n+1 {
		return errTrailing
	}
	h.logStart = int64(x)
	h.lsoMoves = int(rest[n])
	rest = rest[n+1:]
	if h.accepted, n = binary.Uvarint(rest); n <= 0 {
		return errTrailing
	}
	rest = rest[n:]
	if h.sc.DLQ {
		if h.dlqd, n = binary.Uvarint(rest); n <= 0 {
			return errTrailing
		}
		rest = rest[n:]
	}
	if h.trackStart {
		if len(rest) == 0 {
			return errTrailing
		}
		h.regressed, h.tainted = rest[0]&1 != 0, rest[0]&2 != 0
		rest = rest[1:]
	}
	nz, n := binary.Uvarint(rest)
	if n <= 0 {
		return errTrailing
	}
	rest = rest[n:]
	for len(h.zombies) < int(nz) {
		h.zombies = append(h.zombies, &model.Write{})
	}
	h.zombies = h.zombies[:nz]
	for i := range h.zombies {
		if rest, err = model.DecodeWriteState(rest, h.zombies[i]); err != nil {
			return err
		}
	}
	if len(rest) != 0 {
		return errTrailing
	}
	return nil
}

func (r *pendingRead) decode(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, errTrailing
	}
	if b[0] == 0 {
		*r = pendingRead{}
		return b[1:], nil
	}
	if len(b) < 5 {
		return nil, errTrailing
	}
	r.on, r.m, r.b, r.mode, r.short = true, b[1], b[2], b[3]>>1, b[3]&1
	x, n := binary.Uvarint(b[4:])
	if n <= 0 {
		return nil, errTrailing
	}
	r.off = int64(x)
	return b[4+n:], nil
}

// copyFrom makes h a copy of base (same scope), reusing h's memory.
func (h *harness) copyFrom(base *harness) {
	h.sp.CopyFrom(base.sp)
	if h.storeDirty || h.from != base.gen || base.gen == 0 {
		h.store.CopyFrom(base.store)
		h.zombies = append(h.zombies[:0], base.zombies...)
		h.from, h.storeDirty = base.gen, false
	}
	h.logStart, h.lsoMoves, h.accepted, h.dlqd = base.logStart, base.lsoMoves, base.accepted, base.dlqd
	h.rd, h.regressed, h.tainted = base.rd, base.regressed, base.tainted
	h.zused = 0
}

// cloneWrite copies w into a write of the harness's pool (reused after the next copyFrom),
// or a new one for a live harness.
func (h *harness) cloneWrite(w *model.Write) *model.Write {
	if h.live {
		return w.Clone()
	}
	if h.zused == len(h.zpool) {
		h.zpool = append(h.zpool, &model.Write{})
	}
	c := h.zpool[h.zused]
	h.zused++
	batches := append(c.Batches[:0], w.Batches...)
	*c = *w
	c.Batches = batches
	return c
}

// read returns the log batches a read at offset f returns.
func (h *harness) read(f int64) []model.LogBatch {
	for i, lb := range h.log {
		if lb.Last >= f {
			return h.log[i:]
		}
	}
	return nil
}

func (h *harness) held(r *spcheck.Rec, m int16) bool {
	return r.State == model.Acquired && !r.Pending && r.Owner == m
}

// actions appends the actions enabled in the current state (v is its view).
func (h *harness) actions(v *spcheck.View, out []Action) []Action {
	sc, sp := h.sc, h.sp
	if len(h.zombies) > 0 {
		// The old leader's late writes reach the share coordinator, in any order, right after
		// the new leader read it (where fencing matters); other steps wait. Delivered later
		// they would only multiply states: a fenced write changes nothing.
		for k := range h.zombies {
			out = append(out, mk(actStale, 0, k, 0, 0))
		}
		return out
	}
	fetch := actFetch
	if sc.Window {
		fetch = actRead
	}
	if h.rd.on {
		out = append(out, mk(actAcquire, 0, 0, 0, 0)) // the fetch lock is held until then
	} else if sp.CanAcquire() {
		f := sp.NextFetchOffset()
		switch read := h.read(f); {
		case f < h.logStart:
			out = append(out, mk(actFetch, 0, 0, 0, 0)) // the read fails; the log start is applied
		case len(read) > 0:
			for m := range h.members {
				for bi := range sc.MaxRecords {
					for mode := 0; mode <= 1; mode++ {
						if mode == 1 && !sc.RecordLimit {
							break
						}
						out = append(out, mk(fetch, m, bi, mode, 0))
						if sc.ShortReads && len(read) > 1 {
							out = append(out, mk(fetch, m, bi, mode, 1))
						}
					}
				}
			}
		}
	}
	var anyHeld [3]bool
	canWrite := sc.MaxPending == 0 || sp.OutstandingWrites() < sc.MaxPending
	for mi := range h.members {
		m := int16(mi) // members are registered in order
		ri := 0
		for _, b := range v.Batches {
			for ri < len(v.Recs) && v.Recs[ri].Offset < b.First {
				ri++
			}
			start := ri
			all, some := true, false
			for k := ri; k < len(v.Recs) && v.Recs[k].Offset <= b.Last; k++ {
				if h.held(&v.Recs[k], m) {
					some = true
				} else {
					all = false
				}
			}
			if !some {
				continue
			}
			anyHeld[mi] = true
			if !canWrite {
				continue
			}
			if b.Whole && all {
				for _, t := range sc.AckTypes {
					out = append(out, mk(actAck, mi, int(b.First), int(b.Last), int(t)))
				}
				if b.First == b.Last {
					continue
				}
			}
			for k := start; k < len(v.Recs) && v.Recs[k].Offset <= b.Last; k++ {
				if h.held(&v.Recs[k], m) {
					for _, t := range sc.AckTypes {
						out = append(out, mk(actAck, mi, int(v.Recs[k].Offset), int(v.Recs[k].Offset), int(t)))
					}
				}
			}
		}
	}
	if canWrite {
		h.holder = sp.AppendLockHolders(h.holder[:0])
		for _, off := range h.holder {
			out = append(out, mk(actFire, 0, int(off), 0, 0))
		}
	}
	for k := 0; k < sp.OutstandingWrites(); k++ {
		out = append(out, mk(actCommit, 0, k, 0, 0), mk(actFail, 0, k, 0, 0))
	}
	if sc.DLQ && canWrite {
		h.qbuf = sp.OutstandingDLQ(h.qbuf[:0])
		for k := range h.qbuf {
			out = append(out, mk(actDLQ, 0, k, 0, 0), mk(actDLQ, 0, k, 0, 1))
		}
	}
	if sc.Leave && canWrite {
		for mi := range h.members {
			if anyHeld[mi] {
				out = append(out, mk(actLeave, mi, 0, 0, 0))
			}
		}
	}
	if h.lsoMoves < sc.LogStartMoves {
		for x := h.logStart + 1; x <= h.hw; x++ {
			out = append(out, mk(actLogStart, 0, int(x), 0, 0))
		}
	}
	if int(sp.LeaderEpoch())-1 < sc.Failovers {
		out = append(out, mk(actFailover, 0, 0, 0, 0))
		if sc.LateWrites && sp.OutstandingWrites() > 0 {
			out = append(out, mk(actFailover, 0, 0, 0, 1))
		}
	}
	return out
}

// writeID maps a canonical write number to the share-partition's write id.
func (h *harness) writeID(k int) model.WriteID {
	if !h.live {
		return model.WriteID(k + 1)
	}
	h.ids = h.codec.CanonicalWrites(h.ids[:0], h.sp)
	return h.ids[k]
}

// zombieIndex maps a canonical stale-write number to its index in h.zombies.
func (h *harness) zombieIndex(k int) int {
	if !h.live {
		return k
	}
	h.zombieOrder()
	return h.zord[k]
}

// storeWrite sends w to the share coordinator and notes what the invariants need.
func (h *harness) storeWrite(w *model.Write, st *spcheck.Step) error {
	sw := spcheck.StoreWrite{WriteLeaderEpoch: w.LeaderEpoch, WriteStateEpoch: w.StateEpoch,
		StoreLeaderEpoch: h.store.LeaderEpoch(), StoreStateEpoch: h.store.StateEpoch()}
	before := h.store.StartOffset()
	err := h.store.Write(w)
	sw.Accepted = err == nil
	h.regressed = h.regressed || h.store.StartOffset() < before
	st.Writes = append(st.Writes, sw)
	if err == nil {
		spcheck.AcceptedOffsets(w, func(off int64) {
			if off >= 0 && off < 64 {
				h.accepted |= 1 << uint(off)
			}
		})
	}
	return err
}

// apply performs an action and describes it in st.
func (h *harness) apply(a Action, st *spcheck.Step) error {
	err := h.applyCore(a, st)
	st.StartRegressed = h.tainted
	return err
}

func (h *harness) applyCore(a Action, st *spcheck.Step) error {
	sp := h.sp
	st.LogStart, st.MaxLogBatch = h.logStart, h.maxBatch
	switch a.kind() {
	case actFetch:
		m := h.members[a.a()]
		st.Kind, st.Member = spcheck.StepFetch, m
		f := sp.NextFetchOffset()
		if f < h.logStart {
			sp.MoveLogStartOffset(h.logStart)
			return nil
		}
		read := h.read(f)
		if a.d() == 1 && len(read) > 1 {
			read = read[:1]
		}
		mr := h.sc.MaxRecords[a.b()]
		p := model.FetchParams{MaxRecords: mr, BatchSize: mr}
		if a.c() == 1 {
			p.Mode = model.RecordLimit
		}
		st.MaxRecords = int64(mr)
		rs, err := sp.Acquire(0, m, p, read, h.rbuf[:0])
		h.rbuf = rs
		st.Acquired = rs
		if err != nil {
			return &coreError{err}
		}
	case actRead:
		fr, err := sp.BeginFetch()
		if err != nil {
			return &coreError{err}
		}
		h.rd = pendingRead{on: true, m: uint8(a.a()), b: uint8(a.b()), mode: uint8(a.c()), short: uint8(a.d()), off: fr.FetchOffset}
	case actAcquire:
		rd := h.rd
		h.rd = pendingRead{}
		m := h.members[rd.m]
		st.Kind, st.Member = spcheck.StepFetch, m
		read := h.read(rd.off)
		if rd.short == 1 && len(read) > 1 {
			read = read[:1]
		}
		mr := h.sc.MaxRecords[rd.b]
		p := model.FetchParams{MaxRecords: mr, BatchSize: mr}
		if rd.mode == 1 {
			p.Mode = model.RecordLimit
		}
		st.MaxRecords = int64(mr)
		rs, err := sp.AcquireFetched(0, m, p, rd.off, read, h.rbuf[:0])
		h.rbuf = rs
		st.Acquired = rs
		if err != nil {
			return &coreError{err}
		}
	case actAck:
		h.types[0] = model.AckType(a.d())
		h.ack[0] = model.AckRange{First: int64(a.b()), Last: int64(a.c()), Types: h.types[:]}
		// An error (the record is not held after all) changes nothing, as for a client.
		_, _ = sp.Acknowledge(0, h.members[a.a()], h.ack[:])
	case actFire:
		h.wbuf = sp.FireLock(int64(a.b()), h.wbuf[:0])
		if v, ok := sp.Record(int64(a.b())); ok && v.HasLock {
			// A fired lock must leave its records; otherwise the step is a self-loop the
			// explorer would take for progress.
			return fmt.Errorf("explore: internal error: firing the lock of offset %d fired nothing (deadline %d still set)", a.b(), v.LockDeadlineMs)
		}
	case actCommit:
		id := h.writeID(a.b())
		w, ok := sp.OutstandingWrite(id)
		if !ok {
			return fmt.Errorf("explore: no outstanding write %d", id)
		}
		err := h.storeWrite(w, st)
		if err == nil {
			st.Committed = append(st.Committed, w.Batches...)
		}
		return sp.CompleteWrite(0, id, err)
	case actFail:
		id := h.writeID(a.b())
		if w, ok := sp.OutstandingWrite(id); ok {
			st.RolledBack = append(st.RolledBack, w.Batches...)
		}
		return sp.CompleteWrite(0, id, errWriteFailed)
	case actStale:
		i := h.zombieIndex(a.b())
		_ = h.storeWrite(h.zombies[i], st) // a fenced stale write changes nothing
		h.zombies = append(h.zombies[:i], h.zombies[i+1:]...)
	case actLeave:
		m := h.members[a.a()]
		st.Kind, st.Member = spcheck.StepLeave, m
		sp.ReleaseMember(0, m)
	case actDLQ:
		h.qbuf = sp.OutstandingDLQ(h.qbuf[:0])
		if a.b() >= len(h.qbuf) {
			return fmt.Errorf("explore: no outstanding DLQ produce %d", a.b()+1)
		}
		q := h.qbuf[a.b()]
		ds := &spcheck.DLQStep{Request: q, Produced: a.d() == 0}
		var perr error
		if !ds.Produced {
			perr = errDLQFailed
		}
		// Kafka resends across leaders (a resumed ARCHIVING batch, or a record redelivered
		// because the old leader's writes were lost): the topic may then hold it twice.
		// On one leader a record reaches the topic at most once.
		for off := q.First; off <= q.Last && ds.Produced; off++ {
			if off >= 0 && off < 64 {
				ds.Again = ds.Again || h.dlqd&(1<<uint(off)) != 0
				h.dlqd |= 1 << uint(off)
			}
		}
		st.DLQ = ds
		if _, err := sp.CompleteDLQ(0, q.ID, perr); err != nil {
			return &coreError{err}
		}
	case actLogStart:
		h.logStart = int64(a.b())
		h.lsoMoves++
		st.LogStart = h.logStart
		sp.MoveLogStartOffset(h.logStart)
	case actFailover:
		h.rd = pendingRead{} // the new leader has no fetch waiting
		if a.d() == 1 {
			// Stale writes keep the order they were issued in (as a script's do).
			n := 0
			for id := model.WriteID(1); n < sp.OutstandingWrites(); id++ {
				if w, ok := sp.OutstandingWrite(id); ok {
					h.zombies = append(h.zombies, h.cloneWrite(w))
					n++
				}
			}
		}
		sp.Fence()
		h.dlqd = 0
		h.tainted = h.regressed
		epoch := sp.LeaderEpoch() + 1
		if !h.live {
			// What a failover loads depends only on the stored state, the epoch and the log
			// start: remember it instead of building a new share-partition every time.
			h.key = h.store.AppendState(h.key[:0])
			h.key = binary.AppendUvarint(h.key, uint64(epoch))
			h.key = binary.AppendUvarint(h.key, uint64(h.logStart))
			if enc, ok := h.loaded[string(h.key)]; ok {
				rest, err := h.codec.Decode(h.sp, enc)
				if err == nil {
					_, err = h.store.DecodeState(rest)
				}
				st.NewLeader = true
				return err
			}
		}
		snap, err := h.store.Read(epoch)
		if err != nil {
			return &coreError{err}
		}
		start := snap.StartOffset
		if start < 0 {
			start = h.logStart // share.auto.offset.reset: earliest
		}
		nsp, err := model.Load(h.cfg, snap, epoch, start)
		if err != nil {
			return &coreError{err}
		}
		nsp.AddMembers(h.members...)
		if h.logStart > nsp.StartOffset() {
			nsp.MoveLogStartOffset(h.logStart)
		}
		h.sp = nsp
		st.NewLeader = true
		if !h.live && len(h.loaded) < 1<<16 {
			enc := h.codec.Append(nil, nsp)
			h.loaded[string(h.key)] = h.store.AppendState(enc)
		}
	}
	return nil
}
