package explore

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync/atomic"
)

// fp is a 64-bit state fingerprint; it is never zero (zero marks an empty slot) and always has
// bit 0 set (the seen set keeps a generation tag there: youngBit). Two distinct
// states share a fingerprint with probability about 2^-64 per pair: for n states the chance
// that any pair collides (and a state is wrongly taken as seen) is about n²/2^65, 10^-4 for
// 60 M states, as in TLC. The hash is fixed (no per-process seed), so that fingerprints
// written by one process (swarm shards) mean the same in another.
type fp uint64

const (
	fpK0 = 0x9e3779b97f4a7c15
	fpK1 = 0xbf58476d1ce4e5b9
	fpK2 = 0x94d049bb133111eb
)

// fingerprint hashes a state encoding: 8 bytes at a time through a 64×64→128-bit multiply
// folded back to 64 bits, then a splitmix64 finaliser.
func fingerprint(b []byte) fp {
	all := b
	h := uint64(len(b))*fpK0 ^ fpK1
	for len(b) >= 8 {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(b), fpK2)
		h = hi ^ lo ^ fpK0
		b = b[8:]
	}
	// The last len(b) (< 8) bytes as a little-endian word: from the 8 bytes ending at the
	// end, shifted down, when there are 8; byte by byte otherwise.
	var w uint64
	if n := len(all); len(b) > 0 && n >= 8 {
		w = binary.LittleEndian.Uint64(all[n-8:]) >> (64 - 8*len(b))
	} else {
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
	}
	hi, lo := bits.Mul64(h^w^fpK1, fpK2)
	h = hi ^ lo
	h ^= h >> 30
	h *= fpK1
	h ^= h >> 27
	h *= fpK2
	h ^= h >> 31
	return fp(h | 1)
}

// A state's fingerprint is not the hash of its encoding in one piece: it combines the hash of
// its context (the encoding without the coordinator's stored state, memo.go: the
// share-partition part, then the rest) with the hash of the stored state (stateFP). Most steps
// leave the stored state alone and many states share a context, so the successor memo keeps
// each remembered child's context hash, and a remembered child's fingerprint costs one
// combination with its parent's store hash: no bytes are hashed, and the child's encoding is
// put together only when it is new. The combination is a bijection of kh·fpK1 xor hT
// (fpK1 is odd), so two states collide only when their context hashes and store hashes
// happen to cancel: as for one hash of the whole encoding, about 2^-64 per pair. The
// encoding determines its context and stored state (each part is self-delimiting), so the
// fingerprint is a function of the state, as before; it is as fixed as fingerprint.

// contextHash hashes a context given as its two parts (sp, then rest) without joining them:
// each part in words of 8 bytes, a part's last bytes as one more word, the two lengths in
// the seed.
func contextHash(sp, rest []byte) uint64 {
	h := uint64(len(sp))*fpK0 ^ uint64(len(rest))*fpK2 ^ fpK1
	return finish(absorb(absorb(h, sp), rest))
}

// storeHash hashes a stored state's encoding.
func storeHash(b []byte) uint64 { return uint64(fingerprint(b)) }

// stateFP is the fingerprint of the state with context hash kh and store hash hT.
func stateFP(kh, hT uint64) fp { return fp(finish(kh*fpK1^hT) | 1) }

// absorb folds b into h as fingerprint does, its last len(b)%8 bytes as one more word.
func absorb(h uint64, b []byte) uint64 {
	all := b
	for len(b) >= 8 {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(b), fpK2)
		h = hi ^ lo ^ fpK0
		b = b[8:]
	}
	if len(b) == 0 {
		return h
	}
	var w uint64
	if n := len(all); n >= 8 {
		w = binary.LittleEndian.Uint64(all[n-8:]) >> (64 - 8*len(b))
	} else {
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
	}
	hi, lo := bits.Mul64(h^w^fpK1, fpK2)
	return hi ^ lo ^ fpK0
}

// finish is the splitmix64 finaliser (a bijection).
func finish(h uint64) uint64 {
	h ^= h >> 30
	h *= fpK1
	h ^= h >> 27
	h *= fpK2
	return h ^ h>>31
}

// partBits is log2 of the number of partitions of the seen set: a fingerprint's top partBits
// bits pick its partition. Sixteen, not more: a partition's table is mapped in whole
// transparent huge pages once it reaches hugeMin, so the set's mapped tables take at most
// 16 × 2 MiB more than their slots while each is below a huge page; a growth step still
// copies only a sixteenth of the set.
const partBits = 4

