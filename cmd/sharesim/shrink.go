package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/sharesim/sharesim/internal/atomicfile"
	"github.com/sharesim/sharesim/scenarios"
	"github.com/spf13/cobra"
)

type shrinkFlags struct {
	seed    uint64
	seedS   bool
	out     string
	sets    []string
	check   string
	maxRuns int
	tries   int
}

func newShrinkCmd() *cobra.Command {
	var f shrinkFlags
	cmd := &cobra.Command{
		Use:   "shrink SCENARIO",
		Short: "Reduce a failing workload scenario to a small one that still fails the same check",
		Long: `shrink runs a workload scenario that fails a check and reduces it greedily — shorter
duration and healing phase, fewer faults, producers, groups, consumers and partitions, lower
rates and batch sizes, no random write failures or lost responses — keeping each reduction
only if the run still fails the same check (with the same seed, or one of the next --tries
seeds). It writes the smallest failing scenario found (with the seed that fails in its seed
key) to --out: 'sharesim run FILE' reproduces the failure.

Exit code 0: a reduced scenario was written; 2: the scenario does not fail or bad input.`,
		Example: `  sharesim shrink consumer-deaths --set kafka.bug=release-stops-at-foreign --out small.yaml
  sharesim run small.yaml`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.seedS = cmd.Flags().Changed("seed")
			var err error
			if f.out, err = outFlag(cmd, f.out); err != nil {
				return err
			}
			return runShrink(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f)
		},
	}
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "root seed of the failing run (default: the scenario's seed)")
	cmd.Flags().StringVar(&f.out, "out", "", "where to write the reduced scenario (default: NAME-shrunk.yaml)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a field: path=value (repeatable), e.g. kafka.bug=NAME")
	cmd.Flags().StringVar(&f.check, "check", "", "the check that must keep failing (default: the first one that fails)")
	cmd.Flags().IntVar(&f.maxRuns, "max-runs", 120, "bound on the simulator runs the reduction may make")
	cmd.Flags().IntVar(&f.tries, "tries", 2, "seeds tried for each candidate (the failing seed and the next ones)")
	return cmd
}

// shrinker holds the reduction state.
type shrinker struct {
	name  string
	check string
	seed  uint64
	tries int
	runs  int
	max   int
	log   []string
	// stop ends a run in progress at an interruption (the candidate then counts as not
	// failing, and the reduction so far is written).
	stop func() bool
}

// attempt runs a candidate document; it reports whether the check still fails and with
// which seed, and the run's event count.
func (s *shrinker) attempt(doc *yaml.Node) (bool, uint64, int64) {
	data, err := marshalDoc(doc)
	if err != nil {
		return false, 0, 0
	}
	sc, err := scenarios.Parse(s.name+".yaml", data)
	if err != nil || sc.Kind() != scenarios.KindWorkload {
		return false, 0, 0 // the reduction made the scenario invalid
	}
	for k := 0; k < s.tries && s.runs < s.max; k++ {
		seed := s.seed + uint64(k)
		s.runs++
		o, err := simulate(sc, seed, simOpts{stop: s.stop})
		if err != nil {
			continue
		}
		for _, v := range o.violations {
			if v.Check == s.check {
				return true, seed, o.res.Events
			}
		}
	}
	return false, 0, 0
}

