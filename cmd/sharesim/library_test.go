package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharesim/sharesim/checker"
	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// libraryEventBudget bounds the estimated events (scenarios.EstimateCost) of each built-in's
// run in this test: bigger worlds are scaled down, consumers and load alike by the same
// factor, so that each keeps its shape (records per consumer, consumers per partition).
// With the build tag long the budget is 50 times larger.
func libraryEventBudget() int64 {
	if testmode.Long {
		return 7_500_000
	}
	return 150_000
}

// Every built-in workload scenario passes every check it selects, on a shortened main phase
// (its healing phase kept, so liveness still means something).
func TestBuiltinScenariosPassTheirChecks(t *testing.T) {
	runBuiltins(t, builtinsMainPhase)
}

// builtinsMainPhase is the main phase of TestBuiltinScenariosPassTheirChecks's runs, which
// TestFiguresConsistentOnEveryBuiltin shares.
const builtinsMainPhase = "1m"

// Every built-in workload scenario runs on Kafka 4.3, and on 4.4 with the dead-letter queue
// on, and passes its checks (dlq-exactly-once among them): a shorter main phase than
// TestBuiltinScenariosPassTheirChecks, the healing phase kept.
func TestBuiltinScenariosPerVersion(t *testing.T) {
	t.Run("4.3", func(t *testing.T) {
		runBuiltins(t, "30s", "kafka.errors.deadletterqueue.topic.name=", "kafka.version=4.3")
	})
	t.Run("4.4", func(t *testing.T) {
		runBuiltins(t, "30s", "kafka.version=4.4", "kafka.errors.deadletterqueue.topic.name=dlq.test")
	})
}

// runBuiltins runs every built-in workload with its main phase cut to d and the settings
// more, and reports every violation of its checks.
func runBuiltins(t *testing.T, d string, more ...string) {
	for _, in := range scenarios.List() {
		if in.Kind != scenarios.KindWorkload {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			t.Parallel()
			for _, v := range builtinRunOf(t, in.Name, d, more...).violations {
				t.Errorf("%s", v)
			}
		})
	}
}

// builtinRun is one run of runBuiltins: its config, what it measured and its violations.
type builtinRun struct {
	once       sync.Once
	cfg        sim.Config
	groups     []sim.GroupMetrics
	violations []checker.Violation
	note, err  string
}

// builtinRuns holds the runs of builtinRunOf by name, d and settings: a test that needs a
// built-in's run as runBuiltins makes it (TestFiguresConsistentOnEveryBuiltin) shares it.
var builtinRuns sync.Map

// builtinRunOf runs the built-in name as runBuiltins does, once per test binary.
func builtinRunOf(t *testing.T, name, d string, more ...string) *builtinRun {
	t.Helper()
	v, _ := builtinRuns.LoadOrStore(name+" "+d+" "+strings.Join(more, " "), &builtinRun{})
	r := v.(*builtinRun)
	r.once.Do(func() { r.run(t, name, d, more...) })
	if r.note != "" {
		t.Log(r.note)
	}
	if r.err != "" {
		t.Fatal(r.err)
	}
	return r
}

// run makes the run of builtinRunOf; a failure is kept in r.err for every test that shares r.
func (r *builtinRun) run(t *testing.T, name, d string, more ...string) {
	t.Helper()
	fail := func(err error) { r.err = fmt.Sprintf("%s: %v", name, err) }
	r.err = name + ": the run did not finish" // shortSets may end the goroutine
	sc, err := loadScenario(name, shortSets(t, name, d, more...))
	if err != nil {
		fail(err)
		return
	}
	cfg, err := sc.SimConfig()
	if err != nil {
		fail(err)
		return
	}
	if est := scenarios.EstimateCost(cfg).Events; est > libraryEventBudget() {
		factor := int((est + libraryEventBudget() - 1) / libraryEventBudget())
		var sets []string
		for gi, g := range cfg.Groups {
			for ci, c := range g.Consumers {
				sets = append(sets, fmt.Sprintf("groups.%d.consumers.%d.count=%d", gi, ci, max(1, c.Count/factor)))
			}
		}
		for pi, p := range cfg.Producers {
			sets = append(sets, fmt.Sprintf("producers.%d.rate=%g/s", pi, p.RecordsPerSecond/float64(factor)))
		}
		for _, kv := range sets {
			if err := sc.Set(splitSet(kv)); err != nil {
				fail(err)
				return
			}
		}
		r.note = fmt.Sprintf("scaled down %d times (estimated %d events)", factor, est)
	}
	o, err := simulate(sc, sc.Seed(), simOpts{})
	if err != nil {
		fail(err)
		return
	}
	r.cfg, r.groups, r.violations, r.err = o.cfg, o.res.Metrics.Groups, o.violations, ""
}

func splitSet(kv string) (string, string) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:]
		}
	}
	return kv, ""
}

// shortSets is the overrides that shorten a built-in to duration d, with more: a producer
// that would start after d starts at 0 instead (the loader refuses a producer that never
// writes).
func shortSets(t *testing.T, name, d string, more ...string) []string {
	t.Helper()
	sc, err := scenarios.LoadAny(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	ms, err := time.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"duration=" + d}
	for i, p := range cfg.Producers {
		if p.StartMs >= ms.Milliseconds() {
			out = append(out, fmt.Sprintf("producers.%d.start=0", i))
		}
	}
	return append(out, more...)
}

// shortScaledSets is shortSets plus, for a group spec of more than 100 consumers, a twentieth
// of them and of every producer's rate (the world's shape kept, its events cut).
func shortScaledSets(t *testing.T, name, d string, more ...string) []string {
	t.Helper()
	sets := shortSets(t, name, d, more...)
	sc, err := loadScenario(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	for gi, g := range cfg.Groups {
		for ci, c := range g.Consumers {
			if c.Count > 100 {
				sets = append(sets, fmt.Sprintf("groups.%d.consumers.%d.count=%d", gi, ci, c.Count/20))
				for pi, p := range cfg.Producers {
					sets = append(sets, fmt.Sprintf("producers.%d.rate=%g/s", pi, p.RecordsPerSecond/20))
				}
			}
		}
	}
	return sets
}
