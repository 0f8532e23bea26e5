package sim

import (
	"cmp"
	"slices"

	"github.com/sharesim/sharesim/model"
)

// shareClients are the share consumers (KafkaShareConsumer): the poll loop, fetches and
// acknowledgements, processing, renewals.
type shareClients struct {
	*engine
	*topology

	net     *network
	leaders *leaders
	gcoord  *groupCoordinator
	configs *groupConfigs
	procs   *processes
	reqs    *requests
	metrics *metrics
	history *history

	renewStall int // > 0: renewals stop
	ackBuf     []ackEntry
	spanBuf    [][]ackSpan
	brokerBuf  [][]int32
}

// delivery is one record handed to the consumer.
type delivery struct {
	sp         int32
	epoch      int32 // leader epoch of the acquisition
	off        int64
	acquiredMs int64
	deadline   int64 // lock deadline as the client knows it
	startMs    int64 // when its processing started
	dc         int16
}

var singleType = [5][]model.AckType{{0}, {1}, {2}, {3}, {4}}

// shareClient is a share consumer's client state (in its consumer slot).
type shareClient struct {
	buffer      []delivery // fetched records poll has not returned yet
	batch       []delivery // the records the last poll returned
	next        int        // next record of the batch to start
	finished    int        // records of the batch processed
	running     int        // records being processed now (at most Threads)
	done        []bool     // done[i]: batch[i] processed
	acks        []ackEntry // acknowledgements queued to be sent
	outstanding int        // requests the poll loop waits for
	renewing    bool       // the RENEW cadence is queued
	// rotate picks the partition whose leader a record_limit poll fetches from.
	rotate int
}

// start starts c's share client: it joins the group and polls.
func (sc *shareClients) start(c *consumer) {
	sc.metrics.dropped(c) // what the last incarnation held is gone with it
	c.buffer, c.batch, c.acks, c.next, c.outstanding = c.buffer[:0], c.batch[:0], c.acks[:0], 0, 0
	sc.gcoord.heartbeatNow(c)
	sc.push(sc.now+sc.cfg.Membership.HeartbeatIntervalMs, event{kind: evHeartbeat, a: c.idx, gen: c.gen})
	sc.poll(c)
}

// stallRenewals starts (+1) or ends (-1) a renew-stall fault: renewals stop.
func (sc *shareClients) stallRenewals(dir int) { sc.renewStall += dir }

// heal ends the renew-stall faults.
func (sc *shareClients) heal() { sc.renewStall = 0 }

// transmit sends request id: the client's timeout starts, the network carries it.
func (sc *shareClients) transmit(c *consumer, id int32) {
	r := sc.reqs.at(id)
	r.gen, r.member, r.clientField, r.sentMs = c.gen, c.member, c.clientField, sc.now
	sc.metrics.requestSent(r)
	r.timeoutH = sc.push(sc.now+sc.cfg.Network.RequestTimeoutMs, event{kind: evRequestTimeout, ref: id, gen: c.gen})
	sc.net.sendRequest(c, id)
}

// poll is KafkaShareConsumer.poll: acknowledge the previous poll's records (implicit mode),
// then return buffered records or fetch.
func (sc *shareClients) poll(c *consumer) {
	if !c.alive() {
		return
	}
	if c.spec.AckMode == AckImplicit {
		for _, d := range c.batch {
			c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckAccept})
		}
	}
	c.batch, c.next = c.batch[:0], 0
	if len(c.buffer) > 0 {
		sc.takeBatch(c)
		sc.sendAcks(c, false, false)
		sc.startProcessing(c)
		return
	}
	if len(c.assignment) == 0 {
		sc.sendAcks(c, false, false)
		c.state = cIdle
		return // the next heartbeat with an assignment polls again
	}
	c.state = cPolling
	sc.sendFetches(c)
}

