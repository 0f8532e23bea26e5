package sim

import (
	"bytes"
	"encoding/json"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/hist"
	"slices"
)

// What the metrics hand over at the end of a run: Metrics (world figures and totals),
// GroupMetrics (each group's figures, derived in figures.go), FinalState (each
// share-partition's end state).

// Metrics is the exported summary of a run: Totals adds up every group's counts (world
// totals, for tests and the sweep tables of single-group scenarios), the other fields are
// figures of the whole world, and Groups holds each group's figures, which is what the
// reports show. In summary.json the totals sit at the top level of the object, under their
// historical keys (MarshalJSON).
type Metrics struct {
	// Window is the measurement window the groups' rates are over.
	Window Window `json:"window"`
	// Produced and ProducedBatches count every record and batch of every topic, once (the
	// totals count a record once per group reading it).
	Produced        int64 `json:"produced"`
	ProducedBatches int64 `json:"produced_batches"`
	// Totals adds up every group's Counts.
	Totals Counts `json:"-"`
	// DeliveryCountHist[i] counts finalized offsets delivered i times (last bucket: or more).
	DeliveryCountHist []int64 `json:"delivery_count_hist"`
	StateWrites       int64   `json:"state_writes"`
	StateWritesFailed int64   `json:"state_writes_failed"`
	Requests          int64   `json:"requests"`
	AckRequests       int64   `json:"ack_requests"`
	// ShareFetchRequests and ShareAcknowledgeRequests split the share consumers' requests
	// (ShareFetch may carry acknowledgements piggy-backed; ShareAcknowledge carries only them).
	ShareFetchRequests       int64 `json:"share_fetch_requests"`
	ShareAcknowledgeRequests int64 `json:"share_acknowledge_requests"`
	// BrokerCostDelayMs sums the delays the broker cost model added to requests and
	// responses (0 when it is off).
	BrokerCostDelayMs int64 `json:"broker_cost_delay_ms"`
	RenewRequests     int64 `json:"renew_requests"`
	BufferWaitMs      int64 `json:"buffer_wait_ms"`
	// E2E is produce-to-completion latency over every group (see GroupMetrics.Latency).
	E2EP50Ms   int64        `json:"e2e_p50_ms"`
	E2EP99Ms   int64        `json:"e2e_p99_ms"`
	E2EMaxMs   int64        `json:"e2e_max_ms"`
	E2EBuckets []HistBucket `json:"e2e_buckets"`
	// Worst reordering among records of the same key.
	ReorderMaxOffsets int64 `json:"reorder_max_offsets"`
	ReorderMaxMs      int64 `json:"reorder_max_ms"`
	SPSOStuckMaxMs    int64 `json:"spso_stuck_max_ms"`
	// Series is the metrics time series (Options.OnSample takes it instead when set).
	Series []Sample `json:"-"`
	// RedeliveriesByCause splits the redeliveries by why the records were available again.
	RedeliveriesByCause RedeliveryCauses `json:"redeliveries_by_cause"`
	// DeliveryCountArchived is the part of DeliveryCountHist that finished without ACCEPT
	// (rejected, archived at the limit, by retention, ...).
	DeliveryCountArchived []int64 `json:"delivery_count_archived"`
	// InFlightCap is group.share.partition.max.record.locks, the cap of the in-flight window:
	// the largest in force at any time of the run over the share groups (config-change faults
	// may move it; GroupMetrics.ConfigInForce then lists each group's phases).
	InFlightCap int64 `json:"in_flight_cap"`
	// Groups are per-group figures, in the configuration's order.
	Groups []GroupMetrics `json:"groups"`
}

// summaryKeys are the keys of summary.json's metrics object, in their order: Metrics' own,
// and the world totals' under the keys they had before Totals was a Counts (totalsKeys
// maps them to Counts' keys). A key of Metrics missing here goes at the end.
var summaryKeys = []string{"window", "produced", "produced_batches", "deliveries", "redeliveries",
	"processed", "processed_ok", "failed_processing", "completed", "duplicates", "duplicates_total",
	"processed_after_lock_expiry", "RecordAcknowledgements", "acknowledgements_failed",
	"acknowledgements_lost", "AcquisitionLockTimeouts", "finalized", "deleted_undelivered",
	"delivery_count_hist", "state_writes", "state_writes_failed", "requests", "ack_requests",
	"share_fetch_requests", "share_acknowledge_requests", "broker_cost_delay_ms", "renew_requests",
	"buffer_wait_ms", "e2e_p50_ms", "e2e_p99_ms", "e2e_max_ms", "e2e_buckets", "keyed_processed",
	"reordered", "reorder_max_offsets", "reorder_max_ms", "spso_stuck_max_ms",
	"skipped_by_offset_reset", "silent_loss", "classic_reprocessed", "redeliveries_by_cause",
	"delivery_count_archived", "in_flight_cap", "groups"}

