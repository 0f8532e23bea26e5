package explore

import "hash/maphash"

// fp is a 128-bit state fingerprint. The first word is never zero (zero marks an empty slot).
type fp [2]uint64

var seedA, seedB = maphash.MakeSeed(), maphash.MakeSeed()

func fingerprint(b []byte) fp {
	return fp{maphash.Bytes(seedA, b) | 1, maphash.Bytes(seedB, b)}
}

// fpSet is an open-addressing hash set of fingerprints with linear probing; it is read by
// many goroutines while a BFS level expands and written by one between waves. The first words
// are probed in their own array (half the cache traffic of 16-byte slots); the second word is
// read only when the first matches.
type fpSet struct {
	lo, hi []uint64
	n      int
	mask   uint64
}

func newFPSet(capacity int) *fpSet {
	size := 1024
	for size < 2*capacity {
		size *= 2
	}
	return &fpSet{lo: make([]uint64, size), hi: make([]uint64, size), mask: uint64(size - 1)}
}

func (s *fpSet) has(f fp) bool {
	for i := f[0] & s.mask; ; i = (i + 1) & s.mask {
		switch s.lo[i] {
		case 0:
			return false
		case f[0]:
			if s.hi[i] == f[1] {
				return true
			}
		}
	}
}

// add inserts f and reports whether it was new.
func (s *fpSet) add(f fp) bool {
	if 2*(s.n+1) > len(s.lo) {
		s.grow()
	}
	for i := f[0] & s.mask; ; i = (i + 1) & s.mask {
		switch s.lo[i] {
		case 0:
			s.lo[i], s.hi[i] = f[0], f[1]
			s.n++
			return true
		case f[0]:
			if s.hi[i] == f[1] {
				return false
			}
		}
	}
}

func (s *fpSet) grow() {
	lo, hi := s.lo, s.hi
	s.lo, s.hi = make([]uint64, 2*len(lo)), make([]uint64, 2*len(lo))
	s.mask = uint64(len(s.lo) - 1)
	for k, a := range lo {
		if a == 0 {
			continue
		}
		for i := a & s.mask; ; i = (i + 1) & s.mask {
			if s.lo[i] == 0 {
				s.lo[i], s.hi[i] = a, hi[k]
				break
			}
		}
	}
}

// bytes is the memory the set uses.
func (s *fpSet) bytes() int64 { return int64(len(s.lo)) * 16 }
