package scenarios

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/model"
)

// Script is a scripted scenario: steps run in order against one share-partition, driven
// through package model the way a partition leader drives it.
type Script struct {
	// Kafka is the share-partition's configuration.
	Kafka model.Config
	// StartOffset is the share-partition's start offset when the script begins.
	StartOffset int64
	// StateEpoch is the share coordinator's state epoch when the script begins.
	StateEpoch int32
	// Invariants turns on the single-partition invariants of package checker/spcheck after
	// every step (what the explorer checks); a broken one is a failure named after it.
	Invariants bool
	Steps      []Step
}

// Step actions.
const (
	ActProduce      = "produce"
	ActFetch        = "fetch"
	ActRead         = "read"
	ActAcquire      = "acquire"
	ActAck          = "ack"
	ActAdvance      = "advance"
	ActExpire       = "expire"
	ActLeave        = "leave"
	ActMoveLogStart = "move_log_start"
	ActCompact      = "compact"
	ActFailover     = "failover"
	ActFailNext     = "fail_next_write"
	ActCommitWrite  = "commit_write"
	ActFailWrite    = "fail_write"
	ActReinitialize = "reinitialize"
	ActLoadState    = "load_state"
	// ActDLQ ends the outstanding dead-letter-queue produce (Kafka 4.4) covering Offset:
	// DLQFailed says every attempt failed; Write is what happens to its ARCHIVED write.
	ActDLQ = "dlq"
)

// Write outcomes for the writes a step issues.
const (
	WriteCommit  = "commit"  // the share coordinator stores it; the leader learns at once
	WriteFail    = "fail"    // the share coordinator fails it (COORDINATOR_NOT_AVAILABLE)
	WritePending = "pending" // left outstanding; commit_write or fail_write ends it later
)

// Step is one operation of a script with its optional expectations. Which fields matter
// depends on Action.
type Step struct {
	// N is the step's number, from 1.
	N int
	// Line and Column locate the step in its file.
	Line, Column int
	Action       string
	Note         string

	// produce: producer batch sizes, appended to the log; Aborted marks them as batches of
	// an aborted transaction.
	Batches []int
	Aborted bool
	// fetch, ack, leave: the member.
	Member string
	// fetch, read: the request's parameters; MaxBatches > 0 limits the log read to that
	// many producer batches (a read cut short by its byte limit). read reads the log and
	// leaves the acquisition to a later acquire step; fetch does both at once.
	Fetch      model.FetchParams
	MaxBatches int
	// ack: the acknowledged ranges.
	Acks []model.AckRange
	// ack, leave, advance: what happens to the state writes issued.
	Write string
	// advance: how far virtual time moves.
	AdvanceMs int64
	// move_log_start: the new log start offset; expire: the offset whose lock fires.
	Offset int64
	// compact: producer batches wholly inside First..Last are removed from the log.
	First, Last int64
	// failover: "lost" (the default) drops the old leader's outstanding writes; "stored"
	// lets them reach the share coordinator before the new leader reads it; "late" keeps
	// them outstanding as stale writes that commit_write/fail_write "stale" complete later.
	PendingWrites string
	// fail_next_write: how many of the next writes fail.
	Count int
	// dlq: the produce failed (result: fail) rather than reaching the topic (ok).
	DLQFailed bool
	// fail_next_write, fail_write, load_state: the share coordinator's error (default
	// COORDINATOR_NOT_AVAILABLE for writes; none for load_state).
	ErrorCode model.ErrorCode
	// failover: SlowLoad leaves the new share-partition INITIALIZING until load_state.
	SlowLoad bool
	// reinitialize: the share coordinator's new state epoch (StateEpoch) and start offset
	// (Offset; -1 lets share.auto.offset.reset decide).
	StateEpoch int32
	// commit_write, fail_write: "all", "oldest", "newest", a write id, or "stale" /
	// "stale:N" for the oldest / N-th oldest outstanding write of an earlier leader.
	Which string

	Expect *Expect
}

