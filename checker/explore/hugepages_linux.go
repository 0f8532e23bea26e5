package explore

import (
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64 Linux.
const hugePage = 2 << 20

// hugeMin is the smallest fingerprint array allocated outside the Go heap on huge pages.
// Lookups land on random slots, and the TLB of 4 KiB pages covers only a few MiB: in a
// virtual machine each miss is a two-level page walk, and a set of a few tens of MiB missed
// on nearly every probe (the explorer's prefetch of the slot then stalled for about a tenth of
// the search's time). From 256 KiB a table is mapped in whole huge pages, so the 16 tables
// of a set from 4 MiB on are each on one huge page at least; the mapping rounds up to 2 MiB,
// at most 16 × 2 MiB = 32 MiB more than the tables while they are below that size, and
// counted (mappedBytes).
const hugeMin = 256 << 10

// mappedBytes is the memory an array of n slots takes: a mapped one rounds up to whole huge
// pages.
func mappedBytes(n int) int64 {
	b := int64(n) * 8
	if b < hugeMin {
		return b
	}
	return (b + hugePage - 1) / hugePage * hugePage
}

// keysOffHeap is the memory allocKeys(n) maps outside the Go heap: all of mappedBytes(n) from
// hugeMin on, none below (a heap array).
func keysOffHeap(n int) int64 {
	if m := mappedBytes(n); m >= hugeMin {
		return m
	}
	return 0
}

// allocKeys returns a zeroed fingerprint array of n slots. A large one is mapped directly
// from the kernel on transparent huge pages (mapBytes). It is released by freeKeys, or when
// owner becomes unreachable.
func allocKeys(n int) []uint64 {
	m := mappedBytes(n)
	if m < hugeMin {
		return make([]uint64, n)
	}
	b := mapBytes(int(m))
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

// freeKeys releases an array from allocKeys (a heap one is left to the collector).
func freeKeys(keys []uint64) {
	if m := mappedBytes(len(keys)); m >= hugeMin {
		unmapBytes(unsafe.Slice((*byte)(unsafe.Pointer(&keys[0])), m))
	}
}

// mapBytes returns n zeroed bytes. From hugeMin on they are a mapping of their own from the
// kernel (Linux aligns a mapping of 2 MiB or more to 2 MiB), advised onto transparent huge
// pages: random accesses to a large array then miss the TLB far less (in a virtual machine
// each miss is a two-level page walk), and its pages become resident only as they are
// written. Below hugeMin, or when the mapping fails, they come from the heap. unmapBytes
// releases a mapping.
func mapBytes(n int) []byte {
	if n < hugeMin {
		return make([]byte, n)
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]byte, n)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // a hint: without it, 4 KiB pages
	mappings.Lock()
	mappings.m[uintptr(unsafe.Pointer(&b[0]))] = true
	mappings.Unlock()
	return b
}

// unmapBytes releases what mapBytes returned (all of it: b as returned, or with the same
// start and at least its length); a heap one is left to the collector.
func unmapBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	at := uintptr(unsafe.Pointer(&b[0]))
	mappings.Lock()
	ok := mappings.m[at]
	delete(mappings.m, at)
	mappings.Unlock()
	if ok {
		_ = syscall.Munmap(b)
	}
}

// mappings are the starts of the live mappings from mapBytes (so that a heap fallback is
// never unmapped).
var mappings = struct {
	sync.Mutex
	m map[uintptr]bool
}{m: map[uintptr]bool{}}

// releaseWith frees the set's mapped arrays once the set is unreachable.
func releaseWith(s *fpSet) {
	runtime.SetFinalizer(s, func(s *fpSet) {
		for i := range s.parts {
			freeKeys(s.parts[i].keys)
		}
	})
}
