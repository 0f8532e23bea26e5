package scenarios

import (
	"strings"
	"testing"
)

// The script steps and options the explorer's counterexamples use: expire, max_batches,
// failover with late writes, stale writes, invariants: true and kafka.bug.

func runScriptText(t *testing.T, text string) *ScriptResult {
	t.Helper()
	s, err := Parse("s.yaml", []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	r, err := RunScript(s)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return r
}

func TestExpireFiresOneLock(t *testing.T) {
	r := runScriptText(t, `kind: scripted
steps:
  - produce: [2, 2]
  - fetch: {member: a, max_records: 2}
  - fetch: {member: b, max_records: 2}
  - expire: 2
    expect: {states: {0-1: ACQUIRED/1/a, 2-3: AVAILABLE/1}, outstanding_writes: 0}
  - expire: {offset: 0, writes: pending}
    expect: {states: {0-1: AVAILABLE/1}, outstanding_writes: 1}
  - expire: 3
    note: no live lock there any more
    expect: {outstanding_writes: 1}
`)
	if !r.Pass {
		t.Fatal(r)
	}
}

func TestFetchMaxBatchesAndLogStart(t *testing.T) {
	r := runScriptText(t, `kind: scripted
steps:
  - produce: [2, 2, 2]
  - fetch: {member: a, max_batches: 1}
    expect: {acquired: 0-1@1}
  - fetch: {member: a, max_batches: 2}
    expect: {acquired: 2-5@1}
`)
	if !r.Pass {
		t.Fatal(r)
	}
	// After a log-start jump past the whole cache, the head rule puts SPSO just past the
	// cache, below the log start; the next fetch's read fails and the log start is applied.
	r = runScriptText(t, `kind: scripted
steps:
  - produce: [2, 2]
  - fetch: {member: a, max_batches: 1}
  - move_log_start: 4
  - expire: 0
    expect: {spso: 2, in_flight: 0}
  - fetch: a
    expect: {acquired: "", spso: 4}
`)
	if !r.Pass {
		t.Fatal(r)
	}
}

func TestStaleWritesAreFenced(t *testing.T) {
	const script = `kind: scripted
kafka: {bug: BUG}
invariants: true
steps:
  - produce: [2]
  - fetch: a
  - ack: {member: a, ranges: "0-1:accept", write: pending}
  - failover: {pending_writes: late}
    expect: {outstanding_writes: 1, stored_start_offset: -1}
  - commit_write: stale
    expect: {error: NOT_LEADER_OR_FOLLOWER, outstanding_writes: 0, stored: {0-1: NOT_STORED}}
`
	if r := runScriptText(t, strings.Replace(script, "kafka: {bug: BUG}\n", "", 1)); !r.Pass {
		t.Fatalf("faithful: %s", r)
	}
	r := runScriptText(t, strings.Replace(script, "BUG", "store-no-fencing", 1))
	var whats []string
	for _, f := range r.Failures {
		whats = append(whats, f.What)
	}
	if got := strings.Join(whats, ","); !strings.Contains(got, "invariant no-older-epoch-write") || !strings.Contains(got, "error") {
		t.Errorf("with the bug: failures %v, want the error expectation and invariant no-older-epoch-write\n%s", got, r)
	}
}

func TestInvariantsCatchABug(t *testing.T) {
	const script = `kind: scripted
kafka: {bug: BUG, relax_ranges: true, group.share.delivery.count.limit: 2}
invariants: true
steps:
  - produce: [1]
  - fetch: a
  - leave: {member: a, write: pending}
`
	if r := runScriptText(t, strings.Replace(script, "bug: BUG, ", "", 1)); !r.Pass {
		t.Fatalf("faithful: %s", r)
	}
	r := runScriptText(t, strings.Replace(script, "BUG", "leave-decrements-count", 1))
	if r.Pass || r.Failures[0].What != "invariant delivery-count-monotonic" || r.Failures[0].Step != 3 {
		t.Errorf("got %s", r)
	}
}

func TestKafkaBugKey(t *testing.T) {
	_, err := Parse("s.yaml", []byte("kind: scripted\nkafka: {bug: spso-step-back}\nsteps: [{produce: [1]}]\n"))
	if err == nil || !strings.Contains(err.Error(), `did you mean "spso-steps-back"`) {
		t.Errorf("unknown bug: %v", err)
	}
	s, err := Parse("w.yaml", []byte("name: w\ntopics: [{name: t}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("kafka.bug", "no-cap-trim"); err != nil {
		t.Fatal(err)
	}
	if cfg, _ := s.SimConfig(); cfg.Kafka.Bug != "no-cap-trim" {
		t.Errorf("kafka.bug not applied: %q", cfg.Kafka.Bug)
	}
}
