package proptest

import (
	"flag"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/model/refspec"
	"pgregory.net/rapid"
)

// Known core/spec disagreements: bug* ones the semantics doc (or Kafka's code, where
// the doc is silent) decides against the core; reading* ones are doc ambiguities where
// the spec follows Kafka's code and the lead has to choose. While one is open, a random case that runs into it stops there (the machine goes inert for
// its remaining steps) instead of failing, so that the property keeps looking for new
// ones. Each has a scripted reproduction in scripts_test.go. -proptest.strict turns
// the filter off.
const (
	bugMergeAcrossBatches = "merge-acquired-ranges-across-cached-batches"
	bugExpirySplitWrites  = "expiry-straddling-spso-writes-per-offset"
	bugCutRoundsDownInGap = "budget-cut-in-compaction-gap-rounds-down"
	bugSPSOSplitSpan      = "spso-not-moved-when-new-span-is-cut"
	bugHeadStep3Max       = "head-rule-step3-keeps-larger-spso"
	bugForcedRevived41    = "kafka41-rollback-keeps-forced-archive"
	bugNewFirstBatch41    = "kafka41-new-first-batch-below-spso-keeps-spso"
	readingHeadStep1_41   = "kafka41-head-step1-with-uncached-spso"
	bugRelease19953_41    = "kafka41-release-bug-KAFKA-19953-not-modelled"
	bugRollbackBelowSPSO  = "failed-write-after-expiry-archives-below-spso"
	readingThrottleD      = "throttle-limit-d-from-first-acquirable-offset"
	bugThrottlePanic      = "throttle-negative-shift-panic"
)

var strict = flag.Bool("proptest.strict", false, "fail on known core bugs instead of discarding the case")

// openBugs is empty: every disagreement found so far was decided and fixed in the core
// (see docs/semantics.md); add an entry here while a newly found one is open.
var openBugs = map[string]bool{}

// known reports whether an open known bug explains the disagreement; if so the
// machine stops checking for the rest of this case.
func (m *machine) known(t *rapid.T, bug, format string, args ...any) bool {
	if !openBugs[bug] || *strict {
		return false
	}
	m.logf(t, "known core bug "+bug+": "+format, args...)
	m.dead = true
	knownHits.Add(1)
	knownMu.Lock()
	knownByBug[bug]++
	knownMu.Unlock()
	return true
}

// knownHits counts cases stopped by a known bug (reported by TestMain).
var (
	knownHits  atomic.Int64
	knownMu    sync.Mutex
	knownByBug = map[string]int{}
)

// coverage counts what the random cases exercised (reported by TestMain).
var coverage struct {
	steps, acquired, ackOK, ackErr, expiryWrites, releases, failovers, lsoMoves, rollbacks atomic.Int64
	windows, windowAcquired, reinits, initFailures                                         atomic.Int64
	dlqSteps                                                                               atomic.Int64
}

// offsetSet lists the offsets of acquired ranges.
func offsetSet(rs []refspec.Range) map[int64]bool {
	out := map[int64]bool{}
	for _, r := range rs {
		for o := r.First; o <= r.Last; o++ {
			out[o] = true
		}
	}
	return out
}

// cutInGap recognises bugCutRoundsDownInGap approximately: the spec acquired an offset
// that lies in a compaction gap of the read (its budget cut ended there) and the core
// did not acquire it.
func cutInGap(read []model.LogBatch, core, spec []refspec.Range) bool {
	c := offsetSet(core)
	for o := range offsetSet(spec) {
		inBatch := false
		for _, b := range read {
			inBatch = inBatch || (b.First <= o && o <= b.Last)
		}
		if !inBatch && o > read[0].First && o < read[len(read)-1].Last && !c[o] {
			return true
		}
	}
	return false
}

// sameOffsetsMerged recognises bugMergeAcrossBatches: both sides acquired the same
// offsets with the same delivery counts, but the core returned fewer ranges.
func sameOffsetsMerged(core, spec []refspec.Range) bool {
	dcs := func(rs []refspec.Range) map[int64]int {
		out := map[int64]int{}
		for _, r := range rs {
			for o := r.First; o <= r.Last; o++ {
				out[o] = r.DC
			}
		}
		return out
	}
	return len(core) < len(spec) && reflect.DeepEqual(dcs(core), dcs(spec))
}

// classify recognises known bugs from the state after an action.
func (m *machine) classify(t *rapid.T) bool {
	c, s := m.core, m.spec
	if c.InFlightCount() == 0 && s.Window() == 0 && len(s.Offsets()) == 0 && s.SPSO() < c.StartOffset() &&
		s.SPSO() < m.logStart && c.StartOffset() <= m.logStart {
		return m.known(t, bugHeadStep3Max, "core SPSO %d, spec %d (log start %d)", c.StartOffset(), s.SPSO(), m.logStart)
	}
	for _, o := range s.Offsets() {
		sv, _ := s.View(o)
		cv, ok := c.Record(o)
		if o < s.SPSO() && sv.State == refspec.Available && !sv.Pending && (!ok || cv.State == model.Archived) {
			return m.known(t, bugRollbackBelowSPSO, "offset %d below SPSO %d: spec AVAILABLE, core %+v", o, s.SPSO(), cv)
		}
	}
	if _, cached := s.View(s.SPSO()); m.cfg.Version == model.Kafka41 && !cached && c.StartOffset() < s.SPSO() {
		return m.known(t, readingHeadStep1_41, "core SPSO %d, spec %d", c.StartOffset(), s.SPSO())
	}
	if m.cfg.Version == model.Kafka41 {
		for _, o := range s.Offsets() {
			cv, ok := c.Record(o)
			sv, _ := s.View(o)
			if ok && cv.State == model.Archived && !cv.Pending && sv.State == refspec.Acquired {
				return m.known(t, bugForcedRevived41, "offset %d: core ARCHIVED, spec ACQUIRED", o)
			}
		}
	}
	return false
}

// throttleFirstD recognises readingThrottleD: the core took a strict superset of the
// spec's offsets, and the spec redelivered something at dc > T (a throttled batch).
func throttleFirstD(core, spec []refspec.Range, limit int) bool {
	c, s := offsetSet(core), offsetSet(spec)
	if len(c) <= len(s) {
		return false
	}
	for o := range s {
		if !c[o] {
			return false
		}
	}
	for _, r := range spec {
		if r.DC > max(2, (limit+1)/2) {
			return true
		}
	}
	return false
}
