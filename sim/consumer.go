package sim

import (
	"fmt"
	"strconv"

	"github.com/sharesim/sharesim/model"
)

// Consumer processes. Each consumer slot runs one process at a time (an incarnation, with
// its own member id and generation); the process runs a share client (shareclient.go) or a
// classic client (classic.go), as its group is, and a heartbeat thread. Faults end it
// (kill, host loss, close), freeze it (hang, pause) or cut its network; a dead process
// restarts after the fault's delay, and every one recovers when the healing phase starts.
// Events of an older incarnation carry an older generation and are ignored.

// processes is the consumer processes actor.
type processes struct {
	*engine
	*topology

	share   *shareClients
	classic *classicClients
	gcoord  *groupCoordinator
	net     *network
	metrics *metrics
	history *history

	outage int // > 0: a downstream outage is on (processing fails)
}

type cState uint8

const (
	cStopped    cState = iota // not started yet
	cPolling                  // waiting for fetch responses
	cProcessing               // processing the records of the last poll
	cCommitting               // waiting for commitSync responses
	cIdle                     // no partitions: waiting for an assignment
	cDead                     // killed or closed; connections gone
	cHung                     // frozen; connections stay open
)

// consumer is one consumer slot: the process running in it now and its client's state.
type consumer struct {
	idx         int32
	group       int32
	spec        *ConsumerSpec
	name        string
	incarnation int
	member      model.MemberID
	clientField *field // " client=<member>" for trace lines
	gen         uint32
	state       cState
	pausedUntil int64
	// assignment is the member's assignment as it last learnt it (share-partition ids, or
	// the classic group's partition indices).
	assignment []int32
	// The share client's state (shareclient.go), or a classic client's (cl, classic.go).
	shareClient
	cl *classicClient
}

func (c *consumer) connected() bool { return c.state != cDead }

// alive reports whether the process runs (not dead, not hung).
func (c *consumer) alive() bool { return c.state != cDead && c.state != cHung && c.state != cStopped }

func (ps *processes) isClassic(c *consumer) bool { return ps.groups[c.group].classic != nil }

// start starts a new incarnation in consumer slot ci (evConsumerStart).
func (ps *processes) start(ci int32) {
	c := ps.consumers[ci]
	if c.state != cStopped && c.state != cDead {
		return
	}
	ps.net.reconnect(c) // a restart's new connections come after the old ones were dropped
	c.incarnation++
	c.gen++
	c.member = model.MemberID(c.name + "#" + strconv.Itoa(c.incarnation))
	cf := valueField("client", string(c.member))
	c.clientField = &cf
	c.state = cIdle
	c.pausedUntil = 0
	c.assignment = nil
	ps.line("start").str("client", string(c.member)).end()
	if ps.isClassic(c) {
		ps.classic.start(c)
		return
	}
	ps.share.start(c)
}

// deferIfPaused re-queues a consumer event that arrives while the process is paused.
func (ps *processes) deferIfPaused(c *consumer, e event) bool {
	if ps.now >= c.pausedUntil {
		return false
	}
	ps.deferToResume(c, e)
	return true
}

// deferToResume queues e again for when c's pause ends. (Not inlined, so that
// deferIfPaused is: most events find their consumer running.)
//
//go:noinline
func (ps *processes) deferToResume(c *consumer, e event) { ps.push(c.pausedUntil, e) }

// heartbeat is the process's heartbeat thread (evHeartbeat): it reaches the group
// coordinator unless the network is cut, and an idle client that learns of partitions polls.
func (ps *processes) heartbeat(e event) {
	c := ps.consumers[e.a]
	if c.gen != e.gen || c.state == cDead || c.state == cHung {
		return
	}
	if ps.deferIfPaused(c, e) {
		return
	}
	ps.push(ps.now+ps.cfg.Membership.HeartbeatIntervalMs, event{kind: evHeartbeat, a: c.idx, gen: c.gen})
	if ps.net.isCut(c) {
		return // the heartbeat is lost
	}
	had := len(c.assignment)
	ps.gcoord.heartbeatNow(c)
	if c.state == cIdle && (len(c.assignment) > 0 || had > 0) {
		if ps.isClassic(c) {
			ps.classic.poll(c)
		} else {
			ps.share.poll(c)
		}
	}
}

// connectionsMaxIdleMs is connections.max.idle.ms: a broker closes a connection idle that long.
const connectionsMaxIdleMs = 600_000

// kill ends the process (a kill fault, a crash, a hung process restarted): its connections
// drop, seen by the brokers Network.ResetDelayMs later, so every leader releases what the
// member held.
func (ps *processes) kill(c *consumer, restartAfterMs int64) {
	ps.die(c, restartAfterMs, "kill", ps.cfg.Network.ResetDelayMs)
}

