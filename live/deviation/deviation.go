// Package deviation is the catalogue of known places where a broker that live mode runs
// against answers differently from Kafka (and so from sharesim's model). Live mode uses it to
// name the deviation behind a failed check; the differential peer test uses it as the filter
// of disagreements it tolerates. Each entry is pinned by a test that shows the deviation on the
// broker (PinnedBy names it), so an entry that stops being true fails that test.
//
// The entries for kfake (franz-go's in-process fake cluster) were read from kfake's code and
// confirmed over the protocol; see docs/live.md for the table and the reproductions.
package deviation

import "sort"

// Deviation is one known difference between a broker implementation and Kafka.
type Deviation struct {
	// ID is a stable kebab-case name, used in summaries, test filters and docs/live.md.
	ID string
	// Broker names the implementation ("kfake").
	Broker string
	// Title says in one line what the broker does differently.
	Title string
	// Kafka says what Kafka does, with the method that does it.
	Kafka string
	// Theirs says what the broker does, with the method that does it.
	Theirs string
	// Checks lists the sharesim checks (by name) that this deviation can make fail.
	Checks []string
	// ErrorCodeOnly is true when the deviation changes only an error code, never a state.
	ErrorCodeOnly bool
	// PinnedBy names the test that shows the deviation on the broker, as package.TestName
	// (live/peer's pin tests run the deviation over the protocol and fail if it goes away).
	PinnedBy string
}

