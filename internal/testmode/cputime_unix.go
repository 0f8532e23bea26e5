//go:build unix

package testmode

import "syscall"

// CPUSeconds is the process's user plus system CPU time so far, in seconds (0 where it
// cannot be read): benchmarks report it beside wall time, which a shared machine makes
// noisy.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
