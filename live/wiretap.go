package live

import (
	"encoding/binary"
	"errors"
	"net"
	"sort"
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim"
)

// The wire tap reads a consumer's share-group requests and responses off its connections
// (ShareFetch, ShareAcknowledge) and records each as the simulator's history operations:
// a fetch result per partition with the acquired ranges and delivery counts exactly as the
// broker sent them, an acknowledgement per partition with its ranges, types and error
// code. A request's call time is taken before its first byte is written, its return time
// after the last byte of its response is read. A request whose response never arrives
// (the connection closed or the client was killed) is recorded as lost (ReturnMs -1), for
// every partition it may have touched. Nothing here changes a byte on the wire.
//
// It also reads the answers to the consumer's ShareGroupHeartbeats. The broker removes a
// member whose heartbeats stop for the session timeout (kfake: shareGroup.resetSessionTimeout
// then fenceMember, which releases the member's records; Kafka does the same), and a client
// starved of CPU can miss it; the history shows no operation for that release. A heartbeat
// answered UNKNOWN_MEMBER_ID or FENCED_MEMBER_EPOCH says the broker dropped the member, at
// some time after the last heartbeat it had answered without error: the tap records a
// hidden member-gone event from that heartbeat's call time, so the checkers allow the
// member's records to be released unseen from then on (the client rejoins and goes on; what
// it does after is visible again). Since that event can come long after the release, the
// recorder keeps the last good heartbeat of each incarnation and holds the history horizon
// at it (recorder.take), so no offset the release may concern is finished before the event
// is handed over.

const (
	keyShareGroupHeartbeat = 76
	keyShareFetch          = 78
	keyShareAcknowledge    = 79
)

// topicNames maps a topic ID to the scenario's topic name ("" when the topic is not one
// of the run's).
type topicNames func(id [16]byte) string

// member is the identity a consumer incarnation's operations carry.
type member struct {
	client string // e.g. "worker-1#2": instance name and incarnation, as the simulator names members
	group  string
}

// tapConn wraps one connection of one consumer incarnation.
type tapConn struct {
	net.Conn
	rec   *recorder
	m     member
	names topicNames
	// seen is shared by every connection of the incarnation: partitions it named.
	seen *partSet

	mu      sync.Mutex
	wbuf    []byte
	rbuf    []byte
	pending map[int32]*pendingReq
}

type pendingReq struct {
	key    int16
	ver    int16
	callMs int64
	fetch  *kmsg.ShareFetchRequest
	ack    *kmsg.ShareAcknowledgeRequest
}

// partSet is the set of partitions ("topic/n") a consumer incarnation's share requests named.
type partSet struct {
	mu sync.Mutex
	m  map[string]bool
}

func (p *partSet) add(name string) {
	p.mu.Lock()
	p.m[name] = true
	p.mu.Unlock()
}

func (p *partSet) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.m))
	for k := range p.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func newTap(c net.Conn, rec *recorder, m member, names topicNames, seen *partSet) *tapConn {
	return &tapConn{Conn: c, rec: rec, m: m, names: names, seen: seen, pending: map[int32]*pendingReq{}}
}

func (t *tapConn) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.wbuf = append(t.wbuf, p...)
	for {
		if len(t.wbuf) < 4 {
			break
		}
		n := int(binary.BigEndian.Uint32(t.wbuf))
		if len(t.wbuf) < 4+n {
			break
		}
		t.request(t.wbuf[4 : 4+n])
		t.wbuf = t.wbuf[4+n:]
	}
	if len(t.wbuf) == 0 {
		t.wbuf = nil
	}
	t.mu.Unlock()
	return t.Conn.Write(p)
}

func (t *tapConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		at := t.rec.returnMs()
		t.mu.Lock()
		t.rbuf = append(t.rbuf, p[:n]...)
		for len(t.rbuf) >= 4 {
			size := int(binary.BigEndian.Uint32(t.rbuf))
			if len(t.rbuf) < 4+size {
				break
			}
			t.response(t.rbuf[4:4+size], at)
			t.rbuf = t.rbuf[4+size:]
		}
		if len(t.rbuf) == 0 {
			t.rbuf = nil
		}
		t.mu.Unlock()
	}
	if err != nil {
		t.lose()
	}
	return n, err
}

