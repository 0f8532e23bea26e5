package live

import "time"

// waitHolding is a holding fault's wait (sim.Fault.Holding): it checks once a millisecond
// until one of cands holds records it has not finished, their locks running as far as it
// knows, and returns those that do; nil when the run stops first.
func (r *runner) waitHolding(cands []*instance) []*instance {
	for {
		var out []*instance
		for _, in := range cands {
			in.mu.Lock()
			inc, down := in.inc, in.down
			in.mu.Unlock()
			if !down && inc != nil && inc.ctx != nil && inc.ctx.Err() == nil && inc.holds() {
				out = append(out, in)
			}
		}
		if len(out) > 0 {
			return out
		}
		if !sleepCtx(r.stopC, time.Millisecond) {
			return nil
		}
	}
}
