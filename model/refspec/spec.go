// Package refspec is a naive reference specification of one Kafka share-partition
// (KIP-932), written from docs/kafka-semantics.md §2–8 independently of package model.
// It keeps one entry per offset and recomputes everything by scanning offsets in
// ascending order; it is meant to be read, not to be fast. Property tests drive it and
// the core with the same operations and compare what they show.
//
// Readings chosen where the semantics doc leaves room (Kafka 4.2's most plausible
// behaviour; the lead reconciles these with the core). Where it says "Kafka's code",
// the reading was checked against the 4.2-line SharePartition.java / InFlightState.java:
//
//  1. The find-next flag (§4.2) is not stored: NextFetchOffset always scans. This is
//     equivalent because the flag is set whenever a non-pending AVAILABLE offset (or a
//     reload hole) appears and is cleared only by a scan that finds none.
//  2. Lock firing order is (deadline, creation moment, first offset). A moment is one
//     Acquire or Acknowledge call; locks made by a split inherit the moment of the
//     lock they replace, so split offsets fire in ascending order with their peers.
//  3. Step 4 of §4.3 is taken literally (as Kafka 4.2's code has it): s moves to SPSO
//     only when no cached batch starts at or before it. So after a log-start move that
//     leaves cached batches wholly below SPSO, a read whose first log batch straddles
//     SPSO acquires its offsets below SPSO (§4.3's "never below SPSO" does not hold
//     there; the property test exempts that case from the invariant). Reload holes,
//     however, exist only from SPSO on (§8.3), so hole fills start at SPSO at least.
//  4. A budget cut rounds up to the end of the log batch holding offset a+m−1; when
//     that offset lies in a compaction gap the span ends at a+m−1 itself (Kafka's
//     lookup returns the offset when no batch holds it). Never past the span's end.
//  5. Throttling (§3.4): a batch is throttled if an acquirable offset in the request
//     has dc ≥ T; the limit max(1, N>>(d−T+1)) takes d from the first acquirable offset
//     with dc ≥ T (Kafka's reading; the doc's "first acquirable" leaves d < T open) and
//     counts every offset taken from the batch, stopping when the count reaches it.
//  6. Last-attempt isolation stops taking offsets from that batch only; the call goes
//     on with later batches and new records (only throttling stops the whole call).
//  7. Merging of per-offset acquisitions (4.2) joins offsets of the same cached batch
//     taken in one per-offset pass; ranges of different batches are never merged
//     (KAFKA-19957, apache/kafka#21064: "cache 0-4 and 5-9, acquired 3..6 → [3-4],[5-6]").
//  8. T-COMPACT and T-LSO archive every offset whose shown state is AVAILABLE, pending
//     or not (a pending provisional RELEASE too). In 4.2 such offsets stay ARCHIVED if
//     their write fails; in 4.1 rollback restores them like any other pending offset.
//  9. A failed ack/release write in 4.2 whose lock fired meanwhile lands AVAILABLE, or
//     ARCHIVED at the limit, as §6.4 says, even below SPSO (unlike T-EXPIRE; Kafka's
//     rollback does not look at SPSO either).
//  10. A batch split during a failed Acknowledge stays split (splits are one-way); only
//     the provisional state changes are undone (RENEW too stays, per §6.5).
//  11. Head rule (§5.2): when SPSO is not inside a cached batch (log start moved past
//     the cache), step 1 needs the batch just below SPSO, if tracked whole, to be
//     terminal and not pending (Kafka's check); a per-offset one passes (Kafka would
//     fail the lookup with an exception). This only decides when dead batches below
//     SPSO are dropped. Step 3 sets SPSO := X+1 unconditionally in both versions, as
//     the doc and Kafka's code say, so after a log-start jump past the whole cache
//     SPSO can step back below the log start until the next fetch re-applies T-LSO.
//  12. The window size is SPEO−SPSO+1 whenever the cache is non-empty (also when all of
//     it lies below SPSO after a log-start move), else 0.
//  13. T-LEAVE and T-EXPIRE split a whole batch only when SPSO lies strictly inside it
//     and the batch is ACQUIRED and not pending (Kafka's code).
//     4.1 models KAFKA-19953: in a per-offset batch, an offset ACQUIRED by another
//     member stops the release of the rest of that batch.
//  14. T-ABORT splits a cached batch unless it is tracked whole and lies inside the
//     aborted log batch being processed.
//  15. deliveryCompleteCount is computed for both versions, after the write's own
//     (provisional) changes are applied.
//  16. Reload gap window (§8.3) as the doc has it, a set of holes: offsets in
//     [SPSO, loaded end] that no cached batch covers are "unfetched" until SPEO passes
//     the loaded end. One addition: a read at f whose first log batch starts at
//     b0 > f proves [f, b0) holds no records, so T-COMPACT also turns the holes there
//     into plain compaction gaps (otherwise the next fetch would return f forever).
//     Kafka's code keeps a single cursor instead, which can stall the head rule at a
//     batch that merely starts at the cursor; the doc's abstraction is kept here.
package refspec