func runShrink(stdout, stderr io.Writer, arg string, f shrinkFlags) error {
	if err := atLeast("max-runs", f.maxRuns, 1); err != nil {
		return err
	}
	if err := atLeast("tries", f.tries, 1); err != nil {
		return err
	}
	sc, err := loadScenario(arg, f.sets)
	if err != nil {
		return err
	}
	if sc.Kind() != scenarios.KindWorkload {
		return usageErr("shrink takes a workload scenario; %s is %s (scripted scenarios are already minimal steps)", arg, sc.Kind())
	}
	out := f.out
	if out == "" {
		out = sc.Name() + "-shrunk.yaml"
	}
	// Checked before the reduction's many runs, not after them.
	if err := checkOutFile(out); err != nil {
		return err
	}
	intr := catchInterrupts()
	defer intr.Stop()
	seed := sc.Seed()
	if f.seedS {
		seed = f.seed
	}
	o, err := simulate(sc, seed, simOpts{})
	if err != nil {
		return err
	}
	check := f.check
	if check == "" && len(o.violations) > 0 {
		check = o.violations[0].Check
	}
	failing := false
	for _, v := range o.violations {
		failing = failing || v.Check == check
	}
	if !failing {
		if check == "" {
			return usageErr("%s passes every check with seed %d: nothing to shrink", arg, seed)
		}
		return usageErr("%s does not fail %s with seed %d: nothing to shrink", arg, check, seed)
	}
	canon, err := sc.Canonical()
	if err != nil {
		return inputErr(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(canon, &doc); err != nil {
		return inputErr(err)
	}
	s := &shrinker{name: sc.Name(), check: check, seed: seed, tries: max(1, f.tries), max: f.maxRuns, stop: intr.Interrupted}
	before := describeSize(&doc, o.res.Events)
	fmt.Fprintf(stdout, "%s fails %s with seed %d (%s); shrinking (at most %d runs)\n", sc.Name(), check, seed, before, f.maxRuns)
	events := o.res.Events
	bar := newProgress(stderr, "shrink "+sc.Name(), float64(f.maxRuns), countOf("runs"))
	defer bar.finish()
	for progress := true; progress && s.runs < s.max && !intr.Interrupted(); {
		progress = false
		for _, c := range candidates(&doc) {
			if s.runs >= s.max || intr.Interrupted() {
				break // a signal: the reduction so far is written, the run in progress finished
			}
			next := cloneYAML(&doc)
			what, changed := c.apply(next)
			if !changed {
				continue
			}
			ok, seedOK, ev := s.attempt(next)
			bar.set(float64(s.runs))
			if !ok {
				continue
			}
			doc, s.seed, events, progress = *next, seedOK, ev, true
			s.log = append(s.log, what)
			fmt.Fprintf(stdout, "  %s: still fails (seed %d, %d events)\n", what, seedOK, ev)
		}
	}
	root := doc.Content[0]
	setScalar(root, "name", s.name+"-shrunk")
	setScalar(root, "seed", strconv.FormatUint(s.seed, 10))
	desc := strings.Join(explore.WrapText(fmt.Sprintf("Shrunk by 'sharesim shrink' from %s (seed %d, %s) in %d runs: with seed %d it still fails %s.",
		sc.Name(), seed, before, s.runs, s.seed, check), 88), "\n")
	if old := mapGet(root, "description"); old != nil && strings.TrimSpace(old.Value) != "" {
		desc += "\n\n" + strings.TrimSpace(old.Value)
	}
	setScalar(root, "description", desc)
	mapGet(root, "description").Style = yaml.LiteralStyle
	data, err := marshalDoc(&doc)
	if err != nil {
		return inputErr(err)
	}
	if err := atomicfile.WriteFile(out, data); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(stdout, "reduced to %s after %d runs (%d reductions kept)\n", describeSize(&doc, events), s.runs, len(s.log))
	fmt.Fprintf(stdout, "wrote %s; reproduce: sharesim run %s\n", filepath.ToSlash(out), shellQuote(out))
	if intr.Interrupted() {
		return &exitError{code: exitIncomplete, err: fmt.Errorf("shrink interrupted after %d runs: %s is the smallest failing scenario found so far (it still fails %s)", s.runs, filepath.ToSlash(out), check)}
	}
	return nil
}

// A candidate is one reduction of the scenario document: apply changes the document (a copy)
// and describes the change, or reports that it does not apply any more.
type candidate struct {
	apply func(root *yaml.Node) (string, bool)
}

// candidates lists the reductions to try on doc, biggest first. Each reads the value it
// reduces when applied, so reductions kept earlier in a pass are built on.
func candidates(doc *yaml.Node) []candidate {
	root := doc.Content[0]
	var out []candidate
	for _, key := range []string{"duration", "heal"} {
		if mapGet(root, key) != nil {
			key := key
			out = append(out, candidate{func(d *yaml.Node) (string, bool) {
				v := mapGet(d.Content[0], key)
				if v == nil {
					return "", false
				}
				ms, ok := parseMs(v.Value)
				if !ok || ms < 2000 {
					return "", false
				}
				old := v.Value
				setScalar(d.Content[0], key, fmtMs(ms/2))
				return fmt.Sprintf("%s %s → %s", key, old, fmtMs(ms/2)), true
			}})
		}
	}
	// Delta debugging: faults and swarm draws go in bulk first (halves, then quarters, ...),
	// then one at a time; a fault's window is shortened.
	out = append(out, removeChunks("faults", func(d *yaml.Node) *yaml.Node { return mapGet(d.Content[0], "faults") }, mapGet(root, "faults"), 0)...)
	out = append(out, removeItems(root, "faults", 0)...)
	if fs := mapGet(root, "faults"); fs != nil && fs.Kind == yaml.SequenceNode {
		for fi := range fs.Content {
			fi := fi
			at := func(d *yaml.Node) *yaml.Node {
				if fs := mapGet(d.Content[0], "faults"); fs != nil && fi < len(fs.Content) {
					return fs.Content[fi]
				}
				return nil
			}
			for _, key := range []string{"duration", "until", "restart_after"} {
				out = append(out, halveDuration(fmt.Sprintf("faults[%d].%s", fi, key), at, key))
			}
		}
	}
	if sw := mapGet(root, "swarm"); sw != nil {
		swarm := func(d *yaml.Node) *yaml.Node { return mapGet(d.Content[0], "swarm") }
		out = append(out, candidate{func(d *yaml.Node) (string, bool) {
			if mapDelete(d.Content[0], "swarm") {
				return "swarm removed", true
			}
			return "", false
		}})
		out = append(out, reduceInt("swarm.count", swarm, "count", 0)...)
		kinds := func(d *yaml.Node) *yaml.Node { return mapGet(swarm(d), "kinds") }
		out = append(out, removeChunks("swarm.kinds", kinds, mapGet(sw, "kinds"), 1)...)
		out = append(out, removeItemsAt("swarm.kinds", kinds, mapGet(sw, "kinds"), 1)...)
	}
	out = append(out, removeItems(root, "groups", 1)...)
	if groups := mapGet(root, "groups"); groups != nil {
		for gi, g := range groups.Content {
			gi := gi
			consumers := func(d *yaml.Node) *yaml.Node {
				if gs := mapGet(d.Content[0], "groups"); gs != nil && gi < len(gs.Content) {
					return mapGet(gs.Content[gi], "consumers")
				}
				return nil
			}
			out = append(out, removeItemsAt(fmt.Sprintf("groups[%d].consumers", gi), consumers, mapGet(g, "consumers"), 1)...)
			if cs := mapGet(g, "consumers"); cs != nil {
				for ci := range cs.Content {
					ci := ci
					at := func(d *yaml.Node) *yaml.Node {
						if cs := consumers(d); cs != nil && ci < len(cs.Content) {
							return cs.Content[ci]
						}
						return nil
					}
					out = append(out, reduceInt(fmt.Sprintf("groups[%d].consumers[%d].count", gi, ci), at, "count", 1)...)
					out = append(out, reduceInt(fmt.Sprintf("groups[%d].consumers[%d].max.poll.records", gi, ci), at, "max.poll.records", 1)...)
				}
			}
		}
	}
	out = append(out, removeItems(root, "producers", 1)...)
	if ps := mapGet(root, "producers"); ps != nil {
		for pi := range ps.Content {
			pi := pi
			at := func(d *yaml.Node) *yaml.Node {
				if ps := mapGet(d.Content[0], "producers"); ps != nil && pi < len(ps.Content) {
					return ps.Content[pi]
				}
				return nil
			}
			out = append(out, candidate{func(d *yaml.Node) (string, bool) {
				r := mapGet(at(d), "rate")
				if r == nil {
					return "", false
				}
				m := rateRe.FindStringSubmatch(r.Value)
				if m == nil {
					return "", false
				}
				x, err := strconv.ParseFloat(m[1], 64)
				if err != nil || x <= 1 {
					return "", false
				}
				old, nv := r.Value, strconv.FormatFloat(x/2, 'f', -1, 64)+m[2]
				setScalar(at(d), "rate", nv)
				return fmt.Sprintf("producers[%d].rate %s → %s", pi, old, nv), true
			}})
			out = append(out, reduceInt(fmt.Sprintf("producers[%d].batch_records", pi), at, "batch_records", 1)...)
		}
	}
	if ts := mapGet(root, "topics"); ts != nil {
		for ti := range ts.Content {
			ti := ti
			at := func(d *yaml.Node) *yaml.Node {
				if ts := mapGet(d.Content[0], "topics"); ts != nil && ti < len(ts.Content) {
					return ts.Content[ti]
				}
				return nil
			}
			out = append(out, reduceInt(fmt.Sprintf("topics[%d].partitions", ti), at, "partitions", 1)...)
		}
	}
	for _, path := range [][2]string{{"coordinator", "write_failure"}, {"network", "response_loss"}} {
		if sec := mapGet(root, path[0]); sec != nil && mapGet(sec, path[1]) != nil {
			path := path
			out = append(out, candidate{func(d *yaml.Node) (string, bool) {
				return path[0] + "." + path[1] + " removed", mapDelete(mapGet(d.Content[0], path[0]), path[1])
			}})
		}
	}
	if mapGet(root, "swarm") != nil {
		out = append(out, reduceInt("swarm.count", func(d *yaml.Node) *yaml.Node { return mapGet(d.Content[0], "swarm") }, "count", 1)...)
	}
	return out
}

var rateRe = regexp.MustCompile(`^\s*([0-9.]+)\s*(/.*)$`)

// removeChunks proposes removing runs of consecutive elements of a list, as delta debugging
// does: the first and second half, then each quarter, each eighth, ... down to runs of two
// (single elements are removeItemsAt's), keeping at least keep elements.
func removeChunks(what string, at func(*yaml.Node) *yaml.Node, list *yaml.Node, keep int) []candidate {
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) < 2 {
		return nil
	}
	var out []candidate
	for parts := 2; len(list.Content)/parts >= 2; parts *= 2 {
		for k := 0; k < parts; k++ {
			parts, k := parts, k
			out = append(out, candidate{func(d *yaml.Node) (string, bool) {
				l := at(d)
				if l == nil {
					return "", false
				}
				n := len(l.Content)
				lo, hi := k*n/parts, (k+1)*n/parts
				if hi-lo < 2 || n-(hi-lo) < keep {
					return "", false
				}
				l.Content = append(l.Content[:lo:lo], l.Content[hi:]...)
				return fmt.Sprintf("%s[%d:%d] removed (%d of %d)", what, lo, hi, hi-lo, n), true
			}})
		}
	}
	return out
}

// halveDuration proposes halving a duration field (not below 1 s).
func halveDuration(what string, at func(*yaml.Node) *yaml.Node, key string) candidate {
	return candidate{func(d *yaml.Node) (string, bool) {
		m := at(d)
		v := mapGet(m, key)
		if v == nil {
			return "", false
		}
		ms, ok := parseMs(v.Value)
		if !ok || ms < 2000 {
			return "", false
		}
		old := v.Value
		setScalar(m, key, fmtMs(ms/2))
		return fmt.Sprintf("%s %s → %s", what, old, fmtMs(ms/2)), true
	}}
}

// removeItems proposes removing each element of the top-level list key, keeping at least keep.
func removeItems(root *yaml.Node, key string, keep int) []candidate {
	return removeItemsAt(key, func(d *yaml.Node) *yaml.Node { return mapGet(d.Content[0], key) }, mapGet(root, key), keep)
}

func removeItemsAt(what string, at func(*yaml.Node) *yaml.Node, list *yaml.Node, keep int) []candidate {
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) <= keep {
		return nil
	}
	var out []candidate
	for i := len(list.Content) - 1; i >= 0; i-- {
		i := i
		out = append(out, candidate{func(d *yaml.Node) (string, bool) {
			l := at(d)
			if l == nil || i >= len(l.Content) || len(l.Content) <= keep {
				return "", false
			}
			l.Content = append(l.Content[:i], l.Content[i+1:]...)
			return fmt.Sprintf("%s[%d] removed", what, i), true
		}})
	}
	return out
}

