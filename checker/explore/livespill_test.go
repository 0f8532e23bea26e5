package explore

import (
	"testing"

	"github.com/sharesim/sharesim/model"
)

// A liveness search gives the same verdict with its graph on disk as in memory: the same
// settled and stuck states, edges, findings and paths, and the same messages. Each scope is
// searched in memory and with the graph spilled at two points: after the first wave (a budget
// of one byte: everything spills, and the seen set is flushed after every wave) and midway
// (a seen-set share of 256 KiB, so the in-memory edges are written out when it fills).
func TestLivenessSpillKeepsResults(t *testing.T) {
	cases := []struct {
		name    string
		scope   func(*Scope)
		finding string // a finding the liveness check must meet ("" for none)
	}{
		{"stuck partition", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords = 1, []int{1, 1}, 2, 2, []int{2}
		}, model.FixStuckBelowLogStart},
		{"stuck partition, findings off", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.Findings = 1, []int{1, 1}, 2, 2, []int{2}, false
		}, model.FixStuckBelowLogStart},
		{"fixed core", func(sc *Scope) {
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.Fix = 1, []int{1, 1}, 2, 2, []int{2}, "all"
		}, ""},
		{"4.4 with the DLQ", func(sc *Scope) {
			sc.Version, sc.DLQ = model.Kafka44, true
			sc.Members, sc.Batches, sc.Limit, sc.Cap, sc.MaxRecords, sc.MaxDepth = 1, []int{1, 1}, 2, 2, []int{2}, 7
		}, ""},
	}
	if raceEnabled {
		cases = cases[:1]
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mk := func() Scope {
				sc := DefaultScope()
				sc.Liveness, sc.Findings, sc.Workers = true, true, 1
				c.scope(&sc)
				return sc
			}
			base := mk()
			want, err := ExploreShared(base)
			if err != nil {
				t.Fatal(err)
			}
			if want.DiskBytes != 0 {
				t.Fatalf("in memory, yet %d bytes spilled", want.DiskBytes)
			}
			if want.Liveness == nil && want.Complete {
				t.Fatal("no liveness result")
			}
			if c.finding != "" && !hasFinding(want, c.finding) {
				t.Fatalf("in memory: finding %s not met (%v)", c.finding, want.Findings)
			}
			wantOut := outcomeOf(&base, want)
			for _, sp := range []struct {
				name   string
				set    func(*Scope)
				spills bool
			}{
				{"one-byte budget", func(sc *Scope) { sc.Memory = 1 }, true},
				{"graph spilled midway", func(sc *Scope) { sc.shares = &shares{seen: 256 << 10, frontier: -1, parents: -1, total: -1} }, want.States > 20000},
			} {
				sc := mk()
				sc.TempDir, sc.Workers = t.TempDir(), 2
				sp.set(&sc)
				got, err := Explore(sc, nil)
				if err != nil {
					t.Fatalf("%s: %v", sp.name, err)
				}
				if sp.spills && got.spillFiles["live-edges"] == 0 {
					t.Errorf("%s: the graph did not spill (%v)", sp.name, got.spillFiles)
				}
				if sc.Memory == 1 {
					// Every store spills, as in TestSpillKeepsResults (whose liveness case,
					// this search, runs only without -race).
					for _, k := range []string{"seen", "frontier", "parents", "live-edges", "live-ids", "live-open"} {
						if got.spillFiles[k] == 0 {
							t.Errorf("%s: the %s store did not spill (%v)", sp.name, k, got.spillFiles)
						}
					}
					if got.DiskBytes == 0 {
						t.Errorf("%s: nothing spilled", sp.name)
					}
				}
				if out := outcomeOf(&sc, got); out != wantOut {
					t.Errorf("%s: got\n%s\nwant (in memory)\n%s", sp.name, out, wantOut)
				}
				assertEmpty(t, sc.TempDir)
			}
			t.Logf("%s", wantOut)
		})
	}
}

func hasFinding(r *Result, name string) bool {
	for _, f := range r.Findings {
		if f.Finding == name {
			return true
		}
	}
	return false
}
