package explore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/checker/spcheck"
	"github.com/sharesim/sharesim/model"
)

// Counterexample replays a violation's path on a live share-partition and writes it as a
// scripted scenario (docs/scenarios.md) with `invariants: true`: `sharesim run` replays it
// step by step and fails at the last step on the same invariant. name becomes the
// scenario's name.
func Counterexample(sc Scope, f *Found, name string) ([]byte, error) {
	h, err := newHarness(&sc)
	if err != nil {
		return nil, err
	}
	h.live = true
	var b strings.Builder
	title := "faithful core"
	if sc.Bug != "" {
		title = "bug " + sc.Bug
	}
	if sc.Fix != "" {
		title += " with fixes " + sc.Fix
	}
	fmt.Fprintf(&b, "kind: scripted\nname: %s\n", name)
	fmt.Fprintf(&b, "title: %s\n", yamlString(fmt.Sprintf("%s: %s broken after %d steps", title, f.Invariant, len(f.Path))))
	b.WriteString("description: |\n")
	for _, line := range WrapText(fmt.Sprintf("Written by 'sharesim check': the shortest path the explorer found to a state "+
		"that breaks %s (%s). Scope: %s. The last step breaks it: %s", f.Invariant, invariantDoc(f.Invariant), sc.String(), f.Message), 92) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	b.WriteString("kafka:\n")
	fmt.Fprintf(&b, "  version: %q\n", sc.Version.String())
	fmt.Fprintf(&b, "  group.share.delivery.count.limit: %d\n", sc.Limit)
	fmt.Fprintf(&b, "  group.share.partition.max.record.locks: %d\n", sc.Cap)
	b.WriteString("  share.auto.offset.reset: earliest\n  relax_ranges: true\n")
	if sc.DLQ {
		fmt.Fprintf(&b, "  errors.deadletterqueue.topic.name: %s\n", h.cfg.DLQTopic)
	}
	if sc.Bug != "" {
		fmt.Fprintf(&b, "  bug: %s\n", sc.Bug)
	}
	if sc.Fix != "" {
		fmt.Fprintf(&b, "  fix: %s\n", sc.Fix)
	}
	b.WriteString("invariants: true\nsteps:\n")
	fmt.Fprintf(&b, "  - produce: [%s]\n", strings.ReplaceAll(joinInts(sc.Batches), ",", ", "))

	var prev, cur spcheck.View
	prev.Capture(h.sp)
	for i, a := range f.Path {
		step := h.scriptStep(a)
		st := spcheck.Step{}
		accepted := h.accepted
		if err := h.apply(a, &st); err != nil {
			if _, ok := err.(*coreError); !ok || i != len(f.Path)-1 {
				return nil, fmt.Errorf("explore: replaying step %d (%s): %w", i+1, a.Describe(&sc), err)
			}
		}
		fmt.Fprintf(&b, "  - %s\n", step)
		cur.Capture(h.sp)
		v := spcheck.Check(&h.cfg, h.sp, &prev, &cur, &st, func(off int64) bool {
			return off >= 0 && off < 64 && accepted&(1<<uint(off)) != 0
		}, !sc.NoConsistency)
		if i == len(f.Path)-1 {
			if f.Finding != "" && f.Invariant != LivenessInvariant {
				// A finding breaks only the strict invariant: pin what the step did.
				b.WriteString("    expect: {")
				if st.Kind == spcheck.StepFetch {
					fmt.Fprintf(&b, "acquired: %q, ", formatAcquired(st.Acquired))
				}
				fmt.Fprintf(&b, "spso: %d}\n", h.sp.StartOffset())
			}
			what := "breaks "
			if f.Finding != "" {
				what = "finding " + f.Finding + ", breaks "
			}
			fmt.Fprintf(&b, "    note: %s\n", yamlString(what+f.Invariant+": "+f.Message))
		} else if v != nil {
			return nil, fmt.Errorf("explore: replay broke %s at step %d of %d", v.Invariant, i+1, len(f.Path))
		}
		prev, cur = cur, prev
	}
	if f.Invariant == LivenessInvariant {
		// Show it stuck: a fetch by each member acquires what the state allows (nothing,
		// for a partition that stopped delivering), and the next fetch offset stays.
		for m := range h.members {
			nf := h.sp.NextFetchOffset()
			a := mk(actFetch, m, 0, 0, 0)
			step := h.scriptStep(a)
			var st spcheck.Step
			if err := h.apply(a, &st); err != nil {
				return nil, fmt.Errorf("explore: replaying the stuck state's fetch: %w", err)
			}
			fmt.Fprintf(&b, "  - %s\n    expect: {acquired: %q, next_fetch_offset: %d, spso: %d}\n", step, formatAcquired(st.Acquired), nf, h.sp.StartOffset())
			if m == 0 {
				fmt.Fprintf(&b, "    note: %s\n", yamlString("stuck: "+f.Message))
			}
		}
	}
	return []byte(b.String()), nil
}

