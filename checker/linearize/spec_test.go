package linearize

import (
	"bytes"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// Tiny hand-written histories of one offset (offset 0 of g/t-0) with a 1 000 ms lock and a
// delivery limit of 3.

const lost = -1

func fetch(client string, dc int16, call, ret int64) sim.Op {
	op := sim.Op{Client: client, Group: "g", Partition: "t/0", Kind: "fetch", CallMs: call, ReturnMs: ret, Code: "NONE",
		Acquired: []model.AcquiredRange{{First: 0, Last: 0, DeliveryCount: dc}}}
	if ret == lost {
		op.Acquired, op.Code = nil, "LOST"
	}
	return op
}

func ack(client string, t model.AckType, code string, call, ret int64) sim.Op {
	return sim.Op{Client: client, Group: "g", Partition: "t/0", Kind: "ack", CallMs: call, ReturnMs: ret, Code: code,
		Acks: []model.AckRange{{First: 0, Last: 0, Types: []model.AckType{t}}}}
}

// ack2 acknowledges offsets 0 and 1 together.
func ack2(client string, t model.AckType, code string, call, ret int64) sim.Op {
	op := ack(client, t, code, call, ret)
	op.Acks[0].Last = 1
	return op
}

func event(kind string, at int64) sim.HiddenEvent {
	return sim.HiddenEvent{TimeMs: at, Kind: kind, Group: "g", Partition: "t/0"}
}

func gone(member string, from, at int64) sim.HiddenEvent {
	return sim.HiddenEvent{TimeMs: at, Kind: sim.HiddenMemberGone, Group: "g", Member: member, FromMs: from}
}

func logStart(at, off int64) sim.HiddenEvent {
	ev := event(sim.HiddenLogStart, at)
	ev.Offset = off
	return ev
}

const (
	accept   = model.AckAccept
	releaseT = model.AckRelease
	reject   = model.AckReject
	renewT   = model.AckRenew
	irs      = "INVALID_RECORD_STATE"
)

func testSpec(kafka41 bool) Options {
	return Options{Spec: Spec{LockDurationMs: 1000, DeliveryLimit: 3, Kafka41: kafka41}}
}

func TestSpecTable(t *testing.T) {
	cases := []struct {
		name    string
		ops     []sim.Op
		hidden  []sim.HiddenEvent
		kafka41 bool
		legal   bool
	}{
		{name: "deliver and accept", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 10, 12)}},
		{name: "first delivery must count 1",
			ops: []sim.Op{fetch("a", 2, 0, 2)}},
		{name: "redelivery after the lock ran out", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 1500, 1502)}},
		{name: "double hold within the lock",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 500, 502)}},
		{name: "double hold, but the lock may have run out during the fetch", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 500, 1001)}},
		{name: "double hold after the holder released", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 2, 20, 22)}},
		{name: "double hold after the holder died", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 500, 502)}, hidden: []sim.HiddenEvent{gone("a", 300, 300)}},
		{name: "double hold after all locks were expired", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 500, 502)}, hidden: []sim.HiddenEvent{event(sim.HiddenLockExpiry, 300)}},
		{name: "double hold after a reload restarts the count at 1", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 1, 500, 502)}, hidden: []sim.HiddenEvent{event(sim.HiddenReload, 300)}},
		{name: "a reload forgets the unwritten delivery: count 2 is impossible",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 500, 502)}, hidden: []sim.HiddenEvent{event(sim.HiddenReload, 300)}},
		{name: "redelivery after an accepted acknowledgement",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 10, 12), fetch("b", 2, 5000, 5002)}},
		{name: "redelivery after an accepted acknowledgement, across a reload",
			ops:    []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 10, 12), fetch("b", 1, 5000, 5002)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 100)}},
		{name: "redelivery after a rejection",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", reject, "NONE", 10, 12), fetch("b", 2, 5000, 5002)}},
		{name: "acknowledgement success by a non-holder",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("b", accept, "NONE", 10, 12)}},
		{name: "acknowledgement success by the previous holder after another client acquired it",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 1500, 1502), ack("a", accept, "NONE", 1600, 1602)}},
		{name: "stale acknowledgement succeeds after the same client re-acquired it", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("a", 2, 1500, 1502), ack("a", accept, "NONE", 1600, 1602)}},
		{name: "acknowledgement of an accepted record may succeed (below the start offset)", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 10, 12), ack("b", accept, "NONE", 20, 22)}},
		{name: "acknowledgement success by the holder after its lock ran out",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 1500, 1502)}},
		{name: "delivery count goes down without a reload",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 2, 20, 22),
				ack("b", releaseT, "NONE", 30, 32), fetch("a", 2, 40, 42)}},
		{name: "delivery count jumps without unseen fetches",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 3, 2000, 2002)}},
		{name: "delivery count goes down across a reload after an expiry", legal: true,
			ops:    []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 1500, 1502), fetch("c", 1, 1700, 1702)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 1600)}},
		{name: "a reload cannot go below a persisted release",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 2, 20, 22),
				fetch("c", 1, 1700, 1702)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 1600)}},
		{name: "a lost fetch explains a jump of the delivery count", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("c", 0, 15, lost),
				fetch("b", 3, 2000, 2002)}},
		{name: "a lost fetch's lock still has to run out",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("c", 0, 15, lost),
				fetch("b", 3, 100, 102)}},
		{name: "delivery limit: no delivery after a release at the limit",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("a", 2, 20, 22),
				ack("a", releaseT, "NONE", 30, 32), fetch("a", 3, 40, 42), ack("a", releaseT, "NONE", 50, 52),
				fetch("a", 4, 60, 62)}},
		{name: "delivery limit: no delivery after the lock ran out at the limit",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 1500, 1502), fetch("c", 3, 3000, 3002),
				fetch("a", 4, 5000, 5002)}},
		{name: "lost accept that did not take effect", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "LOST", 10, lost), fetch("b", 2, 1500, 1502)}},
		{name: "lost release that took effect", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "LOST", 10, lost), fetch("b", 2, 20, 22)}},
		{name: "lost accept cannot explain a redelivery within the lock",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "LOST", 10, lost), fetch("b", 2, 20, 22)}},
		{name: "lost acknowledgement that never happened, then a successful one", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "LOST", 10, lost), ack("a", accept, "NONE", 30, 32)}},
		{name: "INVALID_RECORD_STATE for the holder within its lock",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, irs, 10, 12)}},
		{name: "INVALID_RECORD_STATE behind the holder's own pending acknowledgement", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "COORDINATOR_NOT_AVAILABLE", 10, 30), ack("a", accept, irs, 12, 14)}},
		{name: "INVALID_RECORD_STATE for the holder after its lock ran out", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, irs, 1500, 1502)}},
		{name: "INVALID_RECORD_STATE of a multi-offset acknowledgement proves nothing about this offset", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack2("a", accept, irs, 10, 12), ack("a", accept, "NONE", 20, 22)}},
		{name: "a failed write leaves the record held", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "COORDINATOR_NOT_AVAILABLE", 10, 12), ack("a", accept, "NONE", 20, 22)}},
		{name: "a failed write does not release",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "COORDINATOR_NOT_AVAILABLE", 10, 12), fetch("b", 2, 20, 22)}},
		{name: "RENEW extends the lock",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", renewT, "NONE", 900, 902), fetch("b", 2, 1500, 1502)}},
		{name: "the renewed lock runs out too", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", renewT, "NONE", 900, 902), fetch("b", 2, 2000, 2002)}},
		{name: "Kafka 4.2: a session release keeps the delivery count",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 1, 200, 202)}, hidden: []sim.HiddenEvent{gone("a", 100, 100)}},
		{name: "Kafka 4.1: a session release decrements the delivery count", kafka41: true, legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 1, 200, 202)}, hidden: []sim.HiddenEvent{gone("a", 100, 100)}},
		{name: "Kafka 4.1: a failed write after the lock fired leaves the lock dead", kafka41: true, legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "COORDINATOR_NOT_AVAILABLE", 900, 1100), ack("a", accept, "NONE", 1500, 1502)}},
		{name: "below the log start: acknowledgements are ignored", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("b", accept, "NONE", 200, 202)}, hidden: []sim.HiddenEvent{logStart(100, 1)}},
		{name: "below the log start: never delivered again",
			ops: []sim.Op{fetch("a", 1, 0, 2), fetch("b", 2, 2000, 2002)}, hidden: []sim.HiddenEvent{logStart(100, 1)}},
		{name: "a log start move of a later offset changes nothing",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("b", accept, "NONE", 200, 202)}, hidden: []sim.HiddenEvent{logStart(100, 0)}},
		{name: "a reload may leave a hole: a stale acknowledgement succeeds without effect", legal: true,
			ops:    []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 200, 202), fetch("b", 1, 300, 302)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 100)}},
		{name: "the holder's acknowledgement after a reload fails",
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 2, 20, 22),
				ack("b", accept, "NONE", 200, 202)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 100)}},
		{name: "an acknowledgement in flight across a reload may have landed before it", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("b", 2, 20, 22),
				ack("b", accept, "NONE", 50, 150)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 100)}},
		{name: "the holder's acknowledgement after every lock was expired fails",
			ops:    []sim.Op{fetch("a", 1, 0, 2), ack("a", accept, "NONE", 200, 202)},
			hidden: []sim.HiddenEvent{event(sim.HiddenLockExpiry, 100)}},
		{name: "a record at the limit archived by a lock expiry comes back after a reload", legal: true,
			ops: []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), fetch("a", 2, 20, 22),
				ack("a", releaseT, "NONE", 30, 32), fetch("a", 3, 40, 42), fetch("b", 3, 3000, 3002)},
			hidden: []sim.HiddenEvent{event(sim.HiddenReload, 2000)}},
		{name: "compaction may archive an available record", legal: true,
			ops:    []sim.Op{fetch("a", 1, 0, 2), ack("a", releaseT, "NONE", 10, 12), ack("b", accept, "NONE", 200, 202)},
			hidden: []sim.HiddenEvent{{TimeMs: 100, Kind: sim.HiddenCompaction, Group: "g", Partition: "t/0", Offset: 0, Last: 4}}},
		{name: "concurrent fetches may linearize in either order", legal: true,
			ops: []sim.Op{fetch("a", 2, 0, 10), fetch("b", 1, 1, 2), ack("b", releaseT, "NONE", 3, 4)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Check(c.ops, c.hidden, testSpec(c.kafka41))
			want := porcupine.Illegal
			if c.legal {
				want = porcupine.Ok
			}
			if r.Verdict != want {
				t.Errorf("verdict %s, want %s; failures %v", r.Verdict, want, r.Failures())
			}
			if sr := streamAll(c.ops, c.hidden, testSpec(c.kafka41)); sr.Verdict != want || len(sr.Failures()) != len(r.Failures()) {
				t.Errorf("streamed: verdict %s, failures %v; Check: %s, %v", sr.Verdict, sr.Failures(), r.Verdict, r.Failures())
			}
			if !c.legal {
				fs := r.Failures()
				if len(fs) != 1 || fs[0].Offsets != "0" || fs[0].Group != "g" || fs[0].Partition != "t/0" {
					t.Errorf("failures %+v, want one on g/t/0 offset 0", fs)
				}
			}
		})
	}
}

