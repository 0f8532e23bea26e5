package explore

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugeMin is the smallest fingerprint array allocated outside the Go heap on huge pages.
const hugeMin = 2 << 20 // one huge page: the seen set is 16 tables, each mapped on its own once this large

// allocKeys returns a zeroed fingerprint array of n slots. A large one is mapped directly
// from the kernel and advised onto transparent huge pages: lookups land on random slots,
// and with 4 KiB pages nearly every one also misses the TLB (with 2 MiB pages few do). The
// mapping is released by freeKeys, or when owner becomes unreachable.
func allocKeys(n int) []uint64 {
	if n*8 < hugeMin {
		return make([]uint64, n)
	}
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]uint64, n)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // a hint: without it, 4 KiB pages
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
}

// freeKeys releases an array from allocKeys (a heap one is left to the collector).
func freeKeys(keys []uint64) {
	if len(keys)*8 < hugeMin {
		return
	}
	_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&keys[0])), len(keys)*8))
}

// releaseWith frees the set's mapped arrays once the set is unreachable.
func releaseWith(s *fpSet) {
	runtime.SetFinalizer(s, func(s *fpSet) {
		for i := range s.parts {
			freeKeys(s.parts[i].keys)
		}
	})
}
