package linearize

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The per-offset sequential specification. One abstract state describes one offset of one
// share-partition as the clients can know it; porcupine's state is a small set of them
// (the specification is nondeterministic because of transitions nobody sees, such as lock
// expiry). See doc.go for the rules and their justification.

const (
	inf    = math.MaxInt64
	negInf = math.MinInt64
)

// Kinds of abstract offset state.
const (
	kUnknown      uint8 = iota // not cached by the leader: never fetched, or a hole after a reload; the next delivery is the first (count 1)
	kAvailable                 // acquirable; the last delivery count lies in [lo, hi]
	kAcquired                  // held by owner with a delivery count in [lo, hi]; its lock deadline lies in [lockLo, lockHi]
	kAcknowledged              // accepted, and the acceptance is durable
	kArchived                  // archived for good (durable, or forced by compaction)
	kArchivedMem               // archived by a lock expiry or session release at the limit: only in the leader's memory, a reload may revive it
	// Kafka 4.4's ARCHIVING (the dead-letter queue) is not a kind of its own: a client cannot
	// tell it from ARCHIVED (neither is ever delivered again), so a REJECT's ARCHIVING is
	// kArchived once its write succeeded and an expiry's or session end's is kArchivedMem
	// (its write's result is ignored); a failed write's rollback restores the holder as for
	// any target state.
	kGone // below the log start offset: never delivered again, acknowledgements of it are ignored
)

var kindNames = [...]string{"unknown", "available", "acquired", "acknowledged", "archived", "archived(mem)", "gone"}

// Owners that are not clients of the share-partition.
const (
	noOwner int32 = -2
	phantom int32 = -1 // some client whose acquisition the history does not show
)

// Spec holds the configuration the specification depends on.
type Spec struct {
	// LockDurationMs is the acquisition lock duration (group.share.record.lock.duration.ms).
	LockDurationMs int64
	// DeliveryLimit is group.share.delivery.count.limit.
	DeliveryLimit int
	// Kafka41 selects Kafka 4.1 rules: a session release decrements the delivery count and
	// ignores the limit, and a failed acknowledgement write after the lock fired leaves the
	// record acquired with no lock.
	Kafka41 bool
	// NoRenew is Kafka 4.3's share.renew.acknowledge.enable = false: a RENEW of a held
	// record fails with INVALID_RECORD_STATE and renews nothing.
	NoRenew bool
}

// absState is one possible abstract state of an offset. now is a lower bound of the virtual
// time of the latest linearization point: a later operation or hidden transition cannot
// take effect before it.
type absState struct {
	now    int64
	lockLo int64
	lockHi int64
	owner  int32
	ev     int32 // index of the first partition event (env.events) not yet applied
	kind   uint8
	stuck  bool  // acquired: may be held with no live lock (Kafka 4.1's rollback after the lock fired)
	lo, hi int16 // delivery count bounds
	dur    int16 // the delivery count a successful state write is known to have persisted (0: none)
}

// stateSet is porcupine's state: the possible abstract states, at most one per (kind,
// owner, ev), sorted by those. Two states of the same kind, owner and ev are merged into
// their hull (the union of what either allows), which over-approximates the set: the
// specification may accept more histories, never fewer.
type stateSet []absState

func (s absState) key() int64 {
	return int64(s.kind)<<56 | int64(uint32(s.ev))<<24 | int64(uint32(s.owner)&0xffffff)
}

// merge adds st to the set, merging it into the entry of the same kind and owner, and
// returns the set and the index of the entry that changed (-1 when the set already allowed
// everything st allows).
func merge(ss stateSet, st absState) (stateSet, int) {
	for i := range ss {
		e := &ss[i]
		if e.kind != st.kind || e.owner != st.owner || e.ev != st.ev {
			continue
		}
		if st.now >= e.now && st.lockLo >= e.lockLo && st.lockHi <= e.lockHi && st.lo >= e.lo && st.hi <= e.hi &&
			st.dur >= e.dur && (!st.stuck || e.stuck) {
			return ss, -1 // e already allows everything st allows
		}
		e.now = min(e.now, st.now)
		e.lockLo = min(e.lockLo, st.lockLo)
		e.lockHi = max(e.lockHi, st.lockHi)
		e.lo = min(e.lo, st.lo)
		e.hi = max(e.hi, st.hi)
		e.dur = min(e.dur, st.dur)
		e.stuck = e.stuck || st.stuck
		return ss, i
	}
	return append(ss, st), len(ss)
}

// add is merge without the index.
func add(ss stateSet, st absState) stateSet {
	ss, _ = merge(ss, st)
	return ss
}

