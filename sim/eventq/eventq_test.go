package eventq

import (
	"slices"
	"testing"

	"github.com/sharesim/sharesim/sim/rng"
)

// check verifies the heap property, the slot/heap cross-links, the wheel's buckets and
// bitmaps, and the invariant that orders them: no heap event lies in the wheel's window.
func (q *Queue[T]) check(t *testing.T) {
	t.Helper()
	for i := range q.heap {
		if i > 0 {
			if p := (i - 1) / 4; less(&q.heap[i], &q.heap[p]) {
				t.Fatalf("heap property violated at %d (parent %d)", i, p)
			}
		}
		s := q.slots[q.heap[i].slot]
		if int(s.pos) != i || s.seq != q.heap[i].seq || s.at != q.heap[i].at {
			t.Fatalf("slot %d out of sync: pos %d seq %d, heap index %d seq %d",
				q.heap[i].slot, s.pos, s.seq, i, q.heap[i].seq)
		}
		if q.inWindow(s.at) {
			t.Fatalf("heap event at %d inside the window [%d, %d)", s.at, q.base, q.base+wheelSize)
		}
	}
	inWheelCount := 0
	for i, b := range q.buckets {
		set := q.bits[i>>6]>>(i&63)&1 == 1
		if set != (b.head != 0) || (b.head == 0) != (b.tail == 0) {
			t.Fatalf("bucket %d: head %d tail %d, bit %v", i, b.head, b.tail, set)
		}
		var prev int32
		var lastSeq uint64
		for s := b.head; s != 0; s = q.slots[s-1].next {
			sl := q.slots[s-1]
			if sl.pos != inWheel || sl.prev != prev || !q.inWindow(sl.at) || sl.at&(wheelSize-1) != int64(i) || sl.seq <= lastSeq {
				t.Fatalf("bucket %d: slot %d (at %d seq %d pos %d prev %d) out of place", i, s-1, sl.at, sl.seq, sl.pos, sl.prev)
			}
			prev, lastSeq = s, sl.seq
			inWheelCount++
		}
		if prev != b.tail {
			t.Fatalf("bucket %d: tail %d, last linked %d", i, b.tail, prev)
		}
	}
	for w, x := range q.bits {
		if (x != 0) != (q.summary>>w&1 == 1) {
			t.Fatalf("summary bit %d disagrees with word %x", w, x)
		}
	}
	if inWheelCount != q.wn {
		t.Fatalf("wheel count %d, linked %d", q.wn, inWheelCount)
	}
	free, listed := 0, 0
	for _, s := range q.slots {
		if s.pos == isFree {
			free++
		}
	}
	for s := q.free; s != 0; s = q.slots[s-1].next {
		if q.slots[s-1].pos != isFree || listed > len(q.slots) {
			t.Fatalf("free list: slot %d is not free, or the list loops", s-1)
		}
		listed++
	}
	if q.min != 0 {
		// A known minimum is the earliest event: no heap or wheel event comes before it.
		m := q.slots[q.min-1]
		if m.pos == isFree || m.at != q.minAt {
			t.Fatalf("min slot %d: pos %d at %d, minAt %d", q.min-1, m.pos, m.at, q.minAt)
		}
		for _, o := range q.slots {
			if o.pos != isFree && (o.at < m.at || o.at == m.at && o.seq < m.seq) {
				t.Fatalf("min slot %d (at %d seq %d) is not the earliest: at %d seq %d", q.min-1, m.at, m.seq, o.at, o.seq)
			}
		}
	}
	if free != listed || free+len(q.heap)+q.wn != len(q.slots) || q.n != len(q.heap)+q.wn {
		t.Fatalf("slot accounting: %d free slots, free list %d, heap %d, wheel %d, slots %d, n %d",
			free, listed, len(q.heap), q.wn, len(q.slots), q.n)
	}
}