// fpSet is the in-memory part of the seen set: 2^partBits independent open-addressing tables
// (fpTable), a fingerprint's partition chosen by its top bits. Each partition grows on its own,
// so a growth step copies 1/16 of the set (no pause, no transient doubling of the whole set),
// and the partitions can be filled by different goroutines at once (insertParallel) with the
// result of inserting in candidate order. Every partition stays between half and three
// quarters full once grown: 8 bytes per slot is 10.7 to 16 bytes per state (plus 4 bytes per
// slot with ids).
//
// While a BFS wave expands, many goroutines read it and, with two or more workers, fill its
// empty slots (insertShared, atomically); it grows and is otherwise written between waves.
//
// Its fingerprints belong to two generations (generations.go): a slot holds a fingerprint of
// the young generation as it is and one of the old generation with bit 0 cleared (youngBit;
// every fingerprint has bit 0 set), so one probe answers for both.
type fpSet struct {
	parts [1 << partBits]fpTable
	n     int // fingerprints, both generations
	old   int // of them, the old generation's
}

// youngBit is the bit of a slot that marks a fingerprint of the young generation. Every
// fingerprint has it set (stateFP and fingerprint set bit 0), so a slot can clear it for the
// old generation and still be told from an empty slot (0) and give the fingerprint back.
const youngBit = 1

// A slot's top partBits bits are free: every fingerprint in a partition has the same top bits
// (they picked the partition) and a fingerprint's home slot is computed from the bits below
// them. So workers that insert into the set during a wave (insertShared) leave a tag there,
// the slot holding the fingerprint xor the tag: each worker of a wave has its own. A worker
// that meets a fingerprint with its own tag made it a candidate earlier in the wave; one with
// another worker's tag of the same wave knows that worker made it a candidate too, and the
// merge decides which of the two comes first (merger.resolveShared). The tags are the numbers
// 1 to waveTags (0 is an untagged slot) in blocks of one per worker, a wave taking the next
// block in turn, so a slot may carry a tag left from a wave some blocks before; the merge
// tells those apart. A table's rebuilds (grow, age) clear the tags.
const (
	tagShift = 64 - partBits
	tagMask  = uint64(1<<partBits-1) << tagShift
	waveTags = 1<<partBits - 1
)

// waveTagRange returns the tags of worker 0 and of the last of workers in the wave'th wave when
// the waves take blocks blocks of tags in turn (blocks×workers ≤ waveTags).
func waveTagRange(wave, workers, blocks int) (lo, hi uint64) {
	first := wave%blocks*workers + 1
	return uint64(first) << tagShift, uint64(first+workers-1) << tagShift
}

func newFPSet(capacity int, withIDs bool) *fpSet {
	s := &fpSet{}
	per := capacity >> partBits
	for i := range s.parts {
		s.parts[i].top = uint64(i) << tagShift
		s.parts[i].init(per, withIDs)
	}
	releaseWith(s)
	return s
}

func (s *fpSet) part(f fp) *fpTable { return &s.parts[uint64(f)>>(64-partBits)] }

// has reports whether f is in the set.
func (s *fpSet) has(f fp) bool { return s.part(f).has(f) }

// lookup reports whether f is in the set and its slot's wave tag (0: none; insertShared).
func (s *fpSet) lookup(f fp) (bool, uint64) {
	_, tag, ok := s.part(f).find(f)
	return ok, tag
}

// slotAddr is the address of f's home slot, for prefetching it (the memory access starts
// early; nothing is read through it).
func (s *fpSet) slotAddr(f fp) *uint64 {
	t := s.part(f)
	return &t.keys[t.home(f)]
}

// id returns the id stored with f (sets made with ids).
func (s *fpSet) id(f fp) (uint32, bool) { return s.part(f).id(f) }

// add inserts f with id and reports whether it was new.
func (s *fpSet) add(f fp, id uint32) bool {
	if s.part(f).add(f, id) {
		s.n++
		return true
	}
	return false
}

// setID stores id with f, which is in the set.
func (s *fpSet) setID(f fp, id uint32) {
	t := s.part(f)
	if i, ok := t.slot(f); ok {
		t.ids[i] = id
	}
}

// bytes is the memory the set uses.
func (s *fpSet) bytes() int64 {
	var b int64
	for i := range s.parts {
		b += s.parts[i].bytes()
	}
	return b
}

// slots is the number of fingerprint slots (8 bytes each).
func (s *fpSet) slots() int64 {
	var n int64
	for i := range s.parts {
		n += int64(len(s.parts[i].keys))
	}
	return n
}

// len is the number of fingerprints in the set.
func (s *fpSet) len() int { return s.n }

// young is the number of fingerprints of the young generation.
func (s *fpSet) young() int { return s.n - s.old }

// age drops the old generation (written to disk before) and makes the young one old: each
// table is rebuilt with its young fingerprints alone, tagged old, one table at a time (the
// transient is a sixteenth of the set). The set must not map fingerprints to ids.
func (s *fpSet) age() {
	for i := range s.parts {
		s.parts[i].age()
	}
	s.aged()
}

