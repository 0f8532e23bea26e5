package explore

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The successor memo. A state's encoding is its share-partition part (with the waiting
// read), the share coordinator's stored state, then the rest (log start, accepted offsets,
// stale writes, ...). A step that leaves the coordinator alone (every kind but storeStep's)
// reads nothing of the stored state and leaves it as it was: its child, the invariants' and
// findings' verdicts on it, the core's consistency and the canonical renaming depend only on
// the parent without its stored state, its context. Many states share a context (the
// anchor scope's 5.6 M states have 388 269 contexts: they differ in what was stored), so a
// worker remembers, for the contexts it expanded lately, each step in order and, for a step
// that leaves the coordinator alone, the child's encoding without the stored state. A state
// whose context is remembered gets those children by copying the parent's stored state
// between the two parts, with no decoding, copying, stepping, encoding or checking; only the
// steps that reach the coordinator are taken as before.
//
// A context is remembered only when none of its children broke an invariant, met a finding
// or failed the consistency check (checked on every remembered child when the context is
// first expanded, reported, as before, only for a new one): what a remembered context
// yields is then exactly what expanding it again yields.
//
// A memo is a ring of entries written one after another with an index of their positions
// (eight ways per bucket, a cache line): old entries are overwritten as the ring wraps, so its memory is bounded.
// The workers share one, read only while a wave expands: each worker writes the entries of
// the contexts it expands into a memo of its own for the wave, which the other workers read
// too (lookupPeer: a context one worker expanded earlier in the wave is remembered for the
// others, which would otherwise each take its steps anew), and after the wave the shared memo
// takes them over (absorb), so that every worker finds every context any of them expanded
// in an earlier wave. A state's context is looked up in the shared memo, then in the
// worker's own, then in the others'.
type memo struct {
	max     int64 // the ring's largest size
	wave    bool  // a worker's memo for one wave: it never wraps (absorb empties it)
	wrapped bool  // an entry was written past the ring's first lap (it no longer grows)
	ring    []byte
	pos     uint64   // absolute position of the next write (ring index pos % len(ring))
	hi      uint64   // the highest pos so far: the ring's bytes written at least once
	index   []uint64 // by key hash, in buckets: hash tag and absolute position of the entry + 1
	// The entry being built while its context is expanded (nil: not remembered); sp and
	// rest are the context's share-partition part and rest, which children are deltas of.
	build    []byte
	nacts    int
	ok       bool
	settle   bool
	sp, rest []byte
}

// Entry layout: key hash (8 bytes: contextHash), key length (2), action count (2), flags (1:
// settled), total length (4), the key, then per action: the action (4 bytes) and a kind byte:
// memoTake (the step is taken anew), memoChild (a step leaving the coordinator alone: its
// child follows) or memoCommit (a write reaching the coordinator: its child for one answer
// of the coordinator follows). A child is its renaming (1 byte), its context hash (8 bytes:
// with the store's hash, its fingerprint, stateFP), then its share-partition
// part and its rest each as a delta against the parent's (a step changes a few bytes): the
// parent's bytes it starts with, those it ends with and the length of what lies between
// (2 bytes each); for a commit also the length of the write's encoding (2), of the
// coordinator's signature (1) and whether the child's store is dead (1); then the two
// middles, and for a commit the write's encoding and the signature. The delta halves an
// entry (the anchor scope's: about 140 bytes instead of 310), so the memo holds twice the
// contexts.
const (
	memoHead      = 17
	memoTake      = 1
	memoChild     = 0
	memoCommit    = 2
	memoChildHead = 26
	memoCommitExt = 4
)

// delta is a part of a child against the parent's part p: the child is p[:pre], mid,
// p[len(p)-suf:].
type delta struct {
	pre, suf int
	mid      []byte
}

