package peer

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
)

// lockDurationMs is the model's lock duration. A step advances the model's clock by 1 ms
// and a wait by more than the lock duration, so locks fire exactly at waits, as on the broker.
const lockDurationMs = 30000

// Model is sharesim's core driven as the broker side is: one share-partition of a topic
// whose log the driver keeps, every state write completed at once (kfake has no share
// coordinator to fail one).
type Model struct {
	sp    *model.SharePartition
	log   []model.LogBatch
	hwm   int64
	nowMs int64
	read  []model.LogBatch
	out   []model.AcquiredRange
	wbuf  []*model.Write
}

// NewModel returns the core at Kafka 4.2 with the setup's limits, SPSO 0 (the broker side
// uses share.auto.offset.reset=earliest on an empty topic).
func NewModel(s Setup) (*Model, error) {
	cfg := model.DefaultConfig()
	cfg.Version = model.Kafka42
	cfg.RecordLockDurationMs = lockDurationMs
	cfg.DeliveryCountLimit = s.DeliveryCountLimit
	cfg.PartitionMaxRecordLocks = s.PartitionMaxRecordLocks
	cfg.RelaxRanges = s.PartitionMaxRecordLocks < model.PartitionMaxRecordLocksRangeMin
	cfg.Bug = s.ModelBug
	sp, err := model.New(cfg, 0)
	if err != nil {
		return nil, fmt.Errorf("model config %s: %w", s, err)
	}
	return &Model{sp: sp}, nil
}

// Core returns the share-partition, for classifiers that look at its state.
func (m *Model) Core() *model.SharePartition { return m.sp }

// HighWatermark returns the log end offset.
func (m *Model) HighWatermark() int64 { return m.hwm }

// BatchOf returns the log batch holding off.
func (m *Model) BatchOf(off int64) (model.LogBatch, bool) {
	for _, b := range m.log {
		if b.First <= off && off <= b.Last {
			return b, true
		}
	}
	return model.LogBatch{}, false
}

// Do applies one step and returns the outcome.
func (m *Model) Do(s Step) (Outcome, error) {
	m.nowMs++
	var o Outcome
	switch s.Kind {
	case Produce:
		m.log = append(m.log, model.LogBatch{First: m.hwm, Last: m.hwm + int64(s.Records) - 1})
		m.hwm += int64(s.Records)
	case Fetch:
		rs, err := m.fetch(s)
		if err != nil {
			return o, err
		}
		o.Acquired = rs
	case Ack:
		w, err := m.sp.Acknowledge(m.nowMs, model.MemberID(s.Member), s.Ranges)
		o.AckCode = model.CodeOf(err).String()
		if err := m.complete(w); err != nil {
			return o, err
		}
	case Wait:
		m.nowMs += lockDurationMs + 1
		m.wbuf = m.sp.ExpireLocks(m.nowMs, m.wbuf[:0])
		for _, w := range m.wbuf {
			if err := m.complete(w); err != nil {
				return o, err
			}
		}
	case Leave:
		if err := m.complete(m.sp.ReleaseMember(m.nowMs, model.MemberID(s.Member))); err != nil {
			return o, err
		}
	default:
		return o, fmt.Errorf("unknown step kind %d", s.Kind)
	}
	o.SPSO = m.sp.StartOffset()
	o.Lag = max(0, m.hwm-o.SPSO-m.sp.DeliveryCompleteCount())
	if err := m.sp.CheckConsistency(); err != nil {
		return o, fmt.Errorf("model core inconsistent after %s: %w", s, err)
	}
	return o, nil
}

// fetch is a share fetch: the gate, a log read of every batch from the next fetch offset
// (the broker reads up to 1 MiB, more than any sequence produces), and the acquisition.
func (m *Model) fetch(s Step) ([]Range, error) {
	if !m.sp.CanAcquire() {
		return nil, nil
	}
	f := m.sp.NextFetchOffset()
	m.read = m.read[:0]
	for _, b := range m.log {
		if b.Last >= f {
			m.read = append(m.read, b)
		}
	}
	p := model.FetchParams{MaxRecords: s.MaxRecords, BatchSize: s.MaxRecords, Mode: s.Mode}
	var err error
	m.out, err = m.sp.Acquire(m.nowMs, model.MemberID(s.Member), p, m.read, m.out[:0])
	if err != nil {
		return nil, fmt.Errorf("model acquire for %s: %w", s, err)
	}
	rs := make([]Range, len(m.out))
	for i, r := range m.out {
		rs[i] = Range{First: r.First, Last: r.Last, DeliveryCount: int(r.DeliveryCount)}
	}
	return coalesce(rs), nil
}

func (m *Model) complete(w *model.Write) error {
	if w == nil {
		return nil
	}
	if err := m.sp.CompleteWrite(m.nowMs, w.ID, nil); err != nil {
		return fmt.Errorf("model write %d: %w", w.ID, err)
	}
	return nil
}
