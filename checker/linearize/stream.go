package linearize

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Stream is the check of a history that is handed over as it is recorded
// (sim.Options.OnHistory, sim.Options.OnHidden), holding only what can still change: an
// offset's operations are kept until the caller says the offset is finished (Advance),
// then its sub-history is checked and forgotten. The verdict is Check's on the whole
// history as long as Advance keeps its promise; memory grows with the offsets in flight,
// not with the length of the history.
//
// What it keeps per share-partition: the operations that name an offset not yet finished;
// the clients whose unseen acquisitions or death matter (hidden events), the dead ones only
// while a kept operation names them (the others are merged into the specification's unseen
// owner, exactly as Check treats clients no offset names); the reloads and lock-expiry
// events (one 16-byte entry each: they come from the fault schedule, not from records); the
// log-start moves and compactions above the finished offsets.
//
// Offsets that Advance finished and a later fetch delivers again are a failure of their
// own: a finished record is never delivered again (a late acknowledgement of one is legal
// in every state Advance allows, so it is skipped).
//
// The time limit (Options.TimeLimit) bounds the time spent on one share-partition over the
// whole run; once spent, the share-partition is Unknown and its later offsets are skipped.
type Stream struct {
	o      Options
	m      porcupine.Model
	res    *Result
	shares map[shareKey]*streamShare
	order  []*streamShare // by first operation
	all    []*streamShare // by first operation or hidden event
	gone   map[string]*fold
	// Working memory of checkRange, kept between calls.
	buf   buildBuf
	cut   cutBuf
	named map[string]bool
}

// cutBuf holds the operations checkRange cuts to a range, and the environment it builds.
type cutBuf struct {
	h       []sim.Op
	acked   []int64
	acq     []model.AcquiredRange
	acks    []model.AckRange
	ops     []int32
	env     *env // nil: fresh next time (porcupine may still read the last one)
	ids     map[string]int32
	clients []int32
	others  []string
}

type shareKey struct{ g, p string }

// fold is what forgotten clients contribute: the earliest time one of them may have
// acquired or released records unseen (inf: never).
type fold struct{ hiddenFrom, releaseFrom int64 }

type clientInfo struct{ hiddenFrom, releaseFrom int64 }

type streamShare struct {
	group, partition string
	sr               ShareResult
	hasOps           bool
	floor            int64 // offsets below it are checked and forgotten
	ops              []sim.Op
	clients          map[string]*clientInfo
	forgotten        fold
	events           []partEvent
	logStarts        []sim.HiddenEvent // in time order
	comps            []sim.HiddenEvent
	spent            time.Duration
	outOfTime        bool
}

// NewStream starts a streamed check.
func NewStream(o Options) *Stream {
	o = o.withDefaults()
	return &Stream{o: o, m: newModel(), res: &Result{Verdict: porcupine.Ok}, shares: map[shareKey]*streamShare{}, gone: map[string]*fold{}}
}

func (o Options) withDefaults() Options {
	if o.TimeLimit <= 0 {
		o.TimeLimit = DefaultTimeLimit
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 10
	}
	if o.DeliveryLimit <= 0 {
		o.DeliveryLimit = model.DefaultDeliveryCountLimit
	}
	return o
}

func (s *Stream) share(g, p string) *streamShare {
	k := shareKey{g, p}
	sh := s.shares[k]
	if sh == nil {
		sh = &streamShare{group: g, partition: p, sr: ShareResult{Group: g, Partition: p, Verdict: porcupine.Ok},
			floor: negInf, clients: map[string]*clientInfo{}, forgotten: fold{inf, inf}}
		if f := s.gone[g]; f != nil {
			sh.forgotten = *f
		}
		s.shares[k] = sh
		s.all = append(s.all, sh)
	}
	return sh
}

func (sh *streamShare) client(name string) *clientInfo {
	c := sh.clients[name]
	if c == nil {
		c = &clientInfo{inf, inf}
		sh.clients[name] = c
	}
	return c
}