// hostLoss is the consumer's host (or its network) vanishing: the process stops and no
// connection is reset. The group coordinator fences the member at the session timeout; the
// leaders, which release a member's records only when its connection drops (the share
// session cache's disconnect listener calls SharePartitionManager.releaseSession), keep them
// acquired until their locks expire, and drop the stale share session when the broker closes
// the idle connection (connections.max.idle.ms, 10 minutes). A classic member is the same
// as killed.
func (ps *processes) hostLoss(c *consumer, restartAfterMs int64) {
	ps.die(c, restartAfterMs, "host-loss", connectionsMaxIdleMs)
}

// die ends the process (traced as kind): the work it was doing is abandoned, a share
// member's incarnation ends for the history, and its connections drop resetAfterMs later (a
// classic member's matter to no leader). It restarts after restartAfterMs (< 0: never).
func (ps *processes) die(c *consumer, restartAfterMs int64, kind string, resetAfterMs int64) {
	if c.state == cDead || c.state == cStopped {
		return
	}
	classic := ps.isClassic(c)
	if classic {
		kind = "kill"
	}
	ps.line(kind).str("client", string(c.member)).end()
	ps.metrics.abandoned(c)
	if !classic {
		ps.metrics.consumerGone(c, causeCrash)
		ps.history.recordMemberGone(c)
	}
	c.state = cDead
	c.gen++
	if classic {
		c.cl = nil
	} else {
		ps.net.dropConnections(c, resetAfterMs)
	}
	ps.restartAfter(c, restartAfterMs)
}

// close is the consumer's close(): a share consumer sends the queued acknowledgements with
// the final session epoch (the leaders then release everything else the member holds), a
// classic one commits; then the member leaves the group.
func (ps *processes) close(c *consumer, restartAfterMs int64) {
	if !c.alive() {
		return
	}
	ps.line("close").str("client", string(c.member)).end()
	if ps.isClassic(c) {
		ps.classic.commitOnClose(c)
	} else {
		ps.metrics.consumerGone(c, causeClose)
		ps.share.sendAcks(c, true, false)
		ps.history.recordMemberGone(c)
	}
	ps.gcoord.leaveGroup(c)
	c.state = cDead
	c.gen++
	ps.restartAfter(c, restartAfterMs)
}

// restartAfter queues the start of c's next incarnation after ms (< 0: none).
func (ps *processes) restartAfter(c *consumer, ms int64) {
	if ms >= 0 {
		ps.push(ps.now+ms, event{kind: evConsumerStart, a: c.idx})
	}
}

// hang freezes the process (hang fault): its connections stay open, nothing it holds is
// released; fault fi's end (after restartAfterMs, < 0: never) restarts it.
func (ps *processes) hang(c *consumer, fi int32, restartAfterMs int64) {
	if !ps.isClassic(c) {
		ps.metrics.consumerGone(c, causeCrash)
	}
	c.state = cHung
	if restartAfterMs >= 0 {
		ps.push(ps.now+restartAfterMs, event{kind: evFaultEnd, a: fi, b: c.idx, x: int64(c.gen)})
	}
}

// pause stops the process for durationMs (a GC pause): its events wait until then.
func (ps *processes) pause(c *consumer, durationMs int64) {
	c.pausedUntil = max(c.pausedUntil, ps.now+durationMs)
}

// restartHung kills a hung process (its connections drop) and starts a new one.
func (ps *processes) restartHung(c *consumer) {
	c.state = cProcessing // let kill run its course
	ps.kill(c, 0)
}

// outageOn reports whether a downstream outage is on: processing fails.
func (ps *processes) outageOn() bool { return ps.outage > 0 }

// downstreamOutage starts (+1) or ends (-1) a downstream outage: processing fails.
func (ps *processes) downstreamOutage(dir int) { ps.outage += dir }

// heal is the healing phase starting: pauses end, hung processes restart, dead ones start.
func (ps *processes) heal() {
	ps.outage = 0
	for _, c := range ps.consumers {
		c.pausedUntil = 0
		switch c.state {
		case cHung:
			ps.restartHung(c)
		case cDead:
			ps.push(ps.now, event{kind: evConsumerStart, a: c.idx})
		}
	}
}

// build creates the consumer slots, group by group and spec by spec (a spec of Count n
// names its instances name-0 … name-(n-1)), and schedules their first starts.
func (ps *processes) build() {
	for gi := range ps.cfg.Groups {
		for si := range ps.cfg.Groups[gi].Consumers {
			spec := &ps.cfg.Groups[gi].Consumers[si]
			for k := 0; k < spec.Count; k++ {
				name := spec.Name
				if spec.Count > 1 {
					name = fmt.Sprintf("%s-%d", spec.Name, k)
				}
				c := &consumer{idx: int32(len(ps.consumers)), group: int32(gi), spec: spec, name: name}
				ps.consumers = append(ps.consumers, c)
				ps.net.addConsumer(c)
				ps.metrics.consumerAdded(c)
				ps.push(spec.StartMs, event{kind: evConsumerStart, a: c.idx})
			}
		}
	}
}
