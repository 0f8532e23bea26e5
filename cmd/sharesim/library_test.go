package main

import (
	"fmt"
	"testing"

	"github.com/sharesim/sharesim/scenarios"
)

// Every built-in workload scenario passes every check it selects, on a shortened main phase
// (its healing phase kept, so liveness still means something).
func TestBuiltinScenariosPassTheirChecks(t *testing.T) {
	for _, in := range scenarios.List() {
		if in.Kind != scenarios.KindWorkload {
			continue
		}
		t.Run(in.Name, func(t *testing.T) {
			sc, err := loadScenario(in.Name, []string{"duration=1m"})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := sc.SimConfig()
			if err != nil {
				t.Fatal(err)
			}
			consumers := 0
			for _, g := range cfg.Groups {
				for _, c := range g.Consumers {
					consumers += c.Count
				}
			}
			if consumers > 500 {
				// The question-1 worlds (thousands of single-record consumers) are scaled
				// down four times, consumers and load alike, to keep CI under its budget.
				var sets []string
				for gi, g := range cfg.Groups {
					for ci, c := range g.Consumers {
						sets = append(sets, fmt.Sprintf("groups.%d.consumers.%d.count=%d", gi, ci, max(1, c.Count/4)))
					}
				}
				for pi, p := range cfg.Producers {
					sets = append(sets, fmt.Sprintf("producers.%d.rate=%g/s", pi, p.RecordsPerSecond/4))
				}
				for _, kv := range sets {
					if err := sc.Set(splitSet(kv)); err != nil {
						t.Fatal(err)
					}
				}
			}
			o, err := simulate(sc, sc.Seed(), simOpts{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.violations {
				t.Errorf("%s", v)
			}
		})
	}
}

func splitSet(kv string) (string, string) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:]
		}
	}
	return kv, ""
}