// diff returns c as a delta against p: the longest common prefix, then the longest common
// suffix of what is left (compared 8 bytes at a time while 8 are left).
func diff(p, c []byte) delta {
	n := min(len(p), len(c))
	pre := 0
	for pre+8 <= n {
		if x := binary.LittleEndian.Uint64(p[pre:]) ^ binary.LittleEndian.Uint64(c[pre:]); x != 0 {
			pre += bits.TrailingZeros64(x) / 8
			goto suffix
		}
		pre += 8
	}
	for pre < n && p[pre] == c[pre] {
		pre++
	}
suffix:
	suf, m := 0, n-pre
	for suf+8 <= m {
		if x := binary.LittleEndian.Uint64(p[len(p)-suf-8:]) ^ binary.LittleEndian.Uint64(c[len(c)-suf-8:]); x != 0 {
			suf += bits.LeadingZeros64(x) / 8
			return delta{pre: pre, suf: suf, mid: c[pre : len(c)-suf]}
		}
		suf += 8
	}
	for suf < m && p[len(p)-1-suf] == c[len(c)-1-suf] {
		suf++
	}
	return delta{pre: pre, suf: suf, mid: c[pre : len(c)-suf]}
}

// fits reports whether the delta's fields fit their two bytes.
func (d delta) fits() bool { return d.pre < 1<<16 && d.suf < 1<<16 && len(d.mid) < 1<<16 }

func (d delta) appendHead(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(d.pre))
	b = binary.LittleEndian.AppendUint16(b, uint16(d.suf))
	return binary.LittleEndian.AppendUint16(b, uint16(len(d.mid)))
}

// apply appends the child's part, d applied to the parent's part p, to b.
func (d delta) apply(b, p []byte) []byte {
	b = append(b, p[:d.pre]...)
	b = append(b, d.mid...)
	return append(b, p[len(p)-d.suf:]...)
}

// size is the length of the child's part.
func (d delta) size() int { return d.pre + len(d.mid) + d.suf }

// A worker's memo's ring is at most memoRingMax bytes, or a sixteenth of the budget's total
// share divided among the workers; below memoRingMin there is none. It starts at
// memoRingStart bytes and grows when it wraps. Its index has a slot per memoPerEntry bytes of
// ring (an entry of the anchor scope takes about 310 bytes: with 128 MiB the memo holds 89 %
// of its states' contexts when they come again, with 32 MiB 77 %).
const (
	memoRingMax   = 128 << 20
	memoRingMin   = 1 << 20
	memoRingStart = 1 << 20
	memoPerEntry  = 128
)

// newMemo returns a memo whose ring grows to max bytes (nil for 0).
func newMemo(max int64) *memo {
	if max <= 0 {
		return nil
	}
	m := &memo{max: max}
	m.grow()
	return m
}

// newWaveMemo returns a worker's memo for one wave's entries: its whole ring and index from
// the start (its pages touched as they are written), so that the other workers may read it
// while it is written (lookupPeer).
func newWaveMemo() *memo {
	return &memo{max: memoWaveMax, wave: true, ring: mapBytes(memoWaveMax), index: allocKeys(indexSlots(memoWaveMax))}
}

// grow makes a shared memo's ring four times larger, up to max, keeping what it holds: it
// grows before it first wraps, so its entries lie back to back from the front. The ring's
// memory is taken at its largest size at once (its pages are touched only as entries are
// written, so the process's resident size grows with what the ring holds), so a growth copies
// nothing; the index grows with the ring and the entries are indexed again. (A worker's memo
// for one wave has its whole ring and index from the start: it never grows.)
func (m *memo) grow() {
	n := min(m.max, max(memoRingStart, 4*int64(len(m.ring))))
	if m.ring == nil {
		m.ring = mapBytes(int(m.max))
	}
	m.ring = m.ring[:n]
	freeKeys(m.index)
	m.index = allocKeys(indexSlots(n))
	for at := uint64(0); at < m.pos; {
		e := m.ring[at:]
		m.put(binary.LittleEndian.Uint64(e), at)
		at += uint64(entryLen(e))
	}
}

