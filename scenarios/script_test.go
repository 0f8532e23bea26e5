package scenarios

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
)

func runSrc(t *testing.T, src string) *ScriptResult {
	t.Helper()
	s, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	r, err := RunScript(s)
	if err != nil {
		t.Fatalf("RunScript: %v", err)
	}
	return r
}

func TestScriptDecodeForms(t *testing.T) {
	s, err := Parse("s.yaml", []byte(`kind: scripted
start_offset: 10
kafka: {version: "4.2", group.share.delivery.count.limit: 1, share.record.lock.duration.ms: 5ms, relax_ranges: true}
steps:
  - produce: 3
  - produce: {batches: [2, 1], aborted: true}
  - fetch: c1
  - fetch: {member: c2, max_records: 4, batch_size: 2, mode: record_limit}
  - ack: {member: c1, ranges: "10-12:accept 13:accept,release"}
  - ack: {member: c1, ranges: ["10-11:reject", {12: [accept]}, {13-14: gap}, {range: 15, types: [release]}, {range: 16-17, type: RENEW}], write: pending}
  - advance: 1m30s
  - advance: {by: 500ms, writes: fail}
  - leave: c1
  - leave: {member: c2, write: pending}
  - move_log_start: 12
  - compact: 14-15
  - failover:
  - failover: {pending_writes: stored}
  - fail_next_write: 3
  - fail_next_write:
  - commit_write: oldest
  - fail_write: 7
    note: hello
`))
	if err != nil {
		t.Fatal(err)
	}
	sc := mustScript(t, s)
	if sc.StartOffset != 10 || !sc.Kafka.RelaxRanges || sc.Kafka.DeliveryCountLimit != 1 || sc.Kafka.RecordLockDurationMs != 5 {
		t.Errorf("script config: %+v", sc)
	}
	st := sc.Steps
	check := func(i int, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: got %+v, want %+v", i+1, got, want)
		}
	}
	check(0, st[0].Batches, []int{3})
	check(1, []any{st[1].Batches, st[1].Aborted}, []any{[]int{2, 1}, true})
	check(2, []any{st[2].Member, st[2].Fetch}, []any{"c1", model.FetchParams{MaxRecords: 500, BatchSize: 500}})
	check(3, []any{st[3].Member, st[3].Fetch}, []any{"c2", model.FetchParams{MaxRecords: 4, BatchSize: 2, Mode: model.RecordLimit}})
	A, R, J, G, N := model.AckAccept, model.AckRelease, model.AckReject, model.AckGap, model.AckRenew
	check(4, st[4].Acks, []model.AckRange{{First: 10, Last: 12, Types: []model.AckType{A}}, {First: 13, Last: 13, Types: []model.AckType{A, R}}})
	check(5, st[5].Acks, []model.AckRange{{First: 10, Last: 11, Types: []model.AckType{J}}, {First: 12, Last: 12, Types: []model.AckType{A}},
		{First: 13, Last: 14, Types: []model.AckType{G}}, {First: 15, Last: 15, Types: []model.AckType{R}}, {First: 16, Last: 17, Types: []model.AckType{N}}})
	check(5, st[5].Write, WritePending)
	check(6, []any{st[6].AdvanceMs, st[6].Write}, []any{int64(90000), WriteCommit})
	check(7, []any{st[7].AdvanceMs, st[7].Write}, []any{int64(500), WriteFail})
	check(8, []any{st[8].Member, st[8].Write}, []any{"c1", WriteCommit})
	check(9, []any{st[9].Member, st[9].Write}, []any{"c2", WritePending})
	check(10, st[10].Offset, int64(12))
	check(11, []any{st[11].First, st[11].Last}, []any{int64(14), int64(15)})
	check(12, st[12].PendingWrites, "lost")
	check(13, st[13].PendingWrites, "stored")
	check(14, st[14].Count, 3)
	check(15, st[15].Count, 1)
	check(16, st[16].Which, "oldest")
	check(17, []any{st[17].Which, st[17].Note, st[17].N, st[17].Line}, []any{"7", "hello", 18, 22})
}

func TestScriptExpectDecode(t *testing.T) {
	s, err := Parse("s.yaml", []byte(`kind: scripted
steps:
  - produce: [5]
  - fetch: c1
    expect:
      acquired: " 0-4@1  7@2 "
      error: invalid_record_state
      states: {0: ACKNOWLEDGED/1, 1-2: acq/1/c1*, 3: AVAILABLE, 9: NOT_CACHED}
      stored: {0: ARCHIVED/5, 4: NOT_STORED}
      held: {c1: 3}
      spso: 0
      speo: 4
      in_flight: 5
      next_fetch_offset: 5
      outstanding_writes: 0
      stored_start_offset: -1
      can_acquire: true
`))
	if err != nil {
		t.Fatal(err)
	}
	e := mustScript(t, s).Steps[1].Expect
	if *e.Acquired != "0-4@1 7-7@2" || *e.Error != "INVALID_RECORD_STATE" || *e.SPSO != 0 || *e.SPEO != 4 || *e.InFlight != 5 ||
		*e.NextFetchOffset != 5 || *e.OutstandingWrites != 0 || *e.StoredStartOffset != -1 || !*e.CanAcquire {
		t.Errorf("scalars: %+v", e)
	}
	if len(e.States) != 4 || e.States[1].State != model.Acquired || e.States[1].Owner != "c1" || !e.States[1].Pending ||
		e.States[1].First != 1 || e.States[1].Last != 2 || e.States[2].DeliveryCount != -1 || !e.States[3].Absent {
		t.Errorf("states: %+v", e.States)
	}
	if len(e.Stored) != 2 || e.Stored[0].State != model.Archived || e.Stored[0].DeliveryCount != 5 || !e.Stored[1].Absent {
		t.Errorf("stored: %+v", e.Stored)
	}
	if len(e.Held) != 1 || e.Held[0].Member != "c1" || e.Held[0].Count != 3 || e.Held[0].Line != 10 {
		t.Errorf("held: %+v", e.Held)
	}
}

