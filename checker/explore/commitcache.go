package explore

import (
	"bytes"
	"runtime"
	"unsafe"
)

// commitCache remembers, for one worker, what a write reaching the share coordinator makes of
// a stored state: for the stored state's encoding, the write's encoding and whether the
// child's store is encoded as a dead store's, the coordinator's signature (commitSig), the
// child's stored state as encoded and its storeHash. A remembered commit (memo.go) otherwise
// decodes the parent's stored state and the write, applies the write and encodes the result,
// for every state of the context; many of them hold the same stored state. The cache is
// direct-mapped by a hash of the three, and a slot answers only when all three are the same
// bytes, so it answers exactly what the computation would.
type commitCache struct {
	slots []commitSlot // mapped on huge pages (mapBytes): lookups land anywhere in it
}

// commitSlot is one remembered commit, two cache lines: b holds the stored state, the write,
// the signature and the result, of the lengths given.
type commitSlot struct {
	h              uint64 // the key's hash; 0: empty
	hRes           uint64 // storeHash of the result
	ns, nw, ng, nr uint8
	dead           bool
	b              [commitSlotBytes]byte
}

const (
	commitSlotBytes = 128 - 21
	commitSlots     = 1 << 15 // 4 MiB per worker
)

func newCommitCache() *commitCache {
	b := mapBytes(commitSlots * int(unsafe.Sizeof(commitSlot{})))
	return &commitCache{slots: unsafe.Slice((*commitSlot)(unsafe.Pointer(&b[0])), commitSlots)}
}

// free releases the table; the cache is not used again.
func (c *commitCache) free() {
	if c != nil {
		unmapBytes(unsafe.Slice((*byte)(unsafe.Pointer(&c.slots[0])), len(c.slots)*int(unsafe.Sizeof(commitSlot{}))))
		c.slots = nil
	}
}

// prefetch starts fetching the slot of hash h (a lookup soon to come).
func (c *commitCache) prefetch(h uint64) {
	s := &c.slots[h&(commitSlots-1)]
	prefetch(&s.h)
	prefetch((*uint64)(unsafe.Pointer(&s.b[64-21])))
}

// commitKey is the cache's hash of a stored state's hash hT, the write's encoding and the
// dead flag.
func commitKey(hT uint64, wenc []byte, dead bool) uint64 {
	h := hT*fpK1 ^ storeHash(wenc)
	if dead {
		h = ^h
	}
	return h | 1
}

// get returns what the cache holds for the key (hash h, stored state st, write wenc).
func (c *commitCache) get(h uint64, st, wenc []byte, dead bool) (sig, res []byte, hRes uint64, ok bool) {
	s := &c.slots[h&(commitSlots-1)]
	if s.h != h || s.dead != dead || int(s.ns) != len(st) || int(s.nw) != len(wenc) {
		return nil, nil, 0, false
	}
	ns, nw, ng, nr := int(s.ns), int(s.nw), int(s.ng), int(s.nr)
	if !bytes.Equal(s.b[:ns], st) || !bytes.Equal(s.b[ns:ns+nw], wenc) {
		return nil, nil, 0, false
	}
	return s.b[ns+nw : ns+nw+ng], s.b[ns+nw+ng : ns+nw+ng+nr], s.hRes, true
}

// put remembers a commit (when it fits a slot).
func (c *commitCache) put(h uint64, st, wenc []byte, dead bool, sig, res []byte, hRes uint64) {
	if len(st)+len(wenc)+len(sig)+len(res) > commitSlotBytes {
		return
	}
	s := &c.slots[h&(commitSlots-1)]
	s.h, s.hRes, s.dead = h, hRes, dead
	s.ns, s.nw, s.ng, s.nr = uint8(len(st)), uint8(len(wenc)), uint8(len(sig)), uint8(len(res))
	n := copy(s.b[:], st)
	n += copy(s.b[n:], wenc)
	n += copy(s.b[n:], sig)
	copy(s.b[n:], res)
}

// A slot takes two cache lines.
var _ = [1]struct{}{}[unsafe.Sizeof(commitSlot{})-128]

// offHeap is the part of bytes mapped outside the Go heap.
func (c *commitCache) offHeap() int64 {
	if c == nil || runtime.GOOS != "linux" || c.bytes() < hugeMin {
		return 0
	}
	return c.bytes()
}

// bytes is the memory the cache takes.
func (c *commitCache) bytes() int64 {
	if c == nil {
		return 0
	}
	return int64(len(c.slots)) * int64(unsafe.Sizeof(commitSlot{}))
}
