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
// Most events of a simulation fire within a second of being queued
// (processing, network latency, coordinator writes), and a few much later
// (timeouts, lock expiry, heartbeats). The queue is therefore two
// structures:
//
//   - a timing wheel of wheelSize one-millisecond buckets covering the
//     window [base, base+wheelSize). A bucket holds the events of one
//     millisecond as a doubly linked list in push order, which is seq order,
//     so no comparison is ever needed inside it; a two-level bitmap finds
//     the first non-empty bucket after base in a few instructions.
//   - a 4-ary min-heap ordered by (at, seq) for every event outside the
//     window: later than it, or earlier than base (the queue does not know
//     the caller's clock, so pushing into the past is allowed).
//
// The window only moves forward, to the time of the event being popped, and
// then the heap's events that entered it move into their buckets, in heap
// order. The invariant that makes the order exact: no event with a time
// inside the window is ever in the heap. A bucket receiving migrated events
// was outside the window until then, so it was empty, and every later push
// to it has a larger seq than the migrated events; within a bucket, list
// order is therefore seq order. An event in the heap before base is smaller
// than every event in the wheel; one after the window is larger.
//
// Payloads live in a slot table; a slot records whether its event is in the
// wheel (with its list links) or in the heap (with its heap index), which is
// what makes Cancel an eager O(1) (wheel) or O(log n) (heap) removal:
// cancelled events are taken out immediately, so there is no garbage to
// bound and Len is always the number of live events. Popped and cancelled
// slots go on a free list and are reused, so once the slices have grown to
// the peak number of simultaneously pending events, Push, Pop and Cancel
// allocate nothing. Memory is proportional to that peak plus the wheel's
// fixed 32 KiB, and is never returned.
//
// A Queue is not safe for concurrent use. The zero value is an empty queue
// ready to use.
package eventq

import (
	"math"
	"math/bits"
)

// wheelBits sets the wheel's span: wheelSize milliseconds, at most 64×64 buckets (the bitmap's
// summary is one word).
const (
	wheelBits = 12
	wheelSize = 1 << wheelBits
)

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
	slot int32
}

// Where a slot's event is: a heap index (≥ 0), or one of these.
const (
	inWheel = -1
	isFree  = -2
)

// slot holds a payload, its key and where its event is. pos is a heap index, inWheel or
// isFree; next and prev link the events of one wheel bucket (slot index + 1, 0: none), and
// next links a free slot to the next free one. seq is the seq of the event that last used
// the slot, which is how stale handles are recognised.
type slot[T any] struct {
	v          T
	at         int64
	seq        uint64
	pos        int32
	next, prev int32
}

// bucket is one millisecond of the wheel: its first and last event (slot index + 1, 0:
// empty).
type bucket struct {
	head, tail int32
}

// Queue is a min-priority queue of events with payloads of type T, ordered
// by (time, insertion order). See the package documentation.
type Queue[T any] struct {
	slots []slot[T]
	free  int32  // the first free slot + 1 (0: none), the others linked through next; used LIFO
	seq   uint64 // seq of the most recent Push; 0 before the first
	n     int    // pending events

	// The wheel: buckets for [base, base+wheelSize), wn events in it; bits has a bit per
	// non-empty bucket and summary a bit per non-zero word of bits.
	base    int64
	buckets []bucket
	bits    [wheelSize / 64]uint64
	summary uint64
	wn      int

	heap []node // events outside the wheel's window

	// min is the slot of the earliest event + 1 when known (0: not known), and minAt its
	// time.
	min   int32
	minAt int64
}

// New returns an empty queue with room for capacity pending events before
// it needs to grow. capacity <= 0 is the same as the zero Queue.
func New[T any](capacity int) *Queue[T] {
	q := &Queue[T]{}
	if capacity > 0 {
		q.slots = make([]slot[T], 0, capacity)
		q.heap = make([]node, 0, capacity)
	}
	return q
}

// Len returns the number of pending (pushed, not yet popped or cancelled)
// events.
func (q *Queue[T]) Len() int { return q.n }

// inWindow reports whether time at falls in the wheel's window.
func (q *Queue[T]) inWindow(at int64) bool {
	return at >= q.base && uint64(at)-uint64(q.base) < wheelSize
}

// Push schedules v at virtual time at (milliseconds) and returns its
// handle. Any int64 time is accepted; the queue does not know the current
// time, so refusing to schedule into the past is the caller's job.
// O(1) within the wheel's window, O(log n) outside it. Sequence numbers are
// 64-bit and cannot wrap in practice.
func (q *Queue[T]) Push(at int64, v T) Handle {
	// The common case, written without a call so that its arguments stay in registers: a
	// free slot to reuse and a time in the window.
	s := q.free - 1
	if s < 0 || !q.inWindow(at) || q.buckets == nil {
		return q.pushSlow(at, v)
	}
	q.seq++
	sl := &q.slots[s]
	q.free = sl.next
	sl.v, sl.at, sl.seq = v, at, q.seq
	q.n++
	sl.pos, sl.next = inWheel, 0
	q.linkBucket(s, sl, at&(wheelSize-1))
	// A known minimum stays the minimum unless the new event is earlier (a tie has a
	// smaller seq there).
	if q.min != 0 && at < q.minAt {
		q.min, q.minAt = s+1, at
	}
	return Handle{slot: int(s), seq: q.seq}
}