func (sc *shareClients) takeBatch(c *consumer) {
	n := min(len(c.buffer), c.spec.MaxPollRecords)
	if n == len(c.buffer) { // the whole buffer: swap the slices instead of copying
		c.batch, c.buffer = c.buffer, c.batch[:0]
	} else {
		c.batch = append(c.batch[:0], c.buffer[:n]...)
		c.buffer = append(c.buffer[:0], c.buffer[n:]...)
	}
	sc.metrics.polled(c.batch)
}

// sendFetches sends one ShareFetch per leader of the assigned partitions, carrying the
// queued acknowledgements for that leader's partitions, and a ShareAcknowledge to other
// leaders that have acknowledgements waiting.
func (sc *shareClients) sendFetches(c *consumer) {
	if cap(sc.brokerBuf) < sc.cfg.Brokers {
		sc.brokerBuf = make([][]int32, sc.cfg.Brokers)
	}
	byBroker := sc.brokerBuf[:sc.cfg.Brokers]
	for b := range byBroker {
		byBroker[b] = byBroker[b][:0]
	}
	// record_limit: a ShareFetch goes to one leader per poll, chosen by rotating over the
	// assigned partitions; another leader gets one only when it carries acknowledgements for
	// it or opens the share session there (ShareConsumeRequestManager with
	// canSkipIfRequestEmpty), so most polls acquire from a single leader.
	fetchFrom := int32(-1)
	if c.spec.AcquireMode == model.RecordLimit && len(c.assignment) > 0 {
		fetchFrom = sc.parts[sc.shares[c.assignment[c.rotate%len(c.assignment)]].part].leader
		c.rotate++
	}
	for _, sp := range c.assignment {
		b := sc.parts[sc.shares[sp].part].leader
		byBroker[b] = append(byBroker[b], sp)
	}
	acks := sc.groupAcks(c)
	if fetchFrom >= 0 {
		for b := range byBroker {
			if int32(b) != fetchFrom && len(acks[b]) == 0 && sc.leaders.hasSession(int32(b), c.idx) {
				byBroker[b] = byBroker[b][:0]
			}
		}
	}
	for b := range sc.cfg.Brokers {
		if len(byBroker[b]) == 0 && len(acks[b]) == 0 {
			continue
		}
		id := sc.reqs.newRequest()
		r := sc.reqs.at(id)
		r.kind, r.consumer, r.broker = reqFetch, c.idx, int32(b)
		if len(byBroker[b]) == 0 {
			r.kind = reqAck
		}
		r.parts = append(r.parts, byBroker[b]...)
		sc.fillAcks(r, acks[b])
		r.params = model.FetchParams{MaxRecords: c.spec.MaxPollRecords, BatchSize: c.spec.MaxPollRecords, Mode: c.spec.AcquireMode}
		r.maxWait = c.spec.MaxWaitMs
		sc.send(c, id)
	}
	if c.outstanding == 0 {
		c.state = cIdle
	}
}

// sendAcks sends the queued acknowledgements as ShareAcknowledge requests, one per leader.
// final closes the share sessions (consumer close). sync makes the consumer wait.
func (sc *shareClients) sendAcks(c *consumer, final, sync bool) int {
	acks := sc.groupAcks(c)
	sent := 0
	for b := range sc.cfg.Brokers {
		if len(acks[b]) == 0 && !(final && sc.leaders.hasSession(int32(b), c.idx)) {
			continue
		}
		id := sc.reqs.newRequest()
		r := sc.reqs.at(id)
		r.kind, r.consumer, r.broker, r.final = reqAck, c.idx, int32(b), final
		sc.fillAcks(r, acks[b])
		if sync || final {
			sc.send(c, id)
		} else {
			sc.sendDetached(c, id)
		}
		sent++
	}
	return sent
}

// ackSpan is the queued acknowledgements of one share-partition: shareClients.ackBuf[lo:hi].
type ackSpan struct {
	sp     int32
	lo, hi int
}