// aged updates the set's counts once every partition has aged.
func (s *fpSet) aged() {
	s.n -= s.old
	s.old = s.n
}

// age rebuilds the table with its young fingerprints alone, now old.
func (t *fpTable) age() {
	young := t.n - t.old
	nt := fpTable{maxBytes: t.maxBytes, top: t.top}
	nt.init(young+young/2, false) // room for new states before the first growth
	for _, k := range t.keys {
		if k&youngBit != 0 {
			f := t.fpOf(k)
			j, _ := nt.slot(f)
			nt.keys[j] = uint64(f) &^ youngBit
		}
	}
	nt.n, nt.old = young, young
	freeKeys(t.keys)
	*t = nt
}

// sorted returns the fingerprints in ascending order.
func (s *fpSet) sorted() []uint64 {
	out := make([]uint64, 0, s.n)
	for i := range s.parts {
		out = s.parts[i].appendSorted(out, false)
	}
	return out
}

// limit bounds what the set may take after its tables grow (bytes; 0 or less: no bound),
// shared evenly by its partitions (they fill evenly: a fingerprint's bits are uniform). The
// tables grow by half, nearly at once, so without it a set just under its share of the budget
// could grow half past it within one wave.
func (s *fpSet) limit(bytes int64) {
	per := int64(0)
	if bytes > 0 {
		per = max(bytes>>partBits, 1)
	}
	for i := range s.parts {
		s.parts[i].maxBytes = per
	}
}

// held reports whether a table held back its growth at its limit: the set should be flushed.
func (s *fpSet) held() bool {
	for i := range s.parts {
		if s.parts[i].held {
			return true
		}
	}
	return false
}

// reset empties the set and shrinks its tables to their least size.
func (s *fpSet) reset() {
	withIDs := s.parts[0].ids != nil
	for i := range s.parts {
		freeKeys(s.parts[i].keys)
		s.parts[i] = fpTable{maxBytes: s.parts[i].maxBytes, top: s.parts[i].top}
		s.parts[i].init(0, withIDs)
	}
	s.n, s.old = 0, 0
}

// fpTable is one partition: an open-addressing hash table of fingerprints with linear
// probing. A fingerprint's home slot is its bits below the partition bits scaled to the table
// size (so the table need not be a power of two); the table grows by half when three quarters
// full. With ids (liveness) each slot also carries the state's id, 4 bytes more per slot.
type fpTable struct {
	keys []uint64
	ids  []uint32 // nil unless the set maps fingerprints to state ids
	n    int
	old  int // of the n, the old generation's (their slots have youngBit cleared)
	// maxBytes (0: none) is the most the table may take after growing: a table whose
	// growth by half would outgrow it grows to it instead (nextSize); past three quarters
	// full a table that cannot grow fills on, to seven eighths at most, and notes that it
	// held back (held); the search then flushes the set after the wave.
	maxBytes int64
	held     bool
	// top is the partition's fingerprint bits (the top partBits bits every fingerprint in it
	// has), which a slot's wave tag replaces (tagMask).
	top uint64
}

// minSlots is a partition's smallest table.
const minSlots = 64

func (t *fpTable) init(capacity int, withIDs bool) {
	size := max(minSlots, capacity*4/3+1)
	t.keys = allocKeys(size)
	if withIDs {
		t.ids = make([]uint32, size)
	}
}

// home is f's first slot (f with youngBit set, as every fingerprint has it).
func (t *fpTable) home(f fp) int {
	hi, _ := bits.Mul64(uint64(f)<<partBits, uint64(len(t.keys)))
	return int(hi)
}

// slot returns where f is, or the empty slot where it would go. A slot holds f when it differs
// from f at most in youngBit and the wave tag. It reads the slots atomically: during a wave
// other workers may fill empty slots (insertShared).
func (t *fpTable) slot(f fp) (int, bool) {
	i, _, ok := t.find(f)
	return i, ok
}

// find returns where f is and its slot's wave tag, or the empty slot where it would go.
func (t *fpTable) find(f fp) (int, uint64, bool) {
	k := uint64(f)
	for i := t.home(f); ; {
		kk := atomic.LoadUint64(&t.keys[i])
		if kk == 0 {
			return i, 0, false
		}
		if d := kk ^ k; d&^(tagMask|youngBit) == 0 {
			return i, d & tagMask, true
		}
		if i++; i == len(t.keys) {
			i = 0
		}
	}
}

// fpOf is the fingerprint a slot's content k stands for: its own top bits and youngBit
// restored.
func (t *fpTable) fpOf(k uint64) fp { return fp(k&^tagMask | t.top | youngBit) }