// indexSlots is the size of the index for a ring of n bytes: a power of two, at least one
// slot per memoPerEntry bytes, and a whole bucket.
func indexSlots(n int64) int {
	slots := memoWays
	for int64(slots)*memoPerEntry < n {
		slots <<= 1
	}
	return slots
}

// memoWaveMax is the most a worker's own memo holds of one wave's entries (the anchor
// scope's early waves, all new contexts, take about 10 MiB); past it, the wave's further
// contexts are not remembered.
const memoWaveMax = 16 << 20

// entryLen is the total length of the entry e starts with (its bytes 13–16).
func entryLen(e []byte) int { return int(binary.LittleEndian.Uint32(e[13:])) }

// absorbAhead is how many entries ahead absorb fetches an entry's index bucket.
const absorbAhead = 8

// absorb takes over the entries written into o (a worker's memo, which has not wrapped) and
// empties o.
func (m *memo) absorb(o *memo) {
	// The index buckets the entries go to are fetched absorbAhead entries ahead: each is a
	// miss in an index far larger than the cache, and the copies into the ring are not.
	ahead, queued := 0, 0
	for at := 0; uint64(at) < o.pos; queued-- {
		for ; queued < absorbAhead && uint64(ahead) < o.pos; queued++ {
			m.prefetchBucket(binary.LittleEndian.Uint64(o.ring[ahead:]))
			ahead += entryLen(o.ring[ahead:])
		}
		n := entryLen(o.ring[at:])
		m.write(o.ring[at : at+n])
		at += n
	}
	o.pos, o.wrapped = 0, false
	clear(o.index)
}

// bytes is the memory the memo takes (the ring as far as it has grown).
func (m *memo) bytes() int64 {
	if m == nil {
		return 0
	}
	return min(int64(m.hi), int64(len(m.ring))) + mappedBytes(len(m.index)) + int64(cap(m.build))
}

// offHeap is the part of bytes mapped outside the Go heap (mapBytes, allocKeys).
func (m *memo) offHeap() int64 {
	if m == nil || runtime.GOOS != "linux" {
		return 0
	}
	var b int64
	if cap(m.ring) >= hugeMin {
		b += min(int64(m.hi), int64(len(m.ring)))
	}
	return b + keysOffHeap(len(m.index))
}

// free releases the ring and the index (mapped outside the heap when large: mapBytes); the
// memo is not used again.
func (m *memo) free() {
	if m == nil {
		return
	}
	unmapBytes(m.ring[:cap(m.ring)])
	freeKeys(m.index)
	m.ring, m.index = nil, nil
}

// The index is in buckets of memoWays slots; a slot holds the top bits of an entry's key hash
// above its absolute position + 1 (0: empty), so that a lookup reads the ring only for a
// slot whose tag matches. Positions stay below 2^memoPosBits (the memo starts again empty
// before that).
const (
	memoWays    = 8
	memoPosBits = 40
	memoPosMask = 1<<memoPosBits - 1
)

func (m *memo) bucket(k uint64) []uint64 {
	b := int(k&uint64(len(m.index)/memoWays-1)) * memoWays
	return m.index[b : b+memoWays : b+memoWays]
}

// prefetchBucket starts fetching the index bucket of hash k (a lookup soon to come).
func (m *memo) prefetchBucket(k uint64) {
	prefetch(&m.bucket(k)[0])
}

// prefetchEntry starts fetching the first bytes of the entries k's bucket points to with k's
// tag (its bucket was fetched earlier: prefetchBucket).
func (m *memo) prefetchEntry(k uint64) {
	for _, v := range m.bucket(k) {
		if v == 0 || v>>memoPosBits != k>>memoPosBits {
			continue
		}
		p := v&memoPosMask - 1
		if m.pos-p > uint64(len(m.ring)) {
			continue
		}
		at := p % uint64(len(m.ring))
		for off := uint64(0); off < memoPrefetch && at+off < uint64(len(m.ring)); off += 64 {
			prefetch((*uint64)(unsafe.Pointer(&m.ring[at+off])))
		}
		return // a second entry with the same tag is rare
	}
}

