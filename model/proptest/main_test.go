package proptest

import (
	"flag"
	"os"
	"testing"

	"github.com/sharesim/sharesim/model"
	"pgregory.net/rapid"
)

// TestMain gives the state-machine tests a deeper default than rapid's 100 checks,
// unless -rapid.checks / -rapid.steps were given on the command line.
func TestMain(m *testing.M) {
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, value := range map[string]string{"rapid.checks": "1000", "rapid.steps": "60"} {
		if !set[name] {
			if err := flag.Set(name, value); err != nil {
				panic(err)
			}
		}
	}
	os.Exit(m.Run())
}

func TestCoreMatchesSpec41(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka41) })
}

func TestCoreMatchesSpec42(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) { runMachine(t, model.Kafka42) })
}

// FuzzCoreMatchesSpec runs the same property under go's fuzzing engine:
// go test ./model/proptest -run '^$' -fuzz FuzzCoreMatchesSpec
func FuzzCoreMatchesSpec(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		v := model.Kafka42
		if rapid.Bool().Draw(t, "v41") {
			v = model.Kafka41
		}
		runMachine(t, v)
	}))
}