// reduceInt proposes halving an integer field, and lowering it by one, not below floor.
func reduceInt(what string, at func(*yaml.Node) *yaml.Node, key string, floor int64) []candidate {
	step := func(half bool) candidate {
		return candidate{func(d *yaml.Node) (string, bool) {
			m := at(d)
			v := mapGet(m, key)
			if v == nil {
				return "", false
			}
			x, err := strconv.ParseInt(strings.ReplaceAll(v.Value, "_", ""), 10, 64)
			if err != nil || x <= floor {
				return "", false
			}
			nv := x - 1
			if half {
				nv = max(floor, x/2)
			}
			setScalar(m, key, strconv.FormatInt(nv, 10))
			return fmt.Sprintf("%s %d → %d", what, x, nv), true
		}}
	}
	return []candidate{step(true), step(false)}
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func mapDelete(m *yaml.Node, key string) bool {
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return true
		}
	}
	return false
}

// setScalar sets (or adds) a scalar value in a mapping.
func setScalar(m *yaml.Node, key, value string) bool {
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	if v := mapGet(m, key); v != nil {
		*v = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
		if _, err := strconv.ParseInt(value, 10, 64); err == nil {
			v.Tag = "!!int"
		}
		return true
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if _, err := strconv.ParseInt(value, 10, 64); err == nil {
		v.Tag = "!!int"
	}
	m.Content = append(m.Content, k, v)
	return true
}

func cloneYAML(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = cloneYAML(x)
	}
	return &c
}

