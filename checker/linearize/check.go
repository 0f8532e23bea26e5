package linearize

import (
	"fmt"
	"html"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// DefaultTimeLimit bounds the check of one share-partition when Options.TimeLimit is zero.
// The CLI sets it from a flag.
var DefaultTimeLimit = 5 * time.Second

// Options configure a check.
type Options struct {
	Spec
	// TimeLimit bounds the porcupine search of one share-partition; when it runs out the
	// share-partition's verdict is Unknown. Zero means DefaultTimeLimit.
	TimeLimit time.Duration
	// MaxFailures is how many failing offset classes are reported per share-partition
	// (default 10).
	MaxFailures int
	// InForce holds, by group name, the timeline of the configuration in force for the
	// groups whose delivery limit or lock duration changes during the run (config-change
	// faults); a group not in it keeps Spec's values.
	InForce map[string]sim.InForce
}

// OptionsFor derives the specification from a simulator configuration.
func OptionsFor(cfg sim.Config) Options {
	o := Options{Spec: Spec{
		LockDurationMs: cfg.Kafka.RecordLockDurationMs,
		DeliveryLimit:  cfg.Kafka.DeliveryCountLimit,
		Kafka41:        cfg.Kafka.Version == model.Kafka41,
		NoRenew:        cfg.Kafka.DisableRenewAcknowledge,
	}}
	if steps := cfg.ConfigSteps(); steps != nil {
		o.InForce = map[string]sim.InForce{}
		for gi, g := range cfg.Groups {
			if in := sim.InForceFor(&cfg, steps, int32(gi)); in.Changes() {
				o.InForce[g.Name] = in
			}
		}
	}
	return o
}

// Result is the outcome of a check.
type Result struct {
	// Verdict is Illegal if any share-partition is, else Unknown if any timed out, else Ok.
	Verdict porcupine.CheckResult
	Shares  []ShareResult
	// Ops counts the client operations, OffsetOps the per-offset operations porcupine
	// checked, Classes the offset classes (offsets with identical histories are checked
	// once), Offsets the offsets those classes cover.
	Ops, OffsetOps, Classes int
	Offsets                 int64
	Elapsed                 time.Duration

	vis []*class // failing classes, for the visualisation
}

// addShare appends a share-partition's result; the run's verdict is the worst of them
// (Illegal over Unknown over Ok).
func (r *Result) addShare(sr ShareResult) {
	r.Shares = append(r.Shares, sr)
	switch {
	case sr.Verdict == porcupine.Illegal:
		r.Verdict = porcupine.Illegal
	case sr.Verdict == porcupine.Unknown && r.Verdict == porcupine.Ok:
		r.Verdict = porcupine.Unknown
	}
}

// ShareResult is the outcome for one share-partition.
type ShareResult struct {
	Group, Partition string
	Verdict          porcupine.CheckResult
	Ops              int
	OffsetOps        int
	Classes          int
	Elapsed          time.Duration
	Failures         []Failure
}

// Failure is one offset class whose history has no linearization.
type Failure struct {
	Group, Partition string
	// Offsets lists the offsets, for example "10-14,20".
	Offsets string
	// Member, TimeMs: the client and return time (call time if lost) of the first operation,
	// in call order, that cannot be linearized after the ones before it.
	Member  string
	TimeMs  int64
	Message string
}

// chunkOps is about how many per-offset operations one porcupine call checks.
const chunkOps = 8192

// maxVisClasses caps the offset classes shown in the visualisation.
const maxVisClasses = 16

func newModel() porcupine.Model {
	return porcupine.Model{
		Init:              func() interface{} { return stateSet(nil) },
		Step:              step,
		Equal:             equalSets,
		Hash:              hashSet,
		DescribeOperation: describeOp,
		DescribeState:     describeState,
	}
}

// Check checks a client history, with the hidden events of the same run, against the
// specification.
func Check(h []sim.Op, hidden []sim.HiddenEvent, o Options) *Result {
	start := time.Now()
	o = o.withDefaults()
	res := &Result{Verdict: porcupine.Ok, Ops: len(h)}
	for _, sh := range splitShares(h, hidden) {
		res.addShare(checkShare(sh, h, o, res))
	}
	res.Elapsed = time.Since(start)
	return res
}

func checkShare(sh *shareHistory, h []sim.Op, o Options, res *Result) ShareResult {
	start := time.Now()
	sr := ShareResult{Group: sh.group, Partition: sh.partition, Verdict: porcupine.Ok, Ops: len(sh.ops)}
	e, clients := buildEnv(sh, h, o.Spec)
	e.inForce = o.InForce[sh.group]
	buf := &buildBuf{}
	checkClasses(newModel(), sh, h, buildClasses(sh, h, e, clients, buf), o, res, &sr, start.Add(o.TimeLimit), buf)
	sr.Elapsed = time.Since(start)
	return sr
}

// checkClasses checks one share-partition's offset classes, in chunks, until deadline; it
// counts them in sr and res, and reports false when the time ran out (sr is then Unknown,
// unless it is already Illegal: a failure found stays found).
func checkClasses(m porcupine.Model, sh *shareHistory, h []sim.Op, classes []*class, o Options, res *Result, sr *ShareResult, deadline time.Time, buf *buildBuf) bool {
	if buf == nil {
		buf = &buildBuf{}
	}
	sr.Classes += len(classes)
	res.Classes += len(classes)
	n := 0
	for _, c := range classes {
		n += len(c.ops)
		for _, r := range c.ranges {
			res.Offsets += r[1] - r[0] + 1
		}
	}
	sr.OffsetOps += n
	res.OffsetOps += n
	outOfTime := func() bool {
		if sr.Verdict == porcupine.Ok {
			sr.Verdict = porcupine.Unknown
		}
		return false
	}
	// Classes whose operations never overlap in time are decided by replaying them; only
	// the others, and any a replay finds illegal (so that its failure is found and
	// explained as before), go to porcupine.
	search := buf.search[:0]
	for _, c := range classes {
		if legal, ok := buf.replay.run(c.ops); !ok || !legal {
			search = append(search, c)
		}
	}
	buf.search = reuse(search)
	classes = search
	var parts [][]porcupine.Operation
	for i := 0; i < len(classes); {
		parts = parts[:0]
		j, n := i, 0
		for j < len(classes) && (n == 0 || n+len(classes[j].ops) <= chunkOps) {
			parts = append(parts, classes[j].ops)
			n += len(classes[j].ops)
			j++
		}
		left := time.Until(deadline)
		if left <= 0 {
			return outOfTime()
		}
		verdict := checkParts(m, parts, left)
		if verdict != porcupine.Ok {
			// porcupine returns before its other goroutines have stopped reading the
			// inputs: they must not be reused.
			buf.stale = true
		}
		if verdict == porcupine.Illegal {
			// Find the failing classes of the chunk.
			for _, c := range classes[i:j] {
				left := time.Until(deadline)
				if left <= 0 {
					verdict = porcupine.Unknown
					break
				}
				if checkParts(m, [][]porcupine.Operation{c.ops}, left) != porcupine.Illegal {
					continue
				}
				sr.Verdict = porcupine.Illegal
				if len(sr.Failures) < o.MaxFailures {
					sr.Failures = append(sr.Failures, explain(m, sh, c, h, deadline))
				}
				if len(res.vis) < maxVisClasses {
					res.vis = append(res.vis, c.detach())
				}
			}
		}
		if verdict == porcupine.Unknown {
			return outOfTime()
		}
		i = j
	}
	return true
}

// replayBuf is replay's working memory.
type replayBuf struct {
	sorted []porcupine.Operation
	state  stateSet
	step   scratch
}

// run decides the linearizability of one class's operations when no two of them overlap
// in time (ok; each returns strictly before the next is called, an operation without a
// return only last): porcupine orders a call before a return at the same time, so such a
// history has exactly one linearization to try, the call order, and its search steps the
// specification (step) along that order and nothing else. Replaying it gives the same
// verdict without the search's goroutines, timer and cache.
func (b *replayBuf) run(ops []porcupine.Operation) (legal, ok bool) {
	for k := 1; k < len(ops); k++ {
		if ops[k].Call < ops[k-1].Call {
			b.sorted = append(b.sorted[:0], ops...)
			slices.SortFunc(b.sorted, func(a, b porcupine.Operation) int { return compare(a.Call, b.Call) })
			ops = b.sorted
			break
		}
	}
	for k := 1; k < len(ops); k++ {
		if ops[k-1].Return >= ops[k].Call {
			return false, false
		}
	}
	b.state = b.state[:0]
	for _, op := range ops {
		out := stepSet(b.state, op.Input.(*input), &b.step)
		if out == nil {
			return false, true
		}
		b.state = append(b.state[:0], out...)
	}
	return true, true
}

func checkParts(m porcupine.Model, parts [][]porcupine.Operation, limit time.Duration) porcupine.CheckResult {
	m.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return parts }
	return porcupine.CheckOperationsTimeout(m, nil, limit)
}