func TestScriptBad(t *testing.T) {
	cases := []struct {
		name      string
		src       string
		line, col int
		frag      string
	}{
		{"no steps", "kind: scripted\n", 1, 1, "steps: found no value"},
		{"no action", "kind: scripted\nsteps:\n  - expect: {spso: 0}\n", 3, 5, "exactly one action"},
		{"two actions", "kind: scripted\nsteps:\n  - {produce: [1], fetch: c1}\n", 3, 5, "several actions (produce, fetch)"},
		{"unknown step key", "kind: scripted\nsteps:\n  - {produce: [1], expct: {}}\n", 3, 20, `did you mean "expect"?`},
		{"bad ack type", "kind: scripted\nsteps:\n  - ack: {member: c1, ranges: \"0-4:acept\"}\n", 3, 31, `did you mean "accept"?`},
		{"bad ack range", "kind: scripted\nsteps:\n  - ack: {member: c1, ranges: [\"a-b:accept\"]}\n", 3, 32, "expected a range with its type"},
		{"ack without member", "kind: scripted\nsteps:\n  - ack: {ranges: \"0:accept\"}\n", 3, 10, "ack.member: found no value"},
		{"bad acquired", "kind: scripted\nsteps:\n  - fetch: c1\n    expect: {acquired: 0-4}\n", 4, 24, "offsets@delivery count"},
		{"acquired after ack", "kind: scripted\nsteps:\n  - leave: c1\n    expect: {acquired: 0-4@1}\n", 4, 14, "acquired only after fetch and acquire steps"},
		{"bad state", "kind: scripted\nsteps:\n  - leave: c1\n    expect: {states: {0: DONE}}\n", 4, 26, "STATE[/DELIVERY_COUNT[/OWNER]]"},
		{"bad state offset", "kind: scripted\nsteps:\n  - leave: c1\n    expect: {states: {x: AVAILABLE}}\n", 4, 23, "an offset or an offset range"},
		{"acquired is never stored", "kind: scripted\nsteps:\n  - leave: c1\n    expect: {stored: {0: ACQUIRED/1}}\n", 4, 26, "NOT_STORED"},
		{"bad error code", "kind: scripted\nsteps:\n  - leave: c1\n    expect: {error: INVALID_RECORD_STAT}\n", 4, 21, `did you mean "INVALID_RECORD_STATE"?`},
		{"bad write option", "kind: scripted\nsteps:\n  - leave: {member: c1, write: later}\n", 3, 32, "commit, fail, pending"},
		{"bad commit_write", "kind: scripted\nsteps:\n  - commit_write: first\n", 3, 19, "all, oldest, newest or a write id"},
		{"failover false", "kind: scripted\nsteps:\n  - failover: false\n", 3, 15, "remove the step"},
		{"zero batch", "kind: scripted\nsteps:\n  - produce: [0]\n", 3, 15, "expected an integer in [1, 1000000]"},
		{"tiny cap without relax", "kind: scripted\nkafka: {group.share.partition.max.record.locks: 4}\nsteps: [{produce: [1]}]\n", 2, 49, "scripted scenarios may set relax_ranges: true"},
		{"bad advance", "kind: scripted\nsteps:\n  - advance: soon\n", 3, 14, "expected a duration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tc.src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.First().Error(), tc.frag) {
				t.Errorf("got %v (at %d:%d), want %d:%d and %q", e.First(), e.Line, e.Column, tc.line, tc.col, tc.frag)
			}
		})
	}
}

