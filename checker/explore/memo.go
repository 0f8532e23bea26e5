package explore

import (
	"bytes"
	"encoding/binary"
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
// A memo is a ring of entries written one after another with a direct-mapped index of
// their positions: old entries are overwritten as the ring wraps, so its memory is bounded.
// The workers share one, read only while a wave expands: each worker writes the entries of
// the contexts it expands into a memo of its own, which it reads first, and after the wave
// the shared memo takes them over (absorb), so that every worker finds every context any of
// them expanded in an earlier wave.
type memo struct {
	max   int64 // the ring's largest size
	wave  bool  // a worker's memo for one wave: it never wraps (absorb empties it)
	ring  []byte
	pos   uint64   // absolute position of the next write (ring index pos % len(ring))
	index []uint64 // by key hash: absolute position of the entry + 1; 0: none
	// The entry being built while its context is expanded (nil: not remembered).
	build  []byte
	nacts  int
	ok     bool
	settle bool
}

// Entry layout: key hash (8 bytes), key length (2), action count (2), flags (1: settled),
// total length (4), the key, then per action: the action (4 bytes) and a kind byte:
// memoTake (the step is taken anew), memoChild (a step leaving the coordinator alone: its
// child follows) or memoCommit (a write reaching the coordinator: its child for one answer
// of the coordinator follows). A child is its renaming (1 byte), the lengths of its
// share-partition part and of its rest (2 each), for a commit also the length of the
// write's encoding (2), of the coordinator's signature (1) and whether the child's store is
// dead (1), then those bytes.
const (
	memoHead      = 17
	memoTake      = 1
	memoChild     = 0
	memoCommit    = 2
	memoChildHead = 10
	memoCommitExt = 4
)

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

// newWaveMemo returns a worker's memo for one wave's entries.
func newWaveMemo() *memo {
	m := &memo{max: memoWaveMax, wave: true}
	m.grow()
	return m
}

// grow makes the ring four times larger, up to max. A shared memo forgets what it held (it
// grows only while a search's contexts do not fit, a few times, so that a small search takes
// little memory); a worker's memo for one wave keeps it.
func (m *memo) grow() {
	n := min(m.max, max(memoRingStart, 4*int64(len(m.ring))))
	if m.wave {
		ring := make([]byte, n)
		copy(ring, m.ring[:m.pos])
		m.ring = ring
		if m.index == nil {
			m.index = make([]uint64, indexSlots(m.max))
		}
		return
	}
	m.ring, m.index, m.pos = make([]byte, n), make([]uint64, indexSlots(n)), 0
}

// indexSlots is the size of the index for a ring of n bytes: a power of two, at least one
// slot per memoPerEntry bytes.
func indexSlots(n int64) int {
	slots := 1
	for int64(slots)*memoPerEntry < n {
		slots <<= 1
	}
	return slots
}

// memoWaveMax is the most a worker's own memo holds of one wave's entries (the anchor
// scope's early waves, all new contexts, take about 10 MiB); past it, the wave's further
// contexts are not remembered.
const memoWaveMax = 16 << 20

// absorb takes over the entries written into o (a worker's memo, which has not wrapped) and
// empties o.
func (m *memo) absorb(o *memo) {
	for at := 0; uint64(at) < o.pos; {
		e := o.ring[at:]
		n := int(binary.LittleEndian.Uint32(e[13:]))
		m.build = append(m.build[:0], e[:n]...)
		m.ok, m.nacts = true, int(binary.LittleEndian.Uint16(e[10:]))
		m.settle = e[12] == 1
		m.commit()
		at += n
	}
	o.pos = 0
	clear(o.index)
}

// bytes is the memory the memo takes.
func (m *memo) bytes() int64 {
	if m == nil {
		return 0
	}
	return int64(cap(m.ring)) + int64(cap(m.index))*8 + int64(cap(m.build))
}

// lookup returns the entry remembered for key (hash k), or nil.
func (m *memo) lookup(k uint64, key []byte) []byte {
	p := m.index[k&uint64(len(m.index)-1)]
	if p == 0 {
		return nil
	}
	p--
	if m.pos-p > uint64(len(m.ring)) {
		return nil // overwritten since
	}
	at := int(p % uint64(len(m.ring)))
	e := m.ring[at:]
	if binary.LittleEndian.Uint64(e) != k || int(binary.LittleEndian.Uint16(e[8:])) != len(key) {
		return nil
	}
	if !bytes.Equal(e[memoHead:memoHead+len(key)], key) {
		return nil
	}
	return e[:binary.LittleEndian.Uint32(e[13:])]
}

// begin starts the entry of a context being expanded.
func (m *memo) begin(k uint64, key []byte) {
	m.build = binary.LittleEndian.AppendUint64(m.build[:0], k)
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(len(key)))
	m.build = append(m.build, 0, 0, 0, 0, 0, 0, 0)
	m.build = append(m.build, key...)
	m.nacts, m.ok, m.settle = 0, len(key) < 1<<16, false
}