// Expect holds the expectations checked after a step. Nil fields are not checked.
type Expect struct {
	Line, Column int

	// Acquired is the fetch's result as "0-4@1 5-9@2" (offsets first-last @ delivery
	// count), "" for nothing.
	Acquired *string
	// Error is the Kafka error code of the step (NONE for success).
	Error *string
	// States are the expected states of cached offsets.
	States []OffsetExpect
	// SPSO, SPEO, InFlight, NextFetchOffset, OutstandingWrites and StoredStartOffset are
	// the share-partition's start and end offsets, in-flight window, next fetch offset,
	// outstanding state writes and the share coordinator's stored start offset.
	SPSO, SPEO, InFlight, NextFetchOffset, OutstandingWrites, StoredStartOffset *int64
	// Held is the number of offsets each named member holds.
	Held []HeldExpect
	// CanAcquire is the in-flight gate (CanAcquire).
	CanAcquire *bool
	// Stored are the expected states in the share coordinator.
	Stored []OffsetExpect
}

// OffsetExpect is the expected state of offsets First..Last.
type OffsetExpect struct {
	Line, Column int
	First, Last  int64
	// Absent expects the offsets not to be cached (or not stored).
	Absent bool
	State  model.State
	// DeliveryCount is checked when >= 0; Owner when non-empty; Pending when true.
	DeliveryCount int
	Owner         string
	Pending       bool
	// Text is the expectation as written.
	Text string
}

// HeldExpect is the expected number of offsets a member holds.
type HeldExpect struct {
	Line, Column int
	Member       string
	Count        int64
}

// Bounds that keep a script's run time and memory small.
const (
	maxExpectRange = 1_000_000         // offsets in one states/stored expectation
	maxLogRecords  = 10_000_000        // records produced by a whole script
	maxStartOffset = 1_000_000_000_000 // start_offset and move_log_start
)

func (d *decoder) script(top *fields, ks *kafkaSection) *Script {
	sc := &Script{Kafka: ks.cfg}
	if v := top.get("start_offset"); v != nil {
		if x, ok := d.integer(v, "start_offset", 0, maxStartOffset); ok {
			sc.StartOffset = x
		}
	}
	if v := top.get("state_epoch"); v != nil {
		if x, ok := d.integer(v, "state_epoch", 0, math.MaxInt32); ok {
			sc.StateEpoch = int32(x)
		}
	}
	if v := top.get("invariants"); v != nil {
		sc.Invariants, _ = d.boolean(v, "invariants")
	}
	items, listOK := d.list(top.get("steps"), "steps")
	if top.get("steps") == nil {
		d.fail(top.node, "steps", "no value", "a list of steps")
	} else if listOK && len(items) == 0 {
		d.fail(top.get("steps"), "steps", "an empty list", "at least one step (a script without steps checks nothing)")
	}
	produced := int64(0)
	for i, it := range items {
		st := d.step(it, indexPath("steps", i), i+1)
		for _, n := range st.Batches {
			produced += int64(n)
		}
		if produced > maxLogRecords {
			d.fail(it, indexPath("steps", i), "a script producing more than "+strconv.Itoa(maxLogRecords)+" records", "fewer records")
			break
		}
		sc.Steps = append(sc.Steps, st)
	}
	return sc
}