// pushSlow is Push with a new slot or into the heap.
func (q *Queue[T]) pushSlow(at int64, v T) Handle {
	q.seq++
	var s int32
	if q.free != 0 {
		s = q.free - 1
		q.free = q.slots[s].next
	} else {
		s = int32(len(q.slots))
		q.slots = append(q.slots, slot[T]{})
	}
	sl := &q.slots[s]
	sl.v, sl.at, sl.seq = v, at, q.seq
	q.n++
	if q.inWindow(at) {
		q.link(s, sl)
	} else {
		i := len(q.heap)
		sl.pos = int32(i)
		q.heap = append(q.heap, node{at: at, seq: q.seq, slot: s})
		q.up(i)
	}
	if q.min != 0 && at < q.minAt {
		q.min, q.minAt = s+1, at
	}
	return Handle{slot: int(s), seq: q.seq}
}

// link appends slot s, whose time is in the window, to its bucket.
func (q *Queue[T]) link(s int32, sl *slot[T]) {
	if q.buckets == nil {
		q.buckets = make([]bucket, wheelSize)
	}
	sl.pos, sl.next = inWheel, 0
	q.linkBucket(s, sl, sl.at&(wheelSize-1))
}

// linkBucket appends slot s (pos and next already set) to bucket i, marking the bucket
// occupied when it was empty. Small enough to be inlined into Push's common case.
func (q *Queue[T]) linkBucket(s int32, sl *slot[T], i int64) {
	b := &q.buckets[i]
	if b.tail == 0 {
		sl.prev = 0
		b.head = s + 1
		q.bits[i>>6] |= 1 << (i & 63)
		q.summary |= 1 << (i >> 6)
	} else {
		sl.prev = b.tail
		q.slots[b.tail-1].next = s + 1
	}
	b.tail = s + 1
	q.wn++
}

// unlink removes slot s from its wheel bucket.
func (q *Queue[T]) unlink(s int32, sl *slot[T]) {
	i := sl.at & (wheelSize - 1)
	b := &q.buckets[i]
	if sl.prev != 0 {
		q.slots[sl.prev-1].next = sl.next
	} else {
		b.head = sl.next
	}
	if sl.next != 0 {
		q.slots[sl.next-1].prev = sl.prev
	} else {
		b.tail = sl.prev
	}
	if b.head == 0 {
		q.bits[i>>6] &^= 1 << (i & 63)
		if q.bits[i>>6] == 0 {
			q.summary &^= 1 << (i >> 6)
		}
	}
	q.wn--
}

// first returns the first non-empty bucket at or after base's, wrapping around the wheel
// (every event in the wheel lies in [base, base+wheelSize), so this is the earliest).
// The wheel must not be empty.
func (q *Queue[T]) first() int64 {
	i := q.base & (wheelSize - 1)
	w := i >> 6
	if x := q.bits[w] >> (i & 63); x != 0 {
		return i + int64(bits.TrailingZeros64(x))
	}
	// Words after w, then (wrapping) words up to w; w's bits from i on are zero.
	above := q.summary &^ (1<<(w+1) - 1)
	if above == 0 {
		above = q.summary
	}
	k := int64(bits.TrailingZeros64(above))
	return k<<6 + int64(bits.TrailingZeros64(q.bits[k]))
}

// top returns the slot of the earliest pending event; the queue must not be empty.
func (q *Queue[T]) top() int32 {
	if q.min != 0 {
		return q.min - 1
	}
	return q.findTop()
}

// topAt is top with the event's time.
func (q *Queue[T]) topAt() (int32, int64) {
	if q.min == 0 {
		q.findTop()
	}
	return q.min - 1, q.minAt
}

// findTop is top when the minimum is not known.
func (q *Queue[T]) findTop() int32 {
	var s int32
	switch {
	case len(q.heap) > 0 && (q.wn == 0 || q.heap[0].at < q.base):
		// The heap holds only events before the window or after it.
		s = q.heap[0].slot
	default:
		s = q.buckets[q.first()].head - 1
	}
	q.min, q.minAt = s+1, q.slots[s].at
	return s
}

// Peek returns the earliest pending event without removing it. ok is false
// if the queue is empty, in which case at and v are zero.
func (q *Queue[T]) Peek() (at int64, v T, ok bool) {
	if q.n == 0 {
		return 0, v, false
	}
	sl := &q.slots[q.top()]
	return sl.at, sl.v, true
}

