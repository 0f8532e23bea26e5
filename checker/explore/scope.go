// Package explore is sharesim's exhaustive explorer: a breadth-first search over every
// interleaving of a small scope — a few members, a few records in one or two producer
// batches, a small delivery limit and in-flight cap — driving the same share-partition core
// (package model) the simulator runs. Time is abstract: any live lock may fire at any point.
// Acknowledgements of every type, member leave, log-start moves, leader failover with reload
// from the share coordinator, and state-write success and failure are separate steps, so
// every order in which they can happen is tried.
//
// A state is the share-partition's canonical encoding (model.StateCodec) plus the share
// coordinator's state, the log start offset, the stale writes of earlier leaders, and what
// clients were told (which ACCEPTs succeeded). States are deduplicated by a 128-bit
// fingerprint. Every transition is checked against the single-partition invariants of
// package checker/spcheck; the first level with a violation yields the shortest
// counterexample, which Counterexample turns into a scripted scenario that `sharesim run`
// replays.
package explore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sharesim/sharesim/model"
)

// Scope bounds what the explorer tries.
type Scope struct {
	// Version and Bug select the core (Bug empty: the faithful core).
	Version model.Version
	Bug     string
	// Fix applies Kafka fixes (model.Config.Fix: comma-separated names or "all").
	Fix string
	// Findings also checks, on every transition, the strict forms of the invariants whose
	// exceptions are behaviours of real Kafka (findings.go, docs/findings.md). A match is
	// recorded as that finding, on its shortest path, and the search goes on.
	Findings bool
	// Members is the number of share consumers (1–3), named m1, m2, m3.
	Members int
	// Batches are the sizes of the producer batches in the log (produced before the start).
	Batches []int
	// Limit is group.share.delivery.count.limit; Cap is group.share.partition.max.record.locks.
	Limit, Cap int
	// MaxRecords are the fetch budgets tried (max.poll.records); each is also the batch size.
	MaxRecords []int
	// RecordLimit also tries fetches in record_limit mode (Kafka 4.2).
	RecordLimit bool
	// ShortReads also tries log reads that return only the first producer batch.
	ShortReads bool
	// AckTypes are the acknowledgement types tried, on whole cached batches and single
	// offsets the member holds.
	AckTypes []model.AckType
	// Leave lets members' share sessions end.
	Leave bool
	// Failovers bounds the leader failovers on one path; LateWrites lets a failover leave the
	// old leader's writes on their way (stale writes that reach the coordinator later).
	Failovers  int
	LateWrites bool
	// LogStartMoves bounds the log-start moves on one path (to any offset up to the log end).
	LogStartMoves int
	// MaxPending bounds the state writes outstanding at once (0: unbounded): while that many
	// are on their way, steps that would issue another (acknowledgements, lock expiry, leave)
	// wait. Any write may still stay outstanding across any other step.
	MaxPending int
	// MaxDepth and MaxStates bound the search (0: unbounded).
	MaxDepth  int
	MaxStates int
	// Deadline, when not zero, stops the search at the first wave boundary past it (wall
	// clock; Result.Bounded "time"). Stop, when not nil, stops it once closed (Result.Bounded
	// "interrupted"). Neither changes what is explored before the stop.
	Deadline time.Time
	Stop     <-chan struct{}
	// deadlineFrom (Estimate) lets the Deadline stop the search only once the levels up to
	// this depth are complete.
	deadlineFrom int
	// Workers is the number of goroutines expanding states (0: one per CPU).
	Workers int
	// Memory is the budget in bytes for what grows with the number of states (0: no budget,
	// everything in memory): past their shares of it the seen set, the frontiers and the
	// parent pointers spill to files in TempDir (spill.go). The result does not depend on it.
	Memory int64
	// TempDir is where the spill files go ("": the system's temporary directory).
	TempDir string
	// shares, in tests, replaces the shares of Memory.
	shares *shares
	// noMemo, in tests, turns the successor memo off (memo.go); memoRing sets its ring's
	// size (0: from the budget).
	noMemo   bool
	memoRing int64
	// oneGeneration, in tests, keeps the seen set in memory as one generation: every flush
	// writes all of it to disk (generations.go tells why there are two).
	oneGeneration bool
	// noSharedInsert, in tests, has the merge insert every candidate into the seen set, as
	// with liveness, instead of the workers (shared insertion, merger.resolveShared).
	noSharedInsert bool
	// sharedTags, in tests, is how many blocks of wave tags shared insertion takes in turn
	// (0: as many as there are; 1: every wave the same, so that most fingerprints met again
	// carry a tag of an earlier wave); sharedRoom caps a worker's room per partition and wave (0: none), so
	// that workers defer candidates to the merge.
	sharedTags, sharedRoom int
	// hashOrder, in tests, has Result.orderHash hash the parent log as it is written.
	hashOrder bool
	// maxPacked, in tests, replaces the most packed runs the seen set keeps (diskSet).
	maxPacked int
	// waveSize, in tests, replaces the states in a wave and a frontier segment (waveStates),
	// so that small scopes have levels of many waves.
	waveSize int
	// syncDisk, in tests, has a worker look a state that may be on disk up there at once
	// (diskSet.has) instead of with the rest of its chunk's (worker.settlePending).
	syncDisk bool
	// NoConsistency skips the core's CheckConsistency on new states (faster).
	NoConsistency bool
	// Shard and Shards make the search one shard of a swarm (swarm.go): the states first
	// reached at depth Split are divided among Shards by their fingerprints hashed with Seed,
	// and this shard expands only its own. Shards 0: no swarm. With a swarm the level of the
	// first violation is finished, so that every invariant broken there is reported.
	Shard, Shards, Split int
	Seed                 uint64
	// StepOrderSeed, when not 0, shuffles the order in which each state's steps are tried
	// (it changes which shortest path is reported, not what is found).
	StepOrderSeed uint64
	// KeepFingerprints returns the seen set's fingerprints in the result (swarm coverage).
	KeepFingerprints bool
	// Window splits each fetch into its log read and its acquire (Kafka's read-then-acquire
	// window): any other step may come between a member's read and its acquire; one fetch of
	// the share-partition at a time.
	Window bool
	// Symmetry stores states up to a renaming of the members (symmetry.go).
	Symmetry bool
	// DeadStore forgets the share coordinator's stored state once nothing can read it again
	// (deadstore.go): states that differ only there are one state.
	DeadStore bool
	// MonotonicStore makes the share coordinator keep Kafka 4.4's rules whatever the version
	// (the explorer's only coordinator until the per-version one became its default): before
	// 4.4 a write that arrives late then cannot move the stored start offset back. Off, the
	// coordinator follows the scope version's own rules, and a 4.2 or 4.3 scope with two
	// writes outstanding and a failover meets the finding start-offset-regresses.
	MonotonicStore bool
	// DLQ turns on Kafka 4.4's dead-letter queue (share.version 2 and
	// errors.deadletterqueue.topic.name set; Version must be 4.4): REJECTs and releases at
	// the limit go to ARCHIVING, and each outstanding DLQ produce is a step that succeeds
	// or fails.
	DLQ bool
	// Liveness also checks, on a complete search, that from every reachable state a
	// fault-free path leads to a settled state (liveness.go). It stores the graph's
	// fault-free edges: about 4 bytes per transition more.
	Liveness bool
}

