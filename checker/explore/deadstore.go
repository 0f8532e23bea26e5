package explore

// The dead-store reduction. The share coordinator's stored state (its start offset and state
// batches) is read by one step only: a leader failover, which loads the new leader's cache from
// it. A write that reaches the coordinator is accepted or fenced by its epochs alone
// (model.StateStore.Write), and the invariants look at the store's epochs only (no older
// epoch write), never at what it stores. So once a path has used all its failovers and the
// old leader's stale writes have arrived, nothing will read the stored state again: two
// states that differ only in it have the same steps, the same successors up to it, and the
// same verdict of every invariant, finding and liveness test. The explorer then encodes the
// store by its epochs alone (model.StateStore.AppendEpochs), so those states are one.
//
// This is a quotient by a bisimulation that respects every check, like the symmetry
// reduction: breadth-first distances do not change, so every violation and finding is found
// at the same depth (TestReductionsSound). A state decoded from such an encoding has an empty
// store with the right epochs; writes then merge into it as before, and it is forgotten again
// at the next encoding. Counterexamples are replayed on a live harness with the real store.
//
// On the default scope it merges most states after the failover: with one failover and one
// log-start move on batches 2,1 (one write outstanding), 3 111 185 states become 1 296 131;
// with no failover at all, 161 680 become 21 657.

// storeDead reports whether no step on any path from the current state reads the store's
// stored state: no failover is left and no stale write is on its way.
func (h *harness) storeDead() bool {
	return h.sc.DeadStore && int(h.sp.LeaderEpoch())-1 >= h.sc.Failovers && len(h.zombies) == 0
}
