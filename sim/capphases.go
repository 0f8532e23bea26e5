package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/sharesim/sharesim/model"
)

// Capacity bounds when the configuration changes during the window (config-change and
// add-partitions faults). The bounds read the group's record-lock cap and lock duration in
// force and its partitions, so the window is cut into phases in which those stay put, each
// phase gets its own bounds, and a bound of the whole window is the time-weighted mean of
// the phases' bounds: a bound caps the completion rate, so over a phase of length t the
// group finishes at most bound × t records, and over the window at most the sum of those.
// A phase without some bound (a poll that fits in the lock, a classic group with enough
// partitions) counts at its tightest other bound, which caps that phase just as well. With
// one phase (nothing changes) every bound is the phase's, text and all.

// capPhase is a stretch [FromMs, ToMs) of the window in which what the capacity bounds read
// stays put: the group's configuration in force and the partitions of its topics.
type capPhase struct {
	fromMs, toMs int64
	cfg          model.Config
	parts        int
}

// ConfigPhase is a stretch of the run in which a share group's configuration in force
// stays put: the values set by config-change faults (Kafka's clamped values), in the
// summary when they change during the run.
type ConfigPhase struct {
	FromMs                  int64 `json:"from_ms"`
	ToMs                    int64 `json:"to_ms"`
	DeliveryCountLimit      int   `json:"delivery_count_limit"`
	PartitionMaxRecordLocks int   `json:"partition_max_record_locks"`
	RecordLockDurationMs    int64 `json:"record_lock_duration_ms"`
}

// LimitPhase is one phase's capacity bounds: [FromMs, ToMs) of the window with one
// configuration in force (cap, lock duration, partitions).
type LimitPhase struct {
	FromMs int64   `json:"from_ms"`
	ToMs   int64   `json:"to_ms"`
	Limits []Limit `json:"limits"`
}

// groupInForce is group gi's timeline of its configuration in force, as the world applied
// it (the initial values throughout when the world ignores config changes).
func (cf *groupConfigs) groupInForce(gi int32) InForce {
	if cf.opts.IgnoreConfigChanges {
		return InForce{base: cf.cfg.Kafka}
	}
	return InForceFor(&cf.cfg, cf.configSteps, gi)
}

// At returns the configuration in force at atMs: after every accepted change at or before it.
func (in InForce) At(atMs int64) model.Config {
	cur := in.base
	for _, s := range in.steps {
		if s.AtMs <= atMs {
			cur = s.After
		}
	}
	return cur
}

// configPhases is group gi's configuration in force over [fromMs, toMs), one entry per
// stretch between accepted changes; nil when it never changes during the run.
func (m *metrics) configPhases(gi int32, fromMs, toMs int64) []ConfigPhase {
	in := m.configs.groupInForce(gi)
	if !in.Changes() || toMs <= fromMs {
		return nil
	}
	var out []ConfigPhase
	cuts := []int64{fromMs}
	for _, s := range in.Steps() {
		if s.AtMs > fromMs && s.AtMs < toMs {
			cuts = append(cuts, s.AtMs)
		}
	}
	cuts = append(cuts, toMs)
	for i := 0; i+1 < len(cuts); i++ {
		if cuts[i+1] == cuts[i] {
			continue
		}
		c := in.At(cuts[i])
		if n := len(out); n > 0 && out[n-1].DeliveryCountLimit == c.DeliveryCountLimit &&
			out[n-1].PartitionMaxRecordLocks == c.PartitionMaxRecordLocks && out[n-1].RecordLockDurationMs == c.RecordLockDurationMs {
			out[n-1].ToMs = cuts[i+1]
			continue
		}
		out = append(out, ConfigPhase{FromMs: cuts[i], ToMs: cuts[i+1], DeliveryCountLimit: c.DeliveryCountLimit,
			PartitionMaxRecordLocks: c.PartitionMaxRecordLocks, RecordLockDurationMs: c.RecordLockDurationMs})
	}
	return out
}