// groupAcks sorts the queued acknowledgements by share-partition and offset into sc.ackBuf,
// keeps the last type of an offset acknowledged twice, clears the queue, and returns the
// spans per current leader (valid until the next call). The queue's storage becomes
// sc.ackBuf and the old sc.ackBuf's the (empty) queue: nothing is copied.
func (sc *shareClients) groupAcks(c *consumer) [][]ackSpan {
	if cap(sc.spanBuf) < sc.cfg.Brokers {
		sc.spanBuf = make([][]ackSpan, sc.cfg.Brokers)
	}
	out := sc.spanBuf[:sc.cfg.Brokers]
	for b := range out {
		out[b] = out[b][:0]
	}
	if len(c.acks) == 0 {
		return out
	}
	buf := c.acks
	c.acks, sc.ackBuf = sc.ackBuf[:0], buf
	if !ascendingOnce(buf) { // usually queued in order, each offset once
		slices.SortStableFunc(buf, func(x, y ackEntry) int {
			if x.sp != y.sp {
				return cmp.Compare(x.sp, y.sp)
			}
			return cmp.Compare(x.off, y.off)
		})
		n := 0
		for k, e := range buf {
			if k+1 < len(buf) && buf[k+1].sp == e.sp && buf[k+1].off == e.off {
				continue // superseded by a later acknowledgement of the same offset
			}
			buf[n] = e
			n++
		}
		buf = buf[:n]
		sc.ackBuf = buf
	}
	for i := 0; i < len(buf); {
		j := i
		for j < len(buf) && buf[j].sp == buf[i].sp {
			j++
		}
		b := sc.parts[sc.shares[buf[i].sp].part].leader
		out[b] = append(out[b], ackSpan{sp: buf[i].sp, lo: i, hi: j})
		i = j
	}
	return out
}

// ascendingOnce reports whether the entries are in (share-partition, offset) order with no
// offset twice.
func ascendingOnce(es []ackEntry) bool {
	for k := 1; k < len(es); k++ {
		if a, b := &es[k-1], &es[k]; b.sp < a.sp || b.sp == a.sp && b.off <= a.off {
			return false
		}
	}
	return true
}

// fillAcks copies the spans' acknowledgements into the request as ascending ranges.
func (sc *shareClients) fillAcks(r *request, spans []ackSpan) {
	for _, sp := range spans {
		rs, es := len(r.rangeBuf), len(r.entryBuf)
		entries := sc.ackBuf[sp.lo:sp.hi]
		r.entryBuf = append(r.entryBuf, entries...)
		for _, e := range entries {
			if n := len(r.rangeBuf); n > rs && r.rangeBuf[n-1].Last+1 == e.off && r.rangeBuf[n-1].Types[0] == e.t {
				r.rangeBuf[n-1].Last = e.off
				continue
			}
			r.rangeBuf = append(r.rangeBuf, model.AckRange{First: e.off, Last: e.off, Types: singleType[e.t]})
		}
		r.acks = append(r.acks, partAcks{sp: sp.sp, ranges: r.rangeBuf[rs:len(r.rangeBuf):len(r.rangeBuf)], entries: r.entryBuf[es:len(r.entryBuf):len(r.entryBuf)]})
	}
}

// send puts a request on the wire; the consumer waits for it.
func (sc *shareClients) send(c *consumer, id int32) {
	c.outstanding++
	sc.transmit(c, id)
}

// sendDetached puts a request on the wire without the poll loop waiting for it.
func (sc *shareClients) sendDetached(c *consumer, id int32) {
	sc.reqs.at(id).detached = true
	sc.transmit(c, id)
}

// responseArrive is a response reaching its consumer.
func (sc *shareClients) responseArrive(id int32) {
	r := sc.reqs.at(id)
	r.respPending = false
	c := sc.consumers[r.consumer]
	if r.done {
		sc.reqs.maybeFree(id)
		return
	}
	if c.gen != r.gen || c.state == cDead || c.state == cHung || sc.net.isCut(c) {
		if c.gen != r.gen || c.state == cDead {
			r.done = true
			sc.q.Cancel(r.timeoutH)
			sc.reqs.maybeFree(id)
		}
		return // a hung or cut-off client never reads it; its timeout fires
	}
	if sc.procs.deferIfPaused(c, event{kind: evResponseArrive, ref: id, gen: r.gen}) {
		r.respPending = true // re-queued for when the pause ends
		return
	}
	r.done = true
	sc.q.Cancel(r.timeoutH)
	sc.handleResponse(c, r)
	sc.reqs.maybeFree(id)
	if !r.detached {
		c.outstanding--
		sc.afterResponse(c)
	}
}

