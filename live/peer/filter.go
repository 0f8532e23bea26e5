package peer

import (
	"sort"

	"github.com/sharesim/sharesim/live/deviation"
	"github.com/sharesim/sharesim/model"
)

// Context is what a classifier may look at: the step, both outcomes, and what each side
// showed before the step.
type Context struct {
	Setup Setup
	Step  Step
	// Broker and Model are the outcomes of the step; Diffs their disagreements.
	Broker, Model Outcome
	Diffs         []Disagreement
	// BrokerSPSOBefore and BrokerAcquireEndBefore are the broker's SPSO and in-flight window
	// end (one past the highest offset it ever handed out) before the step.
	BrokerSPSOBefore, BrokerAcquireEndBefore int64
	// ModelBefore is the model's cached records before the step (offset order).
	ModelBefore []model.RecordView
	// ModelInFlightBefore is the model's in-flight count SPEO − SPSO + 1 before the step.
	ModelInFlightBefore int64
	// ModelThrottled is how many acquisitions throttled redelivery cut short in this step.
	ModelThrottled int64
	// BatchOf returns the producer batch holding an offset.
	BatchOf func(off int64) (model.LogBatch, bool)
	// ModelBatchAfter returns the model's cached batch holding an offset after the step.
	ModelBatchAfter func(off int64) (model.BatchView, bool)
	// BrokerAcquireEndAfter is the broker's window end after the step.
	BrokerAcquireEndAfter int64
}

// Classifier recognises one catalogued deviation in a disagreement. It must match only the
// disagreement the deviation explains, so that everything else still fails the test.
type Classifier struct {
	// ID is the deviation's ID in the catalogue (package deviation).
	ID string
	// Match reports whether every disagreement of the step is this deviation.
	Match func(c *Context) bool
	// StateKept is true when, after the disagreement, both sides still hold the same
	// share-partition state, so that the sequence can go on being compared.
	StateKept func(c *Context) bool
}

// Classifiers are the filter of the differential test, one per deviation it can recognise.
// Each ID is an entry of deviation.Kfake (TestClassifiersNameCatalogueEntries).
var Classifiers = []Classifier{
	{ID: "acquire-exact-max-records", Match: matchAcquireExact, StateKept: never},
	{ID: "no-throttled-redelivery", Match: matchNoThrottle, StateKept: never},
	{ID: "cap-budget-ignores-redeliveries", Match: matchCapBudget, StateKept: never},
	{ID: "record-limit-tail", Match: matchRecordLimitTail, StateKept: bothAcksFailed},
	{ID: "ack-empty-window-invalid-request", Match: matchEmptyWindow, StateKept: bothAcksFailed},
	{ID: "ack-touching-batches-invalid-request", Match: matchTouchingBatches, StateKept: bothAcksFailed},
}

func never(*Context) bool { return false }

// bothAcksFailed: a rejected acknowledgement changes nothing on either side (the model's
// RENEWs applied before a failing range only restart locks, and locks fire only at waits,
// where every lock fires).
func bothAcksFailed(c *Context) bool {
	return c.Step.Kind == Ack && c.Broker.AckCode != "NONE" && c.Model.AckCode != "NONE"
}

// Classify returns the catalogue entry that explains all of the step's disagreements, and
// whether the sequence may go on; ok is false for an unexplained disagreement.
func Classify(c *Context) (d deviation.Deviation, goOn, ok bool) {
	for _, cl := range Classifiers {
		if cl.Match(c) {
			d, found := deviation.ByID("kfake", cl.ID)
			if !found {
				return deviation.Deviation{}, false, false
			}
			return d, cl.StateKept(c), true
		}
	}
	return deviation.Deviation{}, false, false
}