// explain localises a failing class: the shortest prefix of its operations, in call order,
// that has no linearization, and the states the specification allows just before the last
// operation of that prefix.
func explain(m porcupine.Model, sh *shareHistory, c *class, h []sim.Op, deadline time.Time) Failure {
	ops := slices.Clone(c.ops)
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int {
		switch {
		case a.Call != b.Call:
			return compare(a.Call, b.Call)
		default:
			return compare(a.Return, b.Return)
		}
	})
	k := len(ops)
	for n := 1; n < len(ops); n++ {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		if checkParts(m, [][]porcupine.Operation{ops[:n]}, left) == porcupine.Illegal {
			k = n
			break
		}
	}
	culprit := ops[k-1].Input.(*input)
	f := Failure{Group: sh.group, Partition: sh.partition, Offsets: rangesString(c.ranges), Member: h[culprit.src].Client, TimeMs: h[culprit.src].ReturnMs}
	if f.TimeMs < 0 {
		f.TimeMs = h[culprit.src].CallMs
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no linearization: %s is impossible after", describeOp(culprit, nil))
	before := ops[:k-1]
	if len(before) == 0 {
		b.WriteString(" nothing")
	}
	const show = 6
	if len(before) > show {
		fmt.Fprintf(&b, " %d earlier operations, the last %d:", len(before)-show, show)
		before = before[len(before)-show:]
	}
	for i, op := range before {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" ")
		b.WriteString(describeOp(op.Input, nil))
	}
	if k > 1 {
		if states, ok := statesAfter(m, ops[:k-1], deadline); ok {
			fmt.Fprintf(&b, " (one linearization of those leaves %s)", describeStates(states, c.env.names))
		}
	}
	if culprit.kind == opFetch && c.env.goneAt <= culprit.call {
		fmt.Fprintf(&b, "; the offsets fell below the applied log start at %d ms", c.env.goneAt)
	}
	f.Message = b.String()
	return f
}

