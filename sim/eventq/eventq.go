// Package eventq is the pending-event queue of the discrete-event engine.
//
// A Queue holds events keyed by (at, seq): at is the virtual time in
// milliseconds at which the event fires, and seq is a per-queue sequence
// number assigned by Push, starting at 1 and increasing by one on every
// Push. Pop always returns the event with the smallest at, and among events
// with equal at, the one pushed first. Because seq is unique, the order is
// total, so the pop order is a pure function of the sequence of Push, Pop
// and Cancel calls: no ties are left to chance, and no map or randomness is
// involved.
//
// # Implementation
//
// The queue is a 4-ary min-heap stored in a slice. Payloads live in a
// separate slot table that records each live event's heap position, which
// is what makes Cancel an O(log n) eager removal: cancelled events are taken
// out of the heap immediately, so there is no garbage to bound and Len is
// always the number of live events. Popped and cancelled slots go on a free
// list and are reused, so once the slices have grown to the peak number of
// simultaneously pending events, Push, Pop and Cancel allocate nothing.
// Memory is proportional to that peak and is never returned.
//
// A Queue is not safe for concurrent use. The zero value is an empty queue
// ready to use.
package eventq

// Handle identifies one pushed event, for Cancel and Pending. It stays
// valid until the event is popped or cancelled; after that, every
// operation treats it as stale, even if the event's storage has been reused
// by a later Push. The zero Handle never refers to an event. A Handle is
// only meaningful to the Queue that issued it.
type Handle struct {
	slot int
	seq  uint64
}

// Seq returns the sequence number Push assigned to the event (1 for the
// first Push on a queue), or 0 for the zero Handle. Among events with equal
// time, smaller Seq pops first.
func (h Handle) Seq() uint64 { return h.seq }

// node is one heap element: the ordering key and the slot holding the
// payload. Keeping the key in the heap keeps comparisons cache-friendly.
type node struct {
	at   int64
	seq  uint64
	slot int
}

// slot holds a payload and the position of its node in the heap.
// pos == -1 marks a free slot; seq is the seq of the event that last used
// it, which is how stale handles are recognised.
type slot[T any] struct {
	v   T
	seq uint64
	pos int
}

// Queue is a min-priority queue of events with payloads of type T, ordered
// by (time, insertion order). See the package documentation.
type Queue[T any] struct {
	heap  []node
	slots []slot[T]
	free  []int  // indices of free slots, used LIFO
	seq   uint64 // seq of the most recent Push; 0 before the first
}

// New returns an empty queue with room for capacity pending events before
// it needs to grow. capacity <= 0 is the same as the zero Queue.
func New[T any](capacity int) *Queue[T] {
	q := &Queue[T]{}
	if capacity > 0 {
		q.heap = make([]node, 0, capacity)
		q.slots = make([]slot[T], 0, capacity)
		q.free = make([]int, 0, capacity)
	}
	return q
}

// Len returns the number of pending (pushed, not yet popped or cancelled)
// events.
func (q *Queue[T]) Len() int { return len(q.heap) }

// Push schedules v at virtual time at (milliseconds) and returns its
// handle. Any int64 time is accepted; the queue does not know the current
// time, so refusing to schedule into the past is the caller's job.
// O(log n). Sequence numbers are 64-bit and cannot wrap in practice.
func (q *Queue[T]) Push(at int64, v T) Handle {
	q.seq++
	var s int
	if n := len(q.free); n > 0 {
		s = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		s = len(q.slots)
		q.slots = append(q.slots, slot[T]{})
	}
	i := len(q.heap)
	q.slots[s] = slot[T]{v: v, seq: q.seq, pos: i}
	q.heap = append(q.heap, node{at: at, seq: q.seq, slot: s})
	q.up(i)
	return Handle{slot: s, seq: q.seq}
}

