package explore

// prefetch asks the CPU to bring the cache line holding *p closer (PREFETCHT0). Unlike a
// load it does not hold up the instructions after it while the line is on its way, so the
// seen set's slot for a fingerprint can be fetched while the invariants run.
//
//go:noescape
func prefetch(p *uint64)
