package sim

import "testing"

// Every event kind is addressed to an actor: the dispatch table has a handler for each
// kind from evProduce to the last one (evProcessDone, called directly, included).
func TestEveryEventKindHasAHandler(t *testing.T) {
	if len(handlers) != int(evDLQAttempt)+1 {
		t.Fatalf("handlers has %d entries, the kinds run to %d", len(handlers), evDLQAttempt)
	}
	for k := evProduce; k <= evDLQAttempt; k++ {
		if handlers[k] == nil {
			t.Errorf("event kind %d has no handler", k)
		}
	}
}
