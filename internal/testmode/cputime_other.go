//go:build !unix

package testmode

// CPUSeconds is 0: the process's CPU time is not read on this system.
func CPUSeconds() float64 { return 0 }