func TestOrderByTimeThenInsertion(t *testing.T) {
	var q Queue[string]
	q.Push(30, "c1")
	q.Push(10, "a1")
	q.Push(20, "b1")
	q.Push(10, "a2")
	q.Push(30, "c2")
	q.Push(-5, "neg")
	q.Push(10, "a3")
	q.Push(20, "b2")
	want := []string{"neg", "a1", "a2", "a3", "b1", "b2", "c1", "c2"}
	wantAt := []int64{-5, 10, 10, 10, 20, 20, 30, 30}
	if q.Len() != len(want) {
		t.Fatalf("Len = %d", q.Len())
	}
	for i := range want {
		pa, pv, ok := q.Peek()
		at, v, ok2 := q.Pop()
		if !ok || !ok2 || at != wantAt[i] || v != want[i] || pa != at || pv != v {
			t.Fatalf("pop %d: got (%d,%q,%v) peek (%d,%q,%v), want (%d,%q)",
				i, at, v, ok2, pa, pv, ok, wantAt[i], want[i])
		}
		q.check(t)
	}
	if _, _, ok := q.Pop(); ok {
		t.Fatal("Pop on empty queue reported ok")
	}
	if at, v, ok := q.Peek(); ok || at != 0 || v != "" {
		t.Fatal("Peek on empty queue returned a value")
	}
}

func TestManyTies(t *testing.T) {
	q := New[int](0)
	for i := range 1000 {
		q.Push(7, i)
	}
	for i := range 1000 {
		if _, v, _ := q.Pop(); v != i {
			t.Fatalf("tie %d popped as %d", i, v)
		}
	}
}

func TestCancel(t *testing.T) {
	var q Queue[string]
	ha := q.Push(10, "a")
	hb := q.Push(20, "b")
	hc := q.Push(30, "c")
	hd := q.Push(5, "d")
	if hd.Seq() != 4 || ha.Seq() != 1 {
		t.Fatalf("seqs %d %d, want 1 and 4", ha.Seq(), hd.Seq())
	}
	if !q.Pending(hb) || !q.Cancel(hb) {
		t.Fatal("cancel of pending b failed")
	}
	q.check(t)
	if q.Pending(hb) || q.Cancel(hb) {
		t.Fatal("b still cancellable after cancel")
	}
	if !q.Cancel(hd) { // the current minimum
		t.Fatal("cancel of top d failed")
	}
	q.check(t)
	if q.Len() != 2 {
		t.Fatalf("Len = %d, want 2", q.Len())
	}
	if _, v, _ := q.Pop(); v != "a" {
		t.Fatalf("popped %q, want a", v)
	}
	if q.Cancel(ha) {
		t.Fatal("cancel of popped a succeeded")
	}
	// New pushes reuse freed slots; old handles must stay stale.
	he := q.Push(1, "e")
	hf := q.Push(2, "f")
	for _, h := range []Handle{ha, hb, hd} {
		if q.Pending(h) || q.Cancel(h) {
			t.Fatalf("stale handle %+v acted on a reused slot", h)
		}
	}
	if q.Cancel(Handle{}) || q.Pending(Handle{}) {
		t.Fatal("zero Handle is pending")
	}
	if q.Cancel(Handle{slot: 99, seq: 1}) {
		t.Fatal("out-of-range handle cancelled something")
	}
	q.check(t)
	var got []string
	for q.Len() > 0 {
		_, v, _ := q.Pop()
		got = append(got, v)
	}
	if !slices.Equal(got, []string{"e", "f", "c"}) {
		t.Fatalf("remaining order %v, want [e f c]", got)
	}
	if q.Pending(he) || q.Pending(hf) || q.Pending(hc) {
		t.Fatal("popped handles still pending")
	}
}

func TestPopReleasesPayload(t *testing.T) {
	var q Queue[*int]
	x := new(int)
	q.Push(1, x)
	q.Pop()
	for _, s := range q.slots {
		if s.v != nil {
			t.Fatal("popped payload still referenced by the queue")
		}
	}
	h := q.Push(1, x)
	q.Cancel(h)
	for _, s := range q.slots {
		if s.v != nil {
			t.Fatal("cancelled payload still referenced by the queue")
		}
	}
}

// refEvent is an entry of the reference model: a slice kept sorted by
// (at, seq).
type refEvent struct {
	at  int64
	seq uint64
	v   int
}

