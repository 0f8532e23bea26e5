package peer

import (
	"fmt"

	"github.com/sharesim/sharesim/model"
)

// Pair runs one sequence on both peers, step by step.
type Pair struct {
	Setup  Setup
	Broker *Broker
	Model  *Model
	// brokerSPSO is the broker's SPSO after the last step.
	brokerSPSO int64
}

// NewPair begins a sequence with the setup on the broker and on a fresh model.
func NewPair(b *Broker, s Setup) (*Pair, error) {
	m, err := NewModel(s)
	if err != nil {
		return nil, err
	}
	if err := b.Begin(s); err != nil {
		return nil, err
	}
	return &Pair{Setup: s, Broker: b, Model: m}, nil
}

// Result is one step's comparison.
type Result struct {
	Broker, Model Outcome
	Diffs         []Disagreement
	// Deviation is the ID of the catalogued deviation explaining Diffs ("" when the peers
	// agree or nothing explains them); Unexplained is true in the latter case.
	Deviation   string
	Unexplained bool
	// GoOn is false when the peers' states may have parted: the sequence stops there.
	GoOn bool
}

// Do runs the step on both peers and compares. An error is a failure of the driver or of a
// request, never a disagreement.
func (p *Pair) Do(s Step) (Result, error) {
	ctx := Context{
		Setup:                  p.Setup,
		Step:                   s,
		BrokerSPSOBefore:       p.brokerSPSO,
		BrokerAcquireEndBefore: p.Broker.AcquireEnd(),
		BatchOf:                p.Model.BatchOf,
		ModelInFlightBefore:    p.Model.Core().InFlightCount(),
	}
	p.Model.Core().ForEachRecord(func(r model.RecordView) bool {
		ctx.ModelBefore = append(ctx.ModelBefore, r)
		return true
	})
	throttled := p.Model.Core().Stats().Throttled
	var res Result
	var err error
	if res.Broker, err = p.Broker.Do(s); err != nil {
		return res, err
	}
	if res.Model, err = p.Model.Do(s); err != nil {
		return res, err
	}
	p.brokerSPSO = res.Broker.SPSO
	ctx.BrokerAcquireEndAfter = p.Broker.AcquireEnd()
	ctx.ModelBatchAfter = func(off int64) (model.BatchView, bool) {
		var found model.BatchView
		ok := false
		p.Model.Core().ForEachBatch(func(b model.BatchView) bool {
			if b.First <= off && off <= b.Last {
				found, ok = b, true
				return false
			}
			return b.First <= off
		})
		return found, ok
	}
	ctx.ModelThrottled = p.Model.Core().Stats().Throttled - throttled
	ctx.Broker, ctx.Model = res.Broker, res.Model
	res.Diffs = Diff(res.Broker, res.Model)
	ctx.Diffs = res.Diffs
	res.GoOn = true
	if len(res.Diffs) == 0 {
		return res, nil
	}
	d, goOn, ok := Classify(&ctx)
	if !ok {
		res.Unexplained, res.GoOn = true, false
		return res, nil
	}
	res.Deviation, res.GoOn = d.ID, goOn
	return res, nil
}

// Describe renders the step's outcomes on both peers for a report line.
func (r Result) Describe(s Step) string {
	switch s.Kind {
	case Fetch:
		return fmt.Sprintf("kfake acquired %s, model %s; SPSO %d/%d, lag %d/%d", FormatRanges(r.Broker.Acquired), FormatRanges(r.Model.Acquired), r.Broker.SPSO, r.Model.SPSO, r.Broker.Lag, r.Model.Lag)
	case Ack:
		return fmt.Sprintf("kfake %s, model %s; SPSO %d/%d, lag %d/%d", r.Broker.AckCode, r.Model.AckCode, r.Broker.SPSO, r.Model.SPSO, r.Broker.Lag, r.Model.Lag)
	}
	return fmt.Sprintf("SPSO %d/%d, lag %d/%d", r.Broker.SPSO, r.Model.SPSO, r.Broker.Lag, r.Model.Lag)
}
