package sim

import (
	"bytes"
	"container/heap"
	"sort"

	"github.com/sharesim/sharesim/model"
)

// The record sample follows the life of a bounded number of records for reports
// (Options.SampleRecords): who acquired each one, when its lock expired, when it was released,
// acknowledged, finished. It only watches: it draws no random numbers and queues no events,
// so a run's trace does not depend on it.

// BackCause is why a record was available again when it was redelivered.
type BackCause uint8

// Causes of a redelivery.
const (
	BackOther      BackCause = iota // none of the causes below was seen
	BackLockExpiry                  // its acquisition lock expired (processing or buffered too long)
	BackCrash                       // the holder's connection dropped and the leader released it
	BackRelease                     // the holder released it (RELEASE, or a graceful close)
	BackFailover                    // the leader's state was lost and reloaded while it was acquired
	backCauses

	backHeld BackCause = 255 // acquired now: not available (recInfo.back)
)

var backNames = [...]string{"other", "lock_expiry", "crash", "release", "failover"}

// String names the cause.
func (b BackCause) String() string { return backNames[b] }

// RedeliveryCauses counts deliveries of records delivered before, by why they were available
// again. It counts what the simulator saw, so a delivery after a failover reload counts even
// when the reloaded delivery count did not rise; the sum can exceed Metrics.Totals.Redeliveries.
type RedeliveryCauses struct {
	LockExpiry int64 `json:"lock_expiry"`
	Crash      int64 `json:"crash"`
	Release    int64 `json:"release"`
	Failover   int64 `json:"failover"`
	Other      int64 `json:"other"`
}

func redeliveryCauses(c *[backCauses]int64) RedeliveryCauses {
	return RedeliveryCauses{LockExpiry: c[BackLockExpiry], Crash: c[BackCrash], Release: c[BackRelease],
		Failover: c[BackFailover], Other: c[BackOther]}
}

// RecordEvent is one step in a sampled record's life.
type RecordEvent struct {
	TimeMs int64 `json:"t"`
	// Kind is acquired, processed, ack, ack-lost, lock-expired, released, reverted (the
	// leader's state was lost while it was acquired) or finished.
	Kind   string `json:"kind"`
	Member string `json:"member,omitempty"`
	// Delivery is the delivery count of an acquisition.
	Delivery int `json:"delivery,omitempty"`
	// Detail: processed ok/failed/late; ack type (and error code); released crash/leave;
	// finished cause.
	Detail string `json:"detail,omitempty"`
}

// RecordLife is the sampled life of one record of one share-partition.
type RecordLife struct {
	Group      string `json:"group"`
	Partition  string `json:"partition"`
	Offset     int64  `json:"offset"`
	ProducedMs int64  `json:"produced_ms"`
	// Final is the cause it finished with (accepted, rejected, limit, ...); empty if it was
	// still unfinished when the run ended.
	Final  string        `json:"final,omitempty"`
	Events []RecordEvent `json:"events"`
}

// RecordSample is Result.Sample: sampled record lives and the trace lines of faults, kills,
// crashes, closes, releases on leave, evictions and the start of healing.
type RecordSample struct {
	Records []RecordLife `json:"records"`
	Notable []string     `json:"notable"`
}

// notableKinds are the trace line kinds kept in RecordSample.Notable.
var notableKinds = [][]byte{[]byte("fault"), []byte("kill"), []byte("crash"), []byte("close"), []byte("heal"),
	[]byte("evict"), []byte("release")}

const maxNotable = 2000

// The sampler follows every delivered record while it is in flight and keeps, when it
// finishes, a bounded sample spread over the whole run: of the eventful records, the ones
// whose offset hash is smallest (a reservoir that needs no random numbers), and likewise a
// quarter as many plain ones.
type sampler struct {
	eventful, plain reservoir
	lives           []RecordLife // followed records by slot; slot 0 is unused
	free            []int32
	notable         []string
}

func newSampler(n int) *sampler {
	plain := max(1, n/4)
	return &sampler{eventful: reservoir{limit: max(1, n-plain)}, plain: reservoir{limit: plain}, lives: make([]RecordLife, 1)}
}

// reservoir keeps the limit records with the smallest keys (a max-heap on the key).
type reservoir struct {
	limit int
	keys  []uint64
	lives []RecordLife
}

func (r *reservoir) Len() int           { return len(r.keys) }
func (r *reservoir) Less(i, j int) bool { return r.keys[i] > r.keys[j] }
func (r *reservoir) Swap(i, j int) {
	r.keys[i], r.keys[j] = r.keys[j], r.keys[i]
	r.lives[i], r.lives[j] = r.lives[j], r.lives[i]
}
func (r *reservoir) Push(x any) {}
func (r *reservoir) Pop() any   { return nil }

// wants reports whether a record with this key would be kept.
func (r *reservoir) wants(key uint64) bool { return len(r.keys) < r.limit || key < r.keys[0] }