// capPhasesOf cuts [fromMs, toMs) at group gi's accepted config changes and at the
// additions of partitions to its topics. A share group is assigned new partitions a
// heartbeat and a coordinator write after their addition; the phases count them from the
// addition, so the bounds of that phase are at most a few seconds generous.
func (m *metrics) capPhasesOf(gi int32, fromMs, toMs int64) []capPhase {
	in := m.configs.groupInForce(gi)
	g := m.groups[gi]
	cuts := []int64{fromMs}
	for _, s := range in.Steps() {
		if s.AtMs > fromMs && s.AtMs < toMs {
			cuts = append(cuts, s.AtMs)
		}
	}
	for _, f := range m.cfg.Faults {
		if f.Kind == FaultAddPartitions && readsTopic(g.cfg, f.Target) && f.AtMs > fromMs && f.AtMs < toMs && f.AtMs < m.cfg.DurationMs {
			cuts = append(cuts, f.AtMs)
		}
	}
	cuts = append(cuts, toMs)
	sortInt64s(cuts)
	var out []capPhase
	for i := 0; i+1 < len(cuts); i++ {
		if cuts[i+1] == cuts[i] && len(out) > 0 {
			continue
		}
		parts := 0
		for _, t := range g.cfg.Topics {
			parts += max(m.cfg.PartitionsAt(t, cuts[i]+1, 0), 0) // additions at or before cuts[i]
		}
		out = append(out, capPhase{fromMs: cuts[i], toMs: cuts[i+1], cfg: in.At(cuts[i]), parts: parts})
	}
	return out
}

// sortInt64s sorts a short slice in place (insertion sort: a handful of cut points).
func sortInt64s(a []int64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// combinePhaseLimits merges each phase's bounds into the window's: per bound name, the
// time-weighted mean of the phases' values, a phase without that bound counting at its
// tightest bound. One phase: its bounds as they are.
func combinePhaseLimits(phases []capPhase, per [][]Limit) []Limit {
	if len(per) == 1 {
		return per[0]
	}
	var names []string
	seen := map[string]bool{}
	for _, ls := range per {
		for _, l := range ls {
			if !seen[l.Name] {
				seen[l.Name] = true
				names = append(names, l.Name)
			}
		}
	}
	var total int64
	for _, p := range phases {
		total += p.toMs - p.fromMs
	}
	if total <= 0 {
		return per[len(per)-1]
	}
	var out []Limit
	for _, name := range names {
		if l, ok := samePerPhase(per, name); ok {
			out = append(out, l) // the configuration changes do not touch this bound
			continue
		}
		var sum float64
		var explain []string
		for i, p := range phases {
			tight, found := math.Inf(1), false
			var own *Limit
			for j := range per[i] {
				l := &per[i][j]
				tight = math.Min(tight, l.RecordsPerSec)
				if l.Name == name {
					own = l
				}
			}
			span := fmt.Sprintf("%s–%s", FormatMs(p.fromMs), FormatMs(p.toMs))
			switch {
			case own != nil:
				sum += own.RecordsPerSec * float64(p.toMs-p.fromMs)
				explain = append(explain, fmt.Sprintf("%s %.1f/s (%s)", span, own.RecordsPerSec, own.Explain))
				found = true
			case !math.IsInf(tight, 1):
				sum += tight * float64(p.toMs-p.fromMs)
				explain = append(explain, fmt.Sprintf("%s %.1f/s (no %s bound then: its tightest other)", span, tight, name))
				found = true
			}
			if !found {
				sum = math.Inf(1)
			}
		}
		if math.IsInf(sum, 1) {
			continue // some phase has no bound at all: nothing caps the window
		}
		out = append(out, Limit{Name: name, RecordsPerSec: sum / float64(total),
			Explain: "time-weighted over the configurations in force: " + strings.Join(explain, "; ")})
	}
	return out
}

// samePerPhase returns bound name when every phase has it with the same value and text.
func samePerPhase(per [][]Limit, name string) (Limit, bool) {
	var first Limit
	for i, ls := range per {
		found := false
		for _, l := range ls {
			if l.Name == name {
				if i > 0 && l != first {
					return Limit{}, false
				}
				first, found = l, true
			}
		}
		if !found {
			return Limit{}, false
		}
	}
	return first, true
}