// PeekAt returns the time of the earliest pending event. ok is false if the
// queue is empty.
func (q *Queue[T]) PeekAt() (at int64, ok bool) {
	if q.n == 0 {
		return 0, false
	}
	_, at = q.topAt()
	return at, true
}

// Pop removes and returns the earliest pending event: the smallest time,
// and among equal times the first pushed. ok is false if the queue is
// empty, in which case at and v are zero. O(1) from the wheel, O(log n)
// from the heap, plus the heap events the window's move brings in.
func (q *Queue[T]) Pop() (at int64, v T, ok bool) {
	at, ok = q.PopTo(&v)
	return at, v, ok
}

// PopTo is Pop writing the payload to *dst instead of returning it (no copy through the
// results; dst is left alone when the queue is empty).
func (q *Queue[T]) PopTo(dst *T) (at int64, ok bool) {
	return q.PopUntil(math.MaxInt64, dst)
}

// PopUntil is PopTo for an event due at or before limit: when the earliest pending event is
// later (or there is none), it leaves the queue alone and ok is false.
//
// After a pop from a bucket that holds more events, the next of them is the earliest: the
// heap holds nothing before the window (such an event would have been the earliest), and
// what enters the window when it moves lies beyond it.
func (q *Queue[T]) PopUntil(limit int64, dst *T) (at int64, ok bool) {
	if q.n == 0 {
		return 0, false
	}
	if q.min == 0 {
		q.findTop()
	}
	if q.minAt > limit {
		return 0, false
	}
	s := q.min - 1
	sl := &q.slots[s]
	at = sl.at
	*dst = sl.v
	if sl.pos == inWheel {
		i := at & (wheelSize - 1)
		b := &q.buckets[i]
		b.head = sl.next
		if sl.next != 0 {
			q.slots[sl.next-1].prev = 0
			q.min = sl.next // same time, next in push order
		} else {
			b.tail = 0
			q.bits[i>>6] &^= 1 << (i & 63)
			if q.bits[i>>6] == 0 {
				q.summary &^= 1 << (i >> 6)
			}
			q.min = 0
		}
		q.wn--
	} else {
		q.min = 0
		q.removeAt(int(sl.pos))
	}
	q.release(s, sl)
	if at > q.base {
		q.base = at
		if len(q.heap) > 0 && q.inWindow(q.heap[0].at) {
			q.advance()
		}
	}
	return at, true
}

// advance moves the heap's events that entered the window (base just moved forward to the
// time of the event popped) into their buckets, in (at, seq) order (all later than the
// earliest event, which stays the earliest); the buckets receiving them were outside the
// window, so empty.
func (q *Queue[T]) advance() {
	for len(q.heap) > 0 && q.inWindow(q.heap[0].at) {
		s := q.heap[0].slot
		q.removeAt(0)
		q.link(s, &q.slots[s])
	}
}

// Cancel removes the event h refers to and reports whether it was pending.
// It returns false, and changes nothing, for the zero Handle or an event
// already popped or cancelled. O(1) in the wheel, O(log n) in the heap.
func (q *Queue[T]) Cancel(h Handle) bool {
	if !q.Pending(h) {
		return false
	}
	s := int32(h.slot)
	sl := &q.slots[s]
	if sl.pos == inWheel {
		q.unlink(s, sl)
	} else {
		q.removeAt(int(sl.pos))
	}
	q.release(s, sl)
	if q.min == s+1 {
		q.min = 0
	}
	return true
}

// Pending reports whether h refers to an event that is still queued.
func (q *Queue[T]) Pending(h Handle) bool {
	if h.seq == 0 || h.slot < 0 || h.slot >= len(q.slots) {
		return false
	}
	s := &q.slots[h.slot]
	return s.seq == h.seq && s.pos != isFree
}

// release frees slot s. The slot's payload is zeroed so the queue does not keep it
// reachable.
func (q *Queue[T]) release(s int32, sl *slot[T]) {
	var zero T
	sl.v = zero
	sl.pos = isFree
	sl.next = q.free
	q.free = s + 1
	q.n--
}

// removeAt deletes the heap node at index i by moving the last node into its place and
// restoring the heap.
func (q *Queue[T]) removeAt(i int) {
	last := len(q.heap) - 1
	if i != last {
		q.heap[i] = q.heap[last]
		q.slots[q.heap[i].slot].pos = int32(i)
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
		q.slots[h[i].slot].pos = int32(i)
		i = p
	}
	if i == start {
		return false
	}
	h[i] = n
	q.slots[n.slot].pos = int32(i)
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
		q.slots[h[i].slot].pos = int32(i)
		i = m
	}
	h[i] = n
	q.slots[n.slot].pos = int32(i)
}
