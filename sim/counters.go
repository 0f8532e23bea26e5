package sim

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/hist"
)

// Per-group counting. Every count the simulator keeps about what happened to a group's
// records lives in one counters value per group, and every count about a consumer in one
// consumerCounters value per consumer instance slot; a measurement window is the difference
// of two copies taken at its ends (see windows). docs/metrics.md defines each figure derived
// from them; figures.go derives them, in one place.

// numCauses is the number of model.Cause values.
const numCauses = int(model.CauseRestored) + 1

// counters are one group's running totals since the start of the run. It holds int64 values
// only (fields, arrays of them, kafkaCounts), so add needs no list of its fields; the
// package's initialisation checks it.
type counters struct {
	// produced counts records appended to the group's partitions (control markers excluded).
	produced int64
	// controls counts transaction markers appended to them (offsets without a record).
	controls int64
	// deliveries counts records handed to consumers: acquired (share) or returned by a poll
	// (classic); redeliveries the part of them delivered before.
	deliveries, redeliveries int64
	// delivered counts records delivered at least once (first deliveries).
	delivered int64
	// processed counts processing completions; processedOK the successful ones.
	processed, processedOK, failedProcessing int64
	// duplicates counts successful processings beyond a record's first, by cause.
	duplicates [dupCauses]int64
	// dupRecords counts records processed successfully more than once, each once (when its
	// second successful processing ends).
	dupRecords int64
	// processedLate counts successful processings that ended after the record's lock expired.
	processedLate int64
	// completed counts records whose completion committed, each once: for a share group the
	// state write of its ACCEPT succeeded at the leader; for a classic group an offset commit
	// passed it.
	completed int64
	// finished counts offsets that left the share-partition's in-flight cache, by cause.
	finished [numCauses]int64
	// deletedUndelivered counts offsets the log start passed before any delivery (retention,
	// DeleteRecords), including before the share-partition first loaded; deletedBeforeLoad is
	// the part of it that happened before the first load.
	deletedUndelivered, deletedBeforeLoad int64
	// skippedByReset counts offsets share.auto.offset.reset (latest, by_duration) put out
	// of reach at the first load.
	skippedByReset int64
	// lockTimeouts counts acquisition locks that expired (Kafka's AcquisitionLockTimeoutPerSec).
	lockTimeouts int64
	// acks counts acknowledged records by type as Kafka's RecordAcknowledgementsPerSec does:
	// once the partition's acknowledgement completed without error (its state write
	// committed); GAP is not one of Kafka's types and is counted apart.
	acks [5]int64
	// ackErrors counts acknowledged records the client learnt failed; acksLost those whose
	// request or response was lost.
	ackErrors, acksLost int64
	// silentLoss counts records the start offset passed with no final state.
	silentLoss int64
	// keyed counts successful processings of keyed records; reordered those that came after
	// a later record of the same key.
	keyed, reordered int64
	// busyMs is the processing time its consumers spent (thread-milliseconds).
	busyMs int64
	// classicReprocessed counts classic-group records processed again after a member died.
	classicReprocessed int64
	// kafka are the counts of Kafka's meters (kafkametrics.go).
	kafka kafkaCounts
}

// add adds sign·o to c (sign −1: a window's difference).
func (c *counters) add(o *counters, sign int64) { addInt64s(c, o, sign) }

func (c *counters) duplicatesTotal() int64 {
	var n int64
	for _, d := range c.duplicates {
		n += d
	}
	return n
}

// consumerCounters are one consumer slot's running totals (all its incarnations).
type consumerCounters struct {
	deliveries  int64 // records it was handed
	processed   int64 // processing completions
	processedOK int64
	busyMs      int64 // thread-milliseconds spent processing
}

// latencies are one group's latency histograms, each in virtual ms from the record's
// producer timestamp.
type latencies struct {
	firstDelivery hist.Hist // to its first delivery to a consumer
	processed     hist.Hist // to the end of its first successful processing
	completed     hist.Hist // to its completion committing (share: ACCEPT write; classic: offset commit)
}

// Snapshot points of the measurement window.
const (
	snapStart = iota // the window starts
	snapMid          // half way: the backlog trend is measured over the second half
	snapEnd          // the window ends
	snapPoints
)

