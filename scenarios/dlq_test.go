package scenarios

import (
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The dead-letter queue end to end (Kafka 4.4, poison-dlq): every REJECTed record ends one
// DLQ step, produced or (during the dlq-fail window) failed after five attempts, which
// holds the start offset about 2+4+8+16 s plus the attempts; without the queue (4.3) the
// same run has no DLQ figures and the start offset never waits on a produce.
func TestDLQEndToEnd(t *testing.T) {
	s, err := Builtin("poison-dlq")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(mustConfig(t, s), s.Seed(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Metrics.Groups[0]
	q := g.DeadLetterQueue
	if q == nil {
		t.Fatal("no dead_letter_queue figures on 4.4 with the queue on")
	}
	rejected := g.Accounting.Finished[model.CauseRejected.String()]
	if rejected == 0 || q.RecordsRejected+q.ProduceFailed != rejected || q.RecordsDeliveryLimit != 0 {
		t.Errorf("finished rejected %d, DLQ %+v: every rejected record must end one DLQ step", rejected, *q)
	}
	if q.ProduceFailed == 0 || q.FailedProduceRequests < model.DLQMaxAttempts {
		t.Errorf("the dlq-fail window failed no produce: %+v", *q)
	}
	if q.HeldMaxMs < 30000*8/10 || q.HeldMaxMs > 45000 {
		t.Errorf("longest DLQ step %d ms, want about 30 s (five attempts with 2, 4, 8, 16 s of backoff)", q.HeldMaxMs)
	}
	if q.Unexplained != 0 {
		t.Errorf("unexplained %d", q.Unexplained)
	}

	if err := s.Set("kafka.errors.deadletterqueue.topic.name", ""); err != nil {
		t.Fatal(err)
	}
	res, err = sim.Run(mustConfig(t, s), s.Seed(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Metrics.Groups[0]; g.DeadLetterQueue != nil || g.SPSOStuckMaxMs >= 25000 {
		t.Errorf("queue off: DLQ %+v, SPSO stuck %d ms", g.DeadLetterQueue, g.SPSOStuckMaxMs)
	}
}
