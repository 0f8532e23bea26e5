package checker

// offsetTable holds per-offset state densely: a ring whose slot k holds offset lo+k. The
// history checks keep their state of the open offsets of a share-partition in one (they
// store nothing below the floor of finished offsets and drop what falls below it), so it
// spans the offsets in flight and costs no hashing, no allocation per offset, and no walk
// over every entry to forget the finished ones. Slots not in use are zero.
type offsetTable[T any] struct {
	lo   int64 // offset of the first slot in use
	head int   // ring index of offset lo
	n    int   // slots in use: offsets lo..lo+n-1
	ring []T   // length 0 or a power of two
}

// find returns off's slot, nil when off is outside the table.
func (t *offsetTable[T]) find(off int64) *T {
	if off < t.lo || off-t.lo >= int64(t.n) {
		return nil
	}
	return &t.ring[(t.head+int(off-t.lo))&(len(t.ring)-1)]
}

// at returns off's slot, adding zero slots to reach it.
func (t *offsetTable[T]) at(off int64) *T {
	switch {
	case t.n == 0:
		t.reserve(1)
		t.lo, t.head, t.n = off, 0, 1
	case off < t.lo:
		k := t.lo - off
		t.reserve(int64(t.n) + k)
		t.head = (t.head - int(k)) & (len(t.ring) - 1)
		t.lo, t.n = off, t.n+int(k)
	case off-t.lo >= int64(t.n):
		need := off - t.lo + 1
		t.reserve(need)
		t.n = int(need)
	}
	return &t.ring[(t.head+int(off-t.lo))&(len(t.ring)-1)]
}

// reserve makes room for n slots, moving the slots in use to the start of a larger ring.
func (t *offsetTable[T]) reserve(n int64) {
	if n <= int64(len(t.ring)) {
		return
	}
	size := max(64, len(t.ring))
	for int64(size) < n {
		size *= 2
	}
	t.resize(size)
}

func (t *offsetTable[T]) resize(size int) {
	ring := make([]T, size)
	for k := range t.n {
		ring[k] = t.ring[(t.head+k)&(len(t.ring)-1)]
	}
	t.ring, t.head = ring, 0
}

// dropBelow forgets the offsets below floor; a large ring shrinks when nearly empty.
func (t *offsetTable[T]) dropBelow(floor int64) {
	k := min(floor-t.lo, int64(t.n))
	if k <= 0 {
		return
	}
	var zero T
	for j := range int(k) {
		t.ring[(t.head+j)&(len(t.ring)-1)] = zero
	}
	t.head = (t.head + int(k)) & (len(t.ring) - 1)
	t.lo += k
	t.n -= int(k)
	if len(t.ring) > 4096 && t.n < len(t.ring)/16 {
		t.resize(len(t.ring) / 4) // give a large peak back, not every swing of the window
	}
}