// statesAfter replays one linearization of a linearizable history and returns the
// specification's state after it.
func statesAfter(m porcupine.Model, ops []porcupine.Operation, deadline time.Time) (stateSet, bool) {
	left := time.Until(deadline)
	if left <= 0 {
		return nil, false
	}
	verdict, info := porcupine.CheckOperationsVerbose(m, ops, left)
	if verdict != porcupine.Ok {
		return nil, false
	}
	lins := info.PartialLinearizationsOperations()
	if len(lins) == 0 || len(lins[0]) == 0 {
		return nil, false
	}
	var st interface{} = stateSet(nil)
	for _, op := range lins[0][0] {
		ok, next := step(st, op.Input, nil)
		if !ok {
			return nil, false
		}
		st = next
	}
	return st.(stateSet), true
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func rangesString(rs [][2]int64) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(",")
		}
		if i == 8 {
			fmt.Fprintf(&b, "… (%d ranges)", len(rs))
			break
		}
		if r[0] == r[1] {
			fmt.Fprint(&b, r[0])
		} else {
			fmt.Fprintf(&b, "%d-%d", r[0], r[1])
		}
	}
	return b.String()
}

// describeOp renders one per-offset operation.
func describeOp(in, _ interface{}) string {
	op := in.(*input)
	name := op.env.names[op.client]
	ret := msStr(op.ret)
	if op.kind == opFetch {
		return fmt.Sprintf("%s fetch → delivery %d [%d, %s]", name, op.dc, op.call, ret)
	}
	return fmt.Sprintf("%s ack %s → %s [%d, %s]", name, op.typ, op.codeStr, op.call, ret)
}