func (r *reservoir) add(key uint64, l RecordLife) {
	if len(r.keys) < r.limit {
		r.keys, r.lives = append(r.keys, key), append(r.lives, l)
		heap.Fix(r, len(r.keys)-1)
		return
	}
	r.keys[0], r.lives[0] = key, l
	heap.Fix(r, 0)
}

// sampleKey mixes a share-partition and an offset into a well-spread key (SplitMix64's
// finaliser).
func sampleKey(sp int32, off int64) uint64 {
	z := uint64(sp)<<48 ^ uint64(off) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// tap keeps notable trace lines.
func (sm *sampler) tap(line []byte) {
	if len(sm.notable) >= maxNotable {
		return
	}
	i := bytes.IndexByte(line, ' ')
	if i < 0 {
		return
	}
	kind := line[i+1:]
	if j := bytes.IndexByte(kind, ' '); j >= 0 {
		kind = kind[:j]
	}
	for _, k := range notableKinds {
		if bytes.Equal(kind, k) {
			sm.notable = append(sm.notable, string(bytes.TrimRight(line, "\n")))
			return
		}
	}
}

// lifeAcquired starts following a record (if the sample still has room) and notes its
// acquisition.
func (m *metrics) lifeAcquired(s *sharePart, info *recInfo, member model.MemberID, dc int16) {
	sm := m.sample
	if sm == nil {
		return
	}
	if info.tl == 0 {
		var slot int32
		if n := len(sm.free); n > 0 {
			slot = sm.free[n-1]
			sm.free = sm.free[:n-1]
		} else {
			sm.lives = append(sm.lives, RecordLife{})
			slot = int32(len(sm.lives) - 1)
		}
		l := &sm.lives[slot]
		*l = RecordLife{ProducedMs: info.producedMs, Events: l.Events[:0]}
		info.tl = slot
	}
	l := &sm.lives[info.tl]
	l.Events = append(l.Events, RecordEvent{TimeMs: m.now, Kind: "acquired", Member: string(member), Delivery: int(dc)})
}

// lifeEvent notes a step of a followed record.
func (m *metrics) lifeEvent(info *recInfo, kind string, member model.MemberID, detail string) {
	if m.sample == nil || info == nil || info.tl == 0 {
		return
	}
	l := &m.sample.lives[info.tl]
	l.Events = append(l.Events, RecordEvent{TimeMs: m.now, Kind: kind, Member: string(member), Detail: detail})
}

// lifeFinished ends following a record; the sample keeps it if its reservoir (eventful or
// plain) wants it.
func (m *metrics) lifeFinished(s *sharePart, off int64, info *recInfo, cause string) {
	sm := m.sample
	if sm == nil || info == nil || info.tl == 0 {
		return
	}
	slot := info.tl
	info.tl = 0
	l := &sm.lives[slot]
	if cause != "" {
		l.Events = append(l.Events, RecordEvent{TimeMs: m.now, Kind: "finished", Detail: cause})
	}
	r := &sm.plain
	if eventfulLife(l, cause) {
		r = &sm.eventful
	} else if cause == "" {
		r = nil // unfinished at the end and uneventful: nothing to see
	}
	if key := sampleKey(s.id, off); r != nil && r.wants(key) {
		out := *l
		out.Group, out.Partition, out.Offset, out.Final = m.groups[s.group].cfg.Name, m.parts[s.part].name, off, cause
		out.Events = append([]RecordEvent(nil), l.Events...)
		r.add(key, out)
	}
	sm.free = append(sm.free, slot)
}

func eventfulLife(l *RecordLife, cause string) bool {
	if cause != "accepted" && cause != "" {
		return true
	}
	acquired := 0
	for _, e := range l.Events {
		switch e.Kind {
		case "acquired":
			acquired++
		case "lock-expired", "released", "reverted", "ack-lost":
			return true
		case "processed":
			if e.Detail != "ok" {
				return true
			}
		case "ack":
			if e.Detail != "ACCEPT" && e.Detail != "RENEW" {
				return true
			}
		}
	}
	return acquired > 1
}

// sampleResult finishes the sample at the end of a run: followed records still unfinished
// are kept if they were eventful so far.
func (m *metrics) sampleResult() *RecordSample {
	sm := m.sample
	if sm == nil {
		return nil
	}
	for _, s := range m.shares {
		t := &m.st(s).track
		for i := t.head; i < len(t.infos); i++ {
			if t.infos[i].tl != 0 {
				m.lifeFinished(s, t.base+int64(i-t.head), &t.infos[i], "")
			}
		}
	}
	kept := append(append([]RecordLife(nil), sm.eventful.lives...), sm.plain.lives...)
	sort.Slice(kept, func(i, j int) bool {
		a, b := &kept[i], &kept[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
	return &RecordSample{Records: kept, Notable: sm.notable}
}