func (ss stateSet) sortCanonical() {
	for i := 1; i < len(ss); i++ {
		for j := i; j > 0 && ss[j].key() < ss[j-1].key(); j-- {
			ss[j], ss[j-1] = ss[j-1], ss[j]
		}
	}
}

func equalSets(a, b interface{}) bool {
	x, y := a.(stateSet), b.(stateSet)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func hashSet(a interface{}) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	for _, s := range a.(stateSet) {
		mix(uint64(s.now))
		mix(uint64(s.lockLo))
		mix(uint64(s.lockHi))
		mix(uint64(s.key()))
		mix(uint64(s.owner))
		mix(uint64(uint16(s.lo))<<32 | uint64(uint16(s.hi))<<16 | uint64(uint16(s.dur)))
		if s.stuck {
			mix(1)
		}
	}
	return h
}

// env is what the specification knows about one share-partition besides its operations:
// the configuration and the hidden events.
type env struct {
	spec  Spec
	limit int16
	// inForce is the group's timeline of the configuration in force when its delivery
	// limit or lock duration changes during the run (else empty: spec's values hold).
	inForce sim.InForce
	// events are the share-partition's events that happen at a known time whether or not an
	// operation observes them, in time order: the state was discarded on its leader
	// (reload), or every lock was expired at once.
	events []partEvent
	// hiddenFrom[c]: client c may have acquired records the history does not show from this
	// time on (a fetch whose response was lost, or requests in flight when it died); inf if
	// never. releaseFrom[c]: c's records may be released without a visible acknowledgement
	// from this time on (it was killed or closed); inf if never.
	hiddenFrom  []int64
	releaseFrom []int64
	// phantomFrom and phantomRelease describe the hidden acquirers not named in an offset's
	// history, merged into one.
	phantomFrom    int64
	phantomRelease int64
	names          []string // client names, by id
}

// limitAt returns the least and greatest delivery limit in force at time t (a change at
// exactly t may come before or after the transition).
func (e *env) limitAt(t int64) (lo, hi int16) {
	if !e.inForce.Changes() {
		return e.limit, e.limit
	}
	l, h := e.inForce.Range(t, t, sim.LimitOf)
	return int16(min(l, 1<<14)), int16(min(h, 1<<14))
}

// lockAt returns the least and greatest lock duration in force over [a, b]: a lock
// created in that interval lasts one of them.
func (e *env) lockAt(a, b int64) (lo, hi int64) {
	if !e.inForce.Changes() {
		return e.spec.LockDurationMs, e.spec.LockDurationMs
	}
	return e.inForce.Range(a, b, sim.LockMsOf)
}

// partEvent is one entry of env.events.
type partEvent struct {
	t      int64
	reload bool // else: every lock expired
}

// classEnv adds what differs between offsets of one share-partition.
type classEnv struct {
	*env
	goneAt      int64   // the time the offsets fell below the applied log start (inf: never)
	compactedAt int64   // the first time the offsets' batch was compacted away (inf: never)
	hiddenOwn   []int32 // hidden acquirers that acknowledge these offsets in the history
}

// Operation kinds and outcome classes of an input.
const (
	opFetch uint8 = iota
	opAck
)

const (
	codeNone    uint8 = iota // success
	codeLost                 // no response: may or may not have taken effect
	codeInvalid              // INVALID_RECORD_STATE or INVALID_REQUEST: validation failed, nothing changed
	codeOther                // any other error (not leader, write failure, ...): nothing changed
)

// input is one per-offset operation.
type input struct {
	env     *classEnv
	kind    uint8
	code    uint8
	typ     model.AckType
	single  bool // the acknowledgement names only this offset of the share-partition
	overlap bool // another acknowledgement of this offset by the same client is concurrent
	dc      int16
	client  int32
	call    int64
	ret     int64 // inf when lost
	src     int32 // index of the client operation in the history
	codeStr string
}

func satAdd(a, b int64) int64 {
	if a >= inf-b {
		return inf
	}
	return a + b
}

// pending returns the time of the first event s has not applied (inf: none).
func (e *classEnv) pending(s absState) int64 {
	if s.kind == kGone {
		return inf
	}
	t := e.goneAt
	if int(s.ev) < len(e.events) {
		t = min(t, e.events[s.ev].t)
	}
	return t
}

// canReach reports whether s may take a transition at time t: no event it has not applied
// lies before t.
func (e *classEnv) canReach(s absState, t int64) bool { return t <= e.pending(s) }

