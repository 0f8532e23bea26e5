package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sharesim/sharesim/checker/explore"
	"github.com/spf13/cobra"
)

// runSwarmShard runs check as shard i of n of a swarm and writes its result file and
// coverage file.
func runSwarmShard(stdout, stderr io.Writer, f checkFlags, sc explore.Scope) error {
	i, n, err := parseShard(f.swarm)
	if err != nil {
		return usageErr("--swarm %q: expected i/n with 1 <= i <= n", f.swarm)
	}
	sc.Shard, sc.Shards, sc.Split, sc.Seed = i-1, n, f.swarmSplit, f.seed
	sc.StepOrderSeed = f.seed*1_000_003 + uint64(i)
	sc.KeepFingerprints = true
	if len(f.swarmDepths) > 0 {
		sc.MaxDepth = f.swarmDepths[(i-1)%len(f.swarmDepths)]
	}
	if err := sc.Validate(); err != nil {
		return usageErr("%v", err)
	}
	out := f.swarmOut
	if out == "" {
		out = fmt.Sprintf("swarm-%d-of-%d.json", i, n)
	}
	fmt.Fprintf(stdout, "swarm shard %d/%d (seed %d, split depth %d) of %s\n", i, n, f.seed, sc.Split, sc.String())
	defer limitHeap(sc.Memory)()
	res, err := explore.Explore(sc, checkProgress(stderr, f))
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	r := explore.NewShardResult(&sc, res)
	r.Coverage = filepath.Base(out) + ".fps"
	if err := writeShard(out, r, res.Fingerprints); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fmt.Fprintf(stdout, "%d states, depth %d, %d violation(s), %d finding(s); wrote %s and %s; combine with: sharesim check merge FILES\n",
		r.States, r.Depth, len(r.Violations), len(r.Findings), out, r.Coverage)
	return nil
}

func writeShard(out string, r *explore.ShardResult, fps []uint64) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	buf := make([]byte, 8*len(fps))
	for k, v := range fps {
		binary.LittleEndian.PutUint64(buf[8*k:], v)
	}
	return os.WriteFile(filepath.Join(filepath.Dir(out), r.Coverage), buf, 0o644)
}

func readShard(path string) (*explore.ShardResult, []uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var r explore.ShardResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil, fmt.Errorf("%s: not a swarm result file: %v", path, err)
	}
	if r.Shards < 1 || r.Coverage == "" {
		return nil, nil, fmt.Errorf("%s: not a swarm result file (no shard count or coverage)", path)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), r.Coverage))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: coverage: %w", path, err)
	}
	if len(raw)%8 != 0 {
		return nil, nil, fmt.Errorf("%s: coverage file %s is truncated", path, r.Coverage)
	}
	fps := make([]uint64, len(raw)/8)
	for k := range fps {
		fps[k] = binary.LittleEndian.Uint64(raw[8*k:])
		if k > 0 && fps[k] <= fps[k-1] {
			return nil, nil, fmt.Errorf("%s: coverage file %s is not sorted", path, r.Coverage)
		}
	}
	return &r, fps, nil
}

func newCheckMergeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge RESULT.json...",
		Short: "Combine the result files of a swarm search (sharesim check --swarm i/n)",
		Long: `merge combines the result files that the shards of a swarm search wrote: the violations
broken at the least depth over the shards, the shallowest occurrence of each documented
finding, and the coverage (distinct states over all shards, from their fingerprint files).
The verdict follows check's: exit 0 when every shard is present and complete and nothing was
found, 1 on a violation or finding, 3 when shards are missing or were cut short by a bound.`,
		Example: `  sharesim check --swarm 1/3 --swarm-out s1.json
  sharesim check --swarm 2/3 --swarm-out s2.json
  sharesim check --swarm 3/3 --swarm-out s3.json
  sharesim check merge s1.json s2.json s3.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("merge needs at least one swarm result file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			var results []*explore.ShardResult
			var cov [][]uint64
			from := map[int]string{} // shard index → the file that gave it
			for _, p := range args {
				r, fps, err := readShard(p)
				if err != nil {
					return inputErr(err)
				}
				if prev, dup := from[r.Shard]; dup {
					return inputErr(fmt.Errorf("%s: shard %d of %d is already given by %s; give each shard once (counting one twice would double its states)", p, r.Shard+1, r.Shards, prev))
				}
				from[r.Shard] = p
				if len(results) > 0 && (r.Scope != results[0].Scope || r.Shards != results[0].Shards || r.Seed != results[0].Seed || r.Split != results[0].Split) {
					return inputErr(fmt.Errorf("%s: not a shard of the same swarm (scope, shard count, seed or split differ)", p))
				}
				results = append(results, r)
				cov = append(cov, fps)
			}
			m := explore.Merge(results, cov)
			fmt.Fprintf(w, "swarm of %d shards over %s: %d result file(s)\n", m.Shards, m.Scope, len(results))
			fmt.Fprintf(w, "%d distinct states (%d counted by the shards)\n", m.States, m.StatesSum)
			for _, fd := range m.Findings {
				fmt.Fprintf(w, "FINDING %s: %s broken after %d steps: %s (docs/findings.md#%s)\n", fd.Finding, fd.Invariant, fd.Depth, fd.Message, fd.Finding)
				printSteps(w, fd.Steps)
			}
			if len(m.Violations) > 0 {
				for _, v := range m.Violations {
					fmt.Fprintf(w, "FAIL: %s broken after %d steps: %s\n", v.Invariant, v.Depth, v.Message)
					printSteps(w, v.Steps)
				}
				return checksFailed
			}
			if len(m.Findings) > 0 {
				fmt.Fprintf(w, "KAFKA FINDINGS: %d documented Kafka behaviour(s) met, no other invariant broken\n", len(m.Findings))
				return checksFailed
			}
			if !m.Complete {
				var why []string
				for _, r := range results {
					if !r.Complete {
						why = append(why, fmt.Sprintf("shard %d stopped at its %s bound", r.Shard+1, r.Bounded))
					}
				}
				if len(m.Missing) > 0 {
					var ss []string
					for _, i := range m.Missing {
						ss = append(ss, strconv.Itoa(i+1))
					}
					why = append(why, "missing shards "+strings.Join(ss, ", "))
				}
				fmt.Fprintf(w, "INCOMPLETE: no violation in %d distinct states; not complete (%s)\n", m.States, strings.Join(why, "; "))
				return &exitError{code: exitIncomplete}
			}
			fmt.Fprintf(w, "PASS: no invariant broken; every shard complete\n")
			return nil
		},
	}
}

func printSteps(w io.Writer, steps []string) {
	for i, s := range steps {
		fmt.Fprintf(w, "  %2d. %s\n", i+1, s)
	}
}
