package explore_test

import (
	"flag"
	"testing"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/internal/testmode"
)

// long runs the explorer tests that are too slow for the default run under -race in full
// (go test -race ./checker/explore -long); without -race they always run.
var long = flag.Bool("long", false, "run the large explorer cases also under -race")

// raceShort reports whether the race detector is on and neither -long nor the build tag long
// asks for the large cases (CI's nightly job runs go test -race -tags long).
func raceShort() bool { return raceDetector && !*long && !testmode.Long }

// heavy reports whether a case with this many unreduced states (about) is left out.
func heavy(states int) bool { return raceShort() && states > 10000 }

// outcome is what a search found, as far as soundness of a reduction is concerned.
type outcome struct {
	violation string
	depth     int
	findings  map[string]int // finding -> depth
	stuck     bool           // a stuck state that is no finding
	complete  bool
}

func explored(t *testing.T, sc explore.Scope) (outcome, *explore.Result) {
	t.Helper()
	res, err := explore.ExploreShared(sc)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{findings: map[string]int{}, complete: res.Complete}
	if v := res.Violation; v != nil {
		o.violation, o.depth = v.Invariant, len(v.Path)
	}
	for _, f := range res.Findings {
		o.findings[f.Finding] = len(f.Path)
	}
	o.stuck = res.Liveness != nil && res.Liveness.First != nil
	return o, res
}

func sameOutcome(a, b outcome) bool {
	if a.violation != b.violation || a.depth != b.depth || a.stuck != b.stuck || a.complete != b.complete || len(a.findings) != len(b.findings) {
		return false
	}
	for k, v := range a.findings {
		if b.findings[k] != v {
			return false
		}
	}
	return true
}

// The reductions (symmetry, dead store, both) are sound: on scopes small enough to explore
// without them, each reduced and the unreduced search find the same violation at the same depth for every variant of
// the bug zoo, the same findings at the same depths, the same liveness verdict, and on the
// faithful (fixed) core both pass; the reduced one stores fewer states whenever two members
// can hold records.
func TestReductionsSound(t *testing.T) {
	type cse struct {
		name  string
		scope explore.Scope
		size  int // unreduced states, about
	}
	var cases []cse
	for _, zc := range zooCases {
		sc := explore.DefaultScope()
		if zc.scope != nil {
			zc.scope(&sc)
		}
		sc.Bug, sc.MaxDepth = zc.bug, zc.maxDepth
		cases = append(cases, cse{"bug " + zc.bug, sc, zc.states})
	}
	for _, fc := range findingCases {
		sc := explore.DefaultScope()
		fc.scope(&sc)
		sc.Findings = true
		cases = append(cases, cse{"finding " + fc.finding, sc, fc.states})
	}
	two := livenessScope()
	two.Members = 2
	cases = append(cases, cse{"liveness, 2 members", two, 92441})
	fixed := smallScope()
	fixed.Fix, fixed.Findings, fixed.Liveness = "all", true, true
	cases = append(cases, cse{"fixed core, 2 members, every step kind", fixed, 57522})
	reductions := []struct {
		name                string
		symmetry, deadStore bool
	}{{"symmetry", true, false}, {"dead store", false, true}, {"both", true, true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if heavy(c.size) {
				t.Skipf("about %d states: too slow under -race; runs without it or with -long", c.size)
			}
			t.Parallel()
			sc := c.scope
			sc.Workers = 1
			sc.Symmetry, sc.DeadStore = false, false
			full, fres := explored(t, sc)
			for _, r := range reductions {
				sc.Symmetry, sc.DeadStore = r.symmetry, r.deadStore
				red, rres := explored(t, sc)
				if !sameOutcome(red, full) {
					t.Errorf("%s: reduced %+v, unreduced %+v", r.name, red, full)
				}
				if rres.States > fres.States {
					t.Errorf("%s: reduced search stored more states: %d > %d", r.name, rres.States, fres.States)
				}
				if r.symmetry && sc.Members >= 2 && red.violation == "" && rres.States == fres.States {
					t.Errorf("%s merged nothing (%d states)", r.name, rres.States)
				}
				if r.deadStore && sc.Failovers == 0 && red.violation == "" && rres.States == fres.States {
					t.Errorf("%s merged nothing without failovers (%d states)", r.name, rres.States)
				}
				t.Logf("%s: %d states reduced, %d unreduced; %+v", r.name, rres.States, fres.States, red)
			}
		})
	}
}