// TestAgainstReference runs random operation sequences against the queue
// and a trivially correct sorted slice, with fixed seeds: times in a narrow
// range to force ties, cancels of any handle ever issued, live or stale.
func TestAgainstReference(t *testing.T) {
	againstReference(t, 20, 5000, 97,
		func(r *rng.Rand, _ int64) int64 { return r.Int63n(40) - 5 },
		func(r *rng.Rand, n int) int { return r.Intn(n) })
}

// TestAgainstReferenceMovingClock is TestAgainstReference with a simulation's clock: events
// are pushed relative to the last popped time, at delays on both sides of the wheel's window
// and its edge, sometimes into the past, and mostly recent handles are cancelled (timers
// re-armed).
func TestAgainstReferenceMovingClock(t *testing.T) {
	againstReference(t, 20, 10000, 499,
		func(r *rng.Rand, now int64) int64 {
			switch r.Intn(8) {
			case 0:
				return now
			case 1:
				return now + r.Int63n(16)
			case 2, 3:
				return now + r.Int63n(wheelSize)
			case 4:
				return now + wheelSize - 3 + r.Int63n(6) // the window's edge
			case 5:
				return now + r.Int63n(10*wheelSize)
			case 6:
				return now - r.Int63n(50) // into the past
			}
			return now + 30_000 // a timeout
		},
		func(r *rng.Rand, n int) int { return n - 1 - r.Intn(min(n, 64)) })
}

// againstReference drives a queue and the reference with random pushes (at pushAt(r, time of
// the last pop)), pops and cancels (of handle pick(r, handles issued)), comparing every
// result, Len and Peek, and checking the queue's structure every checkEvery steps.
func againstReference(t *testing.T, seeds uint64, steps, checkEvery int, pushAt func(r *rng.Rand, now int64) int64, pick func(r *rng.Rand, n int) int) {
	t.Helper()
	cmp := func(a, b refEvent) int {
		if a.at != b.at {
			return cmpInt(a.at, b.at)
		}
		return cmpInt(a.seq, b.seq)
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rng.New(seed)
		var q Queue[int]
		var ref []refEvent
		var handles []Handle // every handle ever issued, live or stale
		var seq uint64
		var now int64
		for step := range steps {
			switch op := r.Intn(10); {
			case op < 5:
				at := pushAt(r, now)
				seq++
				h := q.Push(at, step)
				if h.Seq() != seq {
					t.Fatalf("seed %d step %d: seq %d, want %d", seed, step, h.Seq(), seq)
				}
				handles = append(handles, h)
				e := refEvent{at, seq, step}
				i, _ := slices.BinarySearchFunc(ref, e, cmp)
				ref = slices.Insert(ref, i, e)
			case op < 8:
				var at int64
				var v int
				var ok bool
				if op == 7 && len(ref) > 0 {
					// PopUntil with a limit just before, at, or after the earliest event.
					limit := ref[0].at + int64(r.Intn(3)) - 1
					if at, ok = q.PopUntil(limit, &v); !ok {
						if limit >= ref[0].at {
							t.Fatalf("seed %d step %d: PopUntil(%d) found nothing, earliest at %d", seed, step, limit, ref[0].at)
						}
						continue
					}
					if limit < ref[0].at {
						t.Fatalf("seed %d step %d: PopUntil(%d) popped at %d", seed, step, limit, at)
					}
				} else {
					at, v, ok = q.Pop()
				}
				if len(ref) == 0 {
					if ok {
						t.Fatalf("seed %d step %d: Pop on empty returned ok", seed, step)
					}
					continue
				}
				w := ref[0]
				ref = ref[1:]
				if !ok || at != w.at || v != w.v {
					t.Fatalf("seed %d step %d: Pop = (%d,%d,%v), want (%d,%d)", seed, step, at, v, ok, w.at, w.v)
				}
				now = at
			default: // cancel, possibly a stale handle
				if len(handles) == 0 {
					continue
				}
				h := handles[pick(r, len(handles))]
				i := slices.IndexFunc(ref, func(e refEvent) bool { return e.seq == h.Seq() })
				if got := q.Cancel(h); got != (i >= 0) {
					t.Fatalf("seed %d step %d: Cancel = %v, want %v", seed, step, got, i >= 0)
				}
				if i >= 0 {
					ref = slices.Delete(ref, i, i+1)
				}
			}
			if q.Len() != len(ref) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, q.Len(), len(ref))
			}
			if at, v, ok := q.Peek(); ok != (len(ref) > 0) || (ok && (at != ref[0].at || v != ref[0].v)) {
				t.Fatalf("seed %d step %d: Peek = (%d,%d,%v), want %v", seed, step, at, v, ok, ref[:min(1, len(ref))])
			}
			if step%checkEvery == 0 {
				q.check(t)
			}
		}
		q.check(t)
		for _, w := range ref { // drain and compare the tail
			at, v, ok := q.Pop()
			if !ok || at != w.at || v != w.v {
				t.Fatalf("seed %d drain: Pop = (%d,%d,%v), want (%d,%d)", seed, at, v, ok, w.at, w.v)
			}
		}
		if q.Len() != 0 {
			t.Fatalf("seed %d: %d events left after drain", seed, q.Len())
		}
	}
}

