package model

import (
	"fmt"
	"sort"
	"strings"
)

// Kafka fixes: the reverse of the bug zoo. Each names a behaviour of real Kafka that
// sharesim's checkers found (docs/findings.md) and applies the natural fix for it, so that the
// explorer can show the fixed core passes the scope where the faithful core fails.
// Config.Fix selects them (comma-separated names, or "all"); the empty string is the faithful
// core, which never takes a fix branch.
//
// Each fix is one `sp.cfg.fixed(FixX)` test at the place in the core where the fix belongs.

// Fix names (Config.Fix).
const (
	// FixStuckBelowLogStart: a failed write after the lock fired archives, instead of
	// releasing, every offset below SPSO (as the lock-timeout handler does for a record
	// wholly below it; a whole batch straddling SPSO is split per offset first), and when an
	// out-of-range read reports a log start that is not above SPSO the AVAILABLE records
	// below it are still archived (Kafka's updateCacheAndOffsets returns early; this covers a
	// batch that straddles SPSO). No record released below SPSO can then pin the next fetch
	// offset below the log start or be delivered from there.
	FixStuckBelowLogStart = "stuck-below-log-start"
	// FixAcquireBelowSPSO: acquire moves a read's start up to SPSO whenever no cached batch
	// contains it, not only when no cached batch lies before it (a stale batch below SPSO
	// after a log-start move must not disable the adjustment), and no span acquired as new
	// records starts below SPSO (the span after a stale batch the read starts in).
	FixAcquireBelowSPSO = "acquire-below-spso"
	// FixSPSOBelowLogStart: when every cached record is finished the head rule moves SPSO to
	// just past the cache only if that is ahead of it, never back below the log start.
	FixSPSOBelowLogStart = "spso-below-log-start"
	// FixStuckAtCapAfterRollback: a failed write runs the head rule after its rollback, as a
	// successful one and the lock-timeout write do, so records the rollback archived at SPSO
	// (at the delivery limit after the lock fired) no longer count against the in-flight cap.
	FixStuckAtCapAfterRollback = "stuck-at-cap-after-rollback"
	// FixRollbackSkipsDLQ (Kafka 4.4): a failed write whose lock had fired sends a record
	// at the delivery limit through the dead-letter queue (ARCHIVING and a DLQ step)
	// instead of archiving it with no DLQ record, when the queue is on.
	FixRollbackSkipsDLQ = "rollback-skips-dlq"
	// FixStartOffsetRegresses (Kafka 4.2 and 4.3): the share coordinator keeps the higher
	// of the stored and the incoming start offset and chooses the delivery-complete count
	// by comparing them, as Kafka 4.4 does (#23074, #23112), so a write that arrives late no
	// longer moves the stored start offset back (StateStore.ForConfig).
	FixStartOffsetRegresses = "start-offset-regresses"
)

// FixInfo describes one fix.
type FixInfo struct {
	Name string
	// Doc says in one line what the fix changes.
	Doc string
}

var fixList = []FixInfo{
	{FixStuckBelowLogStart, "a failed write after lock expiry archives the offsets below SPSO (splitting a batch that straddles it), and an out-of-range read's log start archives AVAILABLE records below it even when it is not above SPSO"},
	{FixAcquireBelowSPSO, "acquire starts no new records below SPSO, also when a stale cached batch lies below or under the read"},
	{FixSPSOBelowLogStart, "the head rule never moves SPSO back when the whole cache is finished"},
	{FixStuckAtCapAfterRollback, "a failed write runs the head rule after its rollback, so records it archived at SPSO free the in-flight cap"},
	{FixRollbackSkipsDLQ, "4.4: a failed write whose lock fired sends a record at the delivery limit to the dead-letter queue instead of archiving it without one"},
	{FixStartOffsetRegresses, "4.2, 4.3: the share coordinator keeps the higher start offset, as 4.4 does, so a late write no longer moves it back"},
}

// Fixes lists the fixes in a fixed order.
func Fixes() []FixInfo { return append([]FixInfo(nil), fixList...) }

// FixNames lists the fix names.
func FixNames() []string {
	out := make([]string, len(fixList))
	for i, f := range fixList {
		out[i] = f.Name
	}
	return out
}

// ParseFixes normalises a kafka.fix value: comma-separated fix names, or "all"; the result
// is sorted and deduplicated ("" for none).
func ParseFixes(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if s == "all" {
		return strings.Join(sortedFixNames(), ","), nil
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		known := false
		for _, f := range fixList {
			known = known || f.Name == p
		}
		if !known {
			return "", fmt.Errorf("unknown fix %q (known: %s, or all)", p, strings.Join(FixNames(), ", "))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ","), nil
}

func sortedFixNames() []string {
	n := FixNames()
	sort.Strings(n)
	return n
}

func validateFix(s string) error {
	if _, err := ParseFixes(s); err != nil {
		return &ConfigError{Key: "fix", Value: fmt.Sprintf("%q", s), Want: "comma-separated names of " + strings.Join(FixNames(), ", ") + ", or all (or empty for the faithful core)"}
	}
	return nil
}

// Fixed reports whether the fix name is applied.
func (c *Config) Fixed(name string) bool { return c.fixed(name) }

// fixed reports whether fix name is applied. Config.Fix is short (at most a few names), so
// a substring test on its comma-separated form is enough; it runs only where a fix applies.
func (c *Config) fixed(name string) bool {
	if c.Fix == "" {
		return false
	}
	if c.Fix == "all" {
		return true
	}
	for s := c.Fix; s != ""; {
		var p string
		p, s, _ = strings.Cut(s, ",")
		if strings.TrimSpace(p) == name {
			return true
		}
	}
	return false
}
