package live

import (
	"fmt"
	"os"
	"testing"

	"github.com/sharesim/sharesim/sim"
)

func TestZZSeeds(t *testing.T) {
	name := os.Getenv("ZZ_SCEN")
	if name == "" {
		t.Skip()
	}
	s := builtin(t, name)
	cfg, _ := s.SimConfig()
	var f float64
	fmt.Sscan(os.Getenv("ZZ_SCALE"), &f)
	scaled, _, err := Scale(cfg, f, Floors{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		res, err := sim.Run(scaled, seed, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := predicted(res, scaled.Groups[0].Name)
		fmt.Printf("seed %2d thr %.0f dup/h %.0f redel %.0f p50 %v p99 %v backlog %.0f\n", seed, p.ThroughputPerSec, p.DuplicatesPerHour, p.Redeliveries, *p.E2EP50Ms, *p.E2EP99Ms, p.BacklogMax)
	}
}