import (
	"fmt"
	"sort"
)

// Version is the modelled Kafka release.
type Version uint8

// Versions.
const (
	V41 Version = 41
	V42 Version = 42
	V43 Version = 43 // 4.2 plus share.renew.acknowledge.enable (Config.NoRenew)
	V44 Version = 44 // 4.3 plus the dead-letter queue (Config.DLQ) and the 4.4 coordinator rules
)

// Mode is share.acquire.mode.
type Mode uint8

// Acquire modes.
const (
	BatchOptimized Mode = iota
	RecordLimit
)

// State is a record state with Kafka's persisted ids.
type State uint8

// Record states.
const (
	Available    State = 0
	Acquired     State = 1
	Acknowledged State = 2
	Archiving    State = 3 // 4.4: on its way to the dead-letter queue
	Archived     State = 4
)

func (s State) terminal() bool { return s == Acknowledged || s == Archived }

// AckType is an acknowledgement type with Kafka's wire ids.
type AckType uint8

// Acknowledgement types.
const (
	Gap     AckType = 0
	Accept  AckType = 1
	Release AckType = 2
	Reject  AckType = 3
	Renew   AckType = 4
)

// Code is the outcome of an operation.
type Code uint8

// Outcome codes.
const (
	OK Code = iota
	InvalidRequest
	InvalidRecordState
	FencedLeaderEpoch
	FencedStateEpoch
)

// WriteKind says which trigger issued a state write.
type WriteKind uint8

// Write kinds.
const (
	KindAck WriteKind = iota + 1
	KindRelease
	KindExpiry
	KindDLQ // 4.4: ARCHIVED after a DLQ step
)

// Config is the part of the group configuration the spec needs.
type Config struct {
	Version       Version
	LockMs        int64 // share.record.lock.duration.ms
	Limit         int   // delivery count limit L
	Cap           int64 // partition max record locks
	ReadCommitted bool
	NoRenew       bool // 4.3: share.renew.acknowledge.enable = false
	// DLQ is 4.4's dead-letter queue gate (share.version 2 and a DLQ topic): a REJECT, or
	// a return to AVAILABLE at the limit, goes to ARCHIVING; the DLQ step starts once the
	// write carrying it completed (an acknowledgement or release write successfully; an
	// expiry write either way) and ends, produced or not, in ARCHIVED and one more write.
	// A rollback after a fired lock archives at the limit with no DLQ step.
	DLQ bool
}

// LogBatch is one log batch returned by a log read.
type LogBatch struct {
	First, Last int64
	Aborted     bool
}

// Range is one acquired range returned to the client.
type Range struct {
	First, Last int64
	DC          int
}

// AckRange is one acknowledged range: one type, or one type per offset.
type AckRange struct {
	First, Last int64
	Types       []AckType
}

// View is what the spec shows for one cached offset.
type View struct {
	State    State
	DC       int
	Owner    string
	Pending  bool
	HasLock  bool
	Deadline int64
}

// Entry is one offset's content in a write or a store.
type Entry struct {
	Offset int64
	State  State
	DC     int
}

// Write is one state write issued by the partition.
type Write struct {
	ID                      uint64
	Kind                    WriteKind
	StateEpoch, LeaderEpoch int32
	StartOffset             int64
	DeliveryCompleteCount   int64
	Entries                 []Entry // ascending offsets
}

type rec struct {
	state    State
	dc       int
	owner    string
	hasLock  bool
	deadline int64
	moment   int64  // creation moment of the lock
	write    uint64 // pending write id, 0 when none
	prev     struct {
		state State
		dc    int
		owner string
	}
	fired  bool // the lock fired while pending
	forced bool // force-archived (never revived by a 4.2 rollback)
	dlq    bool // a DLQ produce for it is outstanding
}

