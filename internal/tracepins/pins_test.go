package tracepins

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testmode"
	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

var update = flag.Bool("update", false, "rewrite testdata/pins.txt and testdata/figures.txt from this build")

const (
	pinFile     = "testdata/pins.txt"
	figuresFile = "testdata/figures.txt"
)

// sampleRecords is how many record lives each pinned run follows (Options.SampleRecords): the
// sample is part of what the figures pin covers, and it does not change the trace.
const sampleRecords = 64

// eventBudget bounds each pinned run's estimated events: a bigger world is scaled down,
// consumers and production alike, so the whole test stays a few seconds long.
const eventBudget = 150_000

// smallBudget is the event budget of the small runs: every built-in and example whose
// estimate is above it is pinned a second time, scaled down to it, under the name
// "small/" + its name. The default run (-race, which slows these one-goroutine runs some
// ten times and can find nothing in them) runs the small run in place of the full one;
// every other run (without -race, or with the build tag long, which CI runs nightly) runs
// and compares both, so -update, which needs both, is run without -race.
const smallBudget = 40_000

// smallOnly: this run pins the small runs in place of the full ones they stand for.
const smallOnly = testmode.Race && !testmode.Long

// longestMs caps a pinned run's main phase: 3 minutes reach most built-ins' faults.
const longestMs = 180_000

// versions are the settings each built-in runs with: its own, Kafka 4.3 without the
// dead-letter queue, and Kafka 4.4 with it.
var versions = []struct {
	name string
	sets [][2]string
}{
	{"own", nil},
	{"4.3", [][2]string{{"kafka.errors.deadletterqueue.topic.name", ""}, {"kafka.version", "4.3"}}},
	{"4.4-dlq", [][2]string{{"kafka.version", "4.4"}, {"kafka.errors.deadletterqueue.topic.name", "dlq.pins"}}},
}

// pin is one pinned run: a name and what it left (the trace hash and its length).
type pin struct{ name, value string }

func TestTraceHashesArePinned(t *testing.T) {
	if smallOnly && *update {
		t.Fatal("-update writes the full-size pins too: run it without -race")
	}
	var (
		mu   sync.Mutex
		got  []pin
		figs []pin
		// standIns are the full-size runs a small run stood in for (smallOnly).
		standIns = map[string]bool{}
	)
	add := func(name, value string) {
		mu.Lock()
		got = append(got, pin{name, value})
		mu.Unlock()
	}
	runCfg := func(t *testing.T, name string, cfg sim.Config) {
		res, err := sim.Run(cfg, 1, sim.Options{SampleRecords: sampleRecords})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		add(name, fmt.Sprintf("%s %d", res.TraceSHA256, res.Events))
		fig := figuresHash(t, res)
		mu.Lock()
		figs = append(figs, pin{name, fig})
		mu.Unlock()
	}
	// runSized pins the run of the scenario load gives, shortened with sets, at full size
	// and, when the small budget scales it further, at the small size (see smallBudget).
	runSized := func(t *testing.T, name string, load func() (*scenarios.Scenario, error), sets [][2]string) {
		sized := func(budget int64) (sim.Config, int64) {
			sc, err := load()
			if err != nil {
				t.Fatal(err)
			}
			return shortened(t, sc, sets, budget)
		}
		full, est := sized(eventBudget)
		if est <= smallBudget {
			runCfg(t, name, full)
			return
		}
		small, _ := sized(smallBudget)
		runCfg(t, "small/"+name, small)
		if smallOnly {
			mu.Lock()
			standIns[name] = true
			mu.Unlock()
			return
		}
		runCfg(t, name, full)
	}

	t.Run("builtins", func(t *testing.T) {
		for _, in := range scenarios.List() {
			if in.Kind == scenarios.KindScripted {
				t.Run(in.Name, func(t *testing.T) {
					t.Parallel()
					sc, err := scenarios.Builtin(in.Name)
					if err != nil {
						t.Fatal(err)
					}
					res, err := scenarios.RunScript(sc)
					if err != nil {
						t.Fatal(err)
					}
					sum := sha256.Sum256([]byte(res.String()))
					add("script/"+in.Name, hex.EncodeToString(sum[:]))
				})
				continue
			}
			for _, v := range versions {
				t.Run(in.Name+"/"+v.name, func(t *testing.T) {
					t.Parallel()
					runSized(t, "builtin/"+in.Name+"/"+v.name, func() (*scenarios.Scenario, error) { return scenarios.Builtin(in.Name) }, v.sets)
				})
			}
		}
	})
	t.Run("examples", func(t *testing.T) {
		files, err := filepath.Glob("../../docs/examples/*.yaml")
		if err != nil || len(files) == 0 {
			t.Fatalf("no documented examples found (%v)", err)
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".yaml")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runSized(t, "example/"+name, func() (*scenarios.Scenario, error) { return scenarios.Load(f) }, nil)
			})
		}
	})
	t.Run("zoo", func(t *testing.T) {
		for _, name := range testworlds.ZooNames() {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runCfg(t, "zoo/"+name+"/faithful", testworlds.Zoo[name]())
			})
		}
		for _, zc := range testworlds.ZooCases {
			t.Run(zc.World+"/"+zc.Bug, func(t *testing.T) {
				t.Parallel()
				cfg := testworlds.Zoo[zc.World]()
				cfg.Kafka.Bug = zc.Bug
				runCfg(t, "zoo/"+zc.World+"/"+zc.Bug, cfg)
			})
		}
	})
	t.Run("worlds", func(t *testing.T) {
		// The test worlds of the benchmarks and the checkers' tests (Hour: two minutes of the
		// benchmark world).
		worlds := map[string]func() sim.Config{
			"hour":   func() sim.Config { return testworlds.Hour(120_000) },
			"busy":   testworlds.Busy,
			"faulty": func() sim.Config { return testworlds.Faulty(model.Kafka42) },
		}
		for name, cfg := range worlds {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				runCfg(t, "world/"+name, cfg())
			})
		}
	})
	if t.Failed() {
		return
	}
	if *update {
		writePins(t, pinFile, "# name sha256 events (seed 1; go test ./internal/tracepins -update rewrites it)", got)
		writePins(t, figuresFile, "# name sha256 of the figures as JSON (metrics, final states, marks, config changes, record sample; seed 1; -update rewrites it)", figs)
		return
	}
	comparePins(t, pinFile, "trace", got, standIns)
	comparePins(t, figuresFile, "figures", figs, standIns)
}