func (t *tapConn) Close() error {
	t.lose()
	return t.Conn.Close()
}

// lose records every request still waiting for its response as lost (each once: they
// leave the pending set).
func (t *tapConn) lose() {
	t.mu.Lock()
	defer t.mu.Unlock()
	corrs := make([]int32, 0, len(t.pending))
	for c := range t.pending {
		corrs = append(corrs, c)
	}
	sort.Slice(corrs, func(a, b int) bool { return corrs[a] < corrs[b] })
	for _, c := range corrs {
		t.lost(t.pending[c])
		t.rec.answered(t.pending[c].callMs)
	}
	t.pending = map[int32]*pendingReq{}
}

// request parses one request frame (without its size), just written whole: its call time is
// now, when the tap has the whole frame and before the frame's last bytes go on to the broker,
// which cannot act on it before it has them all. The time is taken and the request entered as
// pending in one step (recorder.sentNow), so no history horizon handed out meanwhile passes it.
func (t *tapConn) request(b []byte) {
	if len(b) < 8 {
		return
	}
	key := int16(binary.BigEndian.Uint16(b))
	if key != keyShareFetch && key != keyShareAcknowledge && key != keyShareGroupHeartbeat {
		return
	}
	ver := int16(binary.BigEndian.Uint16(b[2:]))
	corr := int32(binary.BigEndian.Uint32(b[4:]))
	body, ok := skipRequestHeader(b[8:])
	if !ok {
		return
	}
	pr := &pendingReq{key: key, ver: ver}
	switch key {
	case keyShareGroupHeartbeat: // only its answer is read
	case keyShareFetch:
		req := kmsg.NewPtrShareFetchRequest()
		req.Version = ver
		if req.ReadFrom(body) != nil {
			return
		}
		pr.fetch = req
		for _, tp := range req.Topics {
			for _, p := range tp.Partitions {
				if name := t.partName(tp.TopicID, p.Partition); name != "" {
					t.seen.add(name)
				}
			}
		}
	default:
		req := kmsg.NewPtrShareAcknowledgeRequest()
		req.Version = ver
		if req.ReadFrom(body) != nil {
			return
		}
		pr.ack = req
	}
	if old := t.pending[corr]; old != nil { // a reused correlation ID: the old one is lost
		t.lost(old)
		t.rec.answered(old.callMs)
	}
	pr.callMs = t.rec.sentNow()
	t.pending[corr] = pr
}

// skipRequestHeader skips the client ID and the tagged fields of a flexible request header.
func skipRequestHeader(b []byte) ([]byte, bool) {
	if len(b) < 2 {
		return nil, false
	}
	n := int(int16(binary.BigEndian.Uint16(b)))
	b = b[2:]
	if n > 0 {
		if len(b) < n {
			return nil, false
		}
		b = b[n:]
	}
	return skipTags(b)
}

func skipTags(b []byte) ([]byte, bool) {
	num, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, false
	}
	b = b[k:]
	for i := uint64(0); i < num; i++ {
		_, k = binary.Uvarint(b)
		if k <= 0 {
			return nil, false
		}
		b = b[k:]
		size, k2 := binary.Uvarint(b)
		if k2 <= 0 || uint64(len(b)-k2) < size {
			return nil, false
		}
		b = b[k2+int(size):]
	}
	return b, true
}

