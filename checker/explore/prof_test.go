package explore

import (
	"os"
	"testing"
)

func TestProfH1(t *testing.T) {
	if os.Getenv("PROFH1") == "" {
		t.Skip()
	}
	sc := DefaultScope()
	sc.Failovers, sc.LogStartMoves, sc.ShortReads, sc.MaxPending = 0, 0, false, 1
	sc.Workers = 1
	res, _ := Explore(sc, nil)
	t.Logf("%d states %v %.0f/s", res.States, res.Elapsed, res.StatesPerSecond())
}