// memoPrefetch is how many bytes of an entry prefetchEntry fetches: the head, the key and
// the first actions (the anchor scope's entries take about 200 bytes).
const memoPrefetch = 256

// lookup returns the entry remembered for the context sp, rest (its contextHash k), or nil.
func (m *memo) lookup(k uint64, sp, rest []byte) []byte {
	for _, v := range m.bucket(k) {
		if v == 0 || v>>memoPosBits != k>>memoPosBits {
			continue
		}
		p := v&memoPosMask - 1
		if m.pos-p > uint64(len(m.ring)) {
			continue // overwritten since
		}
		e := m.ring[p%uint64(len(m.ring)):]
		if binary.LittleEndian.Uint64(e) != k || int(binary.LittleEndian.Uint16(e[8:])) != len(sp)+len(rest) ||
			!bytes.Equal(e[memoHead:memoHead+len(sp)], sp) || !bytes.Equal(e[memoHead+len(sp):memoHead+len(sp)+len(rest)], rest) {
			continue
		}
		return e[:entryLen(e)]
	}
	return nil
}

// lookupPeer is lookup in another worker's memo for the wave, while that worker may write
// further entries into it: a wave's memo is never grown, wrapped or overwritten while the wave
// expands, and an entry is indexed (atomically) only once it is written, so an entry found
// through the index is whole and stays as it is until the wave ends (absorb).
func (m *memo) lookupPeer(k uint64, sp, rest []byte) []byte {
	bk := m.bucket(k)
	for i := range bk {
		v := atomic.LoadUint64(&bk[i])
		if v == 0 || v>>memoPosBits != k>>memoPosBits {
			continue
		}
		e := m.ring[v&memoPosMask-1:]
		if binary.LittleEndian.Uint64(e) != k || int(binary.LittleEndian.Uint16(e[8:])) != len(sp)+len(rest) ||
			!bytes.Equal(e[memoHead:memoHead+len(sp)], sp) || !bytes.Equal(e[memoHead+len(sp):memoHead+len(sp)+len(rest)], rest) {
			continue
		}
		return e[:entryLen(e)]
	}
	return nil
}

// begin starts the entry of a context being expanded: its share-partition part sp and its
// rest (the key is the two joined), k their contextHash. sp and rest must not change until
// commit.
func (m *memo) begin(k uint64, sp, rest []byte) {
	n := len(sp) + len(rest)
	m.build = binary.LittleEndian.AppendUint64(m.build[:0], k)
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(n))
	m.build = append(m.build, 0, 0, 0, 0, 0, 0, 0)
	m.build = append(append(m.build, sp...), rest...)
	m.nacts, m.ok, m.settle = 0, n < 1<<16, false
	m.sp, m.rest = sp, rest
}

// take notes a step that is to be taken anew.
func (m *memo) take(a Action) {
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoTake)
	m.nacts++
}

// child notes a step's child: enc without its stored state enc[from:to], renamed by perm, kh
// its contextHash.
func (m *memo) child(a Action, perm uint8, enc []byte, from, to int, kh uint64) {
	ds, dr := diff(m.sp, enc[:from]), diff(m.rest, enc[to:])
	if !ds.fits() || !dr.fits() {
		m.take(a)
		return
	}
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoChild, perm)
	m.build = binary.LittleEndian.AppendUint64(m.build, kh)
	m.build = dr.appendHead(ds.appendHead(m.build))
	m.build = append(append(m.build, ds.mid...), dr.mid...)
	m.nacts++
}

