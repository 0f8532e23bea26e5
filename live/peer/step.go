package peer

import (
	"fmt"
	"strings"

	"github.com/sharesim/sharesim/model"
)

// StepKind is the kind of one client action.
type StepKind uint8

// Step kinds.
const (
	Produce StepKind = iota + 1 // append one producer batch of Records records
	Fetch                       // ShareFetch as Member with MaxRecords in Mode
	Ack                         // ShareAcknowledge as Member with Ranges
	Wait                        // wait past every acquisition lock
	Leave                       // Member closes its share session
)

// Step is one client action of a sequence.
type Step struct {
	Kind StepKind
	// Records is the batch size of a Produce (1–5).
	Records int
	// Member is the member of a Fetch, Ack or Leave.
	Member string
	// MaxRecords and Mode are a Fetch's parameters (BatchSize is MaxRecords, as the Java
	// client sends max.poll.records for both).
	MaxRecords int
	Mode       model.AcquireMode
	// Ranges are an Ack's ranges, in request order.
	Ranges []model.AckRange
	// ViaAcknowledge makes a Leave close the session with ShareAcknowledge at epoch −1
	// instead of ShareFetch at epoch −1 (both release the member's records).
	ViaAcknowledge bool
}

// String renders the step as one line of a reproduction, e.g. "fetch(m1, max=3, record_limit)".
func (s Step) String() string {
	switch s.Kind {
	case Produce:
		if s.Records == 1 {
			return "produce(1 record)"
		}
		return fmt.Sprintf("produce(%d records in one batch)", s.Records)
	case Fetch:
		return fmt.Sprintf("fetch(%s, max=%d, %s)", s.Member, s.MaxRecords, s.Mode)
	case Ack:
		parts := make([]string, len(s.Ranges))
		for i, r := range s.Ranges {
			types := make([]string, len(r.Types))
			for j, t := range r.Types {
				types[j] = t.String()
			}
			parts[i] = fmt.Sprintf("%s %s", rangeString(r.First, r.Last), strings.Join(types, ","))
		}
		return fmt.Sprintf("ack(%s, %s)", s.Member, strings.Join(parts, "; "))
	case Wait:
		return "wait(past the lock)"
	case Leave:
		if s.ViaAcknowledge {
			return fmt.Sprintf("leave(%s, ShareAcknowledge epoch -1)", s.Member)
		}
		return fmt.Sprintf("leave(%s, ShareFetch epoch -1)", s.Member)
	}
	return fmt.Sprintf("Step(%d)", s.Kind)
}

func rangeString(first, last int64) string {
	if first == last {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d-%d", first, last)
}

// Setup is the configuration both peers run a sequence with.
type Setup struct {
	// DeliveryCountLimit is group.share.delivery.count.limit.
	DeliveryCountLimit int
	// PartitionMaxRecordLocks is group.share.partition.max.record.locks (the in-flight cap).
	PartitionMaxRecordLocks int
	// ModelBug selects a bug-zoo variant of the model (model.Config.Bug), to show that the
	// test finds a model that is wrong; empty for the faithful core.
	ModelBug string
}

func (s Setup) String() string {
	return fmt.Sprintf("group.share.delivery.count.limit=%d group.share.partition.max.record.locks=%d", s.DeliveryCountLimit, s.PartitionMaxRecordLocks)
}

// FormatSequence renders a setup and steps as a numbered reproduction.
func FormatSequence(setup Setup, steps []Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "broker configs: %s (share.auto.offset.reset=earliest, one partition)\n", setup)
	for i, s := range steps {
		fmt.Fprintf(&b, "%3d. %s\n", i+1, s)
	}
	return b.String()
}