func (d *decoder) step(n *yaml.Node, p string, num int) Step {
	st := Step{N: num, Line: n.Line, Column: n.Column}
	f := d.mapping(n, p, stepShape)
	if f == nil {
		return st
	}
	var acts []string
	for _, k := range f.order {
		if contains(stepActions, k) {
			acts = append(acts, k)
		}
	}
	if len(acts) != 1 {
		found := "no action"
		if len(acts) > 1 {
			found = "several actions (" + strings.Join(acts, ", ") + ")"
		}
		d.fail(n, p, found, "exactly one action: "+strings.Join(stepActions, ", "))
		return st
	}
	st.Action = acts[0]
	if v := f.get("note"); v != nil {
		st.Note, _ = d.text(v, f.p("note"))
	}
	v := f.get(st.Action)
	ap := f.p(st.Action)
	switch st.Action {
	case ActProduce:
		d.produceStep(v, ap, &st)
	case ActFetch, ActRead:
		d.fetchStep(v, ap, &st)
	case ActAcquire:
		if !isNull(v) {
			if b, ok := d.boolean(v, ap); ok && !b {
				d.fail(v, ap, "false", "true or nothing (remove the step to skip it)")
			}
		}
	case ActReinitialize:
		st.Offset = -1
		if rf := d.mapping(v, ap, stepShape.lookup(ActReinitialize)); rf != nil {
			if x := rf.get("state_epoch"); x != nil {
				if e, ok := d.integer(x, rf.p("state_epoch"), 0, math.MaxInt32); ok {
					st.StateEpoch = int32(e)
				}
			} else {
				d.fail(v, rf.p("state_epoch"), "no value", "the new state epoch")
			}
			if x := rf.get("start_offset"); x != nil {
				st.Offset, _ = d.integer(x, rf.p("start_offset"), -1, maxStartOffset)
			}
		}
	case ActLoadState:
		if v.Kind == yaml.MappingNode {
			if lf := d.mapping(v, ap, stepShape.lookup(ActLoadState)); lf != nil {
				st.ErrorCode = d.errorCodeOpt(lf, model.ErrNone)
			}
		} else if !isNull(v) {
			if b, ok := d.boolean(v, ap); ok && !b {
				d.fail(v, ap, "false", "true, nothing, or {error: CODE}")
			}
		}
	case ActAck:
		d.ackStep(v, ap, &st)
	case ActAdvance:
		st.Write = WriteCommit
		if v.Kind == yaml.MappingNode {
			af := d.mapping(v, ap, stepShape.lookup(ActAdvance))
			if af != nil {
				if b := af.get("by"); b != nil {
					st.AdvanceMs, _ = d.duration(b, af.p("by"), 0)
				} else {
					d.fail(v, af.p("by"), "no value", "how far to move time (e.g. 30s)")
				}
				st.Write = d.writeOpt(af, "writes")
			}
		} else {
			st.AdvanceMs, _ = d.duration(v, ap, 0)
		}
	case ActExpire:
		st.Write = WriteCommit
		if v.Kind == yaml.MappingNode {
			ef := d.mapping(v, ap, stepShape.lookup(ActExpire))
			if ef != nil {
				if o := ef.get("offset"); o != nil {
					st.Offset, _ = d.integer(o, ef.p("offset"), 0, maxStartOffset)
				} else {
					d.fail(v, ef.p("offset"), "no value", "the offset whose lock fires")
				}
				st.Write = d.writeOpt(ef, "writes")
			}
		} else {
			st.Offset, _ = d.integer(v, ap, 0, maxStartOffset)
		}
	case ActLeave:
		st.Write = WriteCommit
		if v.Kind == yaml.MappingNode {
			lf := d.mapping(v, ap, stepShape.lookup(ActLeave))
			if lf != nil {
				st.Member = d.member(lf, v)
				st.Write = d.writeOpt(lf, "write")
			}
		} else {
			st.Member, _ = d.str(v, ap, "a member name")
		}
	case ActDLQ:
		st.Write = WriteCommit
		if qf := d.mapping(v, ap, stepShape.lookup(ActDLQ)); qf != nil {
			if o := qf.get("offset"); o != nil {
				st.Offset, _ = d.integer(o, qf.p("offset"), 0, maxStartOffset)
			} else {
				d.fail(v, qf.p("offset"), "no value", "an offset of the outstanding DLQ produce to end")
			}
			if rv := qf.get("result"); rv != nil {
				if s, ok := d.enum(rv, qf.p("result"), "ok", "fail"); ok {
					st.DLQFailed = s == "fail"
				}
			}
			st.Write = d.writeOpt(qf, "write")
		}
	case ActMoveLogStart:
		st.Offset, _ = d.integer(v, ap, 0, maxStartOffset)
	case ActCompact:
		if s, ok := d.scalar(v, ap, "an offset range like 5-9"); ok {
			a, b, err := parseRange(s)
			if err != nil {
				d.fail(v, ap, describe(v), "an offset range like 5-9")
			}
			st.First, st.Last = a, b
		}
	case ActFailover:
		st.PendingWrites = "lost"
		switch {
		case v.Kind == yaml.MappingNode:
			ff := d.mapping(v, ap, stepShape.lookup(ActFailover))
			if ff != nil {
				if pw := ff.get("pending_writes"); pw != nil {
					if s, ok := d.enum(pw, ff.p("pending_writes"), "lost", "stored", "late"); ok {
						st.PendingWrites = s
					}
				}
				if l := ff.get("load"); l != nil {
					if s, ok := d.enum(l, ff.p("load"), "now", "slow"); ok {
						st.SlowLoad = s == "slow"
					}
				}
			}
		case isNull(v):
		default:
			if b, ok := d.boolean(v, ap); ok && !b {
				d.fail(v, ap, "false", "true, nothing, or {pending_writes: lost|stored} (remove the step to skip it)")
			}
		}
	case ActFailNext:
		st.Count, st.ErrorCode = 1, model.ErrCoordinatorNotAvailable
		if v.Kind == yaml.MappingNode {
			if nf := d.mapping(v, ap, stepShape.lookup(ActFailNext)); nf != nil {
				if c := nf.get("count"); c != nil {
					if x, ok := d.integer(c, nf.p("count"), 1, 1_000_000); ok {
						st.Count = int(x)
					}
				}
				st.ErrorCode = d.errorCodeOpt(nf, model.ErrCoordinatorNotAvailable)
			}
		} else if !isNull(v) {
			if v.Kind == yaml.ScalarNode && (v.Value == "true" || v.Value == "false") {
				if v.Value == "false" {
					d.fail(v, ap, "false", "true or a number of writes (remove the step to skip it)")
				}
			} else if x, ok := d.integer(v, ap, 1, 1_000_000); ok {
				st.Count = int(x)
			}
		}
	case ActCommitWrite, ActFailWrite:
		const want = "all, oldest, newest or a write id (1, 2, ...), or stale / stale:N for a write of an earlier leader"
		st.ErrorCode = model.ErrCoordinatorNotAvailable
		if v.Kind == yaml.MappingNode && st.Action == ActFailWrite {
			wf := d.mapping(v, ap, stepShape.lookup(ActFailWrite))
			if wf == nil {
				break
			}
			st.ErrorCode = d.errorCodeOpt(wf, model.ErrCoordinatorNotAvailable)
			if v = wf.get("which"); v == nil {
				d.fail(wf.node, wf.p("which"), "no value", want)
				break
			}
			ap = wf.p("which")
		}
		if s, ok := d.scalar(v, ap, want); ok {
			if s != "all" && s != "oldest" && s != "newest" && s != "stale" {
				if x, err := strconv.ParseUint(strings.TrimPrefix(s, "stale:"), 10, 64); err != nil || x == 0 {
					d.fail(v, ap, describe(v), want)
				}
			}
			st.Which = s
		}
	}
	if e := f.get("expect"); e != nil {
		st.Expect = d.expect(e, f.p("expect"), st.Action)
	}
	return st
}

