package proptest

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/model"
	"pgregory.net/rapid"
)

// TestMain gives the state-machine tests a deeper default than rapid's 100 checks (400, and
// 1000 with the build tag long: the default run's budget on two cores), unless
// -rapid.checks / -rapid.steps were given on the command line.
func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	checks := "400"
	if testmode.Long {
		checks = "1000"
	}
	for name, value := range map[string]string{"rapid.checks": checks, "rapid.steps": "150"} {
		if !set[name] {
			if err := flag.Set(name, value); err != nil {
				panic(err)
			}
		}
	}
	code := m.Run()
	if c := &coverage; c.steps.Load() > 0 {
		fmt.Printf("proptest coverage: %d steps, %d acquisitions, %d/%d acks ok/refused, %d expiry writes, "+
			"%d releases, %d rollbacks, %d failovers, %d log-start moves, %d read/acquire windows (%d acquiring), "+
			"%d re-initialisations, %d failed initialisations, %d DLQ steps\n", c.steps.Load(), c.acquired.Load(),
			c.ackOK.Load(), c.ackErr.Load(), c.expiryWrites.Load(), c.releases.Load(), c.rollbacks.Load(),
			c.failovers.Load(), c.lsoMoves.Load(), c.windows.Load(), c.windowAcquired.Load(), c.reinits.Load(),
			c.initFailures.Load(), c.dlqSteps.Load())
	}
	if n := knownHits.Load(); n > 0 {
		fmt.Printf("proptest: %d random cases stopped at a known core bug (see known_test.go):", n)
		names := make([]string, 0, len(knownByBug))
		for b := range knownByBug {
			names = append(names, b)
		}
		sort.Strings(names)
		for _, b := range names {
			fmt.Printf(" %s=%d", b, knownByBug[b])
		}
		fmt.Println()
	}
	os.Exit(code)
}

func TestCoreMatchesSpec41(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka41) })
}

func TestCoreMatchesSpec42(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka42) })
}

func TestCoreMatchesSpec43(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka43) })
}

func TestCoreMatchesSpec44(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka44) })
}

// FuzzCoreMatchesSpec runs the same property under go's fuzzing engine:
// go test ./model/proptest -run '^$' -fuzz FuzzCoreMatchesSpec
func FuzzCoreMatchesSpec(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		v := rapid.SampledFrom(model.Versions).Draw(t, "version")
		runMachine(t, v)
	}))
}
