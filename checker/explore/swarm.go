package explore

import (
	"sort"
)

// Swarm search: one scope explored as independent shards on as many machines as there are
// (CI matrix jobs, a Kubernetes Indexed Job, a Slurm array), then merged. Every shard runs
// the same breadth-first search up to depth Split; the states first reached at that depth are
// divided among the shards by their fingerprint hashed with the swarm's seed, and each shard
// expands only its own from there, with its own seen set. Every state deeper than Split has a
// shortest path through one state at depth Split, so the shard owning that state reaches it
// at no greater depth: the union of the shards' seen sets is the whole reachable state space
// (within the same bounds), the least depth of a violation over the shards is the least depth
// of the unsharded search, and the invariants broken at that depth are the same. Merge
// therefore gives the same verdict, the same violations at the same depths, the same findings
// and the same number of distinct states whatever the number of shards. A step-order seed per
// shard and per-shard depth or state bounds add diversity when shards cannot finish (swarm
// testing); bounds that differ between shards make the merged coverage depend on them.

// shardOf assigns a state at the split depth (its frontier entry) to a shard, by the hash of
// its whole encoding (fingerprint; not its fingerprint in the seen set, stateFP, which was
// once that hash: the shards keep the states they were given then).
func shardOf(entry []byte, seed uint64, shards int) int {
	enc, _, _, _ := splitState(entry)
	x := uint64(fingerprint(enc)) ^ seed
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return int(x % uint64(shards))
}

// ShardViolation is a violation as a shard reports it: what, how deep, and the steps.
type ShardViolation struct {
	Invariant string   `json:"invariant"`
	Finding   string   `json:"finding,omitempty"`
	Message   string   `json:"message"`
	Depth     int      `json:"depth"`
	Steps     []string `json:"steps"`
}

// ShardResult is one shard's result file.
type ShardResult struct {
	Scope    string `json:"scope"`
	Shard    int    `json:"shard"`
	Shards   int    `json:"shards"`
	Seed     uint64 `json:"seed"`
	Split    int    `json:"split"`
	MaxDepth int    `json:"max_depth,omitempty"`
	States   int    `json:"states"`
	Depth    int    `json:"depth"`
	Complete bool   `json:"complete"`
	Bounded  string `json:"bounded,omitempty"`
	// Violations are the invariants broken at the shard's first violation depth.
	Violations []ShardViolation `json:"violations,omitempty"`
	Findings   []ShardViolation `json:"findings,omitempty"`
	ElapsedSec float64          `json:"elapsed_s"`
	// Coverage is the file of the shard's fingerprints (sorted little-endian uint64s),
	// relative to the result file.
	Coverage string `json:"coverage"`
}

func toShardViolation(sc *Scope, f *Found) ShardViolation {
	v := ShardViolation{Invariant: f.Invariant, Finding: f.Finding, Message: f.Message, Depth: len(f.Path), Steps: []string{}}
	for _, a := range f.Path {
		v.Steps = append(v.Steps, a.Describe(sc))
	}
	return v
}

// NewShardResult summarises a shard's search.
func NewShardResult(sc *Scope, res *Result) *ShardResult {
	r := &ShardResult{Scope: sc.String(), Shard: sc.Shard, Shards: sc.Shards, Seed: sc.Seed, Split: sc.Split, MaxDepth: sc.MaxDepth,
		States: res.States, Depth: res.Depth, Complete: res.Complete || res.Violation != nil && res.Bounded == "", Bounded: res.Bounded,
		ElapsedSec: res.Elapsed.Seconds()}
	for _, f := range res.LevelViolations {
		r.Violations = append(r.Violations, toShardViolation(sc, f))
	}
	for _, f := range res.Findings {
		r.Findings = append(r.Findings, toShardViolation(sc, f))
	}
	return r
}

// Merged is the combination of a swarm's shard results.
type Merged struct {
	Scope string
	// Shards is the number of shards the results say there are; Missing lists those absent.
	Shards  int
	Missing []int
	// States is the number of distinct states over all shards (the union of their seen
	// sets); StatesSum the shards' own counts added up (with the prefix and overlaps).
	States    int
	StatesSum int
	// Complete is true when every shard is present and finished within its bounds without
	// being cut short.
	Complete bool
	// Violations are the invariants broken at the least violation depth over the shards,
	// one per invariant (the shortest, then the first shard's), sorted by invariant.
	Violations []ShardViolation
	// Findings is the shallowest occurrence of each finding, sorted by name.
	Findings []ShardViolation
}

// Merge combines shard results; coverage[i] are result i's fingerprints, sorted.
func Merge(results []*ShardResult, coverage [][]uint64) *Merged {
	m := &Merged{Complete: true}
	have := map[int]bool{}
	for i, r := range results {
		if i == 0 {
			m.Scope, m.Shards = r.Scope, r.Shards
		}
		have[r.Shard] = true
		m.StatesSum += r.States
		m.Complete = m.Complete && r.Complete
	}
	for i := 0; i < m.Shards; i++ {
		if !have[i] {
			m.Missing = append(m.Missing, i)
			m.Complete = false
		}
	}
	m.States = countUnion(coverage)
	least := -1
	for _, r := range results {
		for _, v := range r.Violations {
			if least < 0 || v.Depth < least {
				least = v.Depth
			}
		}
	}
	byInv := map[string]ShardViolation{}
	for _, r := range results {
		for _, v := range r.Violations {
			if v.Depth == least {
				if _, ok := byInv[v.Invariant]; !ok {
					byInv[v.Invariant] = v
				}
			}
		}
	}
	for _, v := range byInv {
		m.Violations = append(m.Violations, v)
	}
	sort.Slice(m.Violations, func(i, j int) bool { return m.Violations[i].Invariant < m.Violations[j].Invariant })
	byName := map[string]ShardViolation{}
	for _, r := range results {
		for _, f := range r.Findings {
			if old, ok := byName[f.Finding]; !ok || f.Depth < old.Depth {
				byName[f.Finding] = f
			}
		}
	}
	for _, f := range byName {
		m.Findings = append(m.Findings, f)
	}
	sort.Slice(m.Findings, func(i, j int) bool { return m.Findings[i].Finding < m.Findings[j].Finding })
	return m
}

// countUnion counts the distinct values of sorted slices (a k-way merge).
func countUnion(lists [][]uint64) int {
	idx := make([]int, len(lists))
	n := 0
	last, any := uint64(0), false
	for {
		best := -1
		for i, l := range lists {
			if idx[i] < len(l) && (best < 0 || l[idx[i]] < lists[best][idx[best]]) {
				best = i
			}
		}
		if best < 0 {
			return n
		}
		v := lists[best][idx[best]]
		idx[best]++
		if !any || v != last {
			n++
			last, any = v, true
		}
	}
}