// errorCodeOpt reads the optional error key: one of the persister's error codes.
func (d *decoder) errorCodeOpt(f *fields, def model.ErrorCode) model.ErrorCode {
	v := f.get("error")
	if v == nil {
		return def
	}
	var names []string
	for _, c := range model.PersisterErrors {
		names = append(names, c.String())
	}
	s, ok := d.enum(v, f.p("error"), names...)
	if !ok {
		return def
	}
	c, _ := model.ParseErrorCode(s)
	return c
}

func (d *decoder) member(f *fields, n *yaml.Node) string {
	v := f.get("member")
	if v == nil {
		d.fail(n, f.p("member"), "no value", "a member name")
		return ""
	}
	s, _ := d.str(v, f.p("member"), "a member name")
	return s
}

func (d *decoder) writeOpt(f *fields, key string) string {
	v := f.get(key)
	if v == nil {
		return WriteCommit
	}
	s, ok := d.enum(v, f.p(key), WriteCommit, WriteFail, WritePending)
	if !ok {
		return WriteCommit
	}
	return s
}

func (d *decoder) produceStep(v *yaml.Node, ap string, st *Step) {
	batches := v
	if v.Kind == yaml.MappingNode {
		pf := d.mapping(v, ap, stepShape.lookup(ActProduce))
		if pf == nil {
			return
		}
		batches = pf.get("batches")
		if batches == nil {
			d.fail(v, pf.p("batches"), "no value", "a list of batch sizes")
			return
		}
		ap = pf.p("batches")
		if a := pf.get("aborted"); a != nil {
			st.Aborted, _ = d.boolean(a, pf.p("aborted"))
		}
	}
	if batches.Kind == yaml.ScalarNode && !isNull(batches) {
		if x, ok := d.integer(batches, ap, 1, 1_000_000); ok {
			st.Batches = []int{int(x)}
		}
		return
	}
	items, ok := d.list(batches, ap)
	if ok && len(items) == 0 {
		d.fail(batches, ap, "no batches", "a list of batch sizes like [5, 5]")
	}
	for i, it := range items {
		if x, ok := d.integer(it, indexPath(ap, i), 1, 1_000_000); ok {
			st.Batches = append(st.Batches, int(x))
		}
	}
}

