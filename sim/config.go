package sim

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/dist"
)

// Config describes one simulated world: the cluster, the topics and their producers, the
// consumer groups, the faults, and how long to run. Times are virtual milliseconds.
// Scenario files (package scenarios) produce a Config; a Go caller can build one directly
// from DefaultConfig.
type Config struct {
	// Kafka holds the share-group settings every share-partition uses (version, lock
	// duration, delivery count limit, in-flight cap, isolation level, offset reset).
	Kafka model.Config
	// Brokers is the number of brokers; partition leaders are spread over them.
	Brokers int
	Topics  []Topic
	// Producers write to the topics.
	Producers []Producer
	// Groups are the consumer groups (share or classic) reading the topics.
	Groups      []Group
	Coordinator Coordinator
	// DeadLetterQueue is the dead-letter topic's produce path (Kafka 4.4 with
	// Kafka.DLQEnabled; dlq.go).
	DeadLetterQueue DeadLetterQueue
	// LogReadLatency is how long a partition leader's log read for a share fetch takes:
	// the fetch reads at the next fetch offset and acquires that much later (Kafka's
	// read-then-acquire window), other events landing in between. Nil makes the read and
	// the acquire one step.
	LogReadLatency dist.Dist
	Network        Network
	Membership     Membership
	Faults         []Fault
	// Swarm, when set, adds faults drawn from the seed (swarm testing).
	Swarm *Swarm
	// DurationMs is the length of the main (fault) phase.
	DurationMs int64
	// HealMs is the length of the healing phase after it: faults stop, dead consumers
	// restart, producers stop, and the groups should drain the log.
	HealMs int64
	// WarmupMs is skipped at the start of the production window before rates are measured
	// (the measurement window, docs/metrics.md).
	WarmupMs int64
	// MetricsIntervalMs is the sampling interval of the metrics time series.
	MetricsIntervalMs int64
	// MaxEvents bounds the run; reaching it ends the run with an error.
	MaxEvents int64
	// BrokerCost, when set, makes requests cost time at the brokers (cost.go).
	BrokerCost *BrokerCost
}

// Topic is a topic with its partitions and retention.
type Topic struct {
	Name       string
	Partitions int
	// RetentionMs is retention.ms; -1 keeps records forever.
	RetentionMs int64
	// RetentionRecords approximates retention.bytes in records; -1 disables it.
	RetentionRecords int64
	// RetentionCheckIntervalMs is log.retention.check.interval.ms (default 300000).
	RetentionCheckIntervalMs int64
	// Segments turns on Kafka's segment layout: each partition's log rolls a new segment
	// when the active one would pass SegmentBytes (log.segment.bytes, 0: 1 GiB) or its first
	// batch is SegmentMs old (log.roll.ms, 0: 7 days); retention deletes closed segments
	// only, by RetentionMs and RetentionBytes (retention.bytes, -1: no limit), and
	// RetentionRecords must be -1. Without it retention deletes single batches.
	Segments       bool
	SegmentBytes   int64
	SegmentMs      int64
	RetentionBytes int64
}

// Kafka's segment defaults.
const (
	DefaultSegmentBytes = 1 << 30
	DefaultSegmentMs    = 7 * 24 * 3600 * 1000
)

func (t *Topic) segmentBytes() int64 {
	if t.SegmentBytes > 0 {
		return t.SegmentBytes
	}
	return DefaultSegmentBytes
}

func (t *Topic) segmentMs() int64 {
	if t.SegmentMs > 0 {
		return t.SegmentMs
	}
	return DefaultSegmentMs
}

// RateKind is how a producer spaces its batches.
type RateKind uint8

// Producer rate kinds.
const (
	RateConstant RateKind = iota // evenly spaced batches
	RatePoisson                  // exponential gaps with the same mean
	RateBursts                   // BurstRecords at once every BurstEveryMs, nothing between
)

