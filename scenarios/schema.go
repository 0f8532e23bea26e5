package scenarios

// The key schema: every key a scenario file may contain, as a tree. The decoder uses it to
// reject unknown keys (with a suggestion), and Set uses it to split a dotted override path
// into keys (Kafka's keys contain dots, so a path is matched greedily against the keys
// that exist at each level).

type shapeKind uint8

const (
	shScalar  shapeKind = iota // a scalar (or anything the decoder checks itself)
	shMap                      // a mapping with the fixed keys in fields
	shList                     // a sequence of elem
	shFreeMap                  // a mapping with arbitrary keys, values of shape elem
	shPoly                     // a scalar, a sequence, or a mapping with the keys in fields
)

type shape struct {
	kind   shapeKind
	fields []field
	elem   *shape
}

type field struct {
	key string
	sh  *shape
}

func (s *shape) lookup(key string) *shape {
	for _, f := range s.fields {
		if f.key == key {
			return f.sh
		}
	}
	return nil
}

func (s *shape) keys() []string {
	out := make([]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = f.key
	}
	return out
}

var scalar = &shape{kind: shScalar}

func mapOf(keys ...any) *shape {
	s := &shape{kind: shMap}
	for i := 0; i < len(keys); i++ {
		k := keys[i].(string)
		sh := scalar
		if i+1 < len(keys) {
			if x, ok := keys[i+1].(*shape); ok {
				sh = x
				i++
			}
		}
		s.fields = append(s.fields, field{k, sh})
	}
	return s
}

func listOf(elem *shape) *shape { return &shape{kind: shList, elem: elem} }

func polyOf(m *shape) *shape { return &shape{kind: shPoly, fields: m.fields} }

// distShape describes a distribution: a mapping with one key naming the family.
var distShape = func() *shape {
	d := &shape{kind: shPoly}
	d.fields = []field{
		{"constant", scalar},
		{"uniform", mapOf("min", "max")},
		{"exponential", mapOf("mean")},
		{"lognormal", mapOf("p50", "p99", "mu", "sigma")},
		{"pareto", mapOf("scale", "shape")},
		{"normal", mapOf("mean", "stddev")},
		{"bimodal", mapOf("a", d, "b", d, "p_b")},
	}
	return d
}()

// Kafka settings of the share-partition (model.Config).
var kafkaShape = mapOf(
	"version",
	"share.record.lock.duration.ms",
	"group.share.record.lock.duration.ms",
	"group.share.min.record.lock.duration.ms",
	"group.share.max.record.lock.duration.ms",
	"group.share.delivery.count.limit",
	"group.share.partition.max.record.locks",
	"share.isolation.level",
	"share.auto.offset.reset",
	"share.renew.acknowledge.enable",
	"group.share.min.delivery.count.limit",
	"group.share.max.delivery.count.limit",
	"group.share.min.partition.max.record.locks",
	"group.share.max.partition.max.record.locks",
	"share.version",
	"errors.deadletterqueue.topic.name",
	"relax_ranges",
	"bug",
	"fix",
)

var topicShape = mapOf("name", "partitions", "retention.ms", "retention.records", "log.retention.check.interval.ms",
	"log.segment.bytes", "log.roll.ms", "retention.bytes")

var producerShape = mapOf("name", "topic", "rate", "arrival", "burst_every", "burst_records", "batch_records",
	"batch.size", "linger.ms", "record_size", distShape, "max.in.flight.requests.per.connection", "buffer.memory", "max.request.size",
	"keys", "start", "stop", "poison", "compacted", "transactional", "txn_batches", "abort", "txn_commit_delay")

var consumerShape = mapOf("name", "count", "start", "processing", distShape, "slow_factor", "threads",
	"share.acknowledgement.mode", "commit", "max.poll.records", "share.acquire.mode", "fetch.max.wait.ms",
	"failure", "on_failure", "on_poison", "renew_every", "restart_after_crash",
	"style", "held_records", "max.poll.interval.ms", "fetch.min.bytes")