func (d *decoder) fetchStep(v *yaml.Node, ap string, st *Step) {
	st.Fetch = model.FetchParams{MaxRecords: model.DefaultMaxPollRecords, BatchSize: model.DefaultMaxPollRecords}
	if v.Kind != yaml.MappingNode {
		st.Member, _ = d.str(v, ap, "a member name or {member, max_records, batch_size, mode}")
		return
	}
	ff := d.mapping(v, ap, stepShape.lookup(ActFetch))
	if ff == nil {
		return
	}
	st.Member = d.member(ff, v)
	if x := ff.get("max_batches"); x != nil {
		if m, ok := d.integer(x, ff.p("max_batches"), 1, 1_000_000); ok {
			st.MaxBatches = int(m)
		}
	}
	if x := ff.get("max_records"); x != nil {
		if m, ok := d.integer(x, ff.p("max_records"), 0, 1_000_000_000); ok {
			st.Fetch.MaxRecords, st.Fetch.BatchSize = int(m), int(m)
		}
	}
	if x := ff.get("batch_size"); x != nil {
		if m, ok := d.integer(x, ff.p("batch_size"), 0, 1_000_000_000); ok {
			st.Fetch.BatchSize = int(m)
		}
	}
	if x := ff.get("mode"); x != nil {
		if s, ok := d.enum(x, ff.p("mode"), "batch_optimized", "record_limit"); ok {
			st.Fetch.Mode, _ = model.ParseAcquireMode(s)
		}
	}
}

var ackTypeNames = map[string]model.AckType{"accept": model.AckAccept, "release": model.AckRelease, "reject": model.AckReject, "gap": model.AckGap, "renew": model.AckRenew}

const ackTypeWant = "an acknowledgement type: accept, release, reject, gap or renew"

func (d *decoder) ackType(n *yaml.Node, path, s string) (model.AckType, bool) {
	t, ok := ackTypeNames[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		e := d.errorAt(n, path, quoteValue(s), ackTypeWant)
		e.Suggestion = suggest(strings.ToLower(s), []string{"accept", "release", "reject", "gap", "renew"})
		d.add(e)
	}
	return t, ok
}

