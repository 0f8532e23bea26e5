package sim

import (
	"fmt"
	"math"
)

// The broker cost model (Config.BrokerCost; off when nil): each broker has IOThreads
// request handler threads (num.io.threads). A request occupies the first thread free, for
// its per-request service time plus a per-record time for the records it carries in
// (produce, acknowledgements) or out (fetches); it is handled when its service ends, so a
// busy broker queues requests. Each broker's network moves BandwidthBytesPerSec (produce in
// and fetch data out share it); a response waits for its bytes to go out. Times are
// fractional milliseconds; the engine handles the request, or sends the response, at the
// millisecond its service ends (rounded up). All of it is deterministic: threads are taken
// in index order.

// BrokerCost are the broker's service times (milliseconds, fractional) and bandwidth.
type BrokerCost struct {
	// IOThreads is num.io.threads per broker (0: 8).
	IOThreads int
	// Per request and per record, by request type.
	ProduceRequestMs, ProduceRecordMs           float64
	ShareFetchRequestMs, ShareFetchRecordMs     float64
	AcknowledgeRequestMs, AcknowledgeRecordMs   float64
	ClassicFetchRequestMs, ClassicFetchRecordMs float64
	// BandwidthBytesPerSec is each broker's network capacity (0: unlimited).
	BandwidthBytesPerSec float64
}

func (bc *BrokerCost) validate() error {
	for _, v := range []float64{bc.ProduceRequestMs, bc.ProduceRecordMs, bc.ShareFetchRequestMs, bc.ShareFetchRecordMs,
		bc.AcknowledgeRequestMs, bc.AcknowledgeRecordMs, bc.ClassicFetchRequestMs, bc.ClassicFetchRecordMs, bc.BandwidthBytesPerSec} {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("broker_cost: service times and bandwidth must be finite and >= 0")
		}
	}
	if bc.IOThreads < 0 || bc.IOThreads > 10000 {
		return fmt.Errorf("broker_cost: num.io.threads = %d, expected 1..10000", bc.IOThreads)
	}
	return nil
}

// brokerLoad is one broker's queues under the cost model.
type brokerLoad struct {
	threadFree []float64 // when each handler thread is free (ms)
	netFree    float64   // when its network is free
	busyMs     float64   // handler-thread time spent
}

func (n *network) loadOf(b int32) *brokerLoad {
	if n.loads == nil {
		threads := n.cfg.BrokerCost.IOThreads
		if threads <= 0 {
			threads = 8
		}
		n.loads = make([]brokerLoad, n.cfg.Brokers)
		for i := range n.loads {
			n.loads[i].threadFree = make([]float64, threads)
		}
	}
	return &n.loads[b]
}

// serve runs a job of serviceMs on broker b's first free handler thread and returns the
// delay, in whole ms from now, until it is done.
func (n *network) serve(b int32, serviceMs float64) int64 {
	l := n.loadOf(b)
	k := 0
	for i, f := range l.threadFree {
		if f < l.threadFree[k] {
			k = i
		}
	}
	start := math.Max(float64(n.now), l.threadFree[k])
	l.threadFree[k] = start + serviceMs
	l.busyMs += serviceMs
	return n.costDelay(l.threadFree[k])
}

// transfer moves bytes over broker b's network and returns the delay until they are through.
func (n *network) transfer(b int32, bytes int64) int64 {
	bw := n.cfg.BrokerCost.BandwidthBytesPerSec
	if bw <= 0 || bytes <= 0 {
		return 0
	}
	l := n.loadOf(b)
	l.netFree = math.Max(float64(n.now), l.netFree) + float64(bytes)*1000/bw
	return n.costDelay(l.netFree)
}

func (n *network) costDelay(doneMs float64) int64 {
	d := int64(math.Ceil(doneMs-1e-9)) - n.now
	if d > 0 {
		n.metrics.brokerDelay(d)
	}
	return max(0, d)
}

// shareRequestCost charges a share request on arrival (per request, plus per acknowledged
// record) and reports whether it must wait: then it is queued again for when its service
// ends.
func (n *network) shareRequestCost(id int32) bool {
	bc := n.cfg.BrokerCost
	r := n.reqs.at(id)
	if bc == nil || r.costPaid {
		return false
	}
	r.costPaid = true
	var acked int
	for i := range r.acks {
		acked += len(r.acks[i].entries)
	}
	ms := bc.AcknowledgeRecordMs * float64(acked)
	if r.kind == reqFetch {
		ms += bc.ShareFetchRequestMs
	} else {
		ms += bc.AcknowledgeRequestMs
	}
	if d := n.serve(r.broker, ms); d > 0 {
		n.push(n.now+d, event{kind: evRequestArrive, ref: id})
		return true
	}
	return false
}

// shareResponseCost is the extra time a share fetch's response takes: its records' service
// time and their bytes on the network.
func (n *network) shareResponseCost(r *request) int64 {
	bc := n.cfg.BrokerCost
	if bc == nil || r.kind != reqFetch || r.acquired == 0 {
		return 0
	}
	d := n.serve(r.broker, bc.ShareFetchRecordMs*float64(r.acquired))
	var bytes int64
	for _, sp := range r.parts {
		bytes = n.recordBytes(n.parts[n.shares[sp].part].topic)
		break
	}
	return max(d, n.transfer(r.broker, bytes*int64(r.acquired)))
}