// totalsKeys maps each summary key of a world total to its key in Counts.
var totalsKeys = map[string]string{"deliveries": "deliveries", "redeliveries": "redeliveries",
	"processed": "processed", "processed_ok": "processed_ok", "failed_processing": "failed_processing",
	"completed": "completed", "duplicates": "duplicates_by_cause", "duplicates_total": "duplicates",
	"processed_after_lock_expiry": "processed_after_lock_expiry",
	"RecordAcknowledgements":      "RecordAcknowledgements", "acknowledgements_failed": "acknowledgements_failed",
	"acknowledgements_lost": "acknowledgements_lost", "AcquisitionLockTimeouts": "AcquisitionLockTimeouts",
	"finalized": "finished", "deleted_undelivered": "deleted_undelivered", "keyed_processed": "keyed_processed",
	"reordered": "reordered", "skipped_by_offset_reset": "skipped_by_offset_reset", "silent_loss": "silent_loss",
	"classic_reprocessed": "classic_reprocessed"}

// metricsFields is Metrics without its methods, for encoding its own fields.
type metricsFields Metrics

// MarshalJSON encodes m as summary.json has it: Metrics' fields and the totals of
// summaryKeys in one object.
func (m Metrics) MarshalJSON() ([]byte, error) {
	own, err := jsonFields(metricsFields(m))
	if err != nil {
		return nil, err
	}
	totals, err := jsonFields(m.Totals)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	put := func(k string, v json.RawMessage) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	for _, k := range summaryKeys {
		if v, ok := own.values[k]; ok {
			put(k, v)
		} else if v, ok := totals.values[totalsKeys[k]]; ok {
			put(k, v)
		}
	}
	for _, k := range own.order {
		if !slices.Contains(summaryKeys, k) {
			put(k, own.values[k])
		}
	}
	return append(append([]byte{'{'}, b.Bytes()...), '}'), nil
}

// UnmarshalJSON decodes what MarshalJSON encodes (the totals summaryKeys leaves out stay
// zero).
func (m *Metrics) UnmarshalJSON(data []byte) error {
	var own metricsFields
	if err := json.Unmarshal(data, &own); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	totals := map[string]json.RawMessage{}
	for k, ck := range totalsKeys {
		if v, ok := all[k]; ok {
			totals[ck] = v
		}
	}
	b, err := json.Marshal(totals)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &own.Totals); err != nil {
		return err
	}
	*m = Metrics(own)
	return nil
}

// jsonObject is an encoded object's values by key, and its keys in order.
type jsonObject struct {
	values map[string]json.RawMessage
	order  []string
}

// jsonFields encodes v, a struct, and splits the object into its keys and values.
func jsonFields(v any) (jsonObject, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonObject{}, err
	}
	obj := jsonObject{values: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return obj, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return obj, err
		}
		k := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return obj, err
		}
		obj.values[k] = raw
		obj.order = append(obj.order, k)
	}
	return obj, nil
}

// GroupMetrics are one group's figures (docs/metrics.md defines each).
type GroupMetrics struct {
	Name string `json:"name"`
	Type string `json:"type"` // share or classic
	// Window is the measurement window; InWindow the counts inside it, Totals over the run.
	Window   Window `json:"window"`
	Totals   Counts `json:"totals"`
	InWindow Counts `json:"in_window"`
	Rates    Rates  `json:"rates"`
	// DeliveriesPerRecord is deliveries ÷ records delivered at least once, over the run.
	DeliveriesPerRecord float64    `json:"deliveries_per_record"`
	Latency             Latencies  `json:"latency"`
	Accounting          Accounting `json:"accounting"`
	KeepUp              KeepUp     `json:"keep_up"`
	// ConfigInForce lists the group's configuration in force over the run, one entry per
	// stretch between accepted config-change faults (absent when it never changes).
	ConfigInForce []ConfigPhase `json:"config_in_force,omitempty"`
	// Kafka are the group's figures under Kafka's metric names (share groups only).
	Kafka *KafkaMetrics `json:"kafka,omitempty"`
	// Consumers are each consumer slot's figures in the window.
	Consumers []ConsumerFigures `json:"consumers"`
	// DeliveryCountHist[i] counts the group's finished offsets delivered i times (last
	// bucket: or more); DeliveryCountArchived the part that finished without ACCEPT.
	DeliveryCountHist     []int64          `json:"delivery_count_hist"`
	DeliveryCountArchived []int64          `json:"delivery_count_archived"`
	RedeliveriesByCause   RedeliveryCauses `json:"redeliveries_by_cause"`
	// ReorderedFraction is reordered ÷ keyed successful processings over the run.
	ReorderedFraction float64 `json:"reordered_fraction"`
	ReorderMaxOffsets int64   `json:"reorder_max_offsets"`
	ReorderMaxMs      int64   `json:"reorder_max_ms"`
	// SPSOStuckMaxMs is the longest a share-partition's start offset stayed put while
	// records after it were in flight.
	SPSOStuckMaxMs int64 `json:"spso_stuck_max_ms"`
	// FirstDeliveryMs is when a consumer of the group was first handed a record (-1: never).
	// Without a warm-up the window starts before it, so the rates include the group's start
	// (they read lower than the steady state by about its share of the window).
	FirstDeliveryMs int64 `json:"first_delivery_ms"`
	// E2E* repeat Latency.Completed for the plots (0 when nothing completed).
	E2EP50Ms   int64        `json:"e2e_p50_ms"`
	E2EP99Ms   int64        `json:"e2e_p99_ms"`
	E2EMaxMs   int64        `json:"e2e_max_ms"`
	E2EBuckets []HistBucket `json:"e2e_buckets"`
	// ReorderBuckets is the distribution of reorder distances in offsets: how far before
	// the newest processed record of the same key an out-of-order record was (LowMs and
	// HighMs hold offsets here).
	ReorderBuckets []HistBucket `json:"reorder_distance_buckets"`
	// DeadLetterQueue holds the dead-letter-queue figures (Kafka 4.4 with the queue on;
	// absent otherwise).
	DeadLetterQueue *DLQMetrics `json:"dead_letter_queue,omitempty"`
}