// Kfake lists kfake's known deviations from Kafka 4.2's share-partition rules.
var Kfake = []Deviation{
	{
		ID:     "log-start-not-followed",
		Broker: "kfake",
		Title:  "after the log start moves (DeleteRecords, retention, compaction) the share-partition start offset stays put; fetches acquire offsets below the log start that have no record, and AVAILABLE records below it are never archived",
		Kafka:  "on OFFSET_OUT_OF_RANGE the leader calls SharePartition.updateCacheAndOffsets(logStartOffset), which moves SPSO to the log start and archives AVAILABLE records below it",
		Theirs: "kfake's share-partition keeps its spso; the acquire walk below the log start finds no batch and still acquires the offsets",
		// liveness: a start offset left below the log start never reaches the log end.
		Checks:   []string{"nothing-below-spso-acquired", "no-silent-loss", "records-accounted", "linearizable", "liveness"},
		PinnedBy: "live/peer.TestPinLogStartNotFollowed",
	},
	{
		ID:     "piggybacked-ack-error-dropped",
		Broker: "kfake",
		Title:  "a ShareFetch whose piggy-backed acknowledgement fails and that then waits for records answers AcknowledgeErrorCode 0: the client is told a failed acknowledgement succeeded",
		Kafka:  "KafkaApis.handleShareFetchRequest completes the acknowledgements first and puts their error codes in the response whatever the fetch does (the same INVALID_RECORD_STATE a ShareAcknowledge gets)",
		Theirs: "handleShareFetch sets the error on the first invocation's response, then parks the request (watchShareFetch keeps only the acknowledged partitions); the re-invocation builds a new response and ensureAckedParts adds those partitions with code 0",
		Checks: []string{"linearizable", "accepted-never-redelivered"},
		// The records' state is right (the acknowledgement did not apply); only the answer
		// is wrong, so live mode re-checks with those answers taken as unknown.
		ErrorCodeOnly: true,
		PinnedBy:      "live/deviation.TestPinPiggybackedAckErrorDropped",
	},
	{
		ID:       "acquire-exact-max-records",
		Broker:   "kfake",
		Title:    "in batch_optimized mode kfake acquires exactly max records instead of rounding up to the end of the producer batch",
		Kafka:    "SharePartition.acquireNewBatchRecords acquires whole log batches: the budget rounds up to the batch end",
		Theirs:   "kfake walks offset by offset from its scan offset and stops at exactly MaxRecords",
		PinnedBy: "live/peer.TestPinAcquireExactMaxRecords",
	},
	{
		ID:       "batch-size-splits-log-batch",
		Broker:   "kfake",
		Title:    "kfake cuts acquired ranges into pieces of BatchSize also inside one log batch",
		Kafka:    "SharePartition.createBatches cuts at BatchSize only on log-batch boundaries",
		Theirs:   "kfake's splitAcquiredRanges cuts every range at BatchSize",
		PinnedBy: "live/peer.TestPinBatchSizeSplitsLogBatch",
	},
	{
		ID:       "gap-offsets-left-out",
		Broker:   "kfake",
		Title:    "offsets between log batches (compaction gaps) are left out of the acquired ranges",
		Kafka:    "the acquired ranges cover the gap offsets inside the fetched span and the client acknowledges them with GAP",
		Theirs:   "kfake skips the offsets between log batches",
		PinnedBy: "live/peer.TestPinGapOffsetsLeftOut",
	},
	{
		ID:       "record-limit-tail",
		Broker:   "kfake",
		Title:    "in record_limit mode kfake does not cache the rest of the log batch as AVAILABLE, so the cap trim and the answer to an acknowledgement reaching into that tail differ",
		Kafka:    "SharePartition caches the rest of the log batch AVAILABLE at delivery count 0 and counts it in endOffset and the in-flight window; an ack into it gets INVALID_RECORD_STATE",
		Theirs:   "kfake stops its walk at MaxRecords; an ack past its acquire end gets INVALID_REQUEST",
		PinnedBy: "live/peer.TestPinRecordLimitTail",
	},
	{
		ID:       "no-throttled-redelivery",
		Broker:   "kfake",
		Title:    "kfake has no throttled redelivery (Kafka 4.2): records near the delivery limit are acquired in full",
		Kafka:    "SharePartition.throttleRecordsDeliveryLimit: records with delivery count ≥ max(2, ⌈limit/2⌉) are acquired in shrinking amounts",
		Theirs:   "kfake acquires them like any other record",
		PinnedBy: "live/peer.TestPinNoThrottledRedelivery",
	},
	{
		ID:       "lock-sweep-timing",
		Broker:   "kfake",
		Title:    "locks are released by a sweep ticker (share.record.lock.sweep.interval.ms, default 5 s) with the lock duration current at sweep time, so they fire late by up to one interval and a config change affects locks already held",
		Kafka:    "one timer per acquisition (SharePartition.scheduleAcquisitionLockTimeout) with the duration fixed when it is acquired",
		Theirs:   "kfake's sweep releases records whose now − acquire time ≥ the current lock duration",
		PinnedBy: "live/peer.TestPinLockSweepTiming",
	},
	{
		ID:       "cap-budget-ignores-redeliveries",
		Broker:   "kfake",
		Title:    "under the in-flight cap, kfake lets a fetch that redelivers inside the window also fill the window up to the cap",
		Kafka:    "SharePartition.lastOffsetAndMaxRecordsToAcquire (4.2) budgets min(max records, cap − in-flight count) offsets per fetch, redelivered ones included",
		Theirs:   "kfake's sharePartition.acquireRecords checks the cap per offset and stops only offsets beyond its window end, so redeliveries do not use up the budget",
		PinnedBy: "live/peer.TestPinCapBudgetIgnoresRedeliveries",
	},
	{
		ID:            "ack-touching-batches-invalid-request",
		Broker:        "kfake",
		Title:         "an acknowledgement batch starting at the previous batch's last offset gets INVALID_REQUEST",
		Kafka:         "KafkaApis.validateAcknowledgementBatches refuses a batch only when its first offset is below the previous batch's last offset; the shared offset then reaches SharePartition.acknowledge",
		Theirs:        "kfake's validateOneAckBatch refuses first ≤ previous last with INVALID_REQUEST",
		ErrorCodeOnly: true,
		PinnedBy:      "live/peer.TestPinAckTouchingBatchesInvalidRequest",
	},
	{
		ID:            "ack-empty-window-invalid-request",
		Broker:        "kfake",
		Title:         "an acknowledgement when nothing is acquired gets INVALID_REQUEST",
		Kafka:         "SharePartition.acknowledge finds no floor batch and answers INVALID_RECORD_STATE",
		Theirs:        "kfake's validateAcks answers INVALID_REQUEST when the window is empty",
		ErrorCodeOnly: true,
		PinnedBy:      "live/peer.TestPinAckEmptyWindowInvalidRequest",
	},
	{
		ID:       "ack-across-hole",
		Broker:   "kfake",
		Title:    "an acknowledgement range across a hole between cached batches is rejected whole",
		Kafka:    "SharePartition.acknowledge walks the cached sub-map and skips the holes",
		Theirs:   "the hole offset has no entry, so kfake answers INVALID_RECORD_STATE for the whole call",
		PinnedBy: "live/peer.TestPinAckAcrossHole",
	},
	{
		ID:     "group-configs-ignored",
		Broker: "kfake",
		Title:  "group-level lock and session configs (share.record.lock.duration.ms, share.session.timeout.ms, share.heartbeat.interval.ms set on the group with IncrementalAlterConfigs) are accepted and stored but never used: the broker-level group.share.* values apply",
		Kafka:  "GroupConfigManager holds each group's configs; SharePartition takes the lock duration from the group's config (ShareGroupConfig: share.record.lock.duration.ms) and the group coordinator the session timeout and heartbeat interval (GroupCoordinatorService: share.session.timeout.ms, share.heartbeat.interval.ms), falling back to the broker's group.share.* defaults",
		Theirs: "Cluster.setGroupConfigs stores the values and DescribeConfigs returns them, but Cluster.shareRecordLockDurationMs (read by shareGroup.sweepExpiredAcquisitions and the AcquisitionLockTimeoutMillis of ShareFetch and ShareAcknowledge answers), Cluster.shareSessionTimeoutMs (shareGroup.resetSessionTimeout) and Cluster.shareHeartbeatIntervalMs (shareGroup.handleHeartbeat) read only the broker configs; of the share group configs only share.auto.offset.reset and share.isolation.level are read (Cluster.groupConfig)",
		// Live mode sets the lock, session and heartbeat on the embedded cluster as broker
		// configs for this reason, and refuses config-change faults there.
		PinnedBy: "live/deviation.TestPinGroupConfigsIgnored",
	},
	{
		ID:       "no-persister",
		Broker:   "kfake",
		Title:    "kfake has no share coordinator, persister, state epochs or leader failover",
		Kafka:    "state is written through the share coordinator (ShareCoordinatorShard) and reloaded on a leader change",
		Theirs:   "kfake keeps share-partition state in memory only (an optional data-dir snapshot)",
		PinnedBy: "live/peer.TestPinNoPersister",
	},
}

// ForCheck returns the deviations of broker that can make the named check fail, sorted by ID.
func ForCheck(broker, check string) []Deviation {
	var out []Deviation
	for _, d := range catalogue(broker) {
		for _, c := range d.Checks {
			if c == check {
				out = append(out, d)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByID returns the deviation of broker with the given ID.
func ByID(broker, id string) (Deviation, bool) {
	for _, d := range catalogue(broker) {
		if d.ID == id {
			return d, true
		}
	}
	return Deviation{}, false
}

func catalogue(broker string) []Deviation {
	if broker == "kfake" {
		return Kfake
	}
	return nil
}