func onlyFields(c *Context, fs ...Field) bool {
	for _, d := range c.Diffs {
		ok := false
		for _, f := range fs {
			if d.Field == f {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return len(c.Diffs) > 0
}

// strictSubset reports whether a's offsets are a proper subset of b's with equal delivery
// counts, and returns b's extra offsets in ascending order.
func strictSubset(a, b []Range) ([]int64, bool) {
	ao, bo := offsets(a), offsets(b)
	if len(ao) >= len(bo) {
		return nil, false
	}
	for o, dc := range ao {
		if bdc, ok := bo[o]; !ok || bdc != dc {
			return nil, false
		}
	}
	var extra []int64
	for o := range bo {
		if _, ok := ao[o]; !ok {
			extra = append(extra, o)
		}
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
	return extra, true
}

func count(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += int(r.Last - r.First + 1)
	}
	return n
}

// acquire-exact-max-records: in batch_optimized mode kfake stops at exactly its budget (max
// records, or the in-flight cap) while Kafka acquires whole batches: the rest of the producer
// batch for new records, the whole cached batch for redeliveries. Recognised when kfake
// acquired exactly max records or filled its window to the cap, the model acquired those
// and more, and the further offsets lie in the producer batch or the model's cached batch
// that holds kfake's last acquired offset.
func matchAcquireExact(c *Context) bool {
	if c.Step.Kind != Fetch || c.Step.Mode != model.BatchOptimized || !onlyFields(c, FieldAcquired) {
		return false
	}
	atCap := c.BrokerAcquireEndAfter-c.Broker.SPSO >= int64(c.Setup.PartitionMaxRecordLocks)
	if count(c.Broker.Acquired) != c.Step.MaxRecords && !atCap {
		return false
	}
	extra, ok := strictSubset(c.Broker.Acquired, c.Model.Acquired)
	if !ok || len(c.Broker.Acquired) == 0 {
		return false
	}
	last := c.Broker.Acquired[len(c.Broker.Acquired)-1].Last
	within := func(first, last int64) bool {
		for _, o := range extra {
			if o < first || o > last {
				return false
			}
		}
		return true
	}
	if lb, ok := c.BatchOf(last); ok && within(lb.First, lb.Last) {
		return true
	}
	b, ok := c.ModelBatchAfter(last)
	return ok && within(b.First, b.Last)
}

// no-throttled-redelivery: the model's acquisition was cut short by throttling (its own
// statistic says so in this step) and kfake acquired what the model did and more.
func matchNoThrottle(c *Context) bool {
	if c.Step.Kind != Fetch || c.ModelThrottled == 0 || !onlyFields(c, FieldAcquired) {
		return false
	}
	_, ok := strictSubset(c.Model.Acquired, c.Broker.Acquired)
	return ok
}

// tail returns the model's record_limit tail before the step: cached AVAILABLE offsets with
// delivery count 0 (only a record_limit acquisition caches a record it did not deliver).
func tail(c *Context) map[int64]bool {
	t := map[int64]bool{}
	for _, r := range c.ModelBefore {
		if r.State == model.Available && r.DeliveryCount == 0 {
			t[r.Offset] = true
		}
	}
	return t
}

// record-limit-tail: Kafka caches the rest of a producer batch after a record_limit
// acquisition (AVAILABLE, delivery count 0) and counts it in the in-flight window; kfake
// does not. Recognised (a) for a fetch under a small in-flight cap while the model holds a
// tail, where the two sides differ only in which tail or later offsets they acquired, and (b) for an acknowledgement reaching past kfake's window end into the model's
// tail, which kfake answers INVALID_REQUEST and Kafka INVALID_RECORD_STATE.
func matchRecordLimitTail(c *Context) bool {
	t := tail(c)
	if len(t) == 0 {
		return false
	}
	switch c.Step.Kind {
	case Fetch:
		if c.Setup.PartitionMaxRecordLocks >= model.PartitionMaxRecordLocksRangeMin || !onlyFields(c, FieldAcquired) {
			return false
		}
		// The tail only changes how much room the cap leaves: offsets both sides acquired
		// have the same delivery count, the model's extra offsets are tail offsets, and
		// kfake's extra offsets lie at or after the tail's start.
		first := int64(-1)
		for o := range t {
			if first < 0 || o < first {
				first = o
			}
		}
		bo, mo := offsets(c.Broker.Acquired), offsets(c.Model.Acquired)
		for o, dc := range mo {
			if bdc, ok := bo[o]; ok && bdc != dc {
				return false
			} else if !ok && !t[o] {
				return false
			}
		}
		for o := range bo {
			if _, ok := mo[o]; !ok && o < first {
				return false
			}
		}
		return true
	case Ack:
		if !onlyFields(c, FieldAckCode) || c.Broker.AckCode != "INVALID_REQUEST" || c.Model.AckCode != "INVALID_RECORD_STATE" {
			return false
		}
		for _, r := range c.Step.Ranges {
			for o := max(r.First, c.BrokerAcquireEndBefore); o <= r.Last; o++ {
				if t[o] {
					return true
				}
			}
		}
	}
	return false
}

// ack-empty-window-invalid-request: kfake's window was empty before the step (nothing
// handed out at or above its SPSO) and it answered INVALID_REQUEST where the model, finding
// no cached batch, answered INVALID_RECORD_STATE.
func matchEmptyWindow(c *Context) bool {
	if c.Step.Kind != Ack || !onlyFields(c, FieldAckCode) {
		return false
	}
	if c.Broker.AckCode != "INVALID_REQUEST" || c.Model.AckCode != "INVALID_RECORD_STATE" {
		return false
	}
	return c.BrokerAcquireEndBefore <= c.BrokerSPSOBefore
}

// ack-touching-batches-invalid-request: a range starting at the previous range's last
// offset. Kafka's request validation (KafkaApis.validateAcknowledgementBatches) refuses only
// a first offset below the previous last offset; kfake's validateOneAckBatch refuses equal
// too, with INVALID_REQUEST.
func matchTouchingBatches(c *Context) bool {
	if c.Step.Kind != Ack || c.Broker.AckCode != "INVALID_REQUEST" || c.Model.AckCode == "INVALID_REQUEST" {
		return false
	}
	// Where Kafka accepts the call (a RENEW of the shared offset followed by another type),
	// the model's state moves on and SPSO and lag may differ as well.
	if !onlyFields(c, FieldAckCode) && (c.Model.AckCode != "NONE" || !onlyFields(c, FieldAckCode, FieldSPSO, FieldLag)) {
		return false
	}
	touching := false
	for i := 1; i < len(c.Step.Ranges); i++ {
		prev, r := c.Step.Ranges[i-1], c.Step.Ranges[i]
		if r.First < prev.Last {
			return false // Kafka refuses this too: not this deviation
		}
		if r.First == prev.Last {
			touching = true
		}
	}
	return touching
}

// cap-budget-ignores-redeliveries: under the in-flight cap Kafka 4.2 gives a fetch a budget
// of min(max records, cap − in-flight) offsets, redeliveries included, and kfake only stops
// offsets beyond its window at the cap. Recognised when the model used up that budget (or
// more, rounding up to a whole batch), kfake acquired the same and more, and kfake's extra offsets are all new (beyond
// everything it had handed out) and stay within the cap.
func matchCapBudget(c *Context) bool {
	if c.Step.Kind != Fetch || !onlyFields(c, FieldAcquired) {
		return false
	}
	budget := min(int64(c.Step.MaxRecords), int64(c.Setup.PartitionMaxRecordLocks)-c.ModelInFlightBefore)
	if budget <= 0 || int64(count(c.Model.Acquired)) < budget {
		return false
	}
	extra, ok := strictSubset(c.Model.Acquired, c.Broker.Acquired)
	if !ok {
		return false
	}
	for _, o := range extra {
		if o < c.BrokerSPSOBefore || o >= c.BrokerSPSOBefore+int64(c.Setup.PartitionMaxRecordLocks) {
			return false
		}
	}
	return true
}
