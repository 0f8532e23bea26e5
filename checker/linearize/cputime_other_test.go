//go:build !unix

package linearize

func cpuSeconds() float64 { return 0 }