func (d *decoder) ackTypes(n *yaml.Node, path string) ([]model.AckType, bool) {
	var out []model.AckType
	if n.Kind == yaml.SequenceNode {
		for i, it := range n.Content {
			s, ok := d.scalar(it, indexPath(path, i), ackTypeWant)
			if !ok {
				return nil, false
			}
			t, ok := d.ackType(it, indexPath(path, i), s)
			if !ok {
				return nil, false
			}
			out = append(out, t)
		}
		if len(out) == 0 {
			d.fail(n, path, "no types", ackTypeWant)
			return nil, false
		}
		return out, true
	}
	s, ok := d.scalar(n, path, ackTypeWant+" (or a list of them, one per offset)")
	if !ok {
		return nil, false
	}
	for _, part := range strings.Split(s, ",") {
		t, ok := d.ackType(n, path, part)
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// parseRange parses "5" or "5-9".
func parseRange(s string) (int64, int64, error) {
	s = strings.TrimSpace(s)
	a, b, has := strings.Cut(s, "-")
	x, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
	if err != nil || x < 0 {
		return 0, 0, fmt.Errorf("bad offset")
	}
	y := x
	if has {
		y, err = strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if err != nil || y < 0 {
			return 0, 0, fmt.Errorf("bad offset")
		}
	}
	return x, y, nil
}

const ackRangeWant = `a range with its type: "0-4:accept", "5-6:accept,release", {0-4: accept} or {range: 0-4, type: accept}`

// ackStep decodes ack: {member, ranges, write}.
func (d *decoder) ackStep(v *yaml.Node, ap string, st *Step) {
	af := d.mapping(v, ap, stepShape.lookup(ActAck))
	if af == nil {
		return
	}
	st.Member = d.member(af, v)
	st.Write = d.writeOpt(af, "write")
	rn := af.get("ranges")
	rp := af.p("ranges")
	if rn == nil {
		d.fail(v, rp, "no value", "the acknowledged ranges")
		return
	}
	var items []*yaml.Node
	switch rn.Kind {
	case yaml.SequenceNode:
		items = rn.Content
	case yaml.ScalarNode:
		if isNull(rn) {
			break
		}
		// "0-4:accept 5-6:accept,release"
		for _, part := range strings.Fields(rn.Value) {
			if r, ok := d.ackRangeText(rn, rp, part); ok {
				st.Acks = append(st.Acks, r)
			}
		}
		if len(strings.Fields(rn.Value)) == 0 {
			d.fail(rn, rp, describe(rn), ackRangeWant)
		}
		return
	case yaml.MappingNode:
		items = []*yaml.Node{rn}
	default:
		d.fail(rn, rp, describe(rn), ackRangeWant)
		return
	}
	for i, it := range items {
		ip := indexPath(rp, i)
		if rn.Kind == yaml.MappingNode {
			ip = rp
		}
		switch it.Kind {
		case yaml.ScalarNode:
			if s, ok := d.scalar(it, ip, ackRangeWant); ok {
				if r, ok := d.ackRangeText(it, ip, s); ok {
					st.Acks = append(st.Acks, r)
				}
			}
		case yaml.MappingNode:
			if hasKey(it, "range") {
				mf := d.mapping(it, ip, ackRangeShape)
				if mf == nil {
					continue
				}
				rs, ok := d.scalar(mf.at("range"), mf.p("range"), "an offset range like 0-4")
				if !ok {
					continue
				}
				a, b, err := parseRange(rs)
				if err != nil {
					d.fail(mf.get("range"), mf.p("range"), describe(mf.get("range")), "an offset range like 0-4")
					continue
				}
				tn, tk := mf.get("type"), "type"
				if tn == nil {
					tn, tk = mf.get("types"), "types"
				} else if mf.get("types") != nil {
					d.fail(mf.key["types"], mf.p("types"), "both type and types", "one of them")
					continue
				}
				if tn == nil {
					d.fail(it, mf.p("type"), "no value", ackTypeWant)
					continue
				}
				ts, ok := d.ackTypes(tn, mf.p(tk))
				if ok {
					st.Acks = append(st.Acks, model.AckRange{First: a, Last: b, Types: ts})
				}
				continue
			}
			// Short form {0-4: accept}, possibly several ranges in one mapping.
			for j := 0; j+1 < len(it.Content); j += 2 {
				k, tv := it.Content[j], it.Content[j+1]
				a, b, err := parseRange(k.Value)
				if k.Kind != yaml.ScalarNode || err != nil {
					d.fail(k, ip, describe(k), ackRangeWant)
					continue
				}
				if ts, ok := d.ackTypes(tv, joinPath(ip, k.Value)); ok {
					st.Acks = append(st.Acks, model.AckRange{First: a, Last: b, Types: ts})
				}
			}
		default:
			d.fail(it, ip, describe(it), ackRangeWant)
		}
	}
	if len(items) == 0 {
		d.fail(rn, rp, describe(rn), ackRangeWant)
	}
}

func hasKey(n *yaml.Node, k string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return true
		}
	}
	return false
}

