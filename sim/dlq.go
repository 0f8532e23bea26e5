package sim

import (
	"errors"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/dist"
)

// dlqManager is the leaders' dead-letter queue manager (Kafka 4.4): produce attempts to
// the dead-letter topic, retries, and the ARCHIVED write that ends a step.
type dlqManager struct {
	*engine
	*topology

	coord   *shareCoordinator
	leaders *leaders
	metrics *metrics

	// Dead-letter queue (dlq.go): steps on their way, per-group figures, fault windows.
	dlqs    []dlqRec
	freeDLQ []int32
	dlqBuf  []model.DLQRequest
	failing int   // > 0: produce attempts fail (dlq-fail faults on)
	slowMs  int64 // > 0: the produce latency while a dlq-slow fault is on
}

// The dead-letter topic of Kafka 4.4 (KIP-1191). A share-partition whose DLQ step starts
// asks for a produce (model.DLQRequest); the leader's DLQ manager performs it: each attempt
// takes DeadLetterQueue.ProduceLatency and fails while a dlq-fail fault is on (or at random
// with ProduceFailPerMillion); a failed attempt is retried after Kafka's backoff (2, 4, 8,
// 16 s with ±20 % jitter) up to five attempts, then the step ends failed. Either way the core
// archives the records and issues one more write. The DLQ manager belongs to the broker, not
// to the share-partition object: a produce still runs when its leader lost the
// share-partition meanwhile (its record reaches the topic; its ARCHIVED write goes to the
// share coordinator, which fences it once a newer leader has read the state).

// DeadLetterQueue configures the dead-letter topic's produce path.
type DeadLetterQueue struct {
	// ProduceLatency is how long one produce attempt takes (nil: 5 ms).
	ProduceLatency dist.Dist
	// ProduceFailPerMillion is the chance that an attempt fails with a retriable error.
	ProduceFailPerMillion int64
}

// dlqRec is one DLQ step on its way.
type dlqRec struct {
	sp       int32
	core     *model.SharePartition
	q        model.DLQRequest
	attempts int
	startMs  int64
	inUse    bool
}

var errDLQProduce = errors.New("dead-letter queue produce failed after every attempt")

// failAttempts starts (+1) or ends (-1) a dlq-fail fault: produce attempts fail.
func (dm *dlqManager) failAttempts(dir int) { dm.failing += dir }

// slowAttempts makes every produce attempt take ms (0: the produce latency again).
func (dm *dlqManager) slowAttempts(ms int64) { dm.slowMs = ms }

// heal ends the dlq-fail and dlq-slow faults.
func (dm *dlqManager) heal() { dm.failing, dm.slowMs = 0, 0 }

// take starts the DLQ steps core asked for.
func (dm *dlqManager) take(s *sharePart, core *model.SharePartition) {
	if dm.cfg.Kafka.Version < model.Kafka44 {
		return
	}
	dm.dlqBuf = core.TakeDLQRequests(dm.dlqBuf[:0])
	for _, q := range dm.dlqBuf {
		var id int32
		if n := len(dm.freeDLQ); n > 0 {
			id = dm.freeDLQ[n-1]
			dm.freeDLQ = dm.freeDLQ[:n-1]
		} else {
			dm.dlqs = append(dm.dlqs, dlqRec{})
			id = int32(len(dm.dlqs) - 1)
		}
		dm.dlqs[id] = dlqRec{sp: s.id, core: core, q: q, startMs: dm.now, inUse: true}
		dm.line("dlq").str("p", dm.parts[s.part].name).num("first", q.First).num("last", q.Last).str("cause", q.Cause.String()).end()
		dm.push(dm.now+dm.latency(), event{kind: evDLQAttempt, ref: id})
	}
}

func (dm *dlqManager) latency() int64 {
	if dm.slowMs > 0 {
		return dm.slowMs
	}
	if dm.cfg.DeadLetterQueue.ProduceLatency == nil {
		return 5
	}
	return dm.cfg.DeadLetterQueue.ProduceLatency.Sample(dm.rNet)
}

// attemptDone is one produce attempt's answer.
func (dm *dlqManager) attemptDone(id int32) {
	d := &dm.dlqs[id]
	s := dm.shares[d.sp]
	d.attempts++
	fail := dm.failing > 0 || (dm.cfg.DeadLetterQueue.ProduceFailPerMillion > 0 && dm.rFault.Bool(uint64(dm.cfg.DeadLetterQueue.ProduceFailPerMillion), 1_000_000))
	dm.metrics.dlqAttempted(s, fail)
	if fail {
		if d.attempts < model.DLQMaxAttempts {
			back := model.DLQBackoffMs(d.attempts)
			j := int64(float64(back) * model.DLQBackoffJitterRatio)
			back += dm.rFault.Int63n(2*j+1) - j
			dm.push(dm.now+min(back, model.DLQBackoffMaxMs)+dm.latency(), event{kind: evDLQAttempt, ref: id})
			return
		}
	}
	rec := *d
	dm.dlqs[id] = dlqRec{}
	dm.freeDLQ = append(dm.freeDLQ, id)
	q := rec.q
	var perr error
	if fail {
		perr = errDLQProduce
		dm.mark("dlq-failed")
	}
	dm.metrics.dlqStepEnded(s, q, !fail, rec.startMs)
	code := model.ErrNone
	if fail {
		code = model.ErrUnknownServerError
	}
	dm.line("dlq-done").str("p", dm.parts[s.part].name).num("first", q.First).num("last", q.Last).num("attempts", int64(rec.attempts)).str("code", code.String()).end()
	wr, err := rec.core.CompleteDLQ(dm.now, q.ID, perr)
	if err != nil {
		return // the share-partition was reset meanwhile: nothing to archive
	}
	if rec.core != s.core {
		// The old share-partition's ARCHIVED write still goes to the share coordinator,
		// which fences it if a newer leader has read the state since.
		dm.coord.sendWriteFrom(s, rec.core, wr, -1)
		return
	}
	dm.coord.sendWrite(s, wr, -1)
	dm.leaders.afterCoreOp(s)
	dm.leaders.wake(s)
}