// Offsets are checked independently: a violation on one offset names only that offset, and
// offsets treated alike are checked once.
func TestOffsetsAreCheckedIndependently(t *testing.T) {
	batch := func(client string, first, last int64, dc int16, call, ret int64) sim.Op {
		op := fetch(client, dc, call, ret)
		op.Acquired[0].First, op.Acquired[0].Last = first, last
		return op
	}
	acks := func(client string, first, last int64, call, ret int64) sim.Op {
		op := ack(client, accept, "NONE", call, ret)
		op.Acks[0].First, op.Acks[0].Last = first, last
		return op
	}
	h := []sim.Op{
		batch("a", 0, 9, 1, 0, 2),
		acks("a", 0, 9, 10, 12),
		batch("b", 5, 6, 2, 5000, 5002), // offsets 5 and 6 delivered again after the acceptance
	}
	r := Check(h, nil, testSpec(false))
	fs := r.Failures()
	if r.Verdict != porcupine.Illegal || len(fs) != 1 || fs[0].Offsets != "5-6" || fs[0].Member != "b" || fs[0].TimeMs != 5002 {
		t.Fatalf("verdict %s, failures %+v; want one failure on offsets 5-6 by b at 5002", r.Verdict, fs)
	}
	if !strings.Contains(fs[0].Message, "acknowledged") {
		t.Errorf("message %q should show the state before the redelivery", fs[0].Message)
	}
	if r.Classes != 2 || r.Offsets != 10 {
		t.Errorf("classes %d over %d offsets, want 2 classes over 10 offsets (0-4 and 7-9 alike, 5-6)", r.Classes, r.Offsets)
	}
	var buf bytes.Buffer
	if err := r.Visualize(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "<html") {
		t.Errorf("visualisation is not an HTML page")
	}
}

// A check that runs out of time says so instead of failing.
func TestTimeLimitGivesUnknown(t *testing.T) {
	// Many concurrent operations on one offset make porcupine search.
	var h []sim.Op
	for i := 0; i < 40; i++ {
		h = append(h, ack("a", accept, irs, 0, 100))
	}
	h = append(h, fetch("a", 1, 0, 100))
	o := testSpec(false)
	o.TimeLimit = 1 // nanosecond
	r := Check(h, nil, o)
	if r.Verdict != porcupine.Unknown || len(r.Unknown()) != 1 || r.Failed() {
		t.Errorf("verdict %s, unknown %v; want Unknown", r.Verdict, r.Unknown())
	}
}