// Add takes the next operation of the history.
func (s *Stream) Add(op *sim.Op) {
	sh := s.share(op.Group, op.Partition)
	if !sh.hasOps {
		sh.hasOps = true
		s.order = append(s.order, sh)
	}
	s.res.Ops++
	sh.sr.Ops++
	if op.Kind == "fetch" && op.ReturnMs < 0 {
		// A lost fetch names no offsets: its client is an unseen acquirer from its call on.
		c := sh.client(op.Client)
		c.hiddenFrom = min(c.hiddenFrom, op.CallMs)
		return
	}
	keep := false
	switch op.Kind {
	case "fetch":
		for _, r := range op.Acquired {
			if r.Last < r.First {
				continue
			}
			if r.First < sh.floor {
				s.late(sh, op, r)
			}
			keep = keep || r.Last >= sh.floor
		}
	case "ack":
		for _, r := range op.Acks {
			keep = keep || (r.Last >= r.First && len(r.Types) > 0 && r.Last >= sh.floor)
		}
	}
	if keep {
		sh.ops = append(sh.ops, *op)
	}
}

// late reports a delivery of offsets the caller said were finished.
func (s *Stream) late(sh *streamShare, op *sim.Op, r model.AcquiredRange) {
	last := min(r.Last, sh.floor-1)
	sh.sr.Verdict = porcupine.Illegal
	if len(sh.sr.Failures) >= s.o.MaxFailures {
		return
	}
	offs := fmt.Sprint(r.First)
	if last > r.First {
		offs = fmt.Sprintf("%d-%d", r.First, last)
	}
	sh.sr.Failures = append(sh.sr.Failures, Failure{Group: sh.group, Partition: sh.partition, Offsets: offs, Member: op.Client, TimeMs: op.ReturnMs,
		Message: fmt.Sprintf("%s fetch → delivery %d [%d, %d] of finished offsets (terminal below the durable start offset %d when every earlier request had returned): a finished record is never delivered again",
			op.Client, r.DeliveryCount, op.CallMs, op.ReturnMs, sh.floor)})
}

// Hidden takes the next hidden event.
func (s *Stream) Hidden(ev *sim.HiddenEvent) {
	if ev.Kind == sim.HiddenMemberGone {
		// A dead member may have touched any share-partition of its group; share-partitions
		// seen later never name it (it is gone), so for them it is an unseen owner.
		from := min(ev.FromMs, ev.TimeMs)
		f := s.gone[ev.Group]
		if f == nil {
			f = &fold{inf, inf}
			s.gone[ev.Group] = f
		}
		f.hiddenFrom, f.releaseFrom = min(f.hiddenFrom, from), min(f.releaseFrom, from)
		for _, sh := range s.all {
			if sh.group == ev.Group {
				c := sh.client(ev.Member)
				c.hiddenFrom, c.releaseFrom = min(c.hiddenFrom, from), min(c.releaseFrom, from)
			}
		}
		return
	}
	sh := s.share(ev.Group, ev.Partition)
	switch ev.Kind {
	case sim.HiddenReload:
		sh.events = append(sh.events, partEvent{t: ev.TimeMs, reload: true})
	case sim.HiddenLockExpiry:
		sh.events = append(sh.events, partEvent{t: ev.TimeMs})
	case sim.HiddenLogStart:
		sh.logStarts = append(sh.logStarts, *ev)
	case sim.HiddenCompaction:
		sh.comps = append(sh.comps, *ev)
	}
}

// Advance checks the offsets of a share-partition below floor and forgets them. The caller
// promises that they are finished: no operation recorded from now on delivers them, and
// every operation and hidden event to come lies after every operation on them so far (it
// waited until sim.World.HistoryHorizonMs passed the time they were finished).
func (s *Stream) Advance(group, partition string, floor int64) {
	sh := s.shares[shareKey{group, partition}]
	if sh == nil || floor <= sh.floor {
		return
	}
	s.advance(sh, floor)
}