// A failing expectation names the step, its file position, what was expected and found.
func TestScriptFailureReported(t *testing.T) {
	r := runSrc(t, `kind: scripted
name: wrong
steps:
  - produce: [5]
  - fetch: {member: c1, max_records: 10}
    expect:
      acquired: 0-4@2
      spso: 0
  - ack: {member: c1, ranges: "0-4:accept"}
    expect:
      states: {0-1: ACQUIRED/1}
      spso: 3
  - ack: {member: c2, ranges: "5:accept"}
`)
	if r.Pass || r.Steps != 4 {
		t.Fatalf("expected a failing run of 4 steps: %v", r)
	}
	want := []Failure{
		{File: "s.yaml", Step: 2, Action: "fetch", Line: 5, Column: 5, ExpectLine: 7, What: "acquired", Expected: "0-4@2", Found: "0-4@1"},
		{File: "s.yaml", Step: 3, Action: "ack", Line: 9, Column: 5, ExpectLine: 11, What: "spso", Expected: "3", Found: "5"},
		{File: "s.yaml", Step: 3, Action: "ack", Line: 9, Column: 5, ExpectLine: 11, What: "states[0]", Expected: "ACQUIRED/1", Found: "NOT_CACHED"},
	}
	if len(r.Failures) != 4 {
		t.Fatalf("failures: %v", r)
	}
	if !reflect.DeepEqual(r.Failures[:3], want) {
		t.Errorf("failures:\n got  %+v\n want %+v", r.Failures[:3], want)
	}
	last := r.Failures[3]
	if last.Step != 4 || last.What != "error" || last.Expected != "NONE" || !strings.HasPrefix(last.Found, "INVALID_RECORD_STATE") {
		t.Errorf("an unexpected core error must fail the step: %+v", last)
	}
	if got := r.Failures[0].String(); got != "s.yaml:5:5: step 2 (fetch): acquired: expected 0-4@2, found 0-4@1" {
		t.Errorf("String: %s", got)
	}
	if !strings.HasPrefix(r.String(), "FAIL wrong (4 steps, 4 failures)") {
		t.Errorf("summary: %s", r)
	}
}

func TestScriptRuntimeFailures(t *testing.T) {
	r := runSrc(t, `kind: scripted
steps:
  - produce: [2, 2]
  - commit_write: all
  - move_log_start: 9
  - compact: 1-2
  - compact: 7-8
  - fail_write: 3
`)
	var whats []string
	for _, f := range r.Failures {
		whats = append(whats, f.What)
	}
	if !reflect.DeepEqual(whats, []string{"commit_write", "move_log_start", "compact", "compact", "fail_write"}) {
		t.Errorf("failures: %v", r)
	}
}

// The runner's handling of writes, failover and time, step by step.
func TestScriptWritesAndFailover(t *testing.T) {
	r := runSrc(t, `kind: scripted
steps:
  - produce: [2]
  - fetch: c1
  - ack: {member: c1, ranges: "0-1:accept", write: pending}
    expect: {outstanding_writes: 1, states: {0-1: ACKNOWLEDGED/1*}}
  - failover: {pending_writes: stored}
    note: the write reached the coordinator although the old leader never learnt it
    expect: {spso: 2, outstanding_writes: 0, stored: {0-1: ACKNOWLEDGED/1}}
  - produce: [2]
  - fetch: c1
    expect: {acquired: 2-3@1}
  - ack: {member: c1, ranges: "2-3:release", write: pending}
  - failover:
    note: this time the write is lost; the records were never written, so they come back as new
    expect: {next_fetch_offset: 2, stored: {2-3: NOT_STORED}}
  - fetch: c2
    expect: {acquired: 2-3@1}
  - fail_next_write: 2
  - advance: 30s
    note: the expiry write fails, but expiry stands whatever the write's result
    expect: {states: {2-3: AVAILABLE/1}, stored: {2-3: NOT_STORED}}
  - fetch: c2
  - ack: {member: c2, ranges: "2-3:accept"}
    expect: {error: COORDINATOR_NOT_AVAILABLE, states: {2-3: ACQUIRED/2/c2}}
  - ack: {member: c2, ranges: "2-3:accept"}
    expect: {spso: 4}
`)
	if !r.Pass {
		t.Errorf("%v\n%s", r, strings.Join(r.Log, "\n"))
	}
}

func TestRelaxRangesOnlyInScripts(t *testing.T) {
	if _, err := Parse("s.yaml", []byte("kind: scripted\nkafka: {relax_ranges: true, group.share.delivery.count.limit: 1, group.share.partition.max.record.locks: 1, share.record.lock.duration.ms: 1}\nsteps: [{produce: [1]}]\n")); err != nil {
		t.Errorf("relaxed ranges in a script: %v", err)
	}
	if _, err := Parse("w.yaml", []byte("kafka: {relax_ranges: true}\n")); err == nil {
		t.Errorf("relax_ranges accepted in a workload")
	}
}

// lateCore is a core whose lock fires late: its deadline stays due after ExpireLocks.
type lateCore struct{ calls int }

func (c *lateCore) NextDeadline() (int64, bool) { return 30_000, true }
func (c *lateCore) ExpireLocks(int64, []*model.Write) []*model.Write {
	c.calls++
	return nil
}

// Advancing time past a lock the core does not fire fails at once with "time would not
// advance" instead of looping at the same virtual time (it once ran for minutes).
func TestAdvanceStuckTimeGuard(t *testing.T) {
	c := &lateCore{}
	_, err := advanceLocks(c, 0, 60_000, func([]*model.Write) {})
	if err == nil || !strings.Contains(err.Error(), "time would not advance") {
		t.Fatalf("err = %v", err)
	}
	if c.calls != 1 {
		t.Errorf("ExpireLocks called %d times before the guard, want 1", c.calls)
	}
}
