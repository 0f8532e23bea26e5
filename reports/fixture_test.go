package reports

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

// The report tests draw from result folders kept in testdata, so that the golden plots change
// only when the plotting code does, not whenever the simulator's behaviour moves. -regen
// re-runs the simulator to rewrite those folders (then run again with -update to redraw the
// golden files, and read both diffs).
var regen = flag.Bool("regen", false, "re-run the simulator to rewrite the result folders in testdata/fixtures")

// fixtures are the result folders the tests draw.
var fixtures = []struct {
	name     string
	scenario string // built-in name or file, for runs
	seed     uint64
	sweep    bool
}{
	{name: "run-quickstart", scenario: "quickstart", seed: 1},
	{name: "run-share-and-classic", scenario: "testdata/share-and-classic.yaml", seed: 3},
	{name: "sweep-quickstart", scenario: "quickstart", sweep: true},
}

// fixtureFiles are the files of a fixture folder that Render reads.
var fixtureFiles = []string{"summary.json", "series.json", "records.json", "scenario.yaml", "sweep.json"}

func fixtureDir(name string) string { return filepath.Join("testdata", "fixtures", name) }

// TestMain rewrites the fixtures first when asked to.
func TestMain(m *testing.M) {
	flag.Parse()
	if *regen {
		for _, f := range fixtures {
			dir := fixtureDir(f.name)
			var err error
			if f.sweep {
				err = writeSweepFixture(dir, f.scenario)
			} else {
				err = writeRunFixture(dir, f.scenario, f.seed)
			}
			if err != nil {
				panic(err)
			}
		}
	}
	os.Exit(m.Run())
}

// runScenario runs a scenario as `sharesim run --out` does, without checks.
func runScenario(scenario string, seed uint64, sets ...string) (*Summary, *sim.Result, []byte, error) {
	sc, err := scenarios.LoadAny(scenario)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, s := range sets {
		k, v, _ := strings.Cut(s, "=")
		if err := sc.Set(k, v); err != nil {
			return nil, nil, nil, err
		}
	}
	cfg, err := sc.SimConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	res, err := sim.Run(cfg, seed, sim.Options{SampleRecords: SampleRecords})
	if err != nil {
		return nil, nil, nil, err
	}
	yml, err := sc.Canonical()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := "sharesim run " + scenario + " --seed " + strconv.FormatUint(seed, 10)
	s := &Summary{Scenario: sc.Name(), Title: sc.Title(), Seed: seed, Sharesim: "test", Kafka: cfg.Kafka.Version.String(),
		Verdict: "pass", Violations: []Violation{}, Headline: NewHeadline(res), Metrics: res.Metrics, Marks: MarksMap(res),
		Final: res.Final, TraceSHA256: res.TraceSHA256, Events: res.Events, EndMs: res.EndMs, Command: cmd}
	return s, res, yml, nil
}

func writeRunFixture(dir, scenario string, seed uint64) error {
	s, res, yml, err := runScenario(scenario, seed)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := WriteRun(dir, s, res, yml); err != nil {
		return err
	}
	// Keep only what Render reads.
	for _, f := range []string{"events.ndjson", "metrics.csv"} {
		os.Remove(filepath.Join(dir, f))
	}
	return nil
}

// writeSweepFixture runs a small sweep: three lock durations × two consumer counts × two
// seeds on a shortened scenario.
func writeSweepFixture(dir, scenario string) error {
	t := &SweepTable{Scenario: scenario, Sharesim: "test", Seeds: "1..2", Grid: []Axis{
		{Path: "kafka.share.record.lock.duration.ms", Values: []string{"15s", "30s", "60s"}},
		{Path: "groups.0.consumers.0.count", Values: []string{"2", "4"}},
	}}
	point := 0
	for _, lock := range t.Grid[0].Values {
		for _, count := range t.Grid[1].Values {
			params := []Param{{Path: t.Grid[0].Path, Value: lock}, {Path: t.Grid[1].Path, Value: count}}
			for seed := uint64(1); seed <= 2; seed++ {
				_, res, _, err := runScenario(scenario, seed, params[0].Path+"="+lock, params[1].Path+"="+count)
				if err != nil {
					return err
				}
				t.Rows = append(t.Rows, NewSweepRow(point, params, seed, res, 0))
			}
			point++
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := WriteSweep(dir, t); err != nil {
		return err
	}
	sc, err := scenarios.LoadAny(scenario)
	if err != nil {
		return err
	}
	yml, err := sc.Canonical()
	if err != nil {
		return err
	}
	for _, f := range []string{"sweep.csv", "sweep-aggregate.csv"} {
		os.Remove(filepath.Join(dir, f))
	}
	return WriteScenario(dir, yml)
}

// copyFixture copies a fixture folder into a fresh temporary folder and returns it.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtureFiles {
		b, err := os.ReadFile(filepath.Join(fixtureDir(name), f))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
