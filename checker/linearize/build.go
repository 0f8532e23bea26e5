package linearize

import (
	"cmp"
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Partitioning: the history is split per share-partition, and each share-partition's
// operations per offset. Offsets that every operation treats alike (the same operations,
// with the same delivery count or acknowledgement type, and the same hidden events) have
// identical per-offset histories, so they form one class that is checked once.

// shareHistory is one share-partition's part of the history.
type shareHistory struct {
	group, partition string
	ops              []int32 // indices into the history, in history order
	hidden           []sim.HiddenEvent
	// acked, when set, is how many offsets each operation's acknowledgements name in all
	// (by position in ops): a streamed check hands over operations cut to the offsets it
	// checks, whose ranges alone would undercount.
	acked []int64
}

// item is one offset range of one operation, with what the operation says about it.
type item struct {
	first, last int64
	pos         int32 // the operation's position in shareHistory.ops
	dc          int16
	typ         model.AckType
}

// buildBuf is buildClasses' working memory, kept between the calls of a streamed check so
// that checking a range allocates little. The classes a call returns live in it until
// the next call; one kept longer (a failure to draw) is copied out first (detach).
type buildBuf struct {
	items                      []item
	acked, bounds              []int64
	count, firstSeg, inc, fill []int32
	byHash                     map[uint64]int32
	slab                       []class
	envs                       []classEnv
	ins                        []input
	pops                       []porcupine.Operation
	out                        []*class
	// checkClasses' and replay's.
	search []*class
	replay replayBuf
	// stale is set when a porcupine call returned before all its goroutines had stopped
	// (a failure or a timeout): they may still read the classes' inputs and environment,
	// so the next call starts on fresh memory and leaves this to the collector.
	stale bool
}

// class is a set of offsets of one share-partition with identical per-offset histories.
type class struct {
	ranges [][2]int64 // offset ranges, ascending
	env    *classEnv
	ops    []porcupine.Operation
	items  []int32 // the items of its first segment
	next   int32   // the next class with the same signature hash, or -1
}

// splitShares groups the history per share-partition, in order of first appearance.
func splitShares(h []sim.Op, hidden []sim.HiddenEvent) []*shareHistory {
	type key struct{ g, p string }
	idx := map[key]*shareHistory{}
	var out []*shareHistory
	get := func(g, p string) *shareHistory {
		k := key{g, p}
		s := idx[k]
		if s == nil {
			s = &shareHistory{group: g, partition: p}
			idx[k] = s
			out = append(out, s)
		}
		return s
	}
	for i := range h {
		get(h[i].Group, h[i].Partition).ops = append(get(h[i].Group, h[i].Partition).ops, int32(i))
	}
	for _, ev := range hidden {
		if ev.Kind == sim.HiddenMemberGone {
			// A dead member may have touched any share-partition of its group.
			for _, s := range out {
				if s.group == ev.Group {
					s.hidden = append(s.hidden, ev)
				}
			}
			continue
		}
		if s := idx[key{ev.Group, ev.Partition}]; s != nil {
			s.hidden = append(s.hidden, ev)
		}
	}
	return out
}

// buildEnv derives the share-partition's environment and the client of each operation.
func buildEnv(sh *shareHistory, h []sim.Op, spec Spec) (*env, []int32) {
	e := &env{spec: spec, limit: int16(spec.DeliveryLimit), phantomFrom: inf, phantomRelease: inf}
	ids := map[string]int32{}
	id := func(name string) int32 {
		c, ok := ids[name]
		if !ok {
			c = int32(len(e.names))
			ids[name] = c
			e.names = append(e.names, name)
			e.hiddenFrom = append(e.hiddenFrom, inf)
			e.releaseFrom = append(e.releaseFrom, inf)
		}
		return c
	}
	clients := make([]int32, len(sh.ops))
	last, lastID := "", int32(-1)
	for p, i := range sh.ops {
		op := &h[i]
		if lastID < 0 || op.Client != last {
			last, lastID = op.Client, id(op.Client)
		}
		clients[p] = lastID
		if op.Kind == "fetch" && op.ReturnMs < 0 {
			e.hiddenFrom[lastID] = min(e.hiddenFrom[lastID], op.CallMs)
		}
	}
	for _, ev := range sh.hidden {
		switch ev.Kind {
		case sim.HiddenReload:
			e.events = append(e.events, partEvent{t: ev.TimeMs, reload: true})
		case sim.HiddenLockExpiry:
			e.events = append(e.events, partEvent{t: ev.TimeMs})
		case sim.HiddenMemberGone:
			c := id(ev.Member)
			from := min(ev.FromMs, ev.TimeMs)
			e.hiddenFrom[c] = min(e.hiddenFrom[c], from)
			e.releaseFrom[c] = min(e.releaseFrom[c], from)
		}
	}
	slices.SortStableFunc(e.events, func(a, b partEvent) int { return cmp.Compare(a.t, b.t) })
	for c := range e.names {
		if e.hiddenFrom[c] < inf {
			e.phantomFrom = min(e.phantomFrom, e.hiddenFrom[c])
			e.phantomRelease = min(e.phantomRelease, e.releaseFrom[c])
		}
	}
	return e, clients
}

// codeClass maps a result code to the specification's outcome classes.
func codeClass(code string, lost bool) uint8 {
	switch {
	case lost || code == "LOST":
		return codeLost
	case code == "NONE":
		return codeNone
	case code == model.ErrInvalidRecordState.String() || code == model.ErrInvalidRequest.String():
		return codeInvalid
	}
	return codeOther
}

// buildClasses splits one share-partition's operations into offset classes, in buf's
// memory (nil: fresh memory).
func buildClasses(sh *shareHistory, h []sim.Op, e *env, clients []int32, buf *buildBuf) []*class {
	if buf == nil {
		buf = &buildBuf{}
	}
	if buf.stale {
		*buf = buildBuf{}
	}
	// Items, and how many offsets each acknowledgement names.
	items := buf.items[:0]
	defer func() { buf.items = reuse(items) }()
	acked := grown(&buf.acked, len(sh.ops))
	clear(acked)
	given := sh.acked != nil
	if given {
		copy(acked, sh.acked)
	}
	for p, i := range sh.ops {
		op := &h[i]
		pos := int32(p)
		switch op.Kind {
		case "fetch":
			if op.ReturnMs < 0 {
				continue // a lost fetch is a hidden acquirer (env), not an operation on offsets
			}
			for _, r := range op.Acquired {
				if r.Last >= r.First {
					items = append(items, item{first: r.First, last: r.Last, pos: pos, dc: r.DeliveryCount})
				}
			}
		case "ack":
			for _, r := range op.Acks {
				if r.Last < r.First || len(r.Types) == 0 {
					continue
				}
				if !given {
					acked[p] += r.Last - r.First + 1
				}
				if len(r.Types) == 1 {
					items = append(items, item{first: r.First, last: r.Last, pos: pos, typ: r.Types[0]})
					continue
				}
				typeAt := func(off int64) model.AckType { return r.Types[min(off-r.First, int64(len(r.Types)-1))] }
				for off := r.First; off <= r.Last; {
					t, end := typeAt(off), off
					for end < r.Last && typeAt(end+1) == t {
						end++
					}
					items = append(items, item{first: off, last: end, pos: pos, typ: t})
					off = end + 1
				}
			}
		}
	}
	if len(items) == 0 {
		return nil
	}

	// Hidden events that depend on the offset.
	type logStart struct{ t, maxOff int64 }
	var starts []logStart
	type compacted struct{ first, last, t int64 }
	var comps []compacted
	for _, ev := range sh.hidden {
		switch ev.Kind {
		case sim.HiddenLogStart:
			starts = append(starts, logStart{ev.TimeMs, ev.Offset})
		case sim.HiddenCompaction:
			comps = append(comps, compacted{ev.Offset, ev.Last, ev.TimeMs})
		}
	}
	slices.SortStableFunc(starts, func(a, b logStart) int { return cmp.Compare(a.t, b.t) })
	for i := 1; i < len(starts); i++ {
		starts[i].maxOff = max(starts[i].maxOff, starts[i-1].maxOff)
	}
	slices.SortFunc(comps, func(a, b compacted) int { return cmp.Compare(a.first, b.first) })
	goneAt := func(off int64) int64 { // the first time the applied log start passed off
		i := sort.Search(len(starts), func(i int) bool { return starts[i].maxOff > off })
		if i == len(starts) {
			return inf
		}
		return starts[i].t
	}
	compactedAt := func(off int64) int64 {
		t := int64(inf)
		for i := sort.Search(len(comps), func(i int) bool { return comps[i].last >= off }); i < len(comps) && comps[i].first <= off; i++ {
			t = min(t, comps[i].t)
		}
		return t
	}

	// Elementary segments between consecutive boundaries.
	bounds := room(&buf.bounds, 2*len(items)+len(starts)+2*len(comps))
	defer func() { buf.bounds = reuse(bounds) }()
	for _, it := range items {
		bounds = append(bounds, it.first, it.last+1)
	}
	for _, s := range starts {
		bounds = append(bounds, s.maxOff)
	}
	for _, c := range comps {
		bounds = append(bounds, c.first, c.last+1)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	nseg := len(bounds) - 1
	count := grown(&buf.count, nseg+1)
	clear(count)
	firstSeg := grown(&buf.firstSeg, len(items))
	for k, it := range items {
		j, _ := slices.BinarySearch(bounds, it.first)
		firstSeg[k] = int32(j)
		for ; j < nseg && bounds[j] <= it.last; j++ {
			count[j+1]++
		}
	}
	for j := 1; j <= nseg; j++ {
		count[j] += count[j-1]
	}
	inc := grown(&buf.inc, int(count[nseg])) // item indices per segment
	fill := grown(&buf.fill, nseg)
	copy(fill, count[:nseg])
	for k, it := range items {
		for j := int(firstSeg[k]); j < nseg && bounds[j] <= it.last; j++ {
			inc[fill[j]] = int32(k)
			fill[j]++
		}
	}

	// Classes: segments with equal (operation, delivery count, type) lists and equal
	// hidden offset events.
	same := func(a, b []int32) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			x, y := &items[a[i]], &items[b[i]]
			if x.pos != y.pos || x.dc != y.dc || x.typ != y.typ {
				return false
			}
		}
		return true
	}
	if buf.byHash == nil || len(buf.byHash) > 4096 {
		buf.byHash = map[uint64]int32{} // a map keeps its size once grown
	}
	byHash := buf.byHash
	clear(byHash)
	// slab and envs never grow past nseg: classes point into them.
	slab := room(&buf.slab, nseg)
	envs := room(&buf.envs, nseg)
	defer func() { buf.slab, buf.envs = reuse(slab), reuse(envs) }()
	for j := 0; j < nseg; j++ {
		list := inc[count[j]:count[j+1]]
		if len(list) == 0 {
			continue
		}
		first, last := bounds[j], bounds[j+1]-1
		gone, compact := goneAt(first), compactedAt(first)
		hash := uint64(1469598103934665603)
		mix := func(v uint64) { hash = (hash ^ v) * 1099511628211 }
		mix(uint64(gone))
		mix(uint64(compact))
		for _, k := range list {
			it := &items[k]
			mix(uint64(it.pos))
			mix(uint64(uint16(it.dc)) | uint64(it.typ)<<16)
		}
		found := int32(-1)
		head, ok := byHash[hash]
		if ok {
			for c := head; c >= 0; c = slab[c].next {
				if env := slab[c].env; env.goneAt == gone && env.compactedAt == compact && same(slab[c].items, list) {
					found = c
					break
				}
			}
		}
		if found >= 0 {
			c := &slab[found]
			if n := len(c.ranges); c.ranges[n-1][1]+1 == first {
				c.ranges[n-1][1] = last
			} else {
				c.ranges = append(c.ranges, [2]int64{first, last})
			}
			continue
		}
		envs = append(envs, classEnv{env: e, goneAt: gone, compactedAt: compact})
		next := int32(-1)
		if ok {
			next = head
		}
		slab = append(slab, class{ranges: [][2]int64{{first, last}}, env: &envs[len(envs)-1], items: list, next: next})
		byHash[hash] = int32(len(slab) - 1)
	}

	// Per-offset operations of each class.
	total := 0
	for i := range slab {
		total += len(slab[i].items)
	}
	ins := grown(&buf.ins, total)
	pops := grown(&buf.pops, total)
	out := grown(&buf.out, len(slab))
	for ci := range slab {
		c := &slab[ci]
		out[ci] = c
		n := len(c.items)
		cin, cops := ins[:n:n], pops[:n:n]
		ins, pops = ins[n:], pops[n:]
		for x, k := range c.items {
			it := &items[k]
			hi := sh.ops[it.pos]
			op := &h[hi]
			in := &cin[x]
			*in = input{env: c.env, client: clients[it.pos], call: op.CallMs, ret: op.ReturnMs, src: hi, codeStr: op.Code}
			if op.ReturnMs < 0 {
				in.ret = inf
			}
			if op.Kind == "fetch" {
				in.kind, in.dc = opFetch, it.dc
			} else {
				in.kind, in.typ = opAck, it.typ
				in.code = codeClass(op.Code, op.ReturnMs < 0)
				in.single = acked[it.pos] == 1
			}
			// A client that received these offsets may acknowledge them again after an
			// unseen acquisition of its own: it needs its own name as an unseen owner.
			if e.hiddenFrom[in.client] < inf && !slices.Contains(c.env.hiddenOwn, in.client) {
				c.env.hiddenOwn = append(c.env.hiddenOwn, in.client)
			}
			cops[x] = porcupine.Operation{ClientId: int(in.client), Input: in, Call: in.call, Return: in.ret}
		}
		c.ops = cops
		// Concurrent acknowledgements of the same offset by the same client: the later one
		// may find the record pending behind the earlier one's write.
		for a := range cin {
			if cin[a].kind != opAck {
				continue
			}
			for b := range cin {
				if a != b && cin[b].kind == opAck && cin[b].client == cin[a].client && cin[b].call <= cin[a].ret && cin[a].call <= cin[b].ret {
					cin[a].overlap = true
					break
				}
			}
		}
	}
	return out
}

