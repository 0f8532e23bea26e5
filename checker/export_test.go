package checker

// SetViolationLimit changes how many violations a checker keeps (100), for tests that
// compare every violation of two checkers.
func SetViolationLimit(c *Checker, n int) { c.limit, c.h.limit = n, n }

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
