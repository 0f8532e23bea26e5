package explore_test

import (
	"strings"
	"testing"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
)

// The two counterexamples rung 6 of the ladder (batches 1,2, the read/acquire window) met
// with the first form of the fixes on, as fixed-input scripts. Each runs with every fix
// (the last step's expectation is the fixed behaviour) and with every fix but one (the
// finding's behaviour comes back), so each extended fix is needed.
var extendedFixCases = []struct {
	name    string
	fix     string // the fix whose extension the script needs
	steps   string // shared steps; the first form of the fix does not apply to them
	fixed   string // the last step's expectation with every fix
	without string // ... with every fix but fix
}{
	{
		// The read starts in the stale cached batch 0 (archived by the log-start move), so
		// the start adjustment of the first form does not run; the span after the cache,
		// 1-2, starts below SPSO 2.
		name: "acquire-after-stale-batch", fix: model.FixAcquireBelowSPSO,
		steps: `
  - produce: [1, 2]
  - fetch: {member: c1, max_records: 3, max_batches: 1}
    expect: {acquired: 0@1}
  - expire: {offset: 0}
    expect: {states: {0: AVAILABLE/1}}
  - read: {member: c1, max_records: 3}
    expect: {next_fetch_offset: 0}
  - move_log_start: 2
    expect: {spso: 2, states: {0: ARCHIVED/1}}
`,
		fixed:   `{acquired: 2@1, spso: 2}`,
		without: `{acquired: 1-2@1, spso: 2}`,
	},
	{
		// The failed write covers the whole batch 1-2, which straddles SPSO 2: the first
		// form archives only a released record wholly below SPSO.
		name: "rollback-straddling-spso", fix: model.FixStuckBelowLogStart,
		steps: `
  - produce: [1, 2]
  - fetch: {member: c1, max_records: 3, max_batches: 1}
    expect: {acquired: 0@1}
  - fetch: {member: c1, max_records: 3}
    expect: {acquired: 1-2@1}
  - ack: {member: c1, ranges: "1-2:accept", write: pending}
  - expire: {offset: 1, writes: pending}
  - expire: {offset: 0}
  - read: {member: c1, max_records: 3}
    expect: {next_fetch_offset: 0}
  - move_log_start: 2
    expect: {spso: 2, states: {0: ARCHIVED/1}}
`,
		fixed:   `{acquired: 2@2, spso: 2}`,
		without: `{acquired: 1-2@2, spso: 2}`,
	},
}

func TestExtendedFixesNeeded(t *testing.T) {
	for _, tc := range extendedFixCases {
		for _, fixed := range []bool{true, false} {
			fix, want := "all", tc.fixed
			if !fixed {
				var rest []string
				for _, n := range model.FixNames() {
					if n != tc.fix {
						rest = append(rest, n)
					}
				}
				fix, want = strings.Join(rest, ","), tc.without
			}
			steps := tc.steps
			if tc.fix == model.FixStuckBelowLogStart {
				steps += "  - fail_write: 1\n    expect: {error: COORDINATOR_NOT_AVAILABLE}\n"
			}
			yml := "kind: scripted\nname: " + tc.name + "\nkafka:\n  version: \"4.2\"\n  fix: " + fix + "\nsteps:" + steps +
				"  - acquire: true\n    expect: " + want + "\n"
			s, err := scenarios.Parse(tc.name+".yaml", []byte(yml))
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.name, err, yml)
			}
			r, err := scenarios.RunScript(s)
			if err != nil || !r.Pass {
				t.Errorf("%s, fix %s: %+v %v\n%s", tc.name, fix, r, err, yml)
			}
		}
	}
}