// ackRangeText parses "0-4:accept" or "5-6:accept,release".
func (d *decoder) ackRangeText(n *yaml.Node, path, s string) (model.AckRange, bool) {
	rs, ts, ok := strings.Cut(s, ":")
	if !ok {
		d.fail(n, path, quoteValue(s), ackRangeWant)
		return model.AckRange{}, false
	}
	a, b, err := parseRange(rs)
	if err != nil {
		d.fail(n, path, quoteValue(s), ackRangeWant)
		return model.AckRange{}, false
	}
	var types []model.AckType
	for _, part := range strings.Split(ts, ",") {
		t, ok := d.ackType(n, path, part)
		if !ok {
			return model.AckRange{}, false
		}
		types = append(types, t)
	}
	return model.AckRange{First: a, Last: b, Types: types}, true
}

var errorCodeNames = func() []string {
	var out []string
	for c := model.ErrNone; ; c++ {
		s := c.String()
		if strings.HasPrefix(s, "ErrorCode(") {
			return out
		}
		out = append(out, s)
	}
}()

var stateNames = map[string]model.State{
	"AVAILABLE": model.Available, "ACQUIRED": model.Acquired, "ACKNOWLEDGED": model.Acknowledged, "ARCHIVED": model.Archived, "ARCHIVING": model.Archiving,
	"AVA": model.Available, "ACQ": model.Acquired, "ACK": model.Acknowledged, "ARC": model.Archived,
}

func (d *decoder) expect(n *yaml.Node, p string, action string) *Expect {
	ef := d.mapping(n, p, expectShape)
	if ef == nil {
		return nil
	}
	e := &Expect{Line: n.Line, Column: n.Column}
	if v := ef.get("acquired"); v != nil {
		if action != ActFetch && action != ActAcquire {
			d.fail(ef.key["acquired"], ef.p("acquired"), "acquired after a "+action+" step", "acquired only after fetch and acquire steps")
		} else if s, ok := d.text(v, ef.p("acquired")); ok {
			norm, err := normalizeAcquired(s)
			if err != nil {
				d.fail(v, ef.p("acquired"), describe(v), `acquired ranges like "0-4@1 5-9@2" (offsets@delivery count), or "" for none`)
			} else {
				e.Acquired = &norm
			}
		}
	}
	if v := ef.get("error"); v != nil {
		want := "a Kafka error code: " + strings.Join(errorCodeNames, ", ")
		if s, ok := d.scalar(v, ef.p("error"), want); ok {
			s = strings.ToUpper(strings.TrimSpace(s))
			if !contains(errorCodeNames, s) {
				x := d.errorAt(v, ef.p("error"), describe(v), want)
				x.Suggestion = suggest(s, errorCodeNames)
				d.add(x)
			} else {
				e.Error = &s
			}
		}
	}
	ints := []struct {
		key string
		dst **int64
	}{{"spso", &e.SPSO}, {"speo", &e.SPEO}, {"in_flight", &e.InFlight}, {"next_fetch_offset", &e.NextFetchOffset},
		{"outstanding_writes", &e.OutstandingWrites}, {"stored_start_offset", &e.StoredStartOffset}}
	for _, it := range ints {
		if v := ef.get(it.key); v != nil {
			lo := int64(0)
			if it.key == "stored_start_offset" {
				lo = -1
			}
			if x, ok := d.integer(v, ef.p(it.key), lo, math.MaxInt64); ok {
				*it.dst = &x
			}
		}
	}
	if v := ef.get("can_acquire"); v != nil {
		if b, ok := d.boolean(v, ef.p("can_acquire")); ok {
			e.CanAcquire = &b
		}
	}
	if v := ef.get("held"); v != nil {
		hf := d.mapping(v, ef.p("held"), nil)
		if hf != nil {
			for _, m := range hf.order {
				if x, ok := d.integer(hf.val[m], hf.p(m), 0, math.MaxInt64); ok {
					k := hf.key[m]
					e.Held = append(e.Held, HeldExpect{Line: k.Line, Column: k.Column, Member: m, Count: x})
				}
			}
		}
	}
	e.States = d.offsetExpects(ef, "states", false)
	e.Stored = d.offsetExpects(ef, "stored", true)
	return e
}

