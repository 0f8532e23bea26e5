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
// A wave's merge has three steps. (1) With part of the seen set on disk, the candidates'
// fingerprints are sorted and looked up in the file in one pass (diskSet.lookup); those found
// there are dropped. (2) The rest are inserted into the in-memory set. Each partition of the
// set is filled by one goroutine, in candidate order, so which candidate of a fingerprint is
// the new one is the same as if one goroutine inserted them all; with liveness (the set also
// holds ids) or when the wave may reach Scope.MaxStates, the insertion is done in step 3
// instead, one candidate at a time. (3) The new candidates, in order, get their ids, their
// parent records and their place in the next frontier.
type merger struct {
	set   *fpSet
	disk  *diskSet
	pl    *parentLog
	sc    *Scope
	par   int
	swarm bool
	start []int  // start[ci] is the flat index of chunk ci's first candidate
	fresh []bool // by flat index: not seen before this candidate
	refs  []fpRef
	fps   []uint64
	seen  []bool
}

type fpRef struct {
	f uint64
	i uint32
}

func (m *merger) bytes() int64 {
	return int64(cap(m.fresh)+cap(m.seen)) + int64(cap(m.refs))*16 + int64(cap(m.fps))*8 + int64(cap(m.start))*8
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
	if !m.disk.empty() {
		if err := m.dropOnDisk(outs); err != nil {
			return false, err
		}
	}
	sc := m.sc
	serial := m.set.parts[0].ids != nil || m.par < 2 || sc.MaxStates > 0 && m.pl.len()+total >= sc.MaxStates
	if !serial {
		m.insertParallel(outs)
	}
	for ci := range outs {
		o := &outs[ci]
		for k := range o.cands {
			cd := &o.cands[k]
			if !m.fresh[m.start[ci]+k] {
				continue
			}
			if serial && !m.set.add(cd.fp, uint32(m.pl.len())) {
				continue
			}
			if m.swarm && depth == sc.Split && shardOf(cd.fp, sc.Seed, sc.Shards) != sc.Shard {
				continue // another shard's root: seen here, expanded there
			}
			if err := m.pl.add(cd.parent, cd.act, cd.perm); err != nil {
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

// dropOnDisk clears fresh for the candidates whose fingerprints are in the file.
func (m *merger) dropOnDisk(outs []chunkOut) error {
	m.refs = m.refs[:0]
	for ci := range outs {
		for k := range outs[ci].cands {
			m.refs = append(m.refs, fpRef{uint64(outs[ci].cands[k].fp), uint32(m.start[ci] + k)})
		}
	}
	slices.SortFunc(m.refs, func(a, b fpRef) int {
		switch {
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	})
	m.fps = m.fps[:0]
	for _, r := range m.refs {
		m.fps = append(m.fps, r.f)
	}
	m.seen = slices.Grow(m.seen[:0], len(m.fps))[:len(m.fps)]
	clear(m.seen)
	if err := m.disk.lookup(m.fps, m.seen, m.par); err != nil {
		return err
	}
	for j, r := range m.refs {
		if m.seen[j] {
			m.fresh[r.i] = false
		}
	}
	return nil
}

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
				for k := range outs[ci].cands {
					f := outs[ci].cands[k].fp
					p := int(uint64(f) >> (64 - partBits))
					if p%m.par != g || !m.fresh[base+k] {
						continue
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