var groupShape = mapOf("name", "type", "topics", listOf(scalar), "auto.commit.interval.ms", "consumers", listOf(consumerShape))

var faultShape = mapOf("kind", "target", "at", "every", "until", "probability", "duration", "restart_after", "value", "error", "reads",
	"group", "set", &shape{kind: shFreeMap, elem: scalar}, "count", "holding")

var commonTop = []any{"kind", "name", "title", "description", "questions", listOf(scalar), "seed", "kafka", kafkaShape}

var workloadShape = mapOf(append(append([]any(nil), commonTop...),
	"checks", listOf(scalar),
	"focus", listOf(scalar),
	"duration", "heal", "warmup", "metrics_interval", "max_events", "brokers", "log_read_latency", distShape,
	"topics", listOf(topicShape),
	"producers", listOf(producerShape),
	"groups", listOf(groupShape),
	"coordinator", mapOf("write_latency", distShape, "read_latency", distShape, "write_failure"),
	"dead_letter_queue", mapOf("produce_latency", distShape, "produce_failure"),
	"network", mapOf("latency", distShape, "response_loss", "request.timeout.ms", "reset_delay"),
	"membership", mapOf("group.share.session.timeout.ms", "group.share.heartbeat.interval.ms"),
	"faults", listOf(faultShape),
	"swarm", mapOf("kinds", listOf(scalar), "count"),
	"broker_cost", mapOf("num.io.threads", "produce_request_us", "produce_record_us", "share_fetch_request_us",
		"share_fetch_record_us", "acknowledge_request_us", "acknowledge_record_us", "classic_fetch_request_us",
		"classic_fetch_record_us", "bandwidth"),
)...)

var expectShape = mapOf("acquired", "error",
	"states", &shape{kind: shFreeMap, elem: scalar},
	"spso", "speo", "in_flight", "next_fetch_offset", "outstanding_writes",
	"held", &shape{kind: shFreeMap, elem: scalar},
	"can_acquire", "stored_start_offset",
	"stored", &shape{kind: shFreeMap, elem: scalar})

var ackRangeShape = polyOf(mapOf("range", "type", "types", listOf(scalar)))

// stepActions are the action keys of a step, in documentation order.
var stepActions = []string{"produce", "fetch", "read", "acquire", "ack", "advance", "expire", "leave", "move_log_start", "compact",
	"failover", "fail_next_write", "commit_write", "fail_write", "reinitialize", "load_state", "dlq"}

var stepShape = mapOf(
	"produce", polyOf(mapOf("batches", listOf(scalar), "aborted")),
	"fetch", polyOf(mapOf("member", "max_records", "batch_size", "mode", "max_batches")),
	"read", polyOf(mapOf("member", "max_records", "batch_size", "mode", "max_batches")),
	"acquire",
	"ack", mapOf("member", "ranges", &shape{kind: shPoly, elem: ackRangeShape, fields: nil}, "write"),
	"advance", polyOf(mapOf("by", "writes")),
	"expire", polyOf(mapOf("offset", "writes")),
	"leave", polyOf(mapOf("member", "write")),
	"move_log_start",
	"compact",
	"failover", polyOf(mapOf("pending_writes", "load")),
	"fail_next_write", polyOf(mapOf("count", "error")),
	"commit_write",
	"fail_write", polyOf(mapOf("which", "error")),
	"reinitialize", mapOf("state_epoch", "start_offset"),
	"load_state", polyOf(mapOf("error")),
	"dlq", mapOf("offset", "result", "write"),
	"expect", expectShape,
	"note",
)

var scriptedShape = mapOf(append(append([]any(nil), commonTop...),
	"start_offset",
	"state_epoch",
	"invariants",
	"steps", listOf(stepShape),
)...)

func topShape(k Kind) *shape {
	if k == KindScripted {
		return scriptedShape
	}
	return workloadShape
}