// HistBucket is one non-empty histogram bucket: values in [LowMs, HighMs].
type HistBucket struct {
	LowMs  int64 `json:"low_ms"`
	HighMs int64 `json:"high_ms"`
	Count  int64 `json:"count"`
}

func histBuckets(h *hist.Hist) []HistBucket {
	var out []HistBucket
	for _, b := range h.Buckets(80) {
		out = append(out, HistBucket{LowMs: b.Low, HighMs: b.High, Count: b.Count})
	}
	return out
}

func quantileOr0(h *hist.Hist, q float64) int64 {
	v, _ := h.Quantile(q)
	return v
}

// export is the run's Metrics, derived at its end (or where it was cut short).
func (m *metrics) export() Metrics {
	start, end := measurementWindow(&m.cfg)
	win := Window{StartMs: start, EndMs: end, WarmupMs: m.cfg.WarmupMs}
	out := Metrics{
		Window: win, Produced: m.produced, ProducedBatches: m.producedBatches, StateWrites: m.writes, StateWritesFailed: m.writesFailed,
		Requests: m.requests, AckRequests: m.ackRequests, ShareFetchRequests: m.shareFetches, ShareAcknowledgeRequests: m.shareAcknowledges, BrokerCostDelayMs: m.brokerDelayMs, RenewRequests: m.renewRequests, BufferWaitMs: m.bufferWaitMs,
		Series: m.series, InFlightCap: int64(m.cfg.Kafka.PartitionMaxRecordLocks),
	}
	var all counters
	var e2e hist.Hist
	var redel [backCauses]int64
	dc, dca := make([]int64, 12), make([]int64, 12)
	for gi := range m.groups {
		all.add(&m.g[gi], 1)
		e2e.Merge(&m.lat[gi].completed)
		gx := &m.gx[gi]
		for c, n := range gx.redeliverBy {
			redel[c] += n
		}
		for i := range dc {
			dc[i] += gx.dcHist[i]
			dca[i] += gx.dcHistArchived[i]
		}
		out.ReorderMaxOffsets = max(out.ReorderMaxOffsets, gx.reorderMaxOffsets)
		out.ReorderMaxMs = max(out.ReorderMaxMs, gx.reorderMaxMs)
		out.SPSOStuckMaxMs = max(out.SPSOStuckMaxMs, gx.spsoStuckMaxMs)
		out.Groups = append(out.Groups, m.groupMetrics(int32(gi), win))
		for _, ph := range out.Groups[gi].ConfigInForce {
			out.InFlightCap = max(out.InFlightCap, int64(ph.PartitionMaxRecordLocks))
		}
	}
	out.Totals = countsOf(&all)
	out.DeliveryCountHist, out.DeliveryCountArchived = dc, dca
	out.RedeliveriesByCause = redeliveryCauses(&redel)
	out.E2EP50Ms, out.E2EP99Ms, out.E2EMaxMs, out.E2EBuckets = quantileOr0(&e2e, 0.5), quantileOr0(&e2e, 0.99), e2e.Max(), histBuckets(&e2e)
	return out
}

