package explore

import (
	"slices"
	"sync"
)

// merger folds a wave's candidates into the seen set, the parent log and the next frontier,
// in candidate order (chunk by chunk, each chunk's in the order its worker found them): the
// first occurrence of a new fingerprint gets the next id. That order does not depend on the
// number of workers or on what is kept where, so neither does the result.
//
// A candidate is never a state already on disk: the worker that made it looked its
// fingerprint up in the runs as well (diskSet.has), against a disk set that does not change
// while a wave expands. A wave's merge has two steps. (1) The candidates are inserted into the
// in-memory set. Each partition of the set is filled by one goroutine, in candidate order, so
// which candidate of a fingerprint is the new one is the same as if one goroutine inserted
// them all; with liveness (the set also holds ids) or when the wave may reach
// Scope.MaxStates, the insertion is done in step 2 instead, one candidate at a time. (2) The
// new candidates, in order, get their ids, their parent records and their place in the next
// frontier. A single worker inserts its candidates itself as it makes them (worker.insert, at
// most as many as step 2 would add before Scope.MaxStates; a chunk's first chunkOut.direct
// candidates): step 1 then skips them.
type merger struct {
	set   *fpSet
	g     *graph // the liveness graph (nil without), told each new state's id once spilled
	pl    *parentLog
	sc    *Scope
	par   int
	swarm bool
	start []int  // start[ci] is the flat index of chunk ci's first candidate
	fresh []bool // by flat index: not seen before this candidate
}

func (m *merger) bytes() int64 {
	return int64(cap(m.fresh)) + int64(cap(m.start))*8
}

// merge merges outs and reports whether Scope.MaxStates was reached.
func (m *merger) merge(outs []chunkOut, depth int, nf *frontier) (bool, error) {
	total := 0
	m.start = m.start[:0]
	for ci := range outs {
		m.start = append(m.start, total)
		total += len(outs[ci].cands)
	}
	m.fresh = slices.Grow(m.fresh[:0], total)[:total]
	for i := range m.fresh {
		m.fresh[i] = true
	}
	sc := m.sc
	serial := m.set.parts[0].ids != nil || m.par < 2 || sc.MaxStates > 0 && m.pl.len()+total >= sc.MaxStates
	if !serial {
		m.insertParallel(outs)
		if !m.swarm && m.g == nil {
			return false, m.appendParallel(outs, nf)
		}
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