func (e *classEnv) hiddenFromOf(c int32) int64 {
	if c == phantom {
		return e.phantomFrom
	}
	return e.hiddenFrom[c]
}

func (e *classEnv) releaseFromOf(c int32) int64 {
	switch c {
	case phantom:
		return e.phantomRelease
	case noOwner:
		return inf
	}
	return e.releaseFrom[c]
}

// initial is the state of an offset before any operation.
func initial() absState {
	return absState{now: negInf, lockLo: inf, lockHi: negInf, owner: noOwner, kind: kUnknown}
}

// closure adds to set every state reachable through hidden transitions that can happen
// before time ret. The caller's buffers back the result as long as they are large enough.
func closure(set stateSet, dirty []bool, succ []absState, ret int64, e *classEnv) stateSet {
	for again := true; again; {
		again = false
		for i := 0; i < len(set); i++ {
			if !dirty[i] {
				continue
			}
			dirty[i], again = false, true
			for _, n := range hidden(set[i], ret, e, succ[:0]) {
				var j int
				if set, j = merge(set, n); j == len(dirty) {
					dirty = append(dirty, true)
				} else if j >= 0 {
					dirty[j] = true
				}
			}
		}
	}
	return set
}

// hidden appends the states s can move to by one hidden transition at a time in
// [s.now, ret]. Optional transitions (lock expiry, session end, unseen fetches, compaction)
// may happen at any time they are possible; the events of env.events and the log start
// move happen exactly at their time, and no transition may pass one that was not applied.
func hidden(s absState, ret int64, e *classEnv, out []absState) []absState {
	if s.kind == kGone {
		return out
	}
	if int(s.ev) < len(e.events) && e.events[s.ev].t <= ret && e.events[s.ev].t <= e.goneAt {
		ev := e.events[s.ev]
		t := max(s.now, ev.t)
		switch {
		case ev.reload:
			out = reload(s, t, e, out)
		case s.kind == kAcquired:
			out = release(s, t, false, e, out)
			if s.stuck { // a record with no live lock has nothing to expire
				n := s
				n.now, n.ev = t, n.ev+1
				out = append(out, n)
			}
		default:
			n := s
			n.now, n.ev = t, n.ev+1
			out = append(out, n)
		}
	}
	if t := max(s.now, e.goneAt); t <= ret && t <= e.pending(s) {
		out = append(out, absState{now: t, kind: kGone, owner: noOwner, lockLo: inf, lockHi: negInf, dur: s.dur, ev: s.ev})
	}
	limit := min(ret, e.pending(s)) // optional transitions happen before the next event
	switch s.kind {
	case kAcquired:
		if t := max(s.now, s.lockLo); t <= limit { // the lock ran out
			out = release(s, t, false, e, out)
		}
		if r := e.releaseFromOf(s.owner); r < inf { // the owner died: its session ended, or its unseen acknowledgement landed
			if t := max(s.now, r); t <= limit {
				out = release(s, t, false, e, out)
				if e.spec.Kafka41 {
					out = release(s, t, true, e, out)
				}
				if s.owner != phantom {
					// Only a client that received the record can acknowledge it; the
					// unseen owner never did.
					n := absState{now: t, owner: noOwner, lockLo: inf, lockHi: negInf, dur: s.dur, ev: s.ev, lo: s.lo, hi: s.hi}
					n.kind = kAcknowledged
					out = append(out, n)
					n.kind = kArchived
					out = append(out, n)
				}
			}
		}
	case kUnknown, kAvailable:
		lo, hi := s.lo+1, s.hi+1
		if s.kind == kUnknown {
			lo, hi = 1, 1
		}
		if e.phantomFrom < inf {
			out = hiddenAcquire(s, phantom, lo, hi, limit, e, out)
		}
		for _, c := range e.hiddenOwn {
			out = hiddenAcquire(s, c, lo, hi, limit, e, out)
		}
		if t := max(s.now, e.compactedAt); t <= limit { // compaction archives an available record
			out = append(out, absState{now: t, kind: kArchived, owner: noOwner, lockLo: inf, lockHi: negInf, lo: s.lo, hi: s.hi, dur: s.dur, ev: s.ev})
		}
	}
	return out
}

// hiddenAcquire is client c acquiring the offset in a fetch whose result the history does
// not show.
func hiddenAcquire(s absState, c int32, lo, hi int16, ret int64, e *classEnv, out []absState) []absState {
	if t := max(s.now, e.hiddenFromOf(c)); t <= ret {
		lock, _ := e.lockAt(t, ret)
		out = append(out, absState{now: t, kind: kAcquired, owner: c, lo: lo, hi: hi, dur: s.dur, ev: s.ev,
			lockLo: satAdd(t, lock), lockHi: inf})
	}
	return out
}