// Producer writes records to one topic.
type Producer struct {
	Name  string
	Topic string
	// RecordsPerSecond is the mean production rate.
	RecordsPerSecond float64
	Rate             RateKind
	// BurstEveryMs and BurstRecords shape RateBursts.
	BurstEveryMs int64
	BurstRecords int
	// BatchRecords is the number of records per producer batch in fixed-batch mode: each
	// batch is appended when its last record is sent. 0 selects accumulator mode (BatchBytes).
	BatchRecords int
	// Accumulator mode, like KafkaProducer (kproducer.go): BatchBytes is batch.size in bytes
	// (> 0 selects the mode), LingerMs linger.ms, RecordSize the serialized size of a record
	// in bytes (a distribution; nil: DefaultRecordBytes), MaxInFlight
	// max.in.flight.requests.per.connection (0: 5), BufferMemory buffer.memory in bytes (0:
	// 32 MiB), MaxRequestBytes max.request.size (0: 1 MiB). Requests take the network latency
	// each way.
	BatchBytes      int64
	LingerMs        int64
	RecordSize      dist.Dist
	MaxInFlight     int
	BufferMemory    int64
	MaxRequestBytes int64
	// Keys is the number of distinct record keys (0: no keys). Keys choose the partition.
	Keys int
	// StartMs and StopMs bound production (StopMs 0: until the main phase ends).
	StartMs, StopMs int64
	// PoisonPerMillion is the share of records that always fail processing, per million.
	PoisonPerMillion int64
	// CompactedPerMillion is the share of batches later removed by compaction, per million.
	CompactedPerMillion int64
	// Transactional producers commit (or abort) every TxnBatches batches.
	Transactional bool
	TxnBatches    int
	// AbortPerMillion is the share of transactions aborted, per million.
	AbortPerMillion int64
	// TxnCommitDelayMs is how long a transaction stays open after its last batch before
	// the commit or abort marker is written (read_committed readers wait for it).
	TxnCommitDelayMs int64
}

// GroupType is share or classic.
type GroupType uint8

// Group types.
const (
	ShareGroup   GroupType = iota // KIP-932 share group
	ClassicGroup                  // a classic consumer group, for comparison
)

// String names the group type.
func (t GroupType) String() string {
	if t == ClassicGroup {
		return "classic"
	}
	return "share"
}

// Group is a consumer group.
type Group struct {
	Name      string
	Type      GroupType
	Topics    []string
	Consumers []ConsumerSpec
	// AutoCommitIntervalMs is auto.commit.interval.ms for a classic group (default 5000).
	AutoCommitIntervalMs int64
}

// AckMode is share.acknowledgement.mode.
type AckMode uint8

// Acknowledgement modes.
const (
	AckImplicit AckMode = iota // the next poll accepts everything the previous poll returned
	AckExplicit                // the application acknowledges each record
)

// CommitMode says how a consumer sends its acknowledgements.
type CommitMode uint8

// Commit modes.
const (
	CommitAsync CommitMode = iota // piggy-backed on the next fetch (or sent without waiting)
	CommitSync                    // commitSync after each poll's records: wait for the outcome
)

// FailureAction is what the application does with a record it cannot process.
type FailureAction uint8

// Failure actions.
const (
	FailRelease FailureAction = iota // acknowledge RELEASE (explicit mode)
	FailReject                       // acknowledge REJECT (explicit mode)
	FailCrash                        // the process crashes (connection drops)
	FailSkip                         // swallow the error and move on (implicit mode: accepted)
)

// ConsumerSpec describes Count identical consumer instances.
type ConsumerSpec struct {
	Name  string
	Count int
	// StartMs is when the instances start.
	StartMs int64
	// Processing is the per-record processing time.
	Processing dist.Dist
	// SlowFactor multiplies processing times (1: normal).
	SlowFactor float64
	// Threads is how many worker slots process records at once (0 or 1: one at a time, in
	// order); Style says when the application polls.
	Threads int
	// Style is the client's parallelism: blocking (the next poll when all of a poll's
	// records are done) or continuous (classic groups: a poll whenever a slot is free and
	// fewer than HeldRecords records are held).
	Style ClientStyle
	// HeldRecords bounds the records a continuous client holds (0: Threads +
	// MaxPollRecords).
	HeldRecords int
	// MaxPollIntervalMs is max.poll.interval.ms for classic groups (0: 300000): a member
	// that does not poll for that long leaves the group.
	MaxPollIntervalMs int64
	// FetchMinBytes is fetch.min.bytes for classic groups (0: 1).
	FetchMinBytes int64
	AckMode       AckMode
	Commit        CommitMode
	// MaxPollRecords is max.poll.records (also the fetch's MaxRecords and BatchSize).
	MaxPollRecords int
	AcquireMode    model.AcquireMode
	// MaxWaitMs is fetch.max.wait.ms: how long a broker holds a fetch that found nothing.
	MaxWaitMs int64
	// FailurePerMillion is the chance, per million processing attempts, of a transient
	// failure; OnFailure says what happens then.
	FailurePerMillion int64
	OnFailure         FailureAction
	// OnPoison says what happens when a poison record is processed.
	OnPoison FailureAction
	// RenewEveryMs renews the locks of records still being processed (explicit mode,
	// Kafka 4.2); 0 disables.
	RenewEveryMs int64
	// RestartAfterCrashMs is how long a crashed instance (FailCrash) takes to come back;
	// -1 never.
	RestartAfterCrashMs int64
}

