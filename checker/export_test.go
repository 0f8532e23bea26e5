package checker

// SetViolationLimit changes how many violations a checker keeps (100), for tests that
// compare every violation of two checkers.
func SetViolationLimit(c *Checker, n int) { c.limit = n }
