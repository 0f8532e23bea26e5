package checker

import "github.com/sharesim/sharesim/sim"

// SetViolationLimit changes how many violations a checker keeps (100), for tests that
// compare every violation of two checkers.
func SetViolationLimit(c *Checker, n int) { c.limit, c.h.limit = n, n }

// DefaultViolationLimit is how many violations a new checker of cfg keeps (0 when cfg is
// refused).
func DefaultViolationLimit(cfg sim.Config) int {
	c, err := New(cfg, nil)
	if err != nil {
		return 0
	}
	return c.limit
}

// SetSyncHistory keeps the history checks on the simulation's goroutine: Attach starts
// no goroutine of their own.
func SetSyncHistory(c *Checker) { c.syncHistory = true }

// WaitHistory waits until the history checks' goroutine, if any, has applied everything
// the checker handed over (memory measurements).
func WaitHistory(c *Checker) {
	if c.pipe != nil {
		c.pipe.wait()
	}
}
