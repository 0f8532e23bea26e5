package explore

import (
	"errors"
	"slices"
	"sync"
)

// merger folds a wave's candidates into the seen set, the parent log and the next frontier,
// in candidate order (chunk by chunk, each chunk's in the order its worker found them): the
// first occurrence of a new fingerprint gets the next id. That order does not depend on the
// number of workers or on what is kept where, so neither does the result.
//
// A candidate is never a state already on disk: the worker that made it looked its
// fingerprint up in the runs as well, against a disk set that does not change while a wave
// expands (when the chunk ended, with the chunk's other candidates that a run's filter let
// pass: worker.settlePending). A wave's merge has two steps. (1) The candidates are inserted
// into the in-memory set. Each partition of the set is filled by one goroutine, in candidate
// order, so which candidate of a fingerprint is the new one is the same as if one goroutine
// inserted them all; with liveness (the set also holds ids) or when the wave may reach
// Scope.MaxStates, the insertion is done in step 2 instead, one candidate at a time. (2) The
// new candidates, in order, get their ids, their parent records and their place in the next
// frontier. A single worker inserts its candidates itself as it makes them (worker.insert, at
// most as many as step 2 would add before Scope.MaxStates; a chunk's first chunkOut.direct
// candidates): step 1 then skips them. So do more workers, into the set they all read, each
// with its own tag (shared insertion, fpTable.insertShared): step 1 is then resolveShared,
// which settles only the fingerprints that two candidates of the wave have.
type merger struct {
	set   *fpSet
	g     *graph // the liveness graph (nil without), told each new state's id once spilled
	pl    *parentLog
	sc    *Scope
	par   int
	swarm bool
	start []int  // start[ci] is the flat index of chunk ci's first candidate
	fresh []bool // by flat index: not seen before this candidate
	// With shared insertion: the waves so far (each has its own tags), the last wave's
	// states and new states (reserveShared), and resolveShared's scratch.
	waves                 int
	lastExpanded, lastNew int
	rivals                rivalTable
	odd, hits             []int
	stats                 shareStats
	// A wave merged with shared insertion leaves its appends pending (the new states' ids,
	// parent records and places in the next frontier), to run while the next wave expands
	// (appendPending): pending is its candidates, pendNF where they go; fresh and start stay
	// the wave's until then (the next merge refuses to start before).
	pending []chunkOut
	pendNF  *frontier
	// orderHash (Scope.hashOrder, tests) hashes every new state's fingerprint, parent and
	// action in the order they get their ids: the parent log in brief.
	orderHash uint64
}

// order folds a new state, about to get the next id, into orderHash.
func (m *merger) order(cd *cand) {
	if m.sc.hashOrder {
		m.orderHash = finish(m.orderHash*fpK1 ^ uint64(cd.fp) ^ uint64(cd.parent)<<32 ^ uint64(cd.act))
	}
}

// shareStats counts, for tests, the candidates resolveShared met of each kind that needs it:
// contested ones, deferred ones, and contested ones whose fingerprint no candidate of the
// wave inserted (a tag left from an earlier wave).
type shareStats struct {
	contested, deferred, stale int
	// overlapped counts the waves whose appends ran while the next wave expanded.
	overlapped int
}

func (m *merger) bytes() int64 {
	return int64(cap(m.fresh)) + int64(cap(m.start))*8
}

