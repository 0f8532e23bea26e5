package live

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// fakeConn is a net.Conn whose reads come from a buffer and whose writes are kept.
type fakeConn struct {
	net.Conn
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *fakeConn) Read(p []byte) (int, error) {
	if len(p) > 7 {
		p = p[:7] // answers arrive in small pieces
	}
	return c.in.Read(p)
}
func (c *fakeConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *fakeConn) Close() error                { return nil }

// readToEOF reads the tap until its connection has nothing more.
func readToEOF(t *testing.T, tap *tapConn) {
	t.Helper()
	buf := make([]byte, 64)
	for {
		if _, err := tap.Read(buf); err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

func frame(b []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	return append(out, b...)
}

// requestFrame is a flexible request: key, version, correlation ID, client ID, no tags, body.
func requestFrame(r kmsg.Request, corr int32) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(r.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(r.GetVersion()))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, 4)
	b = append(b, "test"...)
	b = append(b, 0) // no tagged fields
	return frame(r.AppendTo(b))
}

func responseFrame(r kmsg.Response, corr int32) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(corr))
	b = append(b, 0)
	return frame(r.AppendTo(b))
}

// The tap turns a ShareFetch with a piggy-backed acknowledgement and its answer, written and
// read in pieces, into an acknowledgement and a fetch operation; a request left without an
// answer becomes lost operations when the connection closes.
func TestWireTapRecordsShareFetch(t *testing.T) {
	id := [16]byte{1}
	req := kmsg.NewPtrShareFetchRequest()
	req.Version = 1
	req.GroupID, req.MemberID = kmsg.StringPtr("g"), kmsg.StringPtr("m")
	tp := kmsg.NewShareFetchRequestTopic()
	tp.TopicID = id
	p := kmsg.NewShareFetchRequestTopicPartition()
	ab := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
	ab.FirstOffset, ab.LastOffset, ab.AcknowledgeTypes = 3, 4, []int8{1}
	p.AcknowledgementBatches = append(p.AcknowledgementBatches, ab)
	tp.Partitions = append(tp.Partitions, p)
	req.Topics = append(req.Topics, tp)

	resp := kmsg.NewPtrShareFetchResponse()
	resp.Version = 1
	rt := kmsg.NewShareFetchResponseTopic()
	rt.TopicID = id
	ackEntry := kmsg.NewShareFetchResponseTopicPartition()
	ackEntry.AcknowledgeErrorCode = kerr.InvalidRecordState.Code
	fetchEntry := kmsg.NewShareFetchResponseTopicPartition()
	fetchEntry.AcquiredRecords = []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord{{FirstOffset: 5, LastOffset: 9, DeliveryCount: 2}}
	rt.Partitions = append(rt.Partitions, ackEntry, fetchEntry) // kfake's two entries for one partition
	resp.Topics = append(resp.Topics, rt)

	fc := &fakeConn{in: bytes.NewReader(responseFrame(resp, 7))}
	rec := newRecorder(time.Now(), nil)
	rec.keep = true
	tap := newTap(fc, rec, member{client: "c#1", group: "g"}, func(got [16]byte) string {
		if got == id {
			return "t"
		}
		return ""
	}, &partSet{m: map[string]bool{}})
	w := requestFrame(req, 7)
	for _, chunk := range [][]byte{w[:3], w[3:11], w[11:]} {
		if _, err := tap.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(fc.out.Bytes(), w) {
		t.Fatal("the tap changed the bytes on the wire")
	}
	readToEOF(t, tap)
	ops, _, suspect := rec.snapshot()
	if len(ops) != 2 {
		t.Fatalf("recorded %d operations, want an ack and a fetch: %+v", len(ops), ops)
	}
	ack, fetch := ops[0], ops[1]
	if ack.Kind != "ack" || ack.Partition != "t/0" || ack.Code != "INVALID_RECORD_STATE" || ack.Acks[0].First != 3 || ack.Acks[0].Types[0] != model.AckAccept {
		t.Errorf("ack %+v", ack)
	}
	if fetch.Kind != "fetch" || fetch.Code != "NONE" || len(fetch.Acquired) != 1 || fetch.Acquired[0] != (model.AcquiredRange{First: 5, Last: 9, DeliveryCount: 2}) {
		t.Errorf("fetch %+v", fetch)
	}
	if ack.ReturnMs < ack.CallMs || fetch.CallMs != ack.CallMs {
		t.Errorf("times: ack [%d, %d], fetch [%d, %d]", ack.CallMs, ack.ReturnMs, fetch.CallMs, fetch.ReturnMs)
	}
	if len(suspect) != 0 {
		t.Errorf("an acknowledgement answered with an error is not suspect: %v", suspect)
	}

	// A second request, never answered: lost when the connection closes.
	if _, err := tap.Write(requestFrame(req, 8)); err != nil {
		t.Fatal(err)
	}
	tap.Close()
	ops, _, _ = rec.snapshot()
	if len(ops) != 4 || ops[2].Code != "LOST" || ops[2].ReturnMs != -1 || ops[3].Kind != "fetch" || ops[3].Code != "LOST" {
		t.Fatalf("after close: %+v", ops[2:])
	}
}

// heartbeatExchange is a ShareGroupHeartbeat request of member m in group g, an answer
// without error and one saying UNKNOWN_MEMBER_ID.
func heartbeatExchange() (req *kmsg.ShareGroupHeartbeatRequest, ok, gone *kmsg.ShareGroupHeartbeatResponse) {
	req = kmsg.NewPtrShareGroupHeartbeatRequest()
	req.Version = 1
	req.GroupID, req.MemberID = "g", "m"
	ok = kmsg.NewPtrShareGroupHeartbeatResponse()
	ok.Version = 1
	gone = kmsg.NewPtrShareGroupHeartbeatResponse()
	gone.Version = 1
	gone.ErrorCode = kerr.UnknownMemberID.Code
	return req, ok, gone
}

// A heartbeat answered UNKNOWN_MEMBER_ID (the broker dropped the member at its session
// timeout) becomes a hidden member-gone event from the call time of the last heartbeat
// answered without error, which may have gone over another connection of the incarnation;
// a heartbeat answered without error, or never answered, records nothing.
func TestWireTapHeartbeatFencing(t *testing.T) {
	req, ok, gone := heartbeatExchange()

	rec := newRecorder(time.Now(), nil)
	rec.keep = true
	m := member{client: "c#1", group: "g"}
	rec.joined(m)
	seen := &partSet{m: map[string]bool{}}
	lastBeat := func() int64 {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.beats[m]
	}
	exchange := func(resp kmsg.Response, corr int32) *tapConn {
		fc := &fakeConn{in: bytes.NewReader(responseFrame(resp, corr))}
		tap := newTap(fc, rec, m, func([16]byte) string { return "" }, seen)
		if _, err := tap.Write(requestFrame(req, corr)); err != nil {
			t.Fatal(err)
		}
		readToEOF(t, tap)
		return tap
	}
	exchange(ok, 1)
	okAt := lastBeat()
	time.Sleep(5 * time.Millisecond)
	exchange(ok, 2).Close()
	if lastBeat() <= okAt {
		t.Fatalf("last heartbeat at %d, then %d", okAt, lastBeat())
	}
	okAt = lastBeat()
	if _, hidden, _ := rec.snapshot(); len(hidden) != 0 {
		t.Fatalf("heartbeats answered without error recorded %+v", hidden)
	}
	time.Sleep(5 * time.Millisecond)
	exchange(gone, 3) // another connection of the same incarnation
	ops, hidden, _ := rec.snapshot()
	if len(ops) != 0 || len(hidden) != 1 {
		t.Fatalf("recorded %+v and %+v, want one hidden event", ops, hidden)
	}
	ev := hidden[0]
	if ev.Kind != sim.HiddenMemberGone || ev.Member != "c#1" || ev.Group != "g" || ev.FromMs != okAt || ev.TimeMs < ev.FromMs {
		t.Errorf("hidden event %+v, want member-gone of c#1 from %d", ev, okAt)
	}
	// A heartbeat left without an answer: nothing, also when the connection closes.
	fc := &fakeConn{in: bytes.NewReader(nil)}
	tap := newTap(fc, rec, m, func([16]byte) string { return "" }, seen)
	if _, err := tap.Write(requestFrame(req, 4)); err != nil {
		t.Fatal(err)
	}
	tap.Close()
	if ops, hidden, _ := rec.snapshot(); len(ops) != 0 || len(hidden) != 1 {
		t.Errorf("after an unanswered heartbeat: %+v, %+v", ops, hidden)
	}
}

// The history horizon (recorder.take) never passes the last good heartbeat of a share-group
// incarnation that has not ended, so that a member-gone the tap records when a later
// heartbeat is answered UNKNOWN_MEMBER_ID (starting at that good heartbeat) is always
// handed over before the feeder finishes an offset after its start. Each case is a script
// of heartbeats answered without error (ok) or with the member unknown (gone), ends of
// incarnations and takes; each take names the member whose last good heartbeat (or joining,
// before it has one) must be the horizon, or none (the horizon is now). Whatever the case,
// no member-gone may start before a horizon handed out earlier.
func TestHorizonWaitsForHeartbeats(t *testing.T) {
	type step struct {
		who, do string // do: "ok", "gone", "end" (clientEnded) of who; "take", held by who ("": none)
	}
	cases := []struct {
		name    string
		members []string
		steps   []step
	}{
		{"a member not heartbeating yet holds it at its joining", []string{"a"},
			[]step{{"a", "take"}, {"a", "ok"}, {"a", "take"}}},
		{"a live member's last good heartbeat holds it until the next", []string{"a"},
			[]step{{"a", "ok"}, {"a", "take"}, {"a", "take"}, {"a", "ok"}, {"a", "take"}}},
		{"a fencing is handed over before the horizon passes its start", []string{"a"},
			[]step{{"a", "ok"}, {"a", "take"}, {"a", "gone"}, {"a", "take"}, {"a", "ok"}, {"a", "take"}}},
		{"the member with the oldest good heartbeat holds it", []string{"a", "b"},
			[]step{{"a", "ok"}, {"b", "ok"}, {"a", "take"}, {"a", "ok"}, {"b", "take"}, {"b", "gone"}, {"b", "take"}}},
		{"an ended incarnation holds nothing", []string{"a", "b"},
			[]step{{"a", "ok"}, {"b", "ok"}, {"a", "end"}, {"b", "take"}, {"b", "end"}, {"", "take"}}},
	}
	req, ok, gone := heartbeatExchange()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(time.Now(), nil)
			type span struct{ lo, hi int64 } // bounds of a member's last good heartbeat's call time
			beats := map[string]*span{}
			seen := map[string]*partSet{}
			mem := func(who string) member { return member{client: who + "#1", group: "g"} }
			for _, who := range tc.members {
				lo := rec.callMs()
				rec.joined(mem(who))
				beats[who], seen[who] = &span{lo, rec.callMs()}, &partSet{m: map[string]bool{}}
			}
			var latest int64 // the latest call time a step may have stamped
			horizons := []int64{}
			corr := int32(0)
			for i, s := range tc.steps {
				at := fmt.Sprintf("step %d (%s %s)", i, s.do, s.who)
				switch s.do {
				case "ok", "gone":
					resp := ok
					if s.do == "gone" {
						resp = gone
					}
					corr++
					time.Sleep(2 * time.Millisecond) // each heartbeat has a call time of its own
					lo := rec.callMs()
					tap := newTap(&fakeConn{in: bytes.NewReader(responseFrame(resp, corr))}, rec, mem(s.who), func([16]byte) string { return "" }, seen[s.who])
					if _, err := tap.Write(requestFrame(req, corr)); err != nil {
						t.Fatalf("%s: %v", at, err)
					}
					readToEOF(t, tap)
					if s.do == "ok" {
						beats[s.who] = &span{lo, rec.callMs()}
					}
				case "end":
					rec.clientEnded("g", mem(s.who).client)
				case "take":
					time.Sleep(3 * time.Millisecond) // now is past every call stamped so far
					items, h := rec.take()
					for _, it := range items {
						if ev := it.hidden; ev != nil && ev.Kind == sim.HiddenMemberGone {
							for k, hk := range horizons {
								if ev.FromMs < hk {
									t.Errorf("%s: member-gone of %s from %d ms handed over after take %d's horizon %d ms: an offset finished in between was checked without it",
										at, ev.Member, ev.FromMs, k, hk)
								}
							}
						}
					}
					horizons = append(horizons, h)
					if s.who == "" {
						if h <= latest {
							t.Errorf("%s: horizon %d ms, want now (after %d ms): nobody holds it", at, h, latest)
						}
						break
					}
					if b := beats[s.who]; h < b.lo || h > b.hi {
						t.Errorf("%s: horizon %d ms, want the last good heartbeat of %s, called in [%d, %d] ms", at, h, s.who, b.lo, b.hi)
					}
				}
				latest = rec.callMs()
			}
		})
	}
}

