package sim

// offsetSet remembers which offsets of one partition were processed successfully, from a
// floor upward: offsets below the floor count as processed (a classic group commits only
// past records it finished, and never reads below its committed offset again). Memory is
// bounded by the span between the floor (the committed offset) and the highest offset
// processed: the work in flight, not the run's length.
type offsetSet struct {
	floor int64
	seen  []uint8 // seen[i]: how often offset floor+i was processed successfully (saturates at 255)
}

// add counts one successful processing of off and returns how many there were before (2
// for an offset below the floor: processed, how often is not kept).
func (s *offsetSet) add(off int64) (before int) {
	if off < s.floor {
		return 2
	}
	i := int(off - s.floor)
	for i >= len(s.seen) {
		s.seen = append(s.seen, 0)
	}
	before = int(s.seen[i])
	s.seen[i] = uint8(min(before+1, 255))
	return before
}

// raiseFloor forgets offsets below floor (they count as processed from now on).
func (s *offsetSet) raiseFloor(floor int64) {
	if floor <= s.floor {
		return
	}
	n := int(min(floor-s.floor, int64(len(s.seen))))
	k := copy(s.seen, s.seen[n:])
	s.seen = s.seen[:k]
	s.floor = floor
}
