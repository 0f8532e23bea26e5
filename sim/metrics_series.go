package sim

// The metrics time series: a sample of every share-partition, group and consumer at each
// metrics tick (evMetrics, every Config.MetricsIntervalMs) and at the end of the run.

// Sample is one point of the metrics time series.
type Sample struct {
	TimeMs     int64             `json:"time_ms"`
	Partitions []PartitionSample `json:"partitions"`
	Consumers  []ConsumerSample  `json:"consumers"`
	// Running totals at this time, over every group (Produced: every record of every topic).
	Deliveries   int64 `json:"deliveries"`
	Redeliveries int64 `json:"redeliveries"`
	Duplicates   int64 `json:"duplicates"`
	LockTimeouts int64 `json:"lock_timeouts"`
	ProcessedOK  int64 `json:"processed_ok"`
	Produced     int64 `json:"produced"`
	// RedeliveriesByCause splits Redeliveries by why the records were available again.
	RedeliveriesByCause RedeliveryCauses `json:"redeliveries_by_cause"`
	// Groups are each group's running totals; the fields above add up every group.
	Groups []GroupSample `json:"groups"`
}

// PartitionSample is one share-partition (or classic group partition) at a sample time.
type PartitionSample struct {
	Group     string `json:"group"`
	Partition string `json:"partition"`
	// InFlightMessageCount and InFlightBatchCount are Kafka's SharePartitionMetrics.
	InFlightMessageCount int64 `json:"InFlightMessageCount"`
	InFlightBatchCount   int64 `json:"InFlightBatchCount"`
	StartOffset          int64 `json:"start_offset"`
	LogStartOffset       int64 `json:"log_start_offset"`
	LogEndOffset         int64 `json:"log_end_offset"`
	// Lag is KIP-1226's share lag: end offset − persisted SPSO − persisted delivery-complete
	// count (-1 when unknown).
	Lag int64 `json:"lag"`
	// Backlog is the true number of records not yet finished, from the leader's state.
	Backlog int64 `json:"backlog"`
	// OldestUnackedMs is the age of the record at the start offset.
	OldestUnackedMs int64 `json:"oldest_unacked_ms"`
}

// ConsumerSample is one consumer instance's running count of processed records.
type ConsumerSample struct {
	Name      string `json:"name"`
	Group     string `json:"group"`
	Processed int64  `json:"processed"`
}

// GroupSample is one group's running totals at a sample time (see docs/metrics.md).
type GroupSample struct {
	Group        string `json:"group"`
	Produced     int64  `json:"produced"`
	Deliveries   int64  `json:"deliveries"`
	Redeliveries int64  `json:"redeliveries"`
	Duplicates   int64  `json:"duplicates"`
	ProcessedOK  int64  `json:"processed_ok"`
	Completed    int64  `json:"completed"`
	LockTimeouts int64  `json:"lock_timeouts"`
	Backlog      int64  `json:"backlog"`
	// Kafka are the group's figures under Kafka's names (zero for a classic group, lag -1).
	Kafka KafkaSample `json:"kafka"`
}

// tick takes a point of the time series (evMetrics) and queues the next tick. The sample at
// the end is Run's, taken after every event of the last millisecond (one queued for that
// millisecond would run before events queued later for it).
func (m *metrics) tick() {
	m.sampleMetrics()
	if m.now+m.cfg.MetricsIntervalMs < m.endMs {
		m.push(m.now+m.cfg.MetricsIntervalMs, event{kind: evMetrics})
	}
}

// sampleMetrics records one time-series point.
func (m *metrics) sampleMetrics() {
	smp := Sample{TimeMs: m.now, Produced: m.produced}
	var redel [backCauses]int64
	for gi := range m.groups {
		g := m.gc(int32(gi))
		gs := GroupSample{Group: m.groups[gi].cfg.Name, Produced: g.produced, Deliveries: g.deliveries,
			Redeliveries: g.redeliveries, Duplicates: g.duplicatesTotal(), ProcessedOK: g.processedOK,
			Completed: g.completed, LockTimeouts: g.lockTimeouts}
		smp.Deliveries += g.deliveries
		smp.Redeliveries += g.redeliveries
		smp.Duplicates += gs.Duplicates
		smp.LockTimeouts += g.lockTimeouts
		smp.ProcessedOK += g.processedOK
		for c, n := range m.gx[gi].redeliverBy {
			redel[c] += n
		}
		smp.Groups = append(smp.Groups, gs)
	}
	smp.RedeliveriesByCause = redeliveryCauses(&redel)
	for _, s := range m.shares {
		ps := m.partitionSample(s)
		smp.Groups[s.group].Backlog += ps.Backlog
		smp.Partitions = append(smp.Partitions, ps)
	}
	for gi, g := range m.groups {
		if g.classic != nil {
			for _, ps := range m.classicSamples(g) {
				smp.Groups[gi].Backlog += ps.Backlog
				smp.Partitions = append(smp.Partitions, ps)
			}
		}
	}
	for gi := range smp.Groups {
		smp.Groups[gi].Kafka = m.kafkaSample(int32(gi), smp.Partitions)
	}
	for _, c := range m.consumers {
		smp.Consumers = append(smp.Consumers, ConsumerSample{Name: c.name, Group: m.groups[c.group].cfg.Name, Processed: m.cc(c.idx).processed})
	}
	if m.opts.OnSample != nil {
		m.opts.OnSample(&smp)
		return
	}
	m.series = append(m.series, smp)
}

func (m *metrics) partitionSample(s *sharePart) PartitionSample {
	p := m.parts[s.part]
	ps := PartitionSample{Group: m.groups[s.group].cfg.Name, Partition: p.name,
		LogStartOffset: p.log.StartOffset(), LogEndOffset: p.log.EndOffset(), Lag: -1}
	if st, dcc := m.coord.store(s).StartOffset(), m.coord.store(s).DeliveryCompleteCount(); st >= 0 && dcc >= 0 {
		ps.Lag = p.log.EndOffset() - st - dcc // as the group coordinator computes it: not clamped
	}
	if s.core == nil {
		ps.StartOffset = max(m.coord.store(s).StartOffset(), 0)
		ps.Backlog = max(0, p.log.EndOffset()-max(ps.StartOffset, p.log.StartOffset()))
		return ps
	}
	ps.InFlightMessageCount = s.core.InFlightCount()
	ps.InFlightBatchCount = int64(s.core.CachedBatchCount())
	ps.StartOffset = s.core.StartOffset()
	ps.Backlog = max(0, p.log.EndOffset()-max(ps.StartOffset, p.log.StartOffset())-s.core.DeliveryCompleteCount())
	if ps.StartOffset < p.log.EndOffset() {
		if b, ok := p.log.BatchAt(max(ps.StartOffset, p.log.StartOffset())); ok {
			ps.OldestUnackedMs = max(0, m.now-b.TimestampMs)
		}
	}
	return ps
}
