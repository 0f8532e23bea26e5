package tracepins

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sharesim/sharesim/internal/testworlds"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/sharesim/sharesim/sim"
)

var update = flag.Bool("update", false, "rewrite testdata/pins.txt from this build")

const pinFile = "testdata/pins.txt"

// eventBudget bounds each pinned run's estimated events: a bigger world is scaled down,
// consumers and production alike, so the whole test stays a few seconds long.
const eventBudget = 150_000

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
	var (
		mu  sync.Mutex
		got []pin
	)
	add := func(name, value string) {
		mu.Lock()
		got = append(got, pin{name, value})
		mu.Unlock()
	}
	runCfg := func(t *testing.T, name string, cfg sim.Config) {
		res, err := sim.Run(cfg, 1, sim.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		add(name, fmt.Sprintf("%s %d", res.TraceSHA256, res.Events))
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
					sc, err := scenarios.Builtin(in.Name)
					if err != nil {
						t.Fatal(err)
					}
					runCfg(t, "builtin/"+in.Name+"/"+v.name, shortened(t, sc, v.sets))
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
				sc, err := scenarios.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				runCfg(t, "example/"+name, shortened(t, sc, nil))
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
	if t.Failed() {
		return
	}
	sort.Slice(got, func(i, j int) bool { return got[i].name < got[j].name })
	if *update {
		var b strings.Builder
		b.WriteString("# name sha256 events (seed 1; go test ./internal/tracepins -update rewrites it)\n")
		for _, p := range got {
			fmt.Fprintf(&b, "%s %s\n", p.name, p.value)
		}
		if err := os.MkdirAll(filepath.Dir(pinFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pinFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d pins", len(got))
		return
	}
	want := readPins(t)
	for _, p := range got {
		w, ok := want[p.name]
		switch {
		case !ok:
			t.Errorf("%s: not pinned (run with -update and say why in the commit)", p.name)
		case w != p.value:
			t.Errorf("%s: trace changed: pinned %s, now %s", p.name, w, p.value)
		}
		delete(want, p.name)
	}
	for name := range want {
		t.Errorf("%s: pinned but no longer run", name)
	}
}

// shortened is sc with its main phase cut to longestMs (its healing phase kept) and the
// extra settings, scaled down to the event budget.
func shortened(t *testing.T, sc *scenarios.Scenario, sets [][2]string) sim.Config {
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
	if est := scenarios.EstimateCost(cfg).Events; est > eventBudget {
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
	return cfg
}

func readPins(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(pinFile)
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
			t.Fatalf("%s: bad line %q", pinFile, line)
		}
		pins[name] = value
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}