// DefaultScope is the standard scope (`sharesim check --scope standard`, the base the check
// command's scope flags change and the one --bug explores): 2 members, 4 records in two
// producer batches, delivery limit 3, cap 4, every acknowledgement type, leave, one failover
// with stale writes, one log-start move. It holds over a billion states; the command's
// default is the ladder (ladder.go).
func DefaultScope() Scope {
	return Scope{
		Version: model.Kafka42, Members: 2, Batches: []int{2, 2}, Limit: 3, Cap: 4,
		MaxRecords: []int{4}, ShortReads: true,
		AckTypes: []model.AckType{model.AckAccept, model.AckRelease, model.AckReject, model.AckRenew},
		Leave:    true, Failovers: 1, LateWrites: true, LogStartMoves: 1, MaxPending: 2, Symmetry: true, DeadStore: true,
	}
}

// Records is the number of records in the log.
func (s *Scope) Records() int {
	n := 0
	for _, b := range s.Batches {
		n += b
	}
	return n
}

// Validate checks the scope's bounds.
func (s *Scope) Validate() error {
	switch {
	case s.Members < 1 || s.Members > 3:
		return fmt.Errorf("members: %d, expected 1 to 3", s.Members)
	case len(s.Batches) == 0:
		return fmt.Errorf("batches: none, expected at least one producer batch")
	case s.Records() > 60:
		return fmt.Errorf("batches: %d records, expected at most 60", s.Records())
	case len(s.MaxRecords) == 0 || len(s.MaxRecords) > 4:
		return fmt.Errorf("max records: %d values, expected 1 to 4", len(s.MaxRecords))
	case s.Failovers < 0 || s.Failovers > 5:
		return fmt.Errorf("failovers: %d, expected 0 to 5", s.Failovers)
	case s.LogStartMoves < 0 || s.LogStartMoves > 5:
		return fmt.Errorf("log-start moves: %d, expected 0 to 5", s.LogStartMoves)
	case s.MaxDepth < 0:
		return fmt.Errorf("depth: %d, expected 0 (unbounded) or more", s.MaxDepth)
	case s.MaxStates < 0:
		return fmt.Errorf("max states: %d, expected 0 (unbounded) or more", s.MaxStates)
	case s.Workers < 0:
		return fmt.Errorf("workers: %d, expected 0 (one per CPU) or more", s.Workers)
	case s.Memory < 0:
		return fmt.Errorf("memory: %d bytes, expected 0 (no budget) or more", s.Memory)
	case s.Shards < 0 || (s.Shards > 0 && (s.Shard < 0 || s.Shard >= s.Shards)):
		return fmt.Errorf("swarm shard %d of %d, expected 0 <= shard < shards", s.Shard, s.Shards)
	case s.Shards > 0 && s.Split < 1:
		return fmt.Errorf("swarm split depth %d, expected 1 or more", s.Split)
	case s.Shards > 0 && s.Liveness:
		return fmt.Errorf("liveness needs the whole graph: it cannot run as a swarm shard")
	case s.MaxPending < 0:
		return fmt.Errorf("max pending writes: %d, expected 0 (unbounded) or more", s.MaxPending)
	case s.RecordLimit && s.Version < model.Kafka42:
		return fmt.Errorf("record_limit fetches need Kafka 4.2")
	case s.DLQ && s.Version < model.Kafka44:
		return fmt.Errorf("the dead-letter queue needs Kafka 4.4")
	}
	for _, b := range s.Batches {
		if b < 1 {
			return fmt.Errorf("batches: a batch of %d records", b)
		}
	}
	for _, m := range s.MaxRecords {
		if m < 1 || m > 255 {
			return fmt.Errorf("max records: %d, expected 1 to 255", m)
		}
	}
	for _, t := range s.AckTypes {
		if t > model.AckRenew || (t == model.AckRenew && s.Version < model.Kafka42) {
			return fmt.Errorf("acknowledgement type %v is not valid in Kafka %s", t, s.Version)
		}
	}
	_, err := s.Config()
	return err
}

