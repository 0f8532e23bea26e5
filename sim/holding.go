package sim

import "fmt"

// Holding faults (Fault.Holding): a kill, close, hang or host-loss that strikes a consumer
// while it holds records, as a crash in the middle of processing does. At each firing (at,
// and each every) the fault waits for the first millisecond at which its target, a running
// instance (one of a spec's, or any when there is no target), holds records it acquired and
// has not finished processing, their locks still running (holdsRecords); it fires then, on one of the instances that do (drawn from
// the faults stream). The wait is checked once a millisecond, ends when the healing phase
// starts, and a firing that comes while an earlier one still waits is merged into it.

// faultRetry marks an evFault event that is a holding fault's wait, not a scheduled firing.
const faultRetry = 1

// holdingReady reports whether a holding fault fires now; if not, it waits a millisecond.
func (inj *faultInjector) holdingReady(fs *faultState, e event) bool {
	if e.b != faultRetry && fs.waiting {
		return false // the wait already running fires for this firing too
	}
	if inj.pickableHolding(fs.cfg.Target) {
		fs.waiting = false
		return true
	}
	fs.waiting = true
	inj.push(inj.now+1, event{kind: evFault, a: e.a, b: faultRetry})
	return false
}

// pickableHolding reports whether a running instance named by target (any when empty)
// holds records.
func (inj *faultInjector) pickableHolding(target string) bool {
	cands := inj.consumers
	if target != "" {
		cands = inj.consumersNamed(target)
	}
	for _, c := range cands {
		if c.alive() && inj.holdsRecords(c) {
			return true
		}
	}
	return false
}

// holdsRecords reports whether consumer c holds records it has not finished processing:
// a classic consumer, records fetched or polled and not done; a share consumer, records it
// acquired, in its buffer or polled and not done, whose acquisition lock has not run out as
// far as it knows (a record held past its lock is no longer the consumer's to lose).
func (inj *faultInjector) holdsRecords(c *consumer) bool {
	if cl := c.cl; cl != nil {
		return len(cl.buf) > 0 || cl.unfished > 0
	}
	for i := range c.buffer {
		if c.buffer[i].deadline > inj.now {
			return true
		}
	}
	for i := range c.batch {
		if (i >= len(c.done) || !c.done[i]) && c.batch[i].deadline > inj.now {
			return true
		}
	}
	return false
}

// validateHolding checks that only faults that stop a consumer wait for it to hold records.
func validateHolding(f Fault) error {
	if !f.Holding {
		return nil
	}
	switch f.Kind {
	case FaultKill, FaultClose, FaultHang, FaultHostLoss:
		return nil
	}
	return fmt.Errorf("fault %s: holding belongs to kill, close, hang and host-loss faults", f.Kind)
}
