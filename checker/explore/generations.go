package explore

import "fmt"

// The seen set in memory holds two generations, so that a flush to disk takes the states least
// likely to be met again and leaves the most likely in memory.
//
// In a breadth-first search most transitions that reach a known state reach one of the last
// few levels. When the whole in-memory set went to disk at once, every such revisit after a
// flush became a lookup in a run on disk: a random read of a page of a mapped file, which on
// the standard scope took 42% of the time after the first flush (perf) and cut the rate
// 4.6-6.5×.
//
// New states join the young generation. Once the young generation takes half of the seen
// set's share of the budget, the seen set ages (rotate): the old generation, if any, becomes a
// new run (diskSet.flushOld), packed in memory while the packed runs fit their share and
// otherwise a file on disk, and the young one becomes the old one. So
// memory always holds the newest states up to half the share, and up to half a share of
// states before them: with the default 8 GiB budget on the standard scope about 170-340 M
// states, which at depth 16 (levels of 90 M and 130 M states) is the last level and part of
// the one before (docs/checking.md, round 6). The first run is made once the states in memory
// fill the whole share; the runs then take part of the share (packed ones most of it), so
// later generations are smaller.
//
// Both generations live in the same tables (fpSet), a slot's youngBit telling which one a
// fingerprint belongs to, so a lookup in memory is still one probe; ageing rebuilds each table
// with its young fingerprints alone. A lookup that misses both generations looks in the runs.
//
// When the memory as a whole (not the seen set) is over its share and there is no old
// generation, the young one is written to disk at once: keeping it would free nothing.

// youngOver reports whether the young generation takes more than half of what the seen set's
// share (seenShare bytes, negative: no bound) leaves after the disk runs' filters and indexes
// and the liveness graph (disk, graph bytes). The young generation's bytes are its part of the
// tables' bytes.
func youngOver(s *fpSet, seenShare, disk, graph int64) bool {
	if seenShare < 0 || s.n == 0 {
		return false
	}
	young := int64(float64(s.bytes()) * float64(s.young()) / float64(s.n)) // bytes × count overflows int64 past ~8 GiB × 1 G states
	return over(young, (seenShare-disk-graph)/2)
}

// rotate makes room in the seen set after a wave: it writes the old generation to disk and
// makes the young one old (keep), or writes all of the set to disk and empties it.
func rotate(disk *diskSet, s *fpSet, keep bool) error {
	if !keep {
		if err := disk.flush(s); err != nil {
			return err
		}
		s.reset()
		return nil
	}
	if s.parts[0].ids != nil {
		return fmt.Errorf("explore: the seen set still maps states to ids when it ages")
	}
	if s.old > 0 {
		return disk.flushOld(s)
	}
	s.age()
	return nil
}