const stateWant = "STATE[/DELIVERY_COUNT[/OWNER]][*] with STATE one of AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED, or NOT_CACHED"
const storedWant = "STATE[/DELIVERY_COUNT] with STATE one of AVAILABLE, ACKNOWLEDGED, ARCHIVED, or NOT_STORED"

func (d *decoder) offsetExpects(ef *fields, key string, stored bool) []OffsetExpect {
	v := ef.get(key)
	if v == nil {
		return nil
	}
	sf := d.mapping(v, ef.p(key), nil)
	if sf == nil {
		return nil
	}
	want := stateWant
	if stored {
		want = storedWant
	}
	var out []OffsetExpect
	for _, k := range sf.order {
		kn := sf.key[k]
		a, b, err := parseRange(k)
		if err != nil || b < a {
			d.fail(kn, sf.p(k), describe(kn)+" as an offset", "an offset or an offset range like 5-9")
			continue
		}
		if b-a >= maxExpectRange {
			d.fail(kn, sf.p(k), "a range of "+strconv.FormatInt(b-a+1, 10)+" offsets", "a range of at most "+strconv.Itoa(maxExpectRange)+" offsets")
			continue
		}
		val := sf.val[k]
		s, ok := d.scalar(val, sf.p(k), want)
		if !ok {
			continue
		}
		oe, ok := parseOffsetExpect(s, stored)
		if !ok {
			d.fail(val, sf.p(k), describe(val), want)
			continue
		}
		oe.Line, oe.Column, oe.First, oe.Last, oe.Text = kn.Line, kn.Column, a, b, strings.TrimSpace(s)
		out = append(out, oe)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].First < out[j].First })
	return out
}

func parseOffsetExpect(s string, stored bool) (OffsetExpect, bool) {
	oe := OffsetExpect{DeliveryCount: -1}
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "*") {
		if stored {
			return oe, false
		}
		oe.Pending = true
		s = strings.TrimSuffix(s, "*")
	}
	parts := strings.Split(s, "/")
	up := strings.ToUpper(strings.TrimSpace(parts[0]))
	if (!stored && up == "NOT_CACHED") || (stored && up == "NOT_STORED") {
		oe.Absent = true
		return oe, len(parts) == 1 && !oe.Pending
	}
	st, ok := stateNames[up]
	if !ok || (stored && st == model.Acquired) {
		return oe, false
	}
	oe.State = st
	if len(parts) > 1 {
		dc, err := strconv.Atoi(strings.TrimSpace(parts[1]))
		if err != nil || dc < 0 || dc > math.MaxInt16 {
			return oe, false
		}
		oe.DeliveryCount = dc
	}
	if len(parts) > 2 {
		if stored || strings.TrimSpace(parts[2]) == "" {
			return oe, false
		}
		oe.Owner = strings.TrimSpace(parts[2])
	}
	return oe, len(parts) <= 3
}

// normalizeAcquired parses "0-4@1 5-9@2" (or "3@1") and renders it canonically.
func normalizeAcquired(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return "", nil
	}
	var parts []string
	for _, f := range strings.Fields(s) {
		rs, dcs, ok := strings.Cut(f, "@")
		if !ok {
			return "", fmt.Errorf("missing @")
		}
		a, b, err := parseRange(rs)
		if err != nil || b < a {
			return "", fmt.Errorf("bad range")
		}
		dc, err := strconv.Atoi(dcs)
		if err != nil || dc < 0 || dc > math.MaxInt16 {
			return "", fmt.Errorf("bad delivery count")
		}
		parts = append(parts, fmt.Sprintf("%d-%d@%d", a, b, dc))
	}
	return strings.Join(parts, " "), nil
}

func renderAcquired(rs []model.AcquiredRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%d-%d@%d", r.First, r.Last, r.DeliveryCount)
	}
	return strings.Join(parts, " ")
}