// insertShared puts f into the table with the tag tag, while other goroutines may look up and
// insert too (a wave's workers, none of them growing the table, which must have an empty slot
// left), and reports whether this call put it there. Slots only fill during a wave, so a slot
// taken by another worker between the lookup and the swap is looked past by looking again.
// The caller counts the insertions into n.
func (t *fpTable) insertShared(f fp, tag uint64) bool {
	for {
		i, _, ok := t.find(f)
		if ok {
			return false
		}
		if atomic.CompareAndSwapUint64(&t.keys[i], 0, uint64(f)^tag) {
			return true
		}
	}
}

// reserve grows the table, as add would, until n more fingerprints leave it at most three
// quarters full, and returns how many it then has room for without growing: up to thirteen
// sixteenths full, or seven eighths when it may not grow past maxBytes (as add fills it).
func (t *fpTable) reserve(n int) int {
	for 4*(t.n+n) > 3*len(t.keys) {
		size := t.nextSize()
		if size == 0 {
			return max(0, 7*len(t.keys)/8-t.n)
		}
		t.grow(size)
	}
	return max(n, 13*len(t.keys)/16-t.n)
}

// nextSize is the number of slots the table grows to: half again as many; or, when that
// would take it past maxBytes, as many as maxBytes holds, if that is at least an eighth more
// than now (so that the last growth takes the table to its share, where growing by half
// would stop anywhere up to a third short of it); 0 when it may not grow.
func (t *fpTable) nextSize() int {
	next := len(t.keys) + len(t.keys)/2
	if t.maxBytes <= 0 || t.bytesAt(next) <= t.maxBytes {
		return next
	}
	fit := next
	for fit > len(t.keys) && t.bytesAt(fit) > t.maxBytes {
		fit -= max(1, fit/512)
	}
	if fit >= len(t.keys)+len(t.keys)/8 {
		return fit
	}
	return 0
}

// bytesAt is the memory the table takes with slots slots.
func (t *fpTable) bytesAt(slots int) int64 {
	b := mappedBytes(slots)
	if t.ids != nil {
		b += int64(slots) * 4
	}
	return b
}

// mayGrow reports whether the table may grow within maxBytes.
func (t *fpTable) mayGrow() bool { return t.nextSize() > 0 }

// filled adds n fingerprints that insertShared put into the table to its count, and notes
// that it held back (held) when they took it past three quarters full where add would
// have grown it.
func (t *fpTable) filled(n int) {
	t.n += n
	if n > 0 && 4*t.n > 3*len(t.keys) && !t.mayGrow() {
		t.held = true
	}
}

func (t *fpTable) has(f fp) bool {
	_, ok := t.slot(f)
	return ok
}

func (t *fpTable) id(f fp) (uint32, bool) {
	i, ok := t.slot(f)
	if !ok {
		return 0, false
	}
	return t.ids[i], true
}

// add inserts f with id and reports whether it was new.
func (t *fpTable) add(f fp, id uint32) bool {
	if 4*(t.n+1) > 3*len(t.keys) {
		switch size := t.nextSize(); {
		case size > 0:
			t.grow(size)
		case 8*(t.n+1) <= 7*len(t.keys):
			t.held = true
		default:
			t.grow(len(t.keys) + len(t.keys)/2) // past seven eighths: over the share rather than slow
		}
	}
	i, ok := t.slot(f)
	if ok {
		return false
	}
	t.keys[i] = uint64(f)
	if t.ids != nil {
		t.ids[i] = id
	}
	t.n++
	return true
}

// grow rehashes the table into size slots.
func (t *fpTable) grow(size int) {
	keys, ids := t.keys, t.ids
	t.keys = allocKeys(size)
	defer freeKeys(keys)
	if ids != nil {
		t.ids = make([]uint32, len(t.keys))
	}
	for k, key := range keys {
		if key == 0 {
			continue
		}
		f := t.fpOf(key)
		i, _ := t.slot(f)
		t.keys[i] = uint64(f) &^ (^key & youngBit) // its generation kept, its wave tag cleared
		if ids != nil {
			t.ids[i] = ids[k]
		}
	}
}

// bytes is the memory the table takes (a mapped array in whole huge pages, hugepages_linux.go).
func (t *fpTable) bytes() int64 { return mappedBytes(len(t.keys)) + int64(len(t.ids))*4 }

// appendSorted appends the table's fingerprints (oldOnly: its old generation's) in ascending
// order.
func (t *fpTable) appendSorted(out []uint64, oldOnly bool) []uint64 {
	from := len(out)
	for _, k := range t.keys {
		if k != 0 && (!oldOnly || k&youngBit == 0) {
			out = append(out, uint64(t.fpOf(k)))
		}
	}
	slices.Sort(out[from:])
	return out
}