// response parses one response frame (without its size).
func (t *tapConn) response(b []byte, retMs int64) {
	if len(b) < 4 {
		return
	}
	corr := int32(binary.BigEndian.Uint32(b))
	pr := t.pending[corr]
	if pr == nil {
		return
	}
	delete(t.pending, corr)
	defer t.rec.answered(pr.callMs)
	body, ok := skipTags(b[4:])
	if !ok {
		t.lost(pr)
		return
	}
	if pr.key == keyShareGroupHeartbeat {
		resp := kmsg.NewPtrShareGroupHeartbeatResponse()
		resp.Version = pr.ver
		if resp.ReadFrom(body) == nil {
			t.beat(pr, resp, retMs)
		}
		return
	}
	if pr.fetch != nil {
		resp := kmsg.NewPtrShareFetchResponse()
		resp.Version = pr.ver
		if resp.ReadFrom(body) != nil {
			t.lost(pr)
			return
		}
		t.fetched(pr, resp, retMs)
		return
	}
	resp := kmsg.NewPtrShareAcknowledgeResponse()
	resp.Version = pr.ver
	if resp.ReadFrom(body) != nil {
		t.lost(pr)
		return
	}
	t.acked(pr, resp, retMs)
}

func (t *tapConn) partName(id [16]byte, p int32) string {
	topic := t.names(id)
	if topic == "" {
		return ""
	}
	return topic + "/" + strconv.Itoa(int(p))
}

func codeName(code int16) string {
	if code == 0 {
		return model.ErrNone.String()
	}
	var ke *kerr.Error
	if errors.As(kerr.ErrorForCode(code), &ke) {
		return ke.Message
	}
	return "ERROR_" + strconv.Itoa(int(code))
}

type ackBatch struct {
	first, last int64
	types       []int8
}

func ackRanges(bs []ackBatch) []model.AckRange {
	out := make([]model.AckRange, 0, len(bs))
	for _, b := range bs {
		r := model.AckRange{First: b.first, Last: b.last}
		for _, ty := range b.types {
			r.Types = append(r.Types, model.AckType(ty))
		}
		out = append(out, r)
	}
	return out
}

func (t *tapConn) emit(kind, part string, callMs, retMs int64, acq []model.AcquiredRange, acks []model.AckRange, code string) {
	t.emitOp(sim.Op{Client: t.m.client, Group: t.m.group, Partition: part, Kind: kind, CallMs: callMs, ReturnMs: retMs, Acquired: acq, Acks: acks, Code: code}, false)
}

func (t *tapConn) emitOp(op sim.Op, suspect bool) { t.rec.op(op, suspect) }

// fetchAcks lists a ShareFetch request's acknowledgements per partition name, in request order.
func (t *tapConn) fetchAcks(req *kmsg.ShareFetchRequest) ([]string, map[string][]ackBatch) {
	return t.ackLists(func(add func(id [16]byte, partition int32, b ackBatch)) {
		for _, tp := range req.Topics {
			for _, p := range tp.Partitions {
				for _, b := range p.AcknowledgementBatches {
					add(tp.TopicID, p.Partition, ackBatch{b.FirstOffset, b.LastOffset, b.AcknowledgeTypes})
				}
			}
		}
	})
}

// ackAcks lists a ShareAcknowledge request's acknowledgements per partition name, in request order.
func (t *tapConn) ackAcks(req *kmsg.ShareAcknowledgeRequest) ([]string, map[string][]ackBatch) {
	return t.ackLists(func(add func(id [16]byte, partition int32, b ackBatch)) {
		for _, tp := range req.Topics {
			for _, p := range tp.Partitions {
				for _, b := range p.AcknowledgementBatches {
					add(tp.TopicID, p.Partition, ackBatch{b.FirstOffset, b.LastOffset, b.AcknowledgeTypes})
				}
			}
		}
	})
}

// ackLists groups the acknowledgement batches that each hands to add by partition name
// (partitions of topics the tap does not know are left out), names in first-seen order.
func (t *tapConn) ackLists(each func(add func(id [16]byte, partition int32, b ackBatch))) ([]string, map[string][]ackBatch) {
	var order []string
	m := map[string][]ackBatch{}
	each(func(id [16]byte, partition int32, b ackBatch) {
		name := t.partName(id, partition)
		if name == "" {
			return
		}
		if _, ok := m[name]; !ok {
			order = append(order, name)
		}
		m[name] = append(m[name], b)
	})
	return order, m
}