// describeOpVis is describeOp with the client number the visualisation's rows and states
// use.
func describeOpVis(in, out interface{}) string {
	op := in.(*input)
	return fmt.Sprintf("client %d: %s", op.client, describeOp(in, out))
}

// Failed reports whether some share-partition's history is not linearizable.
func (r *Result) Failed() bool { return r != nil && r.Verdict == porcupine.Illegal }

// Failures lists every reported failure, share-partition by share-partition.
func (r *Result) Failures() []Failure {
	var out []Failure
	for _, s := range r.Shares {
		out = append(out, s.Failures...)
	}
	return out
}

// Unknown lists the share-partitions whose check ran out of time.
func (r *Result) Unknown() []ShareResult {
	var out []ShareResult
	for _, s := range r.Shares {
		if s.Verdict == porcupine.Unknown {
			out = append(out, s)
		}
	}
	return out
}

func (r *Result) String() string {
	return fmt.Sprintf("%s: %d operations on %d share-partitions, %d per-offset operations in %d offset classes covering %d offsets, %s",
		r.Verdict, r.Ops, len(r.Shares), r.OffsetOps, r.Classes, r.Offsets, r.Elapsed.Round(time.Millisecond))
}

// Visualize writes porcupine's HTML visualisation of the failing offset classes (at most
// 16) to w. Hidden events of the failing share-partitions appear as annotations.
func (r *Result) Visualize(w io.Writer) error {
	if len(r.vis) == 0 {
		if r.Failed() {
			return r.listFailures(w)
		}
		return fmt.Errorf("linearize: nothing to visualise: the history is %s", r.Verdict)
	}
	m := newModel()
	parts := make([][]porcupine.Operation, len(r.vis))
	lo, hi := int64(inf), int64(negInf)
	for i, c := range r.vis {
		parts[i] = c.ops
		for _, op := range c.ops {
			lo = min(lo, op.Call)
			if op.Return < inf {
				hi = max(hi, op.Return)
			}
		}
	}
	m.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return parts }
	m.DescribeOperationMetadata = func(interface{}) string { return "" }
	m.DescribeOperation = describeOpVis
	_, info := porcupine.CheckOperationsVerbose(m, nil, 0)
	var notes []porcupine.Annotation
	seen := map[*env]bool{}
	for _, c := range r.vis {
		e := c.env.env
		if seen[e] {
			continue
		}
		seen[e] = true
		add := func(t int64, what string) {
			if t >= lo && t <= hi && len(notes) < 200 {
				notes = append(notes, porcupine.Annotation{Tag: "hidden events", Start: t, Description: what, BackgroundColor: "#fde2b5"})
			}
		}
		for _, ev := range e.events {
			if ev.reload {
				add(ev.t, "reload")
			} else {
				add(ev.t, "all locks expired")
			}
		}
		for c, t := range e.releaseFrom {
			if t < inf {
				add(t, e.names[c]+" gone")
			}
		}
		for c, t := range e.hiddenFrom {
			if t < inf && t != e.releaseFrom[c] {
				add(t, e.names[c]+" lost a fetch response")
			}
		}
	}
	info.AddAnnotations(notes)
	return porcupine.Visualize(m, info, w)
}

// listFailures writes a page listing the failures, for a failed check with no offset
// class to draw (only finished offsets delivered again, see Stream).
func (r *Result) listFailures(w io.Writer) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>linearizability</title></head><body>\n<h1>Not linearizable</h1>\n<ul>\n")
	for _, f := range r.Failures() {
		fmt.Fprintf(&b, "<li>%s/%s offsets %s, %s at %d ms: %s</li>\n", html.EscapeString(f.Group), html.EscapeString(f.Partition),
			html.EscapeString(f.Offsets), html.EscapeString(f.Member), f.TimeMs, html.EscapeString(f.Message))
	}
	b.WriteString("</ul>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// VisualizeFile writes the visualisation to path.
func (r *Result) VisualizeFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := r.Visualize(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