type batch struct {
	first, last int64
	whole       bool // tracked as one unit; its offsets are kept identical
}

// Spec is the reference model of one share-partition.
type Spec struct {
	cfg                     Config
	stateEpoch, leaderEpoch int32
	spso, speo              int64
	recs                    map[int64]*rec
	batches                 map[int64]*batch // keyed by first offset
	gapEnd                  int64            // loaded end of the reload gap window
	holes                   map[int64]bool   // unfetched reload holes (while SPEO ≤ gapEnd)
	moment                  int64
	lastWrite               uint64
	writes                  map[uint64]*Write // outstanding
}

// New returns an empty share-partition starting at startOffset.
func New(cfg Config, startOffset int64) *Spec {
	return &Spec{cfg: cfg, spso: startOffset, speo: startOffset, recs: map[int64]*rec{},
		batches: map[int64]*batch{}, writes: map[uint64]*Write{}, holes: map[int64]bool{}, gapEnd: -1}
}

// SetEpochs sets the state and leader epochs later writes carry.
func (s *Spec) SetEpochs(stateEpoch, leaderEpoch int32) {
	s.stateEpoch, s.leaderEpoch = stateEpoch, leaderEpoch
}

// SetGroupConfig changes the dynamic group configs of Kafka 4.3 from now on: the delivery
// count limit, the in-flight cap and share.renew.acknowledge.enable.
func (s *Spec) SetGroupConfig(limit int, cap int64, renew bool) {
	s.cfg.Limit, s.cfg.Cap, s.cfg.NoRenew = limit, cap, !renew
}

// PersistedBatch is one batch of a snapshot.
type PersistedBatch struct {
	First, Last int64
	State       State
	DC          int
}

// Snapshot is the durable state returned by the store.
type Snapshot struct {
	StateEpoch, LeaderEpoch int32
	StartOffset             int64 // -1: never written
	DeliveryCompleteCount   int64
	Batches                 []PersistedBatch
}

// Load rebuilds a share-partition from persisted state (§8.3).
func Load(cfg Config, snap Snapshot, leaderEpoch int32, startIfUnset int64) (*Spec, error) {
	start := snap.StartOffset
	if start < 0 {
		start = startIfUnset
	}
	s := New(cfg, start)
	s.stateEpoch, s.leaderEpoch = snap.StateEpoch, leaderEpoch
	prev := start - 1
	for i, pb := range snap.Batches {
		if pb.First < start || pb.Last < pb.First || (i > 0 && pb.First <= snap.Batches[i-1].Last) {
			return nil, fmt.Errorf("refspec: bad persisted batch %+v (start %d)", pb, start)
		}
		for o := prev + 1; o < pb.First; o++ {
			s.holes[o] = true
		}
		prev = pb.Last
		s.batches[pb.First] = &batch{first: pb.First, last: pb.Last, whole: true}
		for o := pb.First; o <= pb.Last; o++ {
			// A persisted ARCHIVING record's DLQ step is resumed at once (4.4), whatever
			// the gate says now.
			s.recs[o] = &rec{state: pb.State, dc: pb.DC, dlq: pb.State == Archiving}
		}
		s.speo = pb.Last
	}
	if len(snap.Batches) > 0 {
		s.gapEnd = s.speo
	}
	s.advanceHead()
	return s, nil
}

// ---- views ----

// SPSO is the share-partition start offset.
func (s *Spec) SPSO() int64 { return s.spso }

// SPEO is the share-partition end offset.
func (s *Spec) SPEO() int64 { return s.speo }

// Window is the in-flight window size SPEO−SPSO+1, 0 when the cache is empty.
func (s *Spec) Window() int64 {
	if len(s.batches) == 0 || s.speo < s.spso {
		return 0
	}
	return s.speo - s.spso + 1
}