func cmpInt[I int64 | uint64](a, b I) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	q := New[int](0)
	r := rng.New(1)
	for i := range 10000 {
		q.Push(r.Int63n(1000000), i)
	}
	// Warm up: one cancel puts a slot on the free list's spare capacity.
	q.Cancel(q.Push(0, 0))
	allocs := testing.AllocsPerRun(1000, func() {
		at, v, _ := q.Pop()
		h := q.Push(at+r.Int63n(1000), v)
		q.Cancel(h)
		q.Push(at+r.Int63n(1000), v)
	})
	if allocs != 0 {
		t.Fatalf("steady-state Push/Pop/Cancel allocated %.1f times per run", allocs)
	}
}

// BenchmarkPushPop measures one Pop plus one Push on a queue holding
// 10 000 events, the steady state of a running simulation.
func BenchmarkPushPop(b *testing.B) {
	const size = 10000
	q := New[int](size)
	r := rng.New(1)
	for i := range size {
		q.Push(r.Int63n(1000000), i)
	}
	// Precomputed delays keep generator cost out of the measurement.
	delays := make([]int64, 4096)
	for i := range delays {
		delays[i] = 1 + r.Int63n(20000)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		at, v, _ := q.Pop()
		q.Push(at+delays[i&4095], v)
		i++
	}
}

// BenchmarkPushCancel measures pushing an event and cancelling it again on
// a queue holding 10 000 events, as when a timer is re-armed.
func BenchmarkPushCancel(b *testing.B) {
	const size = 10000
	q := New[int](size)
	r := rng.New(1)
	for i := range size {
		q.Push(r.Int63n(1000000), i)
	}
	delays := make([]int64, 4096)
	for i := range delays {
		delays[i] = r.Int63n(1000000)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h := q.Push(delays[i&4095], i)
		q.Cancel(h)
		i++
	}
}

// BenchmarkSimulatorMix is the queue as the simulator uses it: about 60 events pending, the
// earliest peeked at and popped and a new one pushed per step, most due within 50 ms, some
// 500 ms ahead (a fetch's wait), and every tenth step a 30 s timer re-armed (the previous one
// cancelled): the one-hour world's distribution.
func BenchmarkSimulatorMix(b *testing.B) {
	q := New[int](128)
	r := rng.New(1)
	delays := make([]int64, 4096)
	for i := range delays {
		delays[i] = 1 + r.Int63n(50)
		if i%10 == 1 {
			delays[i] = 500
		}
	}
	for i := range 50 {
		q.Push(delays[i], i)
	}
	var timers [8]Handle
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.PeekAt()
		at, v, _ := q.Pop()
		q.Push(at+delays[i&4095], v)
		if i%10 == 0 {
			q.Cancel(timers[i/10&7])
			timers[i/10&7] = q.Push(at+30_000, -1)
		}
		i++
	}
	if q.Len() < 50 {
		b.Fatalf("the queue drained to %d events", q.Len())
	}
}
