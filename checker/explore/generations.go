package explore

import "fmt"

// The seen set in memory is kept in two generations, so that a flush to disk takes the states
// least likely to be met again and leaves the most likely in memory.
//
// In a breadth-first search most transitions that reach a known state reach one of the last
// few levels. When the whole in-memory set went to disk at once, every such revisit after a
// flush became a lookup in a run on disk: a random read of a page of a mapped file, which on
// the standard scope took 42% of the time after the first flush (perf) and cut the rate 4.6-6.5×.
//
// The young generation (worker.set) takes the waves' new states. When it has taken half of
// the seen set's share of the budget, it becomes the old generation (worker.old, read only)
// and an empty one takes its place; the old generation it replaces, if any, is flushed to disk
// first (diskSet.flush). So memory always holds the last half share of new states and up to
// a half share before them: on the standard scope with the default 8 GiB budget about the
// last two to four levels. A lookup tries the young generation, then the old one (only once
// there is one), then the runs on disk; the first disk flush happens, as before, once the
// states in memory fill the whole share, and every later one flushes half a share.
//
// When the memory as a whole (not the seen set) is over its share and there is no old
// generation, the young one is flushed directly: keeping it would free nothing.

// genShare is the room of the young generation: half of what the seen set's share leaves
// after the disk runs' filters and indexes and the liveness graph (-1: no bound).
func genShare(seenShare, disk, graph int64) int64 {
	if seenShare < 0 {
		return -1
	}
	return max((seenShare-disk-graph)/2, 1)
}

// rotate makes room in the seen set after a wave: it flushes the old generation to disk, then
// keeps the young one as the old one (keep) or flushes it too. It returns the generations to
// use from now on: the young one is empty.
func rotate(disk *diskSet, young, old *fpSet, keep bool) (*fpSet, *fpSet, error) {
	if old.len() > 0 {
		if err := disk.flush(old); err != nil {
			return nil, nil, err
		}
		old.reset()
	}
	if !keep {
		if err := disk.flush(young); err != nil {
			return nil, nil, err
		}
		young.reset()
		return young, old, nil
	}
	if young.parts[0].ids != nil {
		return nil, nil, fmt.Errorf("explore: the seen set still maps states to ids when it is rotated")
	}
	return old, young, nil
}