// Finish checks every offset still held and returns the result.
func (s *Stream) Finish() *Result {
	for _, sh := range s.all {
		s.advance(sh, inf)
	}
	res := s.res
	res.Shares = res.Shares[:0]
	for _, sh := range s.order {
		sr := sh.sr
		sr.Elapsed = sh.spent
		res.Elapsed += sh.spent
		res.addShare(sr)
	}
	return res
}

// advance checks the offsets in [sh.floor, to) and forgets them.
func (s *Stream) advance(sh *streamShare, to int64) {
	lo := sh.floor
	sh.floor = to
	if len(sh.ops) > 0 && !sh.outOfTime {
		start := time.Now()
		s.checkRange(sh, lo, to, start.Add(s.o.TimeLimit-sh.spent))
		sh.spent += time.Since(start)
	}
	// Forget operations, clients and offset events below the floor.
	sh.ops = slices.DeleteFunc(sh.ops, func(op sim.Op) bool { return maxOffset(&op) < to })
	if len(sh.ops) == 0 {
		sh.ops = nil
	}
	if len(sh.clients) > 0 {
		if s.named == nil {
			s.named = map[string]bool{}
		}
		named := s.named
		clear(named)
		for i := range sh.ops {
			named[sh.ops[i].Client] = true
		}
		for name, c := range sh.clients {
			if c.releaseFrom < inf && !named[name] { // gone for good, and no kept operation names it
				sh.forgotten.hiddenFrom = min(sh.forgotten.hiddenFrom, c.hiddenFrom)
				sh.forgotten.releaseFrom = min(sh.forgotten.releaseFrom, c.releaseFrom)
				delete(sh.clients, name)
			}
		}
	}
	// goneAt(off) is the first time the running maximum of the log-start moves passes off:
	// moves up to a running maximum at or below the floor say nothing about offsets above it.
	k, run := 0, int64(negInf)
	for k < len(sh.logStarts) {
		run = max(run, sh.logStarts[k].Offset)
		if run > to {
			break
		}
		k++
	}
	if k > 0 {
		// Keep the running maximum of what is dropped in the first kept entry.
		if k < len(sh.logStarts) {
			sh.logStarts[k].Offset = max(sh.logStarts[k].Offset, run)
		}
		sh.logStarts = slices.Delete(sh.logStarts, 0, k)
	}
	sh.comps = slices.DeleteFunc(sh.comps, func(c sim.HiddenEvent) bool { return c.Last < to })
}

// maxOffset is the highest offset an operation names (negInf: none).
func maxOffset(op *sim.Op) int64 {
	m := int64(negInf)
	for _, r := range op.Acquired {
		if r.Last >= r.First {
			m = max(m, r.Last)
		}
	}
	for _, r := range op.Acks {
		if r.Last >= r.First && len(r.Types) > 0 {
			m = max(m, r.Last)
		}
	}
	return m
}

