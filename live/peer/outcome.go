package peer

import (
	"fmt"
	"sort"
	"strings"
)

// Range is an acquired range as a client sees it: offsets First..Last with one delivery count.
type Range struct {
	First, Last   int64
	DeliveryCount int
}

// Outcome is what a client can observe after one step on either peer.
type Outcome struct {
	// Acquired are a Fetch's acquired ranges, coalesced (adjacent offsets with the same
	// delivery count form one range), ascending. How a broker cuts ranges is not compared:
	// clients treat the ranges as a set of offsets.
	Acquired []Range
	// AckCode is an Ack's partition error code by Kafka's name ("NONE" on success); empty
	// for other steps.
	AckCode string
	// SPSO is the share-partition start offset and Lag the share-group lag, as
	// DescribeShareGroupOffsets (v1) reports them after the step.
	SPSO, Lag int64
}

// coalesce sorts ranges and merges adjacent ones with equal delivery counts.
func coalesce(rs []Range) []Range {
	out := append([]Range(nil), rs...)
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	n := 0
	for _, r := range out {
		if n > 0 && out[n-1].Last+1 == r.First && out[n-1].DeliveryCount == r.DeliveryCount {
			out[n-1].Last = r.Last
			continue
		}
		out[n] = r
		n++
	}
	return out[:n]
}

// FormatRanges renders ranges as "0-2@1 3@2", or "nothing".
func FormatRanges(rs []Range) string {
	if len(rs) == 0 {
		return "nothing"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s@%d", rangeString(r.First, r.Last), r.DeliveryCount)
	}
	return strings.Join(parts, " ")
}

// offsets returns the acquired offsets with their delivery counts.
func offsets(rs []Range) map[int64]int {
	m := make(map[int64]int)
	for _, r := range rs {
		for o := r.First; o <= r.Last; o++ {
			m[o] = r.DeliveryCount
		}
	}
	return m
}

// Field names one compared part of an Outcome.
type Field string

// Compared fields.
const (
	FieldAcquired Field = "acquired"
	FieldAckCode  Field = "ack error"
	FieldSPSO     Field = "SPSO"
	FieldLag      Field = "lag"
)

// Disagreement is one field on which the peers' outcomes differ after a step.
type Disagreement struct {
	Field Field
	// Broker and Model are the two values, rendered.
	Broker, Model string
}

func (d Disagreement) String() string {
	return fmt.Sprintf("%s: kfake %s, model %s", d.Field, d.Broker, d.Model)
}

// Diff lists the fields on which broker and model differ, in a fixed order.
func Diff(broker, mdl Outcome) []Disagreement {
	var out []Disagreement
	if a, b := FormatRanges(broker.Acquired), FormatRanges(mdl.Acquired); a != b {
		out = append(out, Disagreement{Field: FieldAcquired, Broker: a, Model: b})
	}
	if broker.AckCode != mdl.AckCode {
		out = append(out, Disagreement{Field: FieldAckCode, Broker: broker.AckCode, Model: mdl.AckCode})
	}
	if broker.SPSO != mdl.SPSO {
		out = append(out, Disagreement{Field: FieldSPSO, Broker: fmt.Sprint(broker.SPSO), Model: fmt.Sprint(mdl.SPSO)})
	}
	if broker.Lag != mdl.Lag {
		out = append(out, Disagreement{Field: FieldLag, Broker: fmt.Sprint(broker.Lag), Model: fmt.Sprint(mdl.Lag)})
	}
	return out
}
