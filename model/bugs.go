package model

import (
	"fmt"
	"strings"
)

// The bug zoo: named variants of the core that put back a share-partition bug Kafka had (or
// a rule whose absence would be one). They exist to prove that sharesim's checkers catch
// real bugs: every variant must be found by the explorer and by the simulator's invariants
// (see docs/checking.md). Config.Bug selects one; the empty name is the faithful core.
//
// Each variant is a small `if sp.cfg.Bug == BugX` switch at the place in the core where the
// fix lives, commented with the bug's name. The faithful core never takes those branches.

// Bug names (Config.Bug).
const (
	BugExpireDuringAck       = "expire-during-ack"
	BugRollbackKeepsAcquired = "rollback-keeps-acquired"
	BugRollbackIgnoresLimit  = "rollback-ignores-limit"
	BugAcquireIgnoresPending = "acquire-ignores-pending"
	BugNoCapTrim             = "no-cap-trim"
	BugSPSOStepsBack         = "spso-steps-back"
	BugReleaseStopsAtForeign = "release-stops-at-foreign"
	BugReloadAcquiresBelow   = "reload-acquires-below-spso"
	BugReloadHoleOverlaps    = "reload-hole-overlaps"
	BugStoreNoFencing        = "store-no-fencing"
	BugLeaveDecrementsCount  = "leave-decrements-count"
	BugHeadPassesPending     = "head-passes-pending"
)

// BugInfo describes one variant of the bug zoo.
type BugInfo struct {
	Name string
	// Doc says in one line what goes wrong.
	Doc string
	// Ref is the Kafka ticket or the rule (§ of the semantics reference) the variant breaks.
	Ref string
}

var bugList = []BugInfo{
	{BugExpireDuringAck, "a lock firing while an acknowledgement's write is outstanding releases the record anyway, so an accepted record becomes available again", "KAFKA-19476 family; §7.3"},
	{BugRollbackKeepsAcquired, "a failed state write after the record's lock fired puts it back to ACQUIRED with no live lock (Kafka 4.1's behaviour in 4.2)", "KAFKA-19476; §6.4"},
	{BugRollbackIgnoresLimit, "a failed state write after the lock fired makes a record at the delivery limit AVAILABLE instead of ARCHIVED", "§6.4, §3.2"},
	{BugAcquireIgnoresPending, "a fetch acquires a record whose acknowledgement's state write is still outstanding", "§2.2 T-ACQ, §4.3"},
	{BugNoCapTrim, "acquire does not trim its budget to the room left under the in-flight cap, so a fetch let in by released records overshoots the cap", "KAFKA-19555, KAFKA-19808; §4.6"},
	{BugSPSOStepsBack, "the head rule's step 4 moves SPSO to the next batch start unconditionally, backwards after a log-start jump", "KAFKA-19859; §5.2"},
	{BugReleaseStopsAtForeign, "a leaving member's release stops at the first offset of another member inside a per-offset batch", "KAFKA-19953; §7.5"},
	{BugReloadAcquiresBelow, "acquire does not start a new span at SPSO when no cached batch precedes the read, so after a reload it re-acquires finished records below SPSO", "§4.3 step 4"},
	{BugReloadHoleOverlaps, "filling a reload-gap hole runs past the next cached batch, creating overlapping cache batches", "§8.3 reload gap window"},
	{BugStoreNoFencing, "the share coordinator accepts a state write carrying an older leader or state epoch after a newer leader read the state", "§8.2 fencing"},
	{BugLeaveDecrementsCount, "a member's session release lowers the delivery count and skips the limit (Kafka 4.1's behaviour in 4.2)", "KAFKA-19972 reverted; §3.1"},
	{BugHeadPassesPending, "the head rule passes terminal records whose state write is still outstanding, so a failed write cannot restore them", "KAFKA-19436; §5.2"},
}

// Bugs lists the bug zoo in a fixed order.
func Bugs() []BugInfo { return append([]BugInfo(nil), bugList...) }

// BugNames lists the names of the bug zoo.
func BugNames() []string {
	out := make([]string, len(bugList))
	for i, b := range bugList {
		out[i] = b.Name
	}
	return out
}

// LookupBug returns the description of a bug by name.
func LookupBug(name string) (BugInfo, bool) {
	for _, b := range bugList {
		if b.Name == name {
			return b, true
		}
	}
	return BugInfo{}, false
}

func validateBug(name string) error {
	if name == "" {
		return nil
	}
	if _, ok := LookupBug(name); ok {
		return nil
	}
	return &ConfigError{Key: "bug", Value: fmt.Sprintf("%q", name), Want: "one of " + strings.Join(BugNames(), ", ") + " (or empty for the faithful core)"}
}