// checkRange checks the offsets in [lo, hi) of the kept operations: each operation is cut
// to the range (keeping how many offsets its acknowledgements named in all), and the cut
// history goes through the same classes and porcupine calls as Check's.
func (s *Stream) checkRange(sh *streamShare, lo, hi int64, deadline time.Time) {
	cb := &s.cut
	h, acked, acq, acks := cb.h[:0], cb.acked[:0], cb.acq[:0], cb.acks[:0]
	defer func() {
		clear(h) // drop the strings and ranges the kept buffers point to
		cb.h, cb.acked, cb.acq, cb.acks = reuse(h), reuse(acked), reuse(acq), reuse(acks)
	}()
	for i := range sh.ops {
		op := &sh.ops[i]
		cut := sim.Op{Client: op.Client, Group: op.Group, Partition: op.Partition, Kind: op.Kind, CallMs: op.CallMs, ReturnMs: op.ReturnMs, Code: op.Code}
		total := int64(0)
		from := len(acq)
		for _, r := range op.Acquired {
			if f, l := max(r.First, lo), min(r.Last, hi-1); f <= l {
				acq = append(acq, model.AcquiredRange{First: f, Last: l, DeliveryCount: r.DeliveryCount})
			}
		}
		if len(acq) > from {
			cut.Acquired = acq[from:len(acq):len(acq)]
		}
		from = len(acks)
		for _, r := range op.Acks {
			if r.Last < r.First || len(r.Types) == 0 {
				continue
			}
			total += r.Last - r.First + 1
			f, l := max(r.First, lo), min(r.Last, hi-1)
			if f > l {
				continue
			}
			types := r.Types
			if n := int64(len(types)); n > 1 {
				// typeAt(off) is Types[min(off-First, n-1)]; keep that for the cut range.
				if a := f - r.First; a >= n-1 {
					types = types[n-1:]
				} else {
					types = types[a : min(l-r.First, n-1)+1]
				}
			}
			acks = append(acks, model.AckRange{First: f, Last: l, Types: types})
		}
		if len(acks) > from {
			cut.Acks = acks[from:len(acks):len(acks)]
		}
		if len(cut.Acquired) == 0 && len(cut.Acks) == 0 {
			continue
		}
		h = append(h, cut)
		acked = append(acked, total)
	}
	if len(h) == 0 {
		return
	}
	if time.Until(deadline) <= 0 {
		sh.outOfTime = true
		if sh.sr.Verdict == porcupine.Ok {
			sh.sr.Verdict = porcupine.Unknown
		}
		return
	}
	ops := grown(&cb.ops, len(h))
	for i := range ops {
		ops[i] = int32(i)
	}
	part := &shareHistory{group: sh.group, partition: sh.partition, ops: ops, acked: acked}
	part.hidden = append(append(part.hidden, sh.logStarts...), sh.comps...)
	e, clients := s.env(sh, h)
	if !checkClasses(s.m, part, h, buildClasses(part, h, e, clients, &s.buf), s.o, s.res, &sh.sr, deadline, &s.buf) {
		sh.outOfTime = true
	}
}

// env is buildEnv for a cut history: the clients it names first (in order of appearance),
// then the other clients with hidden acquisitions or a death, then the forgotten ones as
// one (they only ever act as the unseen owner).
func (s *Stream) env(sh *streamShare, h []sim.Op) (*env, []int32) {
	cb := &s.cut
	if cb.env == nil || s.buf.stale {
		cb.env = &env{}
	}
	e := cb.env
	*e = env{spec: s.o.Spec, limit: int16(s.o.DeliveryLimit), phantomFrom: inf, phantomRelease: inf, events: sh.events, inForce: s.o.InForce[sh.group],
		names: e.names[:0], hiddenFrom: e.hiddenFrom[:0], releaseFrom: e.releaseFrom[:0]}
	if cb.ids == nil || len(cb.ids) > 4096 {
		cb.ids = map[string]int32{}
	}
	ids := cb.ids
	clear(ids)
	id := func(name string) int32 {
		c, ok := ids[name]
		if !ok {
			c = int32(len(e.names))
			ids[name] = c
			e.names = append(e.names, name)
			hf, rf := int64(inf), int64(inf)
			if ci := sh.clients[name]; ci != nil {
				hf, rf = ci.hiddenFrom, ci.releaseFrom
			}
			e.hiddenFrom = append(e.hiddenFrom, hf)
			e.releaseFrom = append(e.releaseFrom, rf)
		}
		return c
	}
	clients := grown(&cb.clients, len(h))
	for p := range h {
		clients[p] = id(h[p].Client)
	}
	others := cb.others[:0]
	defer func() { clear(others); cb.others = reuse(others) }()
	for name := range sh.clients {
		if _, ok := ids[name]; !ok {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	for _, name := range others {
		id(name)
	}
	if sh.forgotten.hiddenFrom < inf {
		e.names = append(e.names, "(earlier members)")
		e.hiddenFrom = append(e.hiddenFrom, sh.forgotten.hiddenFrom)
		e.releaseFrom = append(e.releaseFrom, sh.forgotten.releaseFrom)
	}
	for c := range e.names {
		if e.hiddenFrom[c] < inf {
			e.phantomFrom = min(e.phantomFrom, e.hiddenFrom[c])
			e.phantomRelease = min(e.phantomRelease, e.releaseFrom[c])
		}
	}
	return e, clients
}