// release ends an acquisition without an acknowledgement: lock expiry, or (session) Kafka
// 4.1's session release, which gives the delivery back.
func release(s absState, t int64, session bool, e *classEnv, out []absState) []absState {
	base := absState{now: t, owner: noOwner, lockLo: inf, lockHi: negInf, dur: s.dur, ev: s.ev}
	if !session && int(s.ev) < len(e.events) && e.events[s.ev].t == t && !e.events[s.ev].reload {
		base.ev++ // the expiry of every lock
	}
	if session && e.spec.Kafka41 {
		n := base
		n.kind, n.lo, n.hi = kAvailable, max(0, s.lo-1), max(0, s.hi-1)
		return append(out, n)
	}
	limLo, limHi := e.limitAt(t)
	if s.lo < limHi {
		n := base
		n.kind, n.lo, n.hi = kAvailable, s.lo, min(s.hi, limHi-1)
		out = append(out, n)
	}
	if s.hi >= limLo {
		n := base
		n.kind, n.lo, n.hi = kArchivedMem, max(s.lo, limLo), s.hi
		out = append(out, n)
	}
	return out
}

// reload is the next leader rebuilding the offset from the durable state at time t: whatever
// the last successful write persisted (at least dur), or nothing. Terminal durable states
// and holes stay as they are.
func reload(s absState, t int64, e *classEnv, out []absState) []absState {
	n := absState{now: t, owner: noOwner, lockLo: inf, lockHi: negInf, dur: s.dur, ev: s.ev + 1}
	switch s.kind {
	case kUnknown, kAcknowledged, kArchived:
		m := s
		m.now, m.ev = t, s.ev+1
		return append(out, m)
	}
	top := s.hi
	if s.kind == kAcquired {
		top-- // the acquisition itself is never written
	}
	_, limHi := e.limitAt(t)
	top = max(min(top, limHi-1), s.dur)
	if s.dur == 0 {
		n.kind = kUnknown
		out = append(out, n)
		if top >= 1 {
			n.kind, n.lo, n.hi = kAvailable, 1, top
			out = append(out, n)
		}
		return out
	}
	n.kind, n.lo, n.hi = kAvailable, s.dur, top
	return append(out, n)
}

// scratch holds a step's working sets; pooled, so that neither the heap nor the goroutine
// stacks porcupine runs the steps on pay for them.
type scratch struct {
	set, succ, out [16]absState
	dirty          [16]bool
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// step is the specification's transition function for porcupine.
func step(state, in, _ interface{}) (bool, interface{}) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	out := stepSet(state.(stateSet), in.(*input), sc)
	if out == nil {
		return false, nil
	}
	return true, slices.Clone(out)
}

// stepSet applies op to the states prev (none: the initial state) and returns the
// states after it, in canonical order, in sc's memory (valid until sc is used again);
// nil when op is impossible in every state.
func stepSet(prev stateSet, op *input, sc *scratch) stateSet {
	set, dirty := stateSet(sc.set[:0]), sc.dirty[:0]
	if len(prev) == 0 {
		set, dirty = append(set, initial()), append(dirty, true)
	} else {
		for _, s := range prev {
			set, dirty = append(set, s), append(dirty, true)
		}
	}
	set = closure(set, dirty, sc.succ[:0], op.ret, op.env)
	out := apply(set, op, sc.out[:0])
	if len(out) == 0 {
		return nil
	}
	out.sortCanonical()
	return out
}

