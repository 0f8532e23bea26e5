package sim

import (
	"github.com/sharesim/sharesim/model"
	"github.com/sharesim/sharesim/sim/eventq"
)

// Share requests are the messages between a share client and a partition leader: a ShareFetch
// or ShareAcknowledge with its acknowledgements, and the leader's answer (results per
// share-partition). The client fills the request's own fields and sends it (shareclient.go);
// the network carries it (network.go); the leader fills the results and the bookkeeping of its
// handling (leader.go). A request's slot is reused once neither side needs it.

type reqKind uint8

const (
	reqFetch reqKind = iota + 1 // ShareFetch (with piggy-backed acknowledgements)
	reqAck                      // ShareAcknowledge
)

// request is one ShareFetch or ShareAcknowledge from a consumer to a broker, and its
// response.
type request struct {
	kind     reqKind
	consumer int32
	gen      uint32
	member   model.MemberID
	// clientField is the member's " client=" trace field.
	clientField *field
	broker      int32
	final       bool // closes the share session (epoch -1)
	renew       bool // a RENEW-only acknowledgement
	parts       []int32
	acks        []partAcks
	// rangeBuf and entryBuf back the acks' slices; they are reused with the request.
	rangeBuf []model.AckRange
	entryBuf []ackEntry
	params   model.FetchParams
	maxWait  int64
	sentMs   int64
	results  []partResult
	budget   int
	acquired int
	writes   int // acknowledgement writes outstanding
	reads    int // log reads in flight (Config.LogReadLatency)
	parked   bool
	waitH    eventq.Handle
	timeoutH eventq.Handle
	waitOver bool // the fetch's MaxWait has passed
	answered bool // response sent (or lost)
	arrived  bool // the request reached its broker
	// acksCounted: its acknowledgements were counted once their writes completed.
	acksCounted bool
	// respPending is true while a response event for the request is queued: the slot must
	// not be reused until it has been delivered (or dropped).
	respPending bool
	detached    bool // the poll loop does not wait for it
	done        bool // the client has the outcome
	inUse       bool
	costPaid    bool // its service time at the broker was charged (BrokerCost)
}

type partAcks struct {
	sp     int32
	ranges []model.AckRange
	// offsets acknowledged, in the same order as the client queued them (for metrics)
	entries []ackEntry
}

type partResult struct {
	sp         int32
	acquiredMs int64
	epoch      int32 // leader epoch of the acquisition
	ranges     []model.AcquiredRange
	ackCode    model.ErrorCode
	hasAck     bool
	err        model.ErrorCode
}

func (r *request) result(sp int32) *partResult {
	for i := range r.results {
		if r.results[i].sp == sp {
			return &r.results[i]
		}
	}
	if n := len(r.results); n < cap(r.results) {
		r.results = r.results[:n+1]
		pr := &r.results[n]
		*pr = partResult{sp: sp, ranges: pr.ranges[:0]}
		return pr
	}
	r.results = append(r.results, partResult{sp: sp})
	return &r.results[len(r.results)-1]
}

func (r *request) hasErr() bool {
	for i := range r.results {
		if r.results[i].err != model.ErrNone {
			return true
		}
	}
	return false
}

// requests holds the share requests (ShareFetch, ShareAcknowledge) on their way and in the
// leaders' hands, by id; a slot is reused once neither side needs it (maybeFree).
type requests struct {
	all  []request
	free []int32
}

// at returns request id.
func (rs *requests) at(id int32) *request { return &rs.all[id] }

func (rs *requests) newRequest() int32 {
	if n := len(rs.free); n > 0 {
		id := rs.free[n-1]
		rs.free = rs.free[:n-1]
		r := &rs.all[id]
		parts, acks, results, rb, eb := r.parts[:0], r.acks[:0], r.results[:0], r.rangeBuf[:0], r.entryBuf[:0]
		*r = request{parts: parts, acks: acks, results: results, rangeBuf: rb, entryBuf: eb, inUse: true}
		return id
	}
	rs.all = append(rs.all, request{inUse: true})
	return int32(len(rs.all) - 1)
}

// maybeFree recycles a request that neither the client nor a broker still needs.
func (rs *requests) maybeFree(id int32) {
	r := &rs.all[id]
	if r.inUse && r.done && !r.respPending && (!r.arrived || (r.answered && !r.parked && r.writes == 0 && r.reads == 0)) {
		r.inUse = false
		rs.free = append(rs.free, id)
	}
}

// ackEntry is one queued acknowledgement.
type ackEntry struct {
	sp  int32
	off int64
	t   model.AckType
}