// A request's call time is when the tap has its whole frame, entered as pending at once: a
// horizon handed out while a frame is still arriving is never later than the call time its
// request then gets, and every horizon after it waits for the answer.
func TestWireTapCallTimeAtWholeFrame(t *testing.T) {
	req, _, _ := heartbeatExchange()
	rec := newRecorder(time.Now(), nil)
	rec.keep = true
	tap := newTap(&fakeConn{in: bytes.NewReader(nil)}, rec, member{client: "c#1", group: "g"}, func([16]byte) string { return "" }, &partSet{m: map[string]bool{}})
	w := requestFrame(req, 3)
	if _, err := tap.Write(w[:5]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Millisecond)
	_, mid := rec.take() // the frame is not whole: nothing is pending
	time.Sleep(3 * time.Millisecond)
	if _, err := tap.Write(w[5:]); err != nil {
		t.Fatal(err)
	}
	pr := tap.pending[3]
	if pr == nil {
		t.Fatal("the whole frame is not pending")
	}
	if pr.callMs < mid {
		t.Errorf("call time %d ms, before the horizon %d ms handed out while the frame arrived", pr.callMs, mid)
	}
	time.Sleep(3 * time.Millisecond)
	if _, h := rec.take(); h > pr.callMs {
		t.Errorf("horizon %d ms passed the unanswered request called at %d ms", h, pr.callMs)
	}
}