// merge merges outs and reports whether Scope.MaxStates was reached. shared: the workers
// inserted the candidates into the set themselves (shared insertion).
func (m *merger) merge(outs []chunkOut, depth int, nf *frontier, shared bool) (bool, error) {
	if m.pending != nil {
		return false, errors.New("explore: a wave merged before the last wave's appends ran")
	}
	total := 0
	m.start = m.start[:0]
	for ci := range outs {
		m.start = append(m.start, total)
		total += len(outs[ci].cands)
	}
	from := m.pl.len()
	defer func() {
		if m.pending == nil {
			m.lastNew = m.pl.len() - from
		}
	}()
	m.fresh = slices.Grow(m.fresh[:0], total)[:total]
	for i := range m.fresh {
		m.fresh[i] = true
	}
	sc := m.sc
	reach := sc.MaxStates > 0 && m.pl.len()+total >= sc.MaxStates
	// serial: the loop below inserts the candidates into the set one at a time.
	serial := !shared && (m.set.parts[0].ids != nil || m.par < 2 || reach)
	switch {
	case shared:
		m.resolveShared(outs)
	case !serial:
		m.insertParallel(outs)
	}
	if !serial && !reach && !m.swarm && m.g == nil {
		if shared {
			// Nothing the next wave's expansion reads changes here, and nothing here reads
			// what it writes: the appends wait for it (appendPending).
			n := 0
			for _, f := range m.fresh {
				if f {
					n++
				}
			}
			m.lastNew, m.pending, m.pendNF = n, outs, nf
			return false, nil
		}
		return false, m.appendParallel(outs, nf)
	}
	for ci := range outs {
		o := &outs[ci]
		for k := range o.cands {
			cd := &o.cands[k]
			if serial && k >= o.direct && k+mergeAhead < len(o.cands) {
				prefetch(m.set.slotAddr(o.cands[k+mergeAhead].fp))
			}
			if !m.fresh[m.start[ci]+k] {
				continue
			}
			if serial && k >= o.direct && !m.set.add(cd.fp, uint32(m.pl.len())) {
				continue
			}
			if m.swarm && depth == sc.Split && shardOf(o.arena[cd.from:cd.to], sc.Seed, sc.Shards) != sc.Shard {
				continue // another shard's root: seen here, expanded there
			}
			m.order(cd)
			if err := m.pl.add(cd.parent, cd.act, cd.perm); err != nil {
				return false, err
			}
			if err := m.g.newState(cd.fp, uint32(m.pl.len()-1)); err != nil {
				return false, err
			}
			if err := nf.add(o.arena[cd.from:cd.to], uint32(m.pl.len()-1)); err != nil {
				return false, err
			}
			if sc.MaxStates > 0 && m.pl.len() >= sc.MaxStates {
				return true, nil // the rest of the wave is not added to the set
			}
		}
	}
	return false, nil
}

// appendPending runs the appends the last merge left pending, if any.
func (m *merger) appendPending() error {
	if m.pending == nil {
		return nil
	}
	outs, nf := m.pending, m.pendNF
	m.pending, m.pendNF = nil, nil
	return m.appendParallel(outs, nf)
}

// appendParallel gives the fresh candidates, in order, their ids, parent records and places in
// the next frontier, the parent records on one goroutine and the frontier on another (the ids
// are known up front: the next ones in order), so that the serial part of a wave's merge is
// halved.
func (m *merger) appendParallel(outs []chunkOut, nf *frontier) error {
	id := uint32(m.pl.len())
	var errParents error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ci := range outs {
			o := &outs[ci]
			for k := range o.cands {
				if !m.fresh[m.start[ci]+k] {
					continue
				}
				cd := &o.cands[k]
				m.order(cd)
				if errParents = m.pl.add(cd.parent, cd.act, cd.perm); errParents != nil {
					return
				}
			}
		}
	}()
	var err error
	for ci := range outs {
		o := &outs[ci]
		for k := range o.cands {
			if !m.fresh[m.start[ci]+k] || err != nil {
				continue
			}
			cd := &o.cands[k]
			err = nf.add(o.arena[cd.from:cd.to], id)
			id++
		}
	}
	<-done
	if errParents != nil {
		return errParents
	}
	return err
}

// mergeAhead is how many candidates ahead the merge prefetches a fingerprint's slot: the
// worker that made a candidate probed its slot, but a wave later the line is long gone from
// the cache, and every insertion would otherwise wait for memory.
const mergeAhead = 8