// Offsets returns the cached offsets in ascending order.
func (s *Spec) Offsets() []int64 {
	out := make([]int64, 0, len(s.recs))
	for o := range s.recs {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// View returns the shown state of a cached offset.
func (s *Spec) View(o int64) (View, bool) {
	r, ok := s.recs[o]
	if !ok {
		return View{}, false
	}
	v := View{State: r.state, DC: r.dc, Owner: r.owner, Pending: r.write != 0, HasLock: r.hasLock}
	if r.hasLock {
		v.Deadline = r.deadline
	}
	return v, true
}

// Outstanding returns the ids of writes not yet completed, in issue order.
func (s *Spec) Outstanding() []uint64 {
	var ids []uint64
	for id := range s.writes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// NextDeadline returns the earliest lock deadline.
func (s *Spec) NextDeadline() (int64, bool) {
	best, ok := int64(0), false
	for _, o := range s.Offsets() {
		if r := s.recs[o]; r.hasLock && (!ok || r.deadline < best) {
			best, ok = r.deadline, true
		}
	}
	return best, ok
}

// ---- cache helpers (all by scanning) ----

func (s *Spec) sorted() []*batch {
	out := make([]*batch, 0, len(s.batches))
	for _, b := range s.batches {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].first < out[j].first })
	return out
}

func (s *Spec) batchOf(o int64) *batch {
	for _, b := range s.sorted() {
		if b.first <= o && o <= b.last {
			return b
		}
	}
	return nil
}

// floor returns the cached batch with the greatest first offset ≤ o.
func (s *Spec) floor(o int64) *batch {
	var f *batch
	for _, b := range s.sorted() {
		if b.first <= o {
			f = b
		}
	}
	return f
}

func (s *Spec) lastCached() int64 {
	bs := s.sorted()
	return bs[len(bs)-1].last
}

// unfetched reports whether o is a hole of the reload gap window.
func (s *Spec) unfetched(o int64) bool {
	return s.speo <= s.gapEnd && s.holes[o] && o >= s.spso && s.recs[o] == nil
}

func (s *Spec) firstUnfetched(lo, hi int64) int64 {
	for o := lo; o <= hi; o++ {
		if s.unfetched(o) {
			return o
		}
	}
	return -1
}

func (s *Spec) setSPEO(v int64) { s.speo = v }

func (s *Spec) released(o int64, dc int) State {
	switch {
	case o < s.spso:
		return Archived
	case dc >= s.cfg.Limit && s.cfg.DLQ:
		return Archiving
	case dc >= s.cfg.Limit:
		return Archived
	}
	return Available
}

// SetDLQ turns the dead-letter-queue gate on or off from now on (4.4).
func (s *Spec) SetDLQ(on bool) { s.cfg.DLQ = on }

// DLQOffsets returns the offsets whose DLQ produce is outstanding, ascending.
func (s *Spec) DLQOffsets() []int64 {
	var out []int64
	for o, r := range s.recs {
		if r.dlq {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// startDLQ starts the DLQ step of a completed write's ARCHIVING entries.
func (s *Spec) startDLQ(w *Write) {
	for _, e := range w.Entries {
		if r := s.recs[e.Offset]; r != nil && e.State == Archiving && r.state == Archiving && r.write == 0 {
			r.dlq = true
		}
	}
}

// CompleteDLQ ends the DLQ produce of offsets lo..hi (every one outstanding): they become
// ARCHIVED whatever the produce did, and the returned write persists that.
func (s *Spec) CompleteDLQ(lo, hi int64) *Write {
	var offs []int64
	for o := lo; o <= hi; o++ {
		if r := s.recs[o]; r != nil && r.dlq {
			r.dlq, r.state, r.owner, r.hasLock = false, Archived, "", false
			offs = append(offs, o)
		}
	}
	return s.issue(KindDLQ, offs)
}

func (s *Spec) startPending(o int64, id uint64) *rec {
	r := s.recs[o]
	r.prev.state, r.prev.dc, r.prev.owner = r.state, r.dc, r.owner
	r.write, r.owner = id, ""
	return r
}

func (s *Spec) dcc() int64 {
	n := int64(0)
	for o, r := range s.recs {
		if o >= s.spso && r.state.terminal() {
			n++
		}
	}
	return n
}

func (s *Spec) issue(kind WriteKind, offs []int64) *Write {
	if len(offs) == 0 {
		return nil
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	s.lastWrite++
	w := &Write{ID: s.lastWrite, Kind: kind, StateEpoch: s.stateEpoch, LeaderEpoch: s.leaderEpoch,
		StartOffset: s.spso, DeliveryCompleteCount: s.dcc()}
	for _, o := range offs {
		r := s.recs[o]
		if r.write != 0 {
			r.write = w.ID
		}
		w.Entries = append(w.Entries, Entry{Offset: o, State: r.state, DC: r.dc})
	}
	s.writes[w.ID] = w
	return w
}

// ---- next fetch offset and gate (§4.2, §4.6) ----

// NextFetchOffset is where the next log read starts.
func (s *Spec) NextFetchOffset() int64 {
	if len(s.batches) == 0 || s.spso > s.lastCached() {
		return s.speo
	}
	prevEnd := s.spso - 1
	for _, b := range s.sorted() {
		if h := s.firstUnfetched(max(prevEnd+1, s.spso), b.first-1); h >= 0 {
			return h
		}
		for o := b.first; o <= b.last; o++ {
			if r := s.recs[o]; r.state == Available && r.write == 0 {
				return o
			}
		}
		prevEnd = max(prevEnd, b.last)
	}
	return s.speo + 1
}

// CanAcquire is the in-flight cap gate.
func (s *Spec) CanAcquire() bool {
	if s.NextFetchOffset() != s.speo+1 {
		return true
	}
	return s.Window() < s.cfg.Cap
}

// ---- forced archiving (T-COMPACT, T-LSO) ----

func (s *Spec) forceArchiveAvailable(lo, hi int64) {
	for _, b := range s.sorted() {
		if b.last < lo || b.first > hi {
			continue
		}
		if b.whole && (b.first < lo || b.last > hi) && s.recs[b.first].state == Available {
			b.whole = false
		}
		for o := max(b.first, lo); o <= min(b.last, hi); o++ {
			if r := s.recs[o]; r.state == Available {
				r.state, r.owner, r.forced = Archived, "", true
			}
		}
	}
}

// MoveLogStartOffset applies T-LSO (§5.3).
func (s *Spec) MoveLogStartOffset(lso int64) {
	if lso <= s.spso {
		return
	}
	s.forceArchiveAvailable(-1<<62, lso-1)
	s.spso = lso
	if len(s.batches) == 0 {
		s.setSPEO(lso)
	} else {
		s.setSPEO(max(s.speo, lso))
	}
}

// ---- head rule (§5.2) ----

func (s *Spec) advanceHead() {
	bs := s.sorted()
	if len(bs) == 0 || s.floor(s.spso) == nil {
		return
	}
	if b := s.batchOf(s.spso); b != nil {
		if r := s.recs[s.spso]; r.write != 0 || !r.state.terminal() {
			return
		}
	} else if f := s.floor(s.spso); f.whole && (s.recs[f.first].write != 0 || !s.recs[f.first].state.terminal()) {
		return
	}
	x, xi := int64(-1), -1
scan:
	for i, b := range bs {
		if i > 0 && s.firstUnfetched(bs[i-1].last+1, b.first-1) >= 0 {
			break
		}
		for o := b.first; o <= b.last; o++ {
			if r := s.recs[o]; r.write != 0 || !r.state.terminal() {
				break scan
			}
			x, xi = o, i
		}
	}
	if xi < 0 {
		return
	}
	v42 := s.cfg.Version >= V42
	switch {
	case x == s.lastCached(): // step 3
		s.spso = x + 1
		s.recs, s.batches = map[int64]*rec{}, map[int64]*batch{}
		s.speo = s.spso
	case x == bs[xi].last: // step 4
		next := bs[xi+1].first
		if h := s.firstUnfetched(x+1, next-1); h >= 0 {
			next = h
		}
		if !v42 || next > s.spso {
			s.spso = next
		}
		s.drop(bs[:xi+1])
	default: // step 5
		if x+1 > s.spso {
			s.spso = x + 1
		}
		s.drop(bs[:xi])
	}
}

func (s *Spec) drop(bs []*batch) {
	for _, b := range bs {
		for o := b.first; o <= b.last; o++ {
			delete(s.recs, o)
		}
		delete(s.batches, b.first)
	}
}

// BatchView is one cached batch and whether it is tracked whole.
type BatchView struct {
	First, Last int64
	Whole       bool
}

// Batches returns the cached batches in ascending order.
func (s *Spec) Batches() []BatchView {
	var out []BatchView
	for _, b := range s.sorted() {
		out = append(out, BatchView{b.first, b.last, b.whole})
	}
	return out
}