// grown returns (*buf)[:n], reallocating *buf when it is too short, or much longer than
// needed (what a spike took goes back to the collector); the contents are whatever the
// buffer held.
func grown[T any](buf *[]T, n int) []T {
	if c := cap(*buf); c < n || c > 2*n+256 {
		*buf = make([]T, n, max(n, min(2*c, n+n/2+64)))
	}
	return (*buf)[:n]
}

// room returns *buf emptied with room for n elements, reallocated as grown does.
func room[T any](buf *[]T, n int) []T {
	return grown(buf, n)[:0]
}

// reuse returns s emptied for the next call, or nil when it is much larger than what it
// held this time.
func reuse[T any](s []T) []T {
	if cap(s) > 2*len(s)+256 {
		return nil
	}
	return s[:0]
}

// detach returns a copy of c that shares no memory with the buffer it was built in.
func (c *class) detach() *class {
	e := *c.env.env
	e.names = slices.Clone(e.names)
	e.hiddenFrom, e.releaseFrom = slices.Clone(e.hiddenFrom), slices.Clone(e.releaseFrom)
	ce := *c.env
	ce.env, ce.hiddenOwn = &e, slices.Clone(ce.hiddenOwn)
	d := &class{ranges: slices.Clone(c.ranges), env: &ce, ops: slices.Clone(c.ops), next: -1}
	ins := make([]input, len(d.ops))
	for i := range d.ops {
		ins[i] = *d.ops[i].Input.(*input)
		ins[i].env = &ce
		d.ops[i].Input = &ins[i]
	}
	return d
}