func marshalDoc(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// describeSize summarises what a scenario runs.
func describeSize(doc *yaml.Node, events int64) string {
	root := doc.Content[0]
	count := func(key string) int {
		if l := mapGet(root, key); l != nil {
			return len(l.Content)
		}
		return 0
	}
	consumers, partitions := int64(0), int64(0)
	if gs := mapGet(root, "groups"); gs != nil {
		for _, g := range gs.Content {
			if cs := mapGet(g, "consumers"); cs != nil {
				for _, c := range cs.Content {
					n := int64(1)
					if v := mapGet(c, "count"); v != nil {
						n, _ = strconv.ParseInt(v.Value, 10, 64)
					}
					consumers += n
				}
			}
		}
	}
	if ts := mapGet(root, "topics"); ts != nil {
		for _, t := range ts.Content {
			n := int64(1)
			if v := mapGet(t, "partitions"); v != nil {
				n, _ = strconv.ParseInt(v.Value, 10, 64)
			}
			partitions += n
		}
	}
	dur := "default duration"
	if v := mapGet(root, "duration"); v != nil {
		dur = v.Value
	}
	faults := strconv.Itoa(count("faults")) + " faults"
	if sw := mapGet(root, "swarm"); sw != nil {
		draws := 0
		if v := mapGet(sw, "count"); v != nil {
			draws, _ = strconv.Atoi(v.Value)
		} else if k := mapGet(sw, "kinds"); k != nil {
			draws = len(k.Content)
		}
		faults += fmt.Sprintf(" + %d swarm draws", draws)
	}
	return fmt.Sprintf("%s, %d consumers, %d partitions, %d producers, %s, %d events", dur, consumers, partitions, count("producers"), faults, events)
}

// parseMs reads durations like 90s, 6m, 1h30m, 500ms, 1.5s.
func parseMs(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	var total float64
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, false
		}
		x, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, false
		}
		s = s[i:]
		unit := map[string]float64{"ms": 1, "s": 1000, "m": 60000, "h": 3600000}
		matched := false
		for _, u := range []string{"ms", "h", "m", "s"} {
			if strings.HasPrefix(s, u) {
				total += x * unit[u]
				s = s[len(u):]
				matched = true
				break
			}
		}
		if !matched {
			return 0, false
		}
	}
	return int64(total), true
}

func fmtMs(ms int64) string {
	switch {
	case ms%3_600_000 == 0:
		return fmt.Sprintf("%dh", ms/3_600_000)
	case ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// checkOutFile refuses an output file that cannot be written (a folder, a missing or
// read-only folder), before any work; nothing is created.
func checkOutFile(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErr("--out %s: is a folder; expected a file name", path)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, atomicfile.TempPrefix+"probe-*")
	if err != nil {
		return usageErr("--out %s: cannot write there: %v", path, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
