package checker_test

import (
	"testing"

	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// dlq-exactly-once sees records that end at the delivery limit without a dead-letter-queue
// step: the zoo's ack-race world on Kafka 4.4 with the queue on (slow, failing state writes
// and a lock-expiry storm) archives records at the limit through rollbacks after a fired
// lock. The check counts them (bypassed) and passes only because each is such a rollback,
// Kafka's documented exception (docs/findings.md, rollback-skips-dlq).
func TestDLQExactlyOnceSeesRollbacks(t *testing.T) {
	cfg := testworlds.Zoo["ack-race"]()
	cfg.Kafka.Version, cfg.Kafka.DLQTopic = model.Kafka44, "dlq.g"
	_, res, vs := runChecks(t, cfg, 1, []string{"dlq-exactly-once"}, sim.Options{})
	q := res.Metrics.Groups[0].DeadLetterQueue
	if q == nil || q.BypassedAtLimit == 0 {
		t.Fatalf("dead-letter queue figures %+v: want records archived at the limit with no DLQ step (rollbacks)", q)
	}
	if q.Unexplained != 0 {
		t.Errorf("%d of %d bypassed records unexplained by rollbacks", q.Unexplained, q.BypassedAtLimit)
	}
	if len(vs) != 0 {
		t.Errorf("violations: %v", vs)
	}
	t.Logf("bypassed %d, records to the DLQ %d", q.BypassedAtLimit, q.RecordsDeliveryLimit+q.RecordsRejected)
}