// take notes a step that is to be taken anew.
func (m *memo) take(a Action) {
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoTake)
	m.nacts++
}

// child notes a step's child: enc without its stored state enc[from:to], renamed by perm.
func (m *memo) child(a Action, perm uint8, enc []byte, from, to int) {
	if from >= 1<<16 || len(enc)-to >= 1<<16 {
		m.ok = false
		return
	}
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoChild, perm)
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(from))
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(len(enc)-to))
	m.build = append(m.build, enc[:from]...)
	m.build = append(m.build, enc[to:]...)
	m.nacts++
}

// commitChild notes a commit's child as child does, with the write's encoding wenc, the
// coordinator's signature sig (what of it the step read: commitSig) and whether the child's
// stored state is encoded as a dead store's.
func (m *memo) commitChild(a Action, perm uint8, enc []byte, from, to int, wenc, sig []byte, dead bool) {
	if from >= 1<<16 || len(enc)-to >= 1<<16 || len(wenc) >= 1<<16 || len(sig) >= 1<<8 {
		m.take(a)
		return
	}
	m.build = binary.LittleEndian.AppendUint32(m.build, uint32(a))
	m.build = append(m.build, memoCommit, perm)
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(from))
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(len(enc)-to))
	m.build = binary.LittleEndian.AppendUint16(m.build, uint16(len(wenc)))
	d := byte(0)
	if dead {
		d = 1
	}
	m.build = append(m.build, byte(len(sig)), d)
	m.build = append(m.build, enc[:from]...)
	m.build = append(m.build, enc[to:]...)
	m.build = append(m.build, wenc...)
	m.build = append(m.build, sig...)
	m.nacts++
}

// commit writes the entry built since begin into the ring, if it is to be remembered.
func (m *memo) commit() {
	b := m.build
	if !m.ok || m.nacts >= 1<<16 || len(b) > len(m.ring)/4 {
		return
	}
	binary.LittleEndian.PutUint16(b[10:], uint16(m.nacts))
	if m.settle {
		b[12] = 1
	}
	binary.LittleEndian.PutUint32(b[13:], uint32(len(b)))
	at := m.pos % uint64(len(m.ring))
	if at+uint64(len(b)) > uint64(len(m.ring)) && int64(len(m.ring)) < m.max && len(b) <= int(min(m.max, 4*int64(len(m.ring))))/4 {
		m.grow()
		at = m.pos % uint64(len(m.ring))
	}
	if at+uint64(len(b)) > uint64(len(m.ring)) {
		if m.wave {
			return // full until absorbed
		}
		m.pos += uint64(len(m.ring)) - at // the tail is too short: start again at the front
		at = 0
	}
	copy(m.ring[at:], b)
	k := binary.LittleEndian.Uint64(b)
	m.index[k&uint64(len(m.index)-1)] = m.pos + 1
	m.pos += uint64(len(b))
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
	sp, rest []byte // the child's parts (memoChild, memoCommit)
	wenc     []byte // memoCommit: the write's encoding
	sig      []byte // memoCommit: the coordinator's signature the child holds for
	dead     bool   // memoCommit: the child's stored state is encoded as a dead store's
}

// next reads the next action.
func (me *memoEntry) next() memoAct {
	b := me.b
	x := memoAct{a: Action(binary.LittleEndian.Uint32(b)), kind: b[4]}
	if x.kind == memoTake {
		me.b = b[5:]
		return x
	}
	x.perm = b[5]
	ns, nr := int(binary.LittleEndian.Uint16(b[6:])), int(binary.LittleEndian.Uint16(b[8:]))
	b = b[memoChildHead:]
	nw, ng := 0, 0
	if x.kind == memoCommit {
		nw, ng, x.dead = int(binary.LittleEndian.Uint16(b)), int(b[2]), b[3] == 1
		b = b[memoCommitExt:]
	}
	x.sp, x.rest = b[:ns], b[ns:ns+nr]
	b = b[ns+nr:]
	x.wenc, x.sig = b[:nw], b[nw:nw+ng]
	me.b = b[nw+ng:]
	return x
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

// stateHeader prefixes a state's encoding in the frontier: where its stored state lies in it.
func appendStateHeader(b []byte, from, to int) []byte {
	b = binary.AppendUvarint(b, uint64(from))
	return binary.AppendUvarint(b, uint64(to))
}

// splitState reads a frontier entry: the encoding and where its stored state lies in it.
func splitState(b []byte) (enc []byte, from, to int) {
	f, n := binary.Uvarint(b)
	t, k := binary.Uvarint(b[n:])
	return b[n+k:], int(f), int(t)
}