// formatAcquired renders acquired ranges as a script's `acquired:` expectation.
func formatAcquired(rs []model.AcquiredRange) string {
	if len(rs) == 0 {
		return "none"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.First == r.Last {
			parts[i] = fmt.Sprintf("%d@%d", r.First, r.DeliveryCount)
		} else {
			parts[i] = fmt.Sprintf("%d-%d@%d", r.First, r.Last, r.DeliveryCount)
		}
	}
	return strings.Join(parts, " ")
}

// scriptStep renders an action as a script step, for the live harness before it applies it.
func (h *harness) scriptStep(a Action) string {
	switch a.kind() {
	case actFetch:
		mr := h.sc.MaxRecords[a.b()]
		s := fmt.Sprintf("fetch: {member: %s, max_records: %d", h.members[a.a()], mr)
		if a.c() == 1 {
			s += ", mode: record_limit"
		}
		if a.d() == 1 {
			s += ", max_batches: 1"
		}
		return s + "}"
	case actRead:
		mr := h.sc.MaxRecords[a.b()]
		s := fmt.Sprintf("read: {member: %s, max_records: %d", h.members[a.a()], mr)
		if a.c() == 1 {
			s += ", mode: record_limit"
		}
		if a.d() == 1 {
			s += ", max_batches: 1"
		}
		return s + "}"
	case actAcquire:
		return "acquire: true"
	case actAck:
		return fmt.Sprintf("ack: {member: %s, ranges: \"%d-%d:%s\", write: pending}", h.members[a.a()], a.b(), a.c(),
			strings.ToLower(model.AckType(a.d()).String()))
	case actFire:
		return fmt.Sprintf("expire: {offset: %d, writes: pending}", a.b())
	case actCommit:
		return fmt.Sprintf("commit_write: %d", h.writeID(a.b()))
	case actFail:
		return fmt.Sprintf("fail_write: %d", h.writeID(a.b()))
	case actStale:
		return fmt.Sprintf("commit_write: stale:%d", h.zombieIndex(a.b())+1)
	case actLeave:
		return fmt.Sprintf("leave: {member: %s, write: pending}", h.members[a.a()])
	case actLogStart:
		return fmt.Sprintf("move_log_start: %d", a.b())
	case actFailover:
		if a.d() == 1 {
			return "failover: {pending_writes: late}"
		}
		return "failover: {pending_writes: lost}"
	case actDLQ:
		h.qbuf = h.sp.OutstandingDLQ(h.qbuf[:0])
		result := "ok"
		if a.d() == 1 {
			result = "fail"
		}
		if a.b() < len(h.qbuf) {
			return fmt.Sprintf("dlq: {offset: %d, result: %s, write: pending}", h.qbuf[a.b()].First, result)
		}
	}
	return "note: unknown action"
}

func invariantDoc(name string) string {
	for _, i := range spcheck.Catalogue {
		if i.Name == name {
			return strings.TrimSuffix(i.Doc, ".")
		}
	}
	switch name {
	case "core-panic":
		return "the core panicked"
	case "core-error":
		return "the core answered an error the faithful core never gives"
	}
	return name
}

func yamlString(s string) string { return strconv.Quote(s) }

// WrapText splits text into lines of at most width characters (for YAML descriptions).
func WrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