// insertParallel inserts the fresh candidates into the set, partition p by goroutine p mod
// par, and clears fresh for those already there (or met earlier in the wave).
func (m *merger) insertParallel(outs []chunkOut) {
	added := make([]int, m.par)
	var wg sync.WaitGroup
	for g := 0; g < m.par; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for ci := range outs {
				base := m.start[ci]
				cands := outs[ci].cands
				for k := range cands {
					f := cands[k].fp
					p := int(uint64(f) >> (64 - partBits))
					if p%m.par != g || !m.fresh[base+k] {
						continue
					}
					if k+mergeAhead < len(cands) {
						if f := cands[k+mergeAhead].fp; int(uint64(f)>>(64-partBits))%m.par == g {
							prefetch(m.set.slotAddr(f))
						}
					}
					if m.set.parts[p].add(f, 0) {
						n++
					} else {
						m.fresh[base+k] = false
					}
				}
			}
			added[g] = n
		}()
	}
	wg.Wait()
	for _, n := range added {
		m.set.n += n
	}
}

// reserveShared readies the set and the workers for a wave of n states with shared insertion:
// it gives the workers the wave's tags, grows each partition's table (the partitions shared
// out among the workers) so that its part of the new states foreseen (as many per state as
// the last wave made, and a quarter more) leaves it at most three quarters full, and splits
// each partition's room evenly among the workers. The room is what fills the table to
// thirteen sixteenths (seven eighths for a table held back by its share of the budget): a
// wave with more new states than foreseen fills the tables a little past three quarters (the
// next wave grows them) before a worker runs out of room in a partition and defers its new
// states there to the merge (shareDeferred). The tables grow as often as when one worker
// inserts as it goes.
func (m *merger) reserveShared(pool []*worker, n int) {
	blocks := waveTags / len(pool)
	if m.sc.sharedTags > 0 {
		blocks = min(m.sc.sharedTags, blocks)
	}
	lo, hi := waveTagRange(m.waves, len(pool), blocks)
	m.waves++
	// As many new states per state of the wave as the last wave had, and a quarter more.
	want := 64
	if m.lastExpanded > 0 {
		want += int(float64(n)*float64(m.lastNew)/float64(m.lastExpanded)*1.25) >> partBits
	}
	m.lastExpanded = n
	grow := false
	for p := range m.set.parts {
		t := &m.set.parts[p]
		grow = grow || 4*(t.n+want) > 3*len(t.keys)
	}
	var room [1 << partBits]int
	reserve := func(g int) {
		for p := g; p < len(m.set.parts); p += len(pool) {
			room[p] = m.set.parts[p].reserve(want)
		}
	}
	var wg sync.WaitGroup
	for g := range pool {
		if !grow { // nothing to copy: not worth a goroutine
			reserve(g)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reserve(g)
		}()
	}
	wg.Wait()
	for i, w := range pool {
		w.tag, w.tagLo, w.tagHi = lo+uint64(i)<<tagShift, lo, hi
		for p := range room {
			w.room[p] = room[p] / len(pool)
			if i == 0 {
				w.room[p] += room[p] % len(pool)
			}
			if m.sc.sharedRoom > 0 {
				w.room[p] = min(w.room[p], m.sc.sharedRoom)
			}
		}
	}
}