// Peek returns the earliest pending event without removing it. ok is false
// if the queue is empty, in which case at and v are zero.
func (q *Queue[T]) Peek() (at int64, v T, ok bool) {
	if len(q.heap) == 0 {
		return 0, v, false
	}
	top := q.heap[0]
	return top.at, q.slots[top.slot].v, true
}

// Pop removes and returns the earliest pending event: the smallest time,
// and among equal times the first pushed. ok is false if the queue is
// empty, in which case at and v are zero. O(log n).
func (q *Queue[T]) Pop() (at int64, v T, ok bool) {
	if len(q.heap) == 0 {
		return 0, v, false
	}
	top := q.heap[0]
	v = q.release(top.slot)
	last := len(q.heap) - 1
	n := q.heap[last]
	q.heap = q.heap[:last]
	if last > 0 {
		q.heap[0] = n // the root has no parent: the moved node can only go down
		q.down(0)
	}
	return top.at, v, true
}

// Cancel removes the event h refers to and reports whether it was pending.
// It returns false, and changes nothing, for the zero Handle or an event
// already popped or cancelled. O(log n).
func (q *Queue[T]) Cancel(h Handle) bool {
	if !q.Pending(h) {
		return false
	}
	i := q.slots[h.slot].pos
	q.release(h.slot)
	q.removeAt(i)
	return true
}

// Pending reports whether h refers to an event that is still queued.
func (q *Queue[T]) Pending(h Handle) bool {
	if h.seq == 0 || h.slot < 0 || h.slot >= len(q.slots) {
		return false
	}
	s := &q.slots[h.slot]
	return s.seq == h.seq && s.pos >= 0
}

// release frees slot s and returns the payload it held. The slot's payload
// is zeroed so the queue does not keep it reachable.
func (q *Queue[T]) release(s int) T {
	sl := &q.slots[s]
	v := sl.v
	var zero T
	sl.v = zero
	sl.pos = -1
	q.free = append(q.free, s)
	return v
}

// removeAt deletes the heap node at index i, whose slot has already been
// released, by moving the last node into its place and restoring the heap.
func (q *Queue[T]) removeAt(i int) {
	last := len(q.heap) - 1
	if i != last {
		q.heap[i] = q.heap[last]
		q.slots[q.heap[i].slot].pos = i
	}
	q.heap = q.heap[:last]
	if i < last {
		if !q.up(i) {
			q.down(i)
		}
	}
}

// less orders nodes by time, then by push order.
func less(a, b *node) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// up moves the node at i toward the root until its parent is not larger,
// and reports whether it moved. Nodes it passes are shifted down one level
// and their slots' positions updated.
func (q *Queue[T]) up(i int) bool {
	h := q.heap
	n := h[i]
	start := i
	for i > 0 {
		p := (i - 1) / 4
		if !less(&n, &h[p]) {
			break
		}
		h[i] = h[p]
		q.slots[h[i].slot].pos = i
		i = p
	}
	if i == start {
		return false
	}
	h[i] = n
	q.slots[n.slot].pos = i
	return true
}

// down moves the node at i away from the root until none of its (up to
// four) children is smaller.
func (q *Queue[T]) down(i int) {
	h := q.heap
	size := len(h)
	n := h[i]
	for {
		c := 4*i + 1
		if c >= size {
			break
		}
		m := c
		if c+3 < size {
			// Four children: the smallest of two pairs' smaller ones (no ties: seq is unique).
			a, b := c, c+2
			if less(&h[c+1], &h[c]) {
				a = c + 1
			}
			if less(&h[c+3], &h[c+2]) {
				b = c + 3
			}
			if less(&h[b], &h[a]) {
				a = b
			}
			m = a
		} else {
			for j := c + 1; j < size; j++ {
				if less(&h[j], &h[m]) {
					m = j
				}
			}
		}
		if !less(&h[m], &n) {
			break
		}
		h[i] = h[m]
		q.slots[h[i].slot].pos = i
		i = m
	}
	h[i] = n
	q.slots[n.slot].pos = i
}