// commitChild notes a commit's child as child does, with the write's encoding wenc, the
// coordinator's signature sig (what of it the step read: commitSig) and whether the child's
// stored state is encoded as a dead store's.
func (m *memo) commitChild(a Action, perm uint8, enc []byte, from, to int, kh uint64, wenc, sig []byte, dead bool) {
	ds, dr := diff(m.sp, enc[:from]), diff(m.rest, enc[to:])
	if !ds.fits() || !dr.fits() || len(wenc) >= 1<<16 || len(sig) >= 1<<8 {
		m.take(a)
		return
	}
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoCommit, perm)
	m.build = binary.LittleEndian.AppendUint64(m.build, kh)
	m.build = dr.appendHead(ds.appendHead(m.build))
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(len(wenc)))
	d := byte(0)
	if dead {
		d = 1
	}
	m.build = append(m.build, byte(len(sig)), d)
	m.build = append(append(m.build, ds.mid...), dr.mid...)
	m.build = append(append(m.build, wenc...), sig...)
	m.nacts++
}

// commit writes the entry built since begin into the ring, if it is to be remembered.
func (m *memo) commit() {
	b := m.build
	if !m.ok || m.nacts >= 1<<16 {
		return
	}
	binary.LittleEndian.PutUint16(b[10:], uint16(m.nacts))
	if m.settle {
		b[12] = 1
	}
	binary.LittleEndian.PutUint32(b[13:], uint32(len(b)))
	m.write(b)
}

// write writes a finished entry into the ring and indexes it.
func (m *memo) write(b []byte) {
	if len(b) > len(m.ring)/4 {
		return
	}
	if !m.wrapped && m.pos+uint64(len(b)) > uint64(len(m.ring)) && int64(len(m.ring)) < m.max &&
		len(b) <= int(min(m.max, 4*int64(len(m.ring))))/4 {
		m.grow() // the entries lie back to back in [0, pos)
	}
	r := uint64(len(m.ring))
	if m.wave && m.pos+uint64(len(b)) > r {
		return // full until absorbed
	}
	at := m.pos % r
	if at+uint64(len(b)) > r {
		m.pos += r - at // the tail is too short: start again at the front
		at = 0
	}
	if m.pos+uint64(len(b)) > r {
		m.wrapped = true // this entry overwrites the first lap's
	}
	if m.pos+uint64(len(b)) >= memoPosMask {
		m.pos, at = 0, 0
		clear(m.index)
	}
	copy(m.ring[at:], b)
	m.put(binary.LittleEndian.Uint64(b), m.pos)
	m.pos += uint64(len(b))
	m.hi = max(m.hi, m.pos)
}

// put indexes the entry of hash k at absolute position p: into its bucket's empty slot, or
// over the bucket's oldest entry.
func (m *memo) put(k, p uint64) {
	bk := m.bucket(k)
	old := 0
	for i, v := range bk {
		if v == 0 {
			old = i
			break
		}
		if v&memoPosMask < bk[old]&memoPosMask {
			old = i
		}
	}
	v := k>>memoPosBits<<memoPosBits | (p + 1)
	if m.wave {
		atomic.StoreUint64(&bk[old], v) // read by the other workers (lookupPeer)
		return
	}
	bk[old] = v
}

// memoEntry reads an entry found by lookup.
type memoEntry struct {
	b       []byte // the actions
	n       int
	settled bool
}

func readEntry(e []byte) memoEntry {
	kl := int(binary.LittleEndian.Uint16(e[8:]))
	return memoEntry{b: e[memoHead+kl:], n: int(binary.LittleEndian.Uint16(e[10:])), settled: e[12] == 1}
}

// memoAct is one remembered action.
type memoAct struct {
	a        Action
	kind     byte
	perm     uint8
	kh       uint64 // the child's contextHash (memoChild, memoCommit)
	sp, rest delta  // the child's parts against the parent's (memoChild, memoCommit)
	wenc     []byte // memoCommit: the write's encoding
	sig      []byte // memoCommit: the coordinator's signature the child holds for
	dead     bool   // memoCommit: the child's stored state is encoded as a dead store's
}