// figuresHash is the SHA-256 of what a run reports besides its trace, as JSON: the metrics
// (as summary.json holds them), the final states, the coverage marks, the config changes and
// the record sample. A change that keeps the trace but moves a figure changes it.
func figuresHash(t *testing.T, res *sim.Result) string {
	t.Helper()
	b, err := json.Marshal(struct {
		Metrics       sim.Metrics
		Final         []sim.FinalState
		Marks         []sim.Mark
		ConfigChanges []sim.ConfigChange
		Sample        *sim.RecordSample
	}{res.Metrics, res.Final, res.Marks, res.ConfigChanges, res.Sample})
	if err != nil {
		t.Fatalf("figures as JSON: %v", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func writePins(t *testing.T, file, header string, pins []pin) {
	t.Helper()
	sort.Slice(pins, func(i, j int) bool { return pins[i].name < pins[j].name })
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, p := range pins {
		fmt.Fprintf(&b, "%s %s\n", p.name, p.value)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d pins to %s", len(pins), file)
}

// comparePins checks pins against file; what names the kind of value that changed, and
// standIns the pins of file this run left out (a small run stood in for each).
func comparePins(t *testing.T, file, what string, pins []pin, standIns map[string]bool) {
	t.Helper()
	want := readPins(t, file)
	for name := range standIns {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s not pinned in %s (run with -update and say why in the commit)", name, what, file)
		}
		delete(want, name)
	}
	for _, p := range pins {
		w, ok := want[p.name]
		switch {
		case !ok:
			t.Errorf("%s: %s not pinned in %s (run with -update and say why in the commit)", p.name, what, file)
		case w != p.value:
			t.Errorf("%s: %s changed: pinned %s, now %s", p.name, what, w, p.value)
		}
		delete(want, p.name)
	}
	for name := range want {
		t.Errorf("%s: pinned in %s but no longer run", name, file)
	}
}

// shortened is sc with its main phase cut to longestMs (its healing phase kept) and the
// extra settings, scaled down to the event budget; it returns the estimated events before
// the scaling too.
func shortened(t *testing.T, sc *scenarios.Scenario, sets [][2]string, eventBudget int64) (sim.Config, int64) {
	t.Helper()
	cfg, err := sc.SimConfig()
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	if cfg.DurationMs > longestMs {
		pairs = append(pairs, [2]string{"duration", fmt.Sprintf("%dms", longestMs)})
	}
	for i, p := range cfg.Producers {
		if p.StartMs >= longestMs {
			pairs = append(pairs, [2]string{fmt.Sprintf("producers.%d.start", i), "0"})
		}
	}
	if err := sc.SetAll(append(pairs, sets...)); err != nil {
		t.Fatal(err)
	}
	if cfg, err = sc.SimConfig(); err != nil {
		t.Fatal(err)
	}
	est := scenarios.EstimateCost(cfg).Events
	if est > eventBudget {
		factor := int((est + eventBudget - 1) / eventBudget)
		var scale [][2]string
		for gi, g := range cfg.Groups {
			for ci, c := range g.Consumers {
				scale = append(scale, [2]string{fmt.Sprintf("groups.%d.consumers.%d.count", gi, ci), fmt.Sprint(max(1, c.Count/factor))})
			}
		}
		for pi, p := range cfg.Producers {
			scale = append(scale, [2]string{fmt.Sprintf("producers.%d.rate", pi), fmt.Sprintf("%g/s", p.RecordsPerSecond/float64(factor))})
		}
		if err := sc.SetAll(scale); err != nil {
			t.Fatal(err)
		}
		if cfg, err = sc.SimConfig(); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, est
}

func readPins(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/tracepins -update)", err)
	}
	defer f.Close()
	pins := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", file, line)
		}
		pins[name] = value
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}