// windows holds the copies of the counters taken at the window's points.
type windows struct {
	atMs   [snapPoints]int64
	next   int   // the next point to take
	nextMs int64 // its time (math.MaxInt64 once every point is taken): the engine's one test per event
	taken  [snapPoints]snapshot
}

type snapshot struct {
	groups    []counters
	consumers []consumerCounters
	backlog   []int64 // unfinished offsets per group
}

// measurementWindow returns the window over which rates are measured: from the first
// producer's start plus the configured warm-up to the last producer's stop (producers stop
// when the main phase ends). Without producers it is [warm-up, main phase end).
func measurementWindow(cfg *Config) (startMs, endMs int64) {
	startMs, endMs = -1, 0
	for _, p := range cfg.Producers {
		stop := cfg.DurationMs
		if p.StopMs > 0 {
			stop = min(p.StopMs, cfg.DurationMs)
		}
		if startMs < 0 || p.StartMs < startMs {
			startMs = p.StartMs
		}
		endMs = max(endMs, stop)
	}
	if startMs < 0 {
		startMs, endMs = 0, cfg.DurationMs
	}
	startMs = min(startMs+cfg.WarmupMs, endMs)
	return startMs, endMs
}

func (m *metrics) initWindows() {
	start, end := measurementWindow(&m.cfg)
	m.win.atMs = [snapPoints]int64{start, start + (end-start)/2, end}
	m.win.nextMs = start
}

// takeSnapshotsBefore takes every window point due before an event at atMs runs: a point
// at t covers the events before t.
func (m *metrics) takeSnapshotsBefore(atMs int64) {
	for m.win.next < snapPoints && atMs >= m.win.atMs[m.win.next] {
		i := m.win.next
		snap := snapshot{
			groups:    append([]counters(nil), m.g...),
			consumers: append([]consumerCounters(nil), m.c...),
		}
		for gi := range m.groups {
			snap.backlog = append(snap.backlog, m.groupBacklog(int32(gi)))
		}
		m.win.taken[i] = snap
		m.win.next++
		m.win.nextMs = math.MaxInt64
		if m.win.next < snapPoints {
			m.win.nextMs = m.win.atMs[m.win.next]
		}
	}
}

// groupBacklog is the number of offsets of a group's partitions not yet finished: below the
// log end and not accepted, archived, deleted or skipped (share groups: from the leaders'
// state; classic groups: the log end minus the committed offset).
func (m *metrics) groupBacklog(gi int32) int64 {
	var n int64
	g := m.groups[gi]
	for _, sp := range g.sps {
		n += m.partitionSample(m.shares[sp]).Backlog
	}
	if g.classic != nil {
		for _, ps := range m.classicSamples(g) {
			n += ps.Backlog
		}
	}
	return n
}

// addInt64s adds sign·src to dst value by value, for the count types made of int64 values
// only (counters, consumerCounters: fields, arrays and structs of int64, checked when the
// package initialises), so that adding or subtracting them needs no list of their fields.
func addInt64s[T counters | consumerCounters](dst, src *T, sign int64) {
	n := int(unsafe.Sizeof(*dst) / 8)
	d := unsafe.Slice((*int64)(unsafe.Pointer(dst)), n)
	s := unsafe.Slice((*int64)(unsafe.Pointer(src)), n)
	for i := range d {
		d[i] += sign * s[i]
	}
}

func init() {
	for _, t := range []reflect.Type{reflect.TypeFor[counters](), reflect.TypeFor[consumerCounters]()} {
		if err := onlyInt64s(t); err != nil {
			panic(fmt.Sprintf("sim: %v: addInt64s needs int64 values only: %v", t, err))
		}
	}
}

// onlyInt64s reports a part of t that is not an int64, an array of them or a struct of them.
func onlyInt64s(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Int64:
		return nil
	case reflect.Array:
		return onlyInt64s(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if err := onlyInt64s(t.Field(i).Type); err != nil {
				return fmt.Errorf("field %s: %w", t.Field(i).Name, err)
			}
		}
		return nil
	}
	return fmt.Errorf("%v is not int64", t)
}

// gc returns group g's counters.
func (m *metrics) gc(g int32) *counters { return &m.g[g] }

// cc returns consumer slot c's counters.
func (m *metrics) cc(c int32) *consumerCounters { return &m.c[c] }