// next reads the next action.
func (me *memoEntry) next() memoAct {
	var x memoAct
	me.read(&x)
	return x
}

// read reads the next action into x (every field of it).
func (me *memoEntry) read(x *memoAct) {
	b := me.b
	x.a, x.kind = Action(binary.LittleEndian.Uint32(b)), b[4]
	if x.kind == memoTake {
		*x = memoAct{a: x.a, kind: memoTake}
		me.b = b[5:]
		return
	}
	_ = b[memoChildHead-1]
	x.perm = b[5]
	x.kh = binary.LittleEndian.Uint64(b[6:])
	x.sp.pre, x.sp.suf = int(binary.LittleEndian.Uint16(b[14:])), int(binary.LittleEndian.Uint16(b[16:]))
	ns := int(binary.LittleEndian.Uint16(b[18:]))
	x.rest.pre, x.rest.suf = int(binary.LittleEndian.Uint16(b[20:])), int(binary.LittleEndian.Uint16(b[22:]))
	nr := int(binary.LittleEndian.Uint16(b[24:]))
	b = b[memoChildHead:]
	nw, ng := 0, 0
	x.dead = false
	if x.kind == memoCommit {
		nw, ng, x.dead = int(binary.LittleEndian.Uint16(b)), int(b[2]), b[3] == 1
		b = b[memoCommitExt:]
	}
	x.sp.mid, x.rest.mid = b[:ns], b[ns:ns+nr]
	b = b[ns+nr:]
	x.wenc, x.sig = b[:nw], b[nw:nw+ng]
	me.b = b[nw+ng:]
}

// skim reads the next action as far as the first pass over a remembered context needs it:
// the action, its kind and, for a child, its context hash (next reads it whole).
func (me *memoEntry) skim() (a Action, kind byte, kh uint64) {
	b := me.b
	a, kind = Action(binary.LittleEndian.Uint32(b)), b[4]
	if kind == memoTake {
		me.b = b[5:]
		return a, kind, 0
	}
	_ = b[memoChildHead-1]
	kh = binary.LittleEndian.Uint64(b[6:])
	n := memoChildHead + int(binary.LittleEndian.Uint16(b[18:])) + int(binary.LittleEndian.Uint16(b[24:]))
	if kind == memoCommit {
		n += memoCommitExt + int(binary.LittleEndian.Uint16(b[memoChildHead:])) + int(b[memoChildHead+2])
	}
	me.b = b[n:]
	return a, kind, kh
}

// commitSig appends what a write reaching the coordinator reads of it besides the write:
// its epochs, and whether the write moved its start offset back (movedBack).
func commitSig(b []byte, leaderEpoch, stateEpoch int32, movedBack bool) []byte {
	b = binary.AppendUvarint(b, uint64(uint32(leaderEpoch)))
	b = binary.AppendUvarint(b, uint64(uint32(stateEpoch)))
	if movedBack {
		return append(b, 1)
	}
	return append(b, 0)
}

// appendStateHeader prefixes a state's encoding in the frontier: its context's hash kh
// (contextHash, first: contextOf reads it alone), so that the state's memo lookup need not
// hash it again, and where its stored state lies in it.
func appendStateHeader(b []byte, from, to int, kh uint64) []byte {
	b = binary.LittleEndian.AppendUint64(b, kh)
	b = binary.AppendUvarint(b, uint64(from))
	return binary.AppendUvarint(b, uint64(to))
}

// splitState reads a frontier entry: the encoding, where its stored state lies in it and its
// context's hash.
func splitState(b []byte) (enc []byte, from, to int, kh uint64) {
	kh = binary.LittleEndian.Uint64(b)
	f, n := binary.Uvarint(b[8:])
	t, k := binary.Uvarint(b[8+n:])
	return b[8+n+k:], int(f), int(t), kh
}