// requestTimeout is the client giving up on a request whose response never came.
func (sc *shareClients) requestTimeout(id int32) {
	r := sc.reqs.at(id)
	if r.done {
		return
	}
	c := sc.consumers[r.consumer]
	r.done = true
	sc.mark("request-timeout")
	if c.gen == r.gen && c.state != cDead {
		for i := range r.acks {
			sc.metrics.acksLost(r, &r.acks[i])
		}
		sc.history.recordHistoryLost(r)
	}
	sc.reqs.maybeFree(id)
	if !r.detached && c.gen == r.gen {
		c.outstanding--
		if c.state != cHung && c.state != cDead {
			sc.afterResponse(c)
		}
	}
}

// handleResponse buffers the acquired records and takes note of acknowledgement outcomes.
func (sc *shareClients) handleResponse(c *consumer, r *request) {
	for i := range r.results {
		res := &r.results[i]
		if res.hasAck {
			for k := range r.acks {
				if r.acks[k].sp == res.sp {
					sc.metrics.ackAnswered(r, &r.acks[k], res.ackCode)
				}
			}
		}
		if len(res.ranges) == 0 {
			continue
		}
		s := sc.shares[res.sp]
		p := sc.parts[s.part]
		lockMs := sc.configs.lockDurationMs(s.group) // the AcquisitionLockTimeoutMs of the response
		for _, ar := range res.ranges {
			for off := ar.First; off <= ar.Last; {
				end := min(p.log.RecordsUntil(off), ar.Last+1) // records up to end (a batch)
				if end == off {
					c.acks = append(c.acks, ackEntry{sp: res.sp, off: off, t: model.AckGap})
					off++
					continue
				}
				sc.metrics.received(s, off, end)
				n := len(c.buffer)
				c.buffer = slices.Grow(c.buffer, int(end-off))[:n+int(end-off)]
				for k := range c.buffer[n:] {
					c.buffer[n+k] = delivery{sp: res.sp, off: off + int64(k), dc: ar.DeliveryCount, acquiredMs: res.acquiredMs, epoch: res.epoch, deadline: res.acquiredMs + lockMs}
				}
				off = end
			}
		}
	}
	sc.history.recordHistory(r)
}

// afterResponse moves the poll loop on after one of its requests finished.
func (sc *shareClients) afterResponse(c *consumer) {
	switch c.state {
	case cPolling:
		if len(c.buffer) > 0 {
			sc.takeBatch(c)
			sc.startProcessing(c)
		} else if c.outstanding == 0 {
			sc.poll(c)
		}
	case cCommitting:
		if c.outstanding == 0 {
			sc.poll(c)
		}
	}
}

// startProcessing hands the batch to the application: Threads records at a time (one by
// default, as a single-threaded poll loop).
func (sc *shareClients) startProcessing(c *consumer) {
	c.state = cProcessing
	c.next, c.finished, c.running = 0, 0, 0
	c.done = append(c.done[:0], make([]bool, len(c.batch))...)
	if len(c.batch) == 0 {
		sc.batchDone(c)
		return
	}
	for c.running < c.threads() && c.next < len(c.batch) {
		sc.startRecord(c)
	}
	if c.spec.RenewEveryMs > 0 && !c.renewing {
		c.renewing = true
		sc.push(sc.now+c.spec.RenewEveryMs, event{kind: evRenew, a: c.idx, gen: c.gen})
	}
}

func (c *consumer) threads() int { return max(1, c.spec.Threads) }

// startRecord starts processing the next record of the batch on a free thread.
func (sc *shareClients) startRecord(c *consumer) {
	d := c.spec.Processing.Sample(sc.rProc)
	if c.spec.SlowFactor != 1 {
		d = int64(float64(d) * c.spec.SlowFactor)
	}
	sc.push(sc.now+d, event{kind: evProcessDone, a: c.idx, gen: c.gen, x: int64(c.next)})
	c.batch[c.next].startMs = sc.now
	c.next++
	c.running++
}

