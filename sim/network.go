package sim

func (n *network) transmit(c *consumer, id int32) {
	r := n.reqs.at(id)
	r.gen, r.member, r.sentMs = c.gen, c.member, n.now
	n.metrics.requests++
	if r.kind == reqFetch {
		n.metrics.shareFetches++
	} else if r.kind == reqAck {
		n.metrics.shareAcknowledges++
	}
	if r.kind == reqAck || len(r.acks) > 0 {
		n.metrics.ackRequests++
	}
	n.metrics.noteAcksSent(r)
	r.timeoutH = n.push(n.now+n.cfg.Network.RequestTimeoutMs, event{kind: evRequestTimeout, ref: id, gen: c.gen})
	if n.now < c.cutUntil {
		n.mark("request-lost-netcut")
		return
	}
	r.arrived = true
	n.push(n.now+n.cfg.Network.Latency.Sample(n.rNet), event{kind: evRequestArrive, ref: id})
}

// connReset is the brokers seeing a dead process's connections reset.
func (n *network) connReset(e event) {
	c := n.consumers[e.a]
	if c.gen != e.gen || !c.pendingReset {
		return
	}
	n.applyReset(c)
}

// applyReset drops a dead incarnation's connections (at the reset, when the broker closes
// the idle connection, or when the instance restarts first).
func (n *network) applyReset(c *consumer) {
	if !c.pendingReset {
		return
	}
	c.pendingReset = false
	n.line("conn-reset").str("client", string(c.member)).end()
	n.leaders.disconnect(c.idx)
}

// network carries requests and responses between clients and brokers: latency, lost
// responses, connection resets, and the broker cost model (service time, bandwidth).
type network struct {
	*engine
	*topology
	w *World

	leaders *leaders
	share   *shareClients
	reqs    *requests
	metrics *metrics
	history *history

	loads []brokerLoad // the broker cost model's queues (cost.go), nil when off
}