// ClientStyle is how an application spreads records over its worker slots.
type ClientStyle uint8

// Client styles.
const (
	StyleBlocking   ClientStyle = iota // poll, process the records on the slots, poll again when all are done
	StyleContinuous                    // each record starts when a slot frees; poll when a slot is free
)

func (cs *ConsumerSpec) heldRecords() int {
	if cs.HeldRecords > 0 {
		return cs.HeldRecords
	}
	return max(cs.Threads, 1) + cs.MaxPollRecords
}

func (cs *ConsumerSpec) maxPollIntervalMs() int64 {
	if cs.MaxPollIntervalMs > 0 {
		return cs.MaxPollIntervalMs
	}
	return 300000
}

func (cs *ConsumerSpec) fetchMinBytes() int64 { return max(1, cs.FetchMinBytes) }

// Coordinator is the share coordinator's behaviour.
//
// (The leader's own log read latency is Config.LogReadLatency.)
type Coordinator struct {
	WriteLatency dist.Dist
	ReadLatency  dist.Dist
	// WriteFailPerMillion is the chance that a state write fails.
	WriteFailPerMillion int64
}

// Network is the client–broker network.
type Network struct {
	// Latency is the one-way latency of a request or a response.
	Latency dist.Dist
	// ResponseLossPerMillion is the chance that a response is lost (the request took effect).
	ResponseLossPerMillion int64
	// RequestTimeoutMs is request.timeout.ms: how long a client waits for a lost response.
	RequestTimeoutMs int64
	// ResetDelayMs is how long after a consumer process is killed its brokers see the
	// connections reset (0: at once). Until then what it held stays acquired.
	ResetDelayMs int64
}

// Membership holds the group coordinator's timeouts.
type Membership struct {
	// SessionTimeoutMs is group.share.session.timeout.ms (and session.timeout.ms for classic).
	SessionTimeoutMs int64
	// HeartbeatIntervalMs is group.share.heartbeat.interval.ms.
	HeartbeatIntervalMs int64
}

// FaultKind names a fault.
type FaultKind uint8

// Fault kinds.
const (
	FaultKill             FaultKind = iota + 1 // consumer process killed: connections drop
	FaultClose                                 // consumer closes cleanly
	FaultHang                                  // consumer hangs: no progress, connections stay
	FaultNetCut                                // consumer cut off from brokers for DurationMs
	FaultPause                                 // consumer paused (GC) for DurationMs
	FaultLeaderFailover                        // partition leader moves to another broker
	FaultWriteFail                             // share coordinator fails writes for DurationMs
	FaultCoordinatorSlow                       // share coordinator write latency = ValueMs for DurationMs
	FaultDeleteRecords                         // log start offset moved forward by ValueMs records
	FaultDownstreamOutage                      // processing fails for DurationMs
	FaultRenewStall                            // renewals stop for DurationMs
	FaultLockExpiry                            // every lock of the partition fires now
	FaultHostLoss                              // consumer host or network lost: no connection reset
	FaultDLQFail                               // 4.4: dead-letter-queue produces fail for DurationMs
	FaultDLQSlow                               // 4.4: dead-letter-queue produce latency = ValueMs for DurationMs
	FaultConfigChange                          // IncrementalAlterConfigs on a share group (Set), or broker-bound change
	FaultAddPartitions                         // Count partitions added to the topic Target (partitions.go)
	faultKindLast         = FaultAddPartitions
)

var faultNames = map[FaultKind]string{
	FaultKill: "kill", FaultClose: "close", FaultHang: "hang", FaultNetCut: "netcut", FaultPause: "pause",
	FaultLeaderFailover: "leader-failover", FaultWriteFail: "write-fail", FaultCoordinatorSlow: "coordinator-slow",
	FaultDeleteRecords: "delete-records", FaultDownstreamOutage: "downstream-outage", FaultRenewStall: "renew-stall",
	FaultLockExpiry: "lock-expiry", FaultHostLoss: "host-loss", FaultDLQFail: "dlq-fail", FaultDLQSlow: "dlq-slow",
	FaultConfigChange: "config-change", FaultAddPartitions: "add-partitions",
}