// Config is the share-partition configuration the scope explores: relaxed ranges so that the
// limit and cap can be small, share.auto.offset.reset earliest so that a failover before any
// write does not skip records, and the default 30 s lock (locks fire only as explorer steps).
func (s *Scope) Config() (model.Config, error) {
	c := model.DefaultConfig()
	c.Version = s.Version
	c.RelaxRanges = true
	c.DeliveryCountLimit = s.Limit
	c.PartitionMaxRecordLocks = s.Cap
	c.AutoOffsetReset = model.AutoOffsetReset{Kind: model.ResetEarliest}
	c.Bug = s.Bug
	c.Fix = s.Fix
	if s.DLQ {
		c.DLQTopic = "dlq.explore"
	}
	return c, c.Validate()
}

// StoreVersion is the release whose share coordinator rules the scope's coordinator
// follows: the scope's own, or 4.4 with MonotonicStore.
func (s *Scope) StoreVersion() model.Version {
	if s.MonotonicStore && s.Version < model.Kafka44 {
		return model.Kafka44
	}
	return s.Version
}

// String describes the scope in the form the check command's flags take.
func (s *Scope) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kafka %s", s.Version)
	if s.Bug != "" {
		fmt.Fprintf(&b, ", bug %s", s.Bug)
	}
	if s.Fix != "" {
		fmt.Fprintf(&b, ", fixes %s", s.Fix)
	}
	fmt.Fprintf(&b, ", %d members, batches %s, limit %d, cap %d, max records %s", s.Members, joinInts(s.Batches), s.Limit, s.Cap, joinInts(s.MaxRecords))
	var types []string
	for _, t := range s.AckTypes {
		types = append(types, strings.ToLower(t.String()))
	}
	fmt.Fprintf(&b, ", acks %s", strings.Join(types, ","))
	if s.RecordLimit {
		b.WriteString(", record_limit")
	}
	if s.ShortReads {
		b.WriteString(", short reads")
	}
	if s.Window {
		b.WriteString(", read/acquire window")
	}
	if s.Leave {
		b.WriteString(", leave")
	}
	if s.DLQ {
		b.WriteString(", dead-letter queue")
	}
	if s.StoreVersion() != s.Version {
		fmt.Fprintf(&b, ", %s share coordinator", s.StoreVersion())
	}
	fmt.Fprintf(&b, ", %s", plural(s.Failovers, "failover"))
	if s.LateWrites && s.Failovers > 0 {
		b.WriteString(" (stale writes)")
	}
	fmt.Fprintf(&b, ", %s", plural(s.LogStartMoves, "log-start move"))
	if s.MaxPending > 0 {
		fmt.Fprintf(&b, ", at most %s outstanding", plural(s.MaxPending, "write"))
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// memberName is the name of member i.
func memberName(i int) model.MemberID { return model.MemberID("m" + strconv.Itoa(i+1)) }
