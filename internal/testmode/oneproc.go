package testmode

import (
	"os"
	"runtime"
)

// OneProcUnderRace runs the test binary on one processor (GOMAXPROCS 1) in the default run:
// a race build without the build tag long, and no GOMAXPROCS in the environment. It is for
// test packages whose tests each run on one goroutine (parallel subtests among them), called
// from their TestMain. There a second processor does none of the tests' work, yet under
// -race it cost about a quarter more CPU time (sim: 11.7 CPU-s against 8.7 for two of its
// tests, alternated on the same machine), spent by the garbage collector's idle workers and
// the page faults of the race detector's shadow memory across two processors. The race
// detector finds the same races on one processor (it orders accesses by synchronisation, not
// by when they ran). With the tag long, the binary keeps every processor.
func OneProcUnderRace() {
	if Race && !Long && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