// resolveShared settles a wave whose workers inserted their candidates into the set
// themselves (shareInserted, shareContested, shareDeferred), so that the result is what
// inserting them one at a time in candidate order gives: a candidate is new when it is the
// first (in candidate order) with its fingerprint and the fingerprint was not in the set
// before the wave.
//
// An inserted candidate's fingerprint was not in the set before the wave, and nor was a
// deferred one's (its worker looked). A contested candidate's worker found its fingerprint
// with another worker's tag of this wave: put there in this wave by an inserted candidate,
// which may come before or after it; or, when no candidate of the wave inserted it, in an
// earlier wave that had the same tags, and then it is not new. A worker expands its chunks
// in candidate order and makes no second candidate of a fingerprint it made one of (its
// own tag, its recent fingerprints), so the first candidate of every fingerprint is among
// the wave's candidates.
//
// Only fingerprints that some contested or deferred candidate has need a look: their
// candidates are gathered in a small table (rivals); every other inserted candidate is new.
// A deferred fingerprint that no candidate inserted is inserted here. (The workers' counts of
// their insertions are added to the tables when the wave ends, before the merge.)
func (m *merger) resolveShared(outs []chunkOut) {
	m.odd = m.odd[:0]
	for ci := range outs {
		base := m.start[ci]
		for k := range outs[ci].cands {
			if outs[ci].cands[k].share != shareInserted {
				m.fresh[base+k] = false
				m.odd = append(m.odd, base+k)
			}
		}
	}
	if len(m.odd) == 0 {
		return
	}
	cands := func(i int) *cand {
		ci, _ := slices.BinarySearch(m.start, i+1)
		return &outs[ci-1].cands[i-m.start[ci-1]]
	}
	rt := &m.rivals
	rt.reset(len(m.odd))
	for _, i := range m.odd { // in candidate order: the first odd one of a fingerprint stays first
		cd := cands(i)
		r := rt.get(cd.fp, i)
		r.isNew = r.isNew || cd.share == shareDeferred
	}
	m.hits = m.hits[:0]
	for ci := range outs {
		base := m.start[ci]
		for k := range outs[ci].cands {
			cd := &outs[ci].cands[k]
			if cd.share != shareInserted {
				continue
			}
			if r := rt.find(cd.fp); r != nil {
				r.isNew, r.inSet = true, true
				r.first = min(r.first, base+k)
				m.hits = append(m.hits, base+k)
			}
		}
	}
	for _, i := range m.hits {
		m.fresh[i] = rt.find(cands(i).fp).first == i
	}
	for _, i := range m.odd {
		cd := cands(i)
		r := rt.find(cd.fp)
		if cd.share == shareDeferred {
			m.stats.deferred++
		} else {
			m.stats.contested++
			if !r.isNew {
				m.stats.stale++
			}
		}
		m.fresh[i] = r.isNew && r.first == i
		if m.fresh[i] && !r.inSet {
			m.set.add(r.f, 0)
		}
	}
}

// rival is what resolveShared knows of one fingerprint that a contested or deferred
// candidate has.
type rival struct {
	f     fp
	first int  // the flat index of its first candidate
	isNew bool // an inserted or deferred candidate has it: it was not in the set before the wave
	inSet bool // an inserted candidate has it: it is in the set
}

// rivalTable is a small open-addressing table of rivals by fingerprint, sized for the wave.
type rivalTable struct {
	slots []int32 // index into rs plus one (0: empty); a power of two long
	rs    []rival
}

func (t *rivalTable) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(t.slots) >= size {
		t.slots = t.slots[:size]
		clear(t.slots)
	} else {
		t.slots = make([]int32, size)
	}
	t.rs = t.rs[:0]
}

func (t *rivalTable) at(f fp) int {
	mask := len(t.slots) - 1
	for i := int(uint64(f)>>20) & mask; ; i = (i + 1) & mask {
		if s := t.slots[i]; s == 0 || t.rs[s-1].f == f {
			return i
		}
	}
}

// get returns f's rival, made with first as its first candidate if it is new.
func (t *rivalTable) get(f fp, first int) *rival {
	i := t.at(f)
	if t.slots[i] == 0 {
		t.rs = append(t.rs, rival{f: f, first: first})
		t.slots[i] = int32(len(t.rs))
	}
	return &t.rs[t.slots[i]-1]
}

// find returns f's rival, or nil.
func (t *rivalTable) find(f fp) *rival {
	if s := t.slots[t.at(f)]; s != 0 {
		return &t.rs[s-1]
	}
	return nil
}