// String names the fault kind as scenario files spell it.
func (k FaultKind) String() string {
	if s, ok := faultNames[k]; ok {
		return s
	}
	return fmt.Sprintf("FaultKind(%d)", uint8(k))
}

// ParseFaultKind accepts the names String returns.
func ParseFaultKind(s string) (FaultKind, error) {
	for k := FaultKill; k <= faultKindLast; k++ {
		if faultNames[k] == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown fault %q", s)
}

// Fault is a fault on a schedule: at AtMs, then every EveryMs until UntilMs, each time with
// probability PerMillion/1e6 (0 means always).
type Fault struct {
	Kind FaultKind
	// Target names a consumer instance, a consumer spec (one of its instances, drawn from
	// the faults stream), "topic/partition", or "" for a drawn target.
	Target         string
	AtMs           int64
	EveryMs        int64
	UntilMs        int64
	PerMillion     int64
	DurationMs     int64
	RestartAfterMs int64 // for kill/close/hang: restart after this long; -1 never
	ValueMs        int64 // latency for coordinator-slow; records for delete-records
	// Error is the share coordinator's error for write-fail (any of
	// model.PersisterErrors; zero: COORDINATOR_NOT_AVAILABLE). The leader answers the
	// acknowledgement with its mapping (model.PersisterError) and discards the
	// share-partition when it is a fencing one.
	Error model.ErrorCode
	// Reads makes a write-fail fault fail state reads (ReadShareGroupState) too: a
	// share-partition loading meanwhile becomes FAILED and the fetch that started the load
	// gets the mapped error; the next fetch loads it again.
	Reads bool
	// Group names the share group a config-change fault alters ("" when the world has
	// one share group); Set are its SET entries in file order: group configs
	// (model.GroupConfigKeys) and broker bounds (model.BrokerBoundKeys).
	Group string
	Set   []model.ConfigEntry
	// Count is how many partitions an add-partitions fault adds to the topic Target.
	Count int
	// Holding makes a kill, close, hang or host-loss fault wait, from each firing, for the
	// first millisecond at which its target holds records it acquired and has not finished
	// (holding.go).
	Holding bool
}

// Swarm adds randomly drawn faults: each kind in Kinds at a random time, Count times.
type Swarm struct {
	Kinds []FaultKind
	Count int
}

// DefaultConfig returns a world with Kafka 4.2's defaults, 3 brokers and no topics.
func DefaultConfig() Config {
	return Config{
		Kafka:   model.DefaultConfig(),
		Brokers: 3,
		Coordinator: Coordinator{
			WriteLatency: dist.Must(dist.Constant(5)),
			ReadLatency:  dist.Must(dist.Constant(5)),
		},
		Network:           Network{Latency: dist.Must(dist.Constant(1)), RequestTimeoutMs: 30000},
		Membership:        Membership{SessionTimeoutMs: 45000, HeartbeatIntervalMs: 5000},
		DurationMs:        600000,
		MetricsIntervalMs: 10000,
		MaxEvents:         500_000_000,
	}
}

// DefaultConsumer returns a consumer spec with the Java client's defaults.
func DefaultConsumer(name string) ConsumerSpec {
	return ConsumerSpec{
		Name:           name,
		Count:          1,
		Processing:     dist.Must(dist.Constant(10)),
		SlowFactor:     1,
		MaxPollRecords: model.DefaultMaxPollRecords,
		MaxWaitMs:      500,
		OnFailure:      FailCrash,
		OnPoison:       FailCrash,

		RestartAfterCrashMs: 10000,
	}
}

// Validate checks the configuration and returns the first problem found.
func (c *Config) Validate() error {
	if err := c.Kafka.Validate(); err != nil {
		return err
	}
	if c.Brokers < 1 {
		return fmt.Errorf("brokers = %d: expected at least 1", c.Brokers)
	}
	if c.DurationMs <= 0 {
		return fmt.Errorf("duration = %d ms: expected > 0", c.DurationMs)
	}
	if c.HealMs < 0 || c.MetricsIntervalMs <= 0 {
		return fmt.Errorf("heal and metrics interval must be positive")
	}
	topics := map[string]bool{}
	for _, t := range c.Topics {
		if t.Name == "" || topics[t.Name] {
			return fmt.Errorf("topic %q: names must be unique and non-empty", t.Name)
		}
		if t.Partitions < 1 || t.Partitions > 10000 {
			return fmt.Errorf("topic %q: partitions = %d, expected 1..10000", t.Name, t.Partitions)
		}
		if t.Segments && t.RetentionRecords >= 0 {
			return fmt.Errorf("topic %q: retention.records with segments: use retention.bytes (retention.records approximates it without segments)", t.Name)
		}
		if !t.Segments && (t.SegmentBytes != 0 || t.SegmentMs != 0 || t.RetentionBytes != 0) {
			return fmt.Errorf("topic %q: log.segment.bytes, log.roll.ms and retention.bytes need Segments", t.Name)
		}
		if t.SegmentBytes < 0 || t.SegmentMs < 0 {
			return fmt.Errorf("topic %q: negative log.segment.bytes or log.roll.ms", t.Name)
		}
		topics[t.Name] = true
	}
	for _, p := range c.Producers {
		if !topics[p.Topic] {
			return fmt.Errorf("producer %q: unknown topic %q", p.Name, p.Topic)
		}
		if err := validateProducer(&p); err != nil {
			return err
		}
		if p.Rate == RateBursts && (p.BurstEveryMs <= 0 || p.BurstRecords < 1) {
			return fmt.Errorf("producer %q: bursts need burst_every and burst_records", p.Name)
		}
		if p.Transactional && p.TxnBatches < 1 {
			return fmt.Errorf("producer %q: transactional producers need txn_batches >= 1", p.Name)
		}
	}
	names := map[string]bool{}
	for _, g := range c.Groups {
		if g.Name == "" || names[g.Name] {
			return fmt.Errorf("group %q: names must be unique and non-empty", g.Name)
		}
		names[g.Name] = true
		for _, t := range g.Topics {
			if !topics[t] {
				return fmt.Errorf("group %q: unknown topic %q", g.Name, t)
			}
		}
		for _, cs := range g.Consumers {
			if err := c.validateConsumer(g, cs); err != nil {
				return err
			}
		}
	}
	if c.BrokerCost != nil {
		if err := c.BrokerCost.validate(); err != nil {
			return err
		}
	}
	for _, f := range c.Faults {
		if f.Kind < FaultKill || f.Kind > faultKindLast {
			return fmt.Errorf("fault %d: unknown kind", f.Kind)
		}
		if f.EveryMs < 0 || f.AtMs < 0 || f.DurationMs < 0 {
			return fmt.Errorf("fault %s: negative time", f.Kind)
		}
		if err := c.validateConfigChange(f); err != nil {
			return err
		}
		if err := c.validateAddPartitions(f); err != nil {
			return err
		}
		if err := validateHolding(f); err != nil {
			return err
		}
	}
	if sw := c.Swarm; sw != nil {
		for _, k := range sw.Kinds {
			if k == FaultConfigChange || k == FaultAddPartitions {
				return fmt.Errorf("swarm: a %s fault needs its settings; schedule it in faults", k)
			}
		}
	}
	return nil
}

// maxProducerRate is the highest rate a producer may ask for, records/s.
const maxProducerRate = 10_000_000

// MaxProducerRate is the highest records/s one producer may be given (the simulator honours
// every rate up to it).
const MaxProducerRate = maxProducerRate

// MinProducerRate is the lowest records/s one producer may be given: one record in about
// 116 days. Any lower gives gaps between batches beyond every run.
const MinProducerRate = 1e-7

func validateProducer(p *Producer) error {
	switch {
	case !(p.RecordsPerSecond >= MinProducerRate) || p.RecordsPerSecond > maxProducerRate:
		return fmt.Errorf("producer %q: rate %g records/s, expected at least %g and at most %d", p.Name, p.RecordsPerSecond, MinProducerRate, maxProducerRate)
	case p.BatchRecords > 0 && p.BatchBytes > 0:
		return fmt.Errorf("producer %q: batch_records and batch.size both set: batch_records fixes the records per batch, batch.size fills batches by bytes; use one", p.Name)
	case p.BatchRecords < 1 && p.BatchBytes < 1:
		return fmt.Errorf("producer %q: needs batch_records >= 1 or batch.size >= 1", p.Name)
	case p.BatchRecords > 0 && (p.LingerMs != 0 || p.RecordSize != nil || p.MaxInFlight != 0 || p.BufferMemory != 0 || p.MaxRequestBytes != 0):
		return fmt.Errorf("producer %q: linger.ms, record_size, max.in.flight.requests.per.connection, buffer.memory and max.request.size need batch.size (batch_records batches are fixed)", p.Name)
	case p.BatchBytes > 0 && p.Transactional:
		return fmt.Errorf("producer %q: transactional: true needs batch_records (transactions are not modelled with batch.size)", p.Name)
	case p.LingerMs < 0 || p.MaxInFlight < 0 || p.BufferMemory < 0 || p.MaxRequestBytes < 0:
		return fmt.Errorf("producer %q: negative linger.ms, max.in.flight.requests.per.connection, buffer.memory or max.request.size", p.Name)
	case p.BatchBytes > 0 && p.BatchBytes > p.maxRequestBytes():
		return fmt.Errorf("producer %q: batch.size %d above max.request.size %d: a full batch could never be sent", p.Name, p.BatchBytes, p.maxRequestBytes())
	case p.BatchBytes > 0 && p.BatchBytes > p.bufferMemory():
		return fmt.Errorf("producer %q: batch.size %d above buffer.memory %d", p.Name, p.BatchBytes, p.bufferMemory())
	case p.BatchBytes > 0 && p.RecordSize != nil && p.RecordSize.Mean()+RecordBatchOverhead > float64(p.maxRequestBytes()):
		return fmt.Errorf("producer %q: record_size mean %.0f bytes above max.request.size %d", p.Name, p.RecordSize.Mean(), p.maxRequestBytes())
	}
	return nil
}

func (c *Config) validateConsumer(g Group, cs ConsumerSpec) error {
	switch {
	case cs.Name == "":
		return fmt.Errorf("group %q: consumer without a name", g.Name)
	case cs.Count < 0:
		return fmt.Errorf("consumer %q: count %d", cs.Name, cs.Count)
	case cs.Processing == nil:
		return fmt.Errorf("consumer %q: no processing time distribution", cs.Name)
	case cs.MaxPollRecords < 1:
		return fmt.Errorf("consumer %q: max.poll.records = %d, expected >= 1", cs.Name, cs.MaxPollRecords)
	case cs.AcquireMode == model.RecordLimit && c.Kafka.Version < model.Kafka42:
		return fmt.Errorf("consumer %q: share.acquire.mode=record_limit needs Kafka 4.2", cs.Name)
	case cs.RenewEveryMs > 0 && (cs.AckMode != AckExplicit || c.Kafka.Version < model.Kafka42):
		return fmt.Errorf("consumer %q: renewing locks needs explicit acknowledgement and Kafka 4.2", cs.Name)
	case cs.AckMode == AckImplicit && (cs.OnFailure == FailRelease || cs.OnFailure == FailReject):
		return fmt.Errorf("consumer %q: on_failure: implicit acknowledgement cannot release or reject; use crash or skip", cs.Name)
	case cs.AckMode == AckImplicit && (cs.OnPoison == FailRelease || cs.OnPoison == FailReject):
		return fmt.Errorf("consumer %q: on_poison: implicit acknowledgement cannot release or reject; use crash or skip", cs.Name)
	case cs.Threads < 0 || cs.Threads > 100000:
		return fmt.Errorf("consumer %q: threads = %d, expected 0..100000", cs.Name, cs.Threads)
	case cs.SlowFactor <= 0:
		return fmt.Errorf("consumer %q: slow factor must be > 0", cs.Name)
	case g.Type == ShareGroup && cs.Style == StyleContinuous:
		return fmt.Errorf("consumer %q: style: continuous is simulated for classic groups only: one KafkaShareConsumer cannot poll while records of its last poll are in processing (explicit mode: poll() throws IllegalStateException until all are acknowledged, ShareConsumerImpl.ensureInFlightAcknowledgedIfExplicitAcknowledgement; implicit mode: poll() would accept them unprocessed); use more consumers (count) or blocking threads", cs.Name)
	case g.Type == ShareGroup && (cs.MaxPollIntervalMs != 0 || cs.FetchMinBytes != 0):
		return fmt.Errorf("consumer %q: max.poll.interval.ms and fetch.min.bytes are classic-group settings", cs.Name)
	case cs.HeldRecords != 0 && cs.Style != StyleContinuous:
		return fmt.Errorf("consumer %q: held_records bounds a continuous client; set style: continuous", cs.Name)
	case cs.HeldRecords < 0 || cs.MaxPollIntervalMs < 0 || cs.FetchMinBytes < 0:
		return fmt.Errorf("consumer %q: negative held_records, max.poll.interval.ms or fetch.min.bytes", cs.Name)
	case cs.Style == StyleContinuous && cs.heldRecords() < max(cs.Threads, 1):
		return fmt.Errorf("consumer %q: held_records %d below threads %d: slots would stay idle", cs.Name, cs.heldRecords(), cs.Threads)
	}
	return nil
}
