package explore

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// fp is a 64-bit state fingerprint; it is never zero (zero marks an empty slot). Two distinct
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
	h := uint64(len(b))*fpK0 ^ fpK1
	for len(b) >= 8 {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(b), fpK2)
		h = hi ^ lo ^ fpK0
		b = b[8:]
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
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

// fpSet is an open-addressing hash set of fingerprints with linear probing. A fingerprint's
// home slot is its top bits scaled to the table size (so the table need not be a power of
// two); the table grows by half when three quarters full, which keeps it between half and
// three quarters full once grown: 8 bytes per slot is 10.7 to 16 bytes per state. With ids
// (liveness) each slot also carries the state's id, 4 bytes more per slot.
//
// It is read by many goroutines while a BFS level expands and written by one between waves.
type fpSet struct {
	keys []uint64
	ids  []uint32 // nil unless the set maps fingerprints to state ids
	n    int
}

func newFPSet(capacity int, withIDs bool) *fpSet {
	size := max(1024, capacity*4/3+1)
	s := &fpSet{keys: allocKeys(size)}
	releaseWith(s)
	if withIDs {
		s.ids = make([]uint32, size)
	}
	return s
}

// home is f's first slot.
func (s *fpSet) home(f fp) int {
	hi, _ := bits.Mul64(uint64(f), uint64(len(s.keys)))
	return int(hi)
}

// slot returns where f is, or the empty slot where it would go.
func (s *fpSet) slot(f fp) (int, bool) {
	k := uint64(f)
	for i := s.home(f); ; {
		switch s.keys[i] {
		case 0:
			return i, false
		case k:
			return i, true
		}
		if i++; i == len(s.keys) {
			i = 0
		}
	}
}

func (s *fpSet) has(f fp) bool {
	_, ok := s.slot(f)
	return ok
}

// id returns the id stored with f (sets made with ids).
func (s *fpSet) id(f fp) (uint32, bool) {
	i, ok := s.slot(f)
	if !ok {
		return 0, false
	}
	return s.ids[i], true
}

// add inserts f with id and reports whether it was new.
func (s *fpSet) add(f fp, id uint32) bool {
	if 4*(s.n+1) > 3*len(s.keys) {
		s.grow()
	}
	i, ok := s.slot(f)
	if ok {
		return false
	}
	s.keys[i] = uint64(f)
	if s.ids != nil {
		s.ids[i] = id
	}
	s.n++
	return true
}

func (s *fpSet) grow() {
	keys, ids := s.keys, s.ids
	s.keys = allocKeys(len(keys) + len(keys)/2)
	defer freeKeys(keys)
	if ids != nil {
		s.ids = make([]uint32, len(s.keys))
	}
	for k, key := range keys {
		if key == 0 {
			continue
		}
		i, _ := s.slot(fp(key))
		s.keys[i] = key
		if ids != nil {
			s.ids[i] = ids[k]
		}
	}
}

// bytes is the memory the set uses.
func (s *fpSet) bytes() int64 {
	return int64(len(s.keys))*8 + int64(len(s.ids))*4
}

// len is the number of fingerprints in the set.
func (s *fpSet) len() int { return s.n }

// sorted returns the fingerprints in ascending order.
func (s *fpSet) sorted() []uint64 {
	out := make([]uint64, 0, s.n)
	for _, k := range s.keys {
		if k != 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