// groupMetrics derives group gi's figures.
func (m *metrics) groupMetrics(gi int32, win Window) GroupMetrics {
	g := m.groups[gi]
	gm := GroupMetrics{Name: g.cfg.Name, Type: g.cfg.Type.String(), Window: win, Totals: countsOf(&m.g[gi])}
	var in counters
	if m.win.next == snapPoints {
		in = m.win.taken[snapEnd].groups[gi]
		in.add(&m.win.taken[snapStart].groups[gi], -1)
	}
	gm.InWindow = countsOf(&in)
	gm.Rates = ratesOf(&in, win)
	gm.DeliveriesPerRecord = ratio(m.g[gi].deliveries, m.g[gi].delivered)
	lat := &m.lat[gi]
	gm.Latency = Latencies{FirstDelivery: latencyOf(&lat.firstDelivery), Processed: latencyOf(&lat.processed), Completed: latencyOf(&lat.completed)}
	gm.Accounting = m.accounting(gi)
	for ci, c := range m.consumers {
		if c.group != gi {
			continue
		}
		var cc consumerCounters
		if m.win.next == snapPoints {
			cc = m.win.taken[snapEnd].consumers[ci]
			addInt64s(&cc, &m.win.taken[snapStart].consumers[ci], -1)
		}
		t := max(c.spec.Threads, 1) // classic consumers honour threads too (classic.go)
		gm.Consumers = append(gm.Consumers, ConsumerFigures{Name: c.name, Deliveries: cc.deliveries, Processed: cc.processed,
			ProcessedOK: cc.processedOK, BusyMs: cc.busyMs, Threads: t, Busy: ratio(cc.busyMs, win.LengthMs()*int64(t))})
	}
	gm.KeepUp = m.keepUp(gi, win, &in, gm.Consumers)
	gm.ConfigInForce = m.configPhases(gi, 0, m.now)
	gm.Kafka = m.kafkaMetrics(gi, win, &in)
	gx := &m.gx[gi]
	gm.DeliveryCountHist = append([]int64(nil), gx.dcHist[:]...)
	gm.DeliveryCountArchived = append([]int64(nil), gx.dcHistArchived[:]...)
	gm.DeadLetterQueue = m.dlqMetricsOf(int(gi))
	gm.RedeliveriesByCause = redeliveryCauses(&gx.redeliverBy)
	gm.ReorderedFraction = ratio(m.g[gi].reordered, m.g[gi].keyed)
	gm.ReorderMaxOffsets, gm.ReorderMaxMs, gm.SPSOStuckMaxMs = gx.reorderMaxOffsets, gx.reorderMaxMs, gx.spsoStuckMaxMs
	gm.FirstDeliveryMs = gx.firstDeliveryMs
	gm.E2EP50Ms, gm.E2EP99Ms, gm.E2EMaxMs = quantileOr0(&lat.completed, 0.5), quantileOr0(&lat.completed, 0.99), lat.completed.Max()
	gm.E2EBuckets = histBuckets(&lat.completed)
	gm.ReorderBuckets = histBuckets(&gx.reorderDist)
	return gm
}

// FinalState describes one share-partition (or classic group partition) at the end.
type FinalState struct {
	Group       string `json:"group"`
	Partition   string `json:"partition"`
	StartOffset int64  `json:"start_offset"`
	LogStart    int64  `json:"log_start_offset"`
	LogEnd      int64  `json:"log_end_offset"`
	InFlight    int64  `json:"in_flight"`
	Acquired    int64  `json:"acquired"`
	Loaded      bool   `json:"loaded"`
	Drained     bool   `json:"drained"`
	// ProgressedWhileHealing: records of the partition finished during the healing phase
	// (false without one). An undrained partition that made no progress is stuck, not
	// merely behind.
	ProgressedWhileHealing bool `json:"progressed_while_healing"`
}

func (m *metrics) finalStates() []FinalState {
	var out []FinalState
	for _, s := range m.shares {
		p := m.parts[s.part]
		fs := FinalState{Group: m.groups[s.group].cfg.Name, Partition: p.name, LogStart: p.log.StartOffset(), LogEnd: p.log.EndOffset()}
		if s.core != nil {
			fs.Loaded = true
			fs.StartOffset = s.core.StartOffset()
			fs.InFlight = s.core.InFlightCount()
			s.core.ForEachRecord(func(v model.RecordView) bool {
				if v.State == model.Acquired {
					fs.Acquired++
				}
				return true
			})
		} else {
			fs.StartOffset = m.coord.store(s).StartOffset()
		}
		fs.Drained = fs.StartOffset >= fs.LogEnd || (fs.Loaded && fs.StartOffset+fs.InFlight >= fs.LogEnd && s.core.DeliveryCompleteCount() == fs.InFlight)
		fs.ProgressedWhileHealing = m.healing && m.st(s).frontier > m.st(s).healFrontier
		out = append(out, fs)
	}
	for _, g := range m.groups {
		if g.classic != nil {
			out = append(out, m.classicFinal(g)...)
		}
	}
	return out
}