// apply applies a client operation to every possible state; the result is empty when the
// operation is impossible.
func apply(in stateSet, op *input, out stateSet) stateSet {
	e := op.env
	for _, s := range in {
		lp := max(s.now, op.call) // earliest linearization point
		if lp > op.ret || !e.canReach(s, lp) {
			continue
		}
		if op.kind == opFetch {
			ok := false
			switch s.kind {
			case kUnknown:
				ok = op.dc == 1
			case kAvailable:
				ok = s.lo+1 <= op.dc && op.dc <= s.hi+1
			}
			if ok {
				lockLo, lockHi := e.lockAt(lp, op.ret)
				out = add(out, absState{now: lp, kind: kAcquired, owner: op.client, lo: op.dc, hi: op.dc, dur: s.dur, ev: s.ev,
					lockLo: satAdd(lp, lockLo), lockHi: satAdd(op.ret, lockHi)})
			}
			continue
		}
		holds := s.kind == kAcquired && s.owner == op.client && lp <= s.lockHi
		refused := op.typ == model.AckRenew && e.spec.NoRenew  // 4.3: RENEW turned off
		passive := s.kind != kAvailable && s.kind != kAcquired // an acknowledgement may succeed without effect
		at := s
		at.now = lp
		switch op.code {
		case codeNone:
			if holds && !refused {
				out = effect(s, lp, op, out)
			}
			if passive {
				out = add(out, at)
			}
		case codeLost:
			out = add(out, s) // it may never have reached the leader
			if holds && !refused {
				out = effect(s, lp, op, out)
				if e.spec.Kafka41 {
					out = stuck(at, out)
				}
			}
		case codeInvalid:
			if !(holds && op.single && !op.overlap) || (holds && refused) {
				out = add(out, at)
			}
			if holds && op.typ == model.AckRenew && !op.single && !refused {
				out = renew(at, op, out) // a RENEW before the failing range is not undone
			}
		default:
			out = add(out, at)
			if holds && op.typ == model.AckRenew && !refused {
				out = renew(at, op, out)
			}
			if holds && e.spec.Kafka41 {
				out = stuck(at, out)
			}
		}
	}
	return out
}

// effect is a successful acknowledgement by the holder.
func effect(s absState, lp int64, op *input, out stateSet) stateSet {
	n := s
	n.now = lp
	limLo, limHi := op.env.limitAt(lp)
	switch op.typ {
	case model.AckAccept:
		n.kind, n.owner, n.lockLo, n.lockHi = kAcknowledged, noOwner, inf, negInf
		return add(out, n)
	case model.AckRelease:
		n.owner, n.lockLo, n.lockHi = noOwner, inf, negInf
		if s.lo < limHi {
			a := n
			a.kind, a.hi = kAvailable, min(s.hi, limHi-1)
			a.dur = max(s.dur, s.lo)
			out = add(out, a)
		}
		if s.hi >= limLo {
			a := n
			a.kind, a.lo = kArchived, max(s.lo, limLo)
			out = add(out, a)
		}
		return out
	case model.AckRenew:
		return renew(n, op, out)
	}
	// REJECT, GAP
	n.kind, n.owner, n.lockLo, n.lockHi = kArchived, noOwner, inf, negInf
	return add(out, n)
}

func renew(s absState, op *input, out stateSet) stateSet {
	lo, hi := op.env.lockAt(s.now, op.ret)
	s.lockLo = satAdd(s.now, lo)
	s.lockHi = satAdd(op.ret, hi)
	return add(out, s)
}

// stuck is Kafka 4.1's rollback of a failed acknowledgement write after the lock fired: the
// record stays acquired by the same member with no lock at all.
func stuck(s absState, out stateSet) stateSet {
	s.lockLo, s.lockHi, s.stuck = inf, inf, true
	return add(out, s)
}

// describeState renders a state set for the visualisation (owners by client number).
func describeState(state interface{}) string { return describeStates(state.(stateSet), nil) }

// describeStates renders a state set, naming owners when names is given.
func describeStates(ss stateSet, names []string) string {
	if len(ss) == 0 {
		return "{unknown}"
	}
	parts := make([]string, 0, len(ss))
	for _, s := range ss {
		parts = append(parts, s.describe(names))
	}
	return "{" + strings.Join(parts, " | ") + "}"
}

func (s absState) String() string { return s.describe(nil) }

func (s absState) describe(names []string) string {
	var b strings.Builder
	b.WriteString(kindNames[s.kind])
	switch s.kind {
	case kAvailable, kArchivedMem:
		fmt.Fprintf(&b, " dc %s", dcRange(s.lo, s.hi))
	case kAcquired:
		fmt.Fprintf(&b, " by %s dc %s lock until %s..%s", ownerName(s.owner, names), dcRange(s.lo, s.hi), msStr(s.lockLo), msStr(s.lockHi))
		if s.stuck {
			b.WriteString(" or no lock")
		}
	}
	if s.dur > 0 {
		fmt.Fprintf(&b, " persisted dc≥%d", s.dur)
	}
	if s.now != negInf {
		fmt.Fprintf(&b, " @%s", msStr(s.now))
	}
	return b.String()
}

func ownerName(o int32, names []string) string {
	switch {
	case o == phantom:
		return "an unseen fetch"
	case o == noOwner:
		return "-"
	case int(o) < len(names):
		return names[o]
	}
	return fmt.Sprintf("client %d", o)
}

func dcRange(lo, hi int16) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

func msStr(t int64) string {
	switch t {
	case inf:
		return "∞"
	case negInf:
		return "-∞"
	}
	return fmt.Sprint(t)
}