// processDone is the application finishing one record (event x is its index in the batch).
func (sc *shareClients) processDone(e event) {
	c := sc.consumers[e.a]
	if c.gen != e.gen || c.state != cProcessing {
		return
	}
	if sc.procs.deferIfPaused(c, e) {
		return
	}
	i := int(e.x)
	d := &c.batch[i] // read before the batch can change (startRecord, batchDone)
	c.done[i] = true
	c.finished++
	c.running--
	s := sc.shares[d.sp]
	p := sc.parts[s.part]
	action, ok := sc.outcome(c, p, d)
	sc.metrics.processed(c, s, p, d, ok, sc.now-d.startMs)
	switch action {
	case FailCrash:
		sc.line("crash").str("client", string(c.member)).str("p", p.name).num("offset", d.off).end()
		sc.mark("consumer-crash")
		sc.procs.kill(c, c.spec.RestartAfterCrashMs)
		return
	case FailRelease:
		c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckRelease})
	case FailReject:
		c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckReject})
	default:
		if c.spec.AckMode == AckExplicit {
			c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckAccept})
		}
	}
	if c.next < len(c.batch) {
		sc.startRecord(c)
	}
	if c.finished == len(c.batch) {
		sc.batchDone(c)
	}
}

// outcome decides what processing a record leads to: success (FailSkip, true) or the
// configured action for a poison record, a downstream outage or a transient failure.
func (sc *shareClients) outcome(c *consumer, p *partition, d *delivery) (FailureAction, bool) {
	if isPoison(p.poison, d.off) {
		return c.spec.OnPoison, false
	}
	if sc.procs.outageOn() {
		return c.spec.OnFailure, false
	}
	if c.spec.FailurePerMillion > 0 && sc.rProc.Bool(uint64(c.spec.FailurePerMillion), 1_000_000) {
		return c.spec.OnFailure, false
	}
	return FailSkip, true
}

func isPoison(list []int64, off int64) bool {
	if len(list) == 0 {
		return false
	}
	_, found := slices.BinarySearch(list, off)
	return found
}

// batchDone is the end of one poll's records: commitSync, or poll again.
func (sc *shareClients) batchDone(c *consumer) {
	if c.spec.Commit == CommitSync {
		if c.spec.AckMode == AckImplicit {
			for _, d := range c.batch {
				c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckAccept})
			}
			c.batch = c.batch[:0]
		}
		if sc.sendAcks(c, false, true) > 0 {
			c.state = cCommitting
			return
		}
	}
	sc.poll(c)
}

// renew sends RENEW for the records of the current poll not yet acknowledged (KIP-1222).
func (sc *shareClients) renew(e event) {
	c := sc.consumers[e.a]
	if c.gen != e.gen {
		return
	}
	if sc.procs.deferIfPaused(c, e) {
		return
	}
	if c.state != cProcessing || !c.alive() {
		c.renewing = false
		if c.alive() && c.state != cDead {
			// keep the cadence while the consumer lives; it renews when processing again
			c.renewing = true
			sc.push(sc.now+c.spec.RenewEveryMs, event{kind: evRenew, a: c.idx, gen: c.gen})
		}
		return
	}
	sc.push(sc.now+c.spec.RenewEveryMs, event{kind: evRenew, a: c.idx, gen: c.gen})
	if sc.renewStall > 0 {
		sc.mark("renew-stalled")
		return
	}
	queued := c.acks
	c.acks = nil
	lockMs := sc.configs.lockDurationMs(c.group)
	for i, d := range c.batch {
		if !c.done[i] {
			c.acks = append(c.acks, ackEntry{sp: d.sp, off: d.off, t: model.AckRenew})
			c.batch[i].deadline = sc.now + lockMs
		}
	}
	sc.metrics.renewsSent(sc.sendAcks(c, false, false))
	c.acks = queued
}
