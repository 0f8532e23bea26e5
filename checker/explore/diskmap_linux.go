package explore

import (
	"os"
	"syscall"
)

// mapRun maps a run's file (size bytes) read-only, for lookups that read memory instead of
// calling the kernel: after a flush most steps of the search look a state up on disk, and a
// read(2) per lookup cost more than the rest of the step. The pages are the kernel's page
// cache (clean, dropped under memory pressure, not the search's heap); random access, so the
// kernel reads no pages ahead.
func mapRun(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	_ = syscall.Madvise(b, syscall.MADV_RANDOM)
	return b, nil
}

func unmapRun(b []byte) {
	if b != nil {
		_ = syscall.Munmap(b)
	}
}