func (t *tapConn) fetched(pr *pendingReq, resp *kmsg.ShareFetchResponse, retMs int64) {
	order, acks := t.fetchAcks(pr.fetch)
	ackCode := map[string]string{}
	type fetchRes struct {
		part string
		acq  []model.AcquiredRange
		code string
	}
	var res []fetchRes
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			name := t.partName(tp.TopicID, p.Partition)
			if name == "" {
				continue
			}
			t.seen.add(name)
			// A broker may list a partition twice (kfake answers a failed piggy-backed
			// acknowledgement in an entry of its own, then the fetch in another): the
			// acknowledgement's outcome is the error if any entry has one.
			if c, ok := ackCode[name]; !ok || c == model.ErrNone.String() {
				ackCode[name] = codeName(p.AcknowledgeErrorCode)
			}
			if p.ErrorCode == 0 && len(p.AcquiredRecords) == 0 {
				continue
			}
			fr := fetchRes{part: name, code: codeName(p.ErrorCode)}
			for _, a := range p.AcquiredRecords {
				fr.acq = append(fr.acq, model.AcquiredRange{First: a.FirstOffset, Last: a.LastOffset, DeliveryCount: a.DeliveryCount})
			}
			res = append(res, fr)
		}
	}
	for _, name := range order {
		code, ok := ackCode[name]
		switch {
		case resp.ErrorCode != 0:
			code = codeName(resp.ErrorCode)
		case !ok:
			code = "LOST" // the broker did not answer for the partition: effect unknown
		}
		ret := retMs
		if code == "LOST" {
			ret = -1
		}
		// A piggy-backed acknowledgement answered NONE may have failed on a broker that
		// drops the error when the fetch waits (kfake); the verdict re-checks with it unknown.
		t.emitOp(sim.Op{Client: t.m.client, Group: t.m.group, Partition: name, Kind: "ack", CallMs: pr.callMs, ReturnMs: ret,
			Acks: ackRanges(acks[name]), Code: code}, code == model.ErrNone.String())
	}
	for _, fr := range res {
		t.emit("fetch", fr.part, pr.callMs, retMs, fr.acq, nil, fr.code)
	}
}

func (t *tapConn) acked(pr *pendingReq, resp *kmsg.ShareAcknowledgeResponse, retMs int64) {
	order, acks := t.ackAcks(pr.ack)
	codes := map[string]string{}
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			if name := t.partName(tp.TopicID, p.Partition); name != "" {
				if c, ok := codes[name]; !ok || c == model.ErrNone.String() {
					codes[name] = codeName(p.ErrorCode)
				}
			}
		}
	}
	for _, name := range order {
		code, ok := codes[name]
		ret := retMs
		switch {
		case resp.ErrorCode != 0:
			code = codeName(resp.ErrorCode)
		case !ok:
			code, ret = "LOST", -1
		}
		t.emit("ack", name, pr.callMs, ret, nil, ackRanges(acks[name]), code)
	}
}

// beat reads a heartbeat's answer (see the top of the file). The incarnation's last good
// heartbeat is kept by the recorder, for every connection of it, since the horizon waits
// for it.
func (t *tapConn) beat(pr *pendingReq, resp *kmsg.ShareGroupHeartbeatResponse, retMs int64) {
	switch resp.ErrorCode {
	case 0:
		t.rec.beat(t.m, pr.callMs)
	case kerr.UnknownMemberID.Code, kerr.FencedMemberEpoch.Code:
		t.rec.fenced(t.m, retMs)
	}
}

// lost records a request without a response: its acknowledgements may or may not have
// taken effect, and a fetch may have acquired records from any partition of the session. A
// heartbeat without an answer says nothing.
func (t *tapConn) lost(pr *pendingReq) {
	if pr.key == keyShareGroupHeartbeat {
		return
	}
	var order []string
	var acks map[string][]ackBatch
	if pr.fetch != nil {
		order, acks = t.fetchAcks(pr.fetch)
	} else {
		order, acks = t.ackAcks(pr.ack)
	}
	for _, name := range order {
		t.emit("ack", name, pr.callMs, -1, nil, ackRanges(acks[name]), "LOST")
	}
	if pr.fetch != nil {
		for _, name := range t.seen.list() {
			t.emit("fetch", name, pr.callMs, -1, nil, nil, "LOST")
		}
	}
}
