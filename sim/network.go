package sim

// The network between clients and brokers. A message takes Network.Latency (drawn from the
// network stream; produce requests draw theirs from the producer stream). Share requests
// (ShareFetch, ShareAcknowledge) reach their broker unless the client's network is cut or its
// connection is gone by then; responses are lost at random (ResponseLossPerMillion), the
// client's request timeout then ending the wait. A dead process's connections drop when the
// brokers see them reset (kill: Network.ResetDelayMs later; host loss: when the broker closes
// the idle connection), and the leaders then end its share sessions. The broker cost model
// (cost.go) queues requests for handler threads and bandwidth.

// network is the network actor.
type network struct {
	*engine
	*topology

	leaders *leaders
	reqs    *requests
	metrics *metrics

	// cutUntil[c] is when consumer slot c's network cut ends; resetDue[c]: its dead
	// incarnation's connections are not reset yet (the brokers still see them).
	cutUntil []int64
	resetDue []bool
	loads    []brokerLoad // the broker cost model's queues (cost.go), nil when off
}

// addConsumer gives consumer slot c its network state.
func (n *network) addConsumer(c *consumer) {
	for len(n.cutUntil) <= int(c.idx) {
		n.cutUntil, n.resetDue = append(n.cutUntil, 0), append(n.resetDue, false)
	}
}

// latency is one message's trip between a client and a broker.
func (n *network) latency() int64 { return n.cfg.Network.Latency.Sample(n.rNet) }

// produceLatency is one produce request's or answer's trip (the producer stream).
func (n *network) produceLatency() int64 { return n.cfg.Network.Latency.Sample(n.rProd) }

// isCut reports whether c's network is cut now: nothing it sends or is sent arrives.
func (n *network) isCut(c *consumer) bool { return n.now < n.cutUntil[c.idx] }

// cutEnd is when c's network cut ends (a time in the past when it is not cut).
func (n *network) cutEnd(c *consumer) int64 { return n.cutUntil[c.idx] }

// cut cuts c's network for durationMs from now (netcut fault).
func (n *network) cut(c *consumer, durationMs int64) {
	n.cutUntil[c.idx] = max(n.cutUntil[c.idx], n.now+durationMs)
}

// heal ends every network cut.
func (n *network) heal() {
	for i := range n.cutUntil {
		n.cutUntil[i] = 0
	}
}

// sendRequest puts share request id of client c on the wire: it reaches its broker one
// latency later (requestArrive), unless c's network is cut.
func (n *network) sendRequest(c *consumer, id int32) {
	if n.isCut(c) {
		n.mark("request-lost-netcut")
		return
	}
	n.reqs.at(id).arrived = true
	n.push(n.now+n.latency(), event{kind: evRequestArrive, ref: id})
}

// requestArrive is a share request reaching its broker: lost with its connection, queued
// for a handler thread under the cost model, else handed to the leader.
func (n *network) requestArrive(id int32) {
	r := n.reqs.at(id)
	c := n.consumers[r.consumer]
	if !r.final && (c.gen != r.gen || !c.connected()) {
		// The connection is gone: the broker never sees the request.
		n.line("drop-request").str("client", string(r.member)).end()
		return
	}
	if n.shareRequestCost(id) {
		return // queued for a request handler thread (cost.go)
	}
	n.leaders.handle(id)
}

// sendResponse sends request id's response to its client (responseArrive), or loses it.
func (n *network) sendResponse(id int32) {
	r := n.reqs.at(id)
	lat := n.latency()
	if n.cfg.Network.ResponseLossPerMillion > 0 && n.rNet.Bool(uint64(n.cfg.Network.ResponseLossPerMillion), 1_000_000) {
		n.mark("response-lost")
		n.line("lose-response").str("client", string(r.member)).end()
		return // the client's timeout handles it
	}
	r.respPending = true
	n.push(n.now+lat+n.shareResponseCost(r), event{kind: evResponseArrive, ref: id, gen: r.gen})
}

// dropConnections is c's process dying: the brokers see its connections reset after
// afterMs (then its share sessions end), at once when afterMs is 0.
func (n *network) dropConnections(c *consumer, afterMs int64) {
	if afterMs > 0 {
		// Until then the dead member's records stay acquired.
		n.resetDue[c.idx] = true
		n.push(n.now+afterMs, event{kind: evConnReset, a: c.idx, gen: c.gen})
		return
	}
	n.leaders.disconnect(c.idx)
}

// connReset is the brokers seeing a dead process's connections reset.
func (n *network) connReset(e event) {
	c := n.consumers[e.a]
	if c.gen != e.gen || !n.resetDue[c.idx] {
		return
	}
	n.applyReset(c)
}

// applyReset drops a dead incarnation's connections (at the reset, when the broker closes
// the idle connection, or when the instance restarts first).
func (n *network) applyReset(c *consumer) {
	if !n.resetDue[c.idx] {
		return
	}
	n.resetDue[c.idx] = false
	n.line("conn-reset").str("client", string(c.member)).end()
	n.leaders.disconnect(c.idx)
}

// reconnect is c restarting: the old incarnation's connections are dropped first, and the
// new one's network is not cut.
func (n *network) reconnect(c *consumer) {
	n.applyReset(c)
	n.cutUntil[c.idx] = 0
}
