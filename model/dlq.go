package model

// Kafka 4.4's dead-letter queue (KIP-1191), the share-partition's side.
//
// With the queue on (Config.DLQEnabled: share.version 2 and the group config
// errors.deadletterqueue.topic.name), a REJECT and a return to AVAILABLE at the delivery
// limit (release, lock expiry, session end) move a record to ARCHIVING instead of ARCHIVED
// (transition.go). That is phase 1, persisted by the ordinary write of the operation: an
// acknowledgement or release write that fails rolls it back like any other provisional
// change; an expiry write's result is ignored. Once that write completed (successfully, for
// the provisional kinds), phase 2 starts: the share-partition asks for a DLQ produce
// (DLQRequest) and, when the caller reports it ended — produced or not —, the records
// become ARCHIVED, count as delivery-complete, and one more write (WriteDLQ, result ignored)
// persists ARCHIVED; the head rule runs when that write completes. A share-partition loaded
// with ARCHIVING batches asks for their produce again, whether or not the queue is still on,
// so a record can reach the topic twice.

// The DLQ manager's retry policy (ShareGroupDLQStateManager): at most DLQMaxAttempts
// produce attempts for a retriable error, waiting DLQBackoffMs between them.
const (
	DLQMaxAttempts        = 5
	DLQBackoffInitialMs   = 1000
	DLQBackoffMaxMs       = 30000
	DLQBackoffJitterRatio = 0.2 // ± this fraction, drawn by the caller
)

// DLQBackoffMs is the wait before the next produce attempt after attempts (≥ 1) attempts
// failed with a retriable error: min(1000 ms · 2^attempts, 30 s), before the ±20 % jitter
// Kafka's ExponentialBackoff adds (the caller draws it). Kafka waits 2, 4, 8 and 16 s
// between its five attempts.
func DLQBackoffMs(attempts int) int64 {
	d := int64(DLQBackoffInitialMs)
	for i := 0; i < attempts && d < DLQBackoffMaxMs; i++ {
		d *= 2
	}
	return min(d, DLQBackoffMaxMs)
}

// flagDLQ marks a record whose DLQ step has started: while it is ARCHIVING a DLQ request
// covering it is outstanding; once ARCHIVED it went through the queue.
const flagDLQ uint8 = 1 << 7

func (r *rec) dlqStarted() bool { return r.flags&flagDLQ != 0 }

// startDLQ begins phase 2 for the ARCHIVING records of [first, last] that are settled
// (not pending) and not yet in a DLQ step: one request per run of adjacent records with
// equal delivery count and cause. cause overrides the records' own (Kafka's expiry path
// always reports DELIVERY_COUNT_EXCEEDED); CauseNone keeps theirs.
func (sp *SharePartition) startDLQ(first, last int64, cause Cause, resumed bool) {
	open := -1 // index in sp.dlqs of the request being extended
	for i := sp.firstEndingAtOrAfter(first); i < len(sp.batches) && sp.batches[i].first <= last; i++ {
		b := &sp.batches[i]
		from, to := max(first, b.first), min(last, b.last)
		if b.recs == nil {
			from, to = b.first, b.last
		}
		for off := from; off <= to; off++ {
			r := b.at(off)
			end := off
			if b.recs == nil {
				end = to
			}
			if r.state != Archiving || r.pending() || r.dlqStarted() {
				open = -1
				if b.recs == nil {
					break
				}
				continue
			}
			c := cause
			if c == CauseNone {
				c = r.cause()
			}
			if c != CauseLimit && c != CauseRejected {
				c = sp.inferDLQCause(r.dc)
			}
			r.flags |= flagDLQ
			if open >= 0 {
				q := &sp.dlqs[open]
				if q.Last+1 == off && q.DeliveryCount == r.dc && q.Cause == c {
					q.Last = end
					if b.recs == nil {
						break
					}
					continue
				}
			}
			sp.nextDLQ++
			sp.dlqs = append(sp.dlqs, DLQRequest{ID: sp.nextDLQ, First: off, Last: end, DeliveryCount: r.dc, Cause: c, Resumed: resumed})
			sp.stats.DLQRequests++
			open = len(sp.dlqs) - 1
			if b.recs == nil {
				break
			}
		}
	}
}

// inferDLQCause is the cause Kafka gives a reloaded ARCHIVING batch, whose cause is not
// persisted: the delivery limit if the count reached it, else a client REJECT (so a REJECT
// on the last attempt is reported as the limit).
func (sp *SharePartition) inferDLQCause(dc int16) Cause {
	if int(dc) >= sp.cfg.DeliveryCountLimit {
		return CauseLimit
	}
	return CauseRejected
}

// startDLQForWrite begins phase 2 for the ARCHIVING records a completed write carried.
func (sp *SharePartition) startDLQForWrite(w *Write, cause Cause) {
	for _, pb := range w.Batches {
		if pb.State == Archiving {
			sp.startDLQ(pb.First, pb.Last, cause, false)
		}
	}
}

// TakeDLQRequests appends to out the DLQ produces asked for since the last call, in the
// order they were asked for. The caller performs each and reports it with CompleteDLQ.
func (sp *SharePartition) TakeDLQRequests(out []DLQRequest) []DLQRequest {
	for i := range sp.dlqs {
		if !sp.dlqs[i].handed {
			sp.dlqs[i].handed = true
			out = append(out, sp.dlqs[i])
		}
	}
	return out
}

// OutstandingDLQ appends every DLQ produce asked for and not yet completed, ascending by
// first offset (their ranges are disjoint).
func (sp *SharePartition) OutstandingDLQ(out []DLQRequest) []DLQRequest {
	n := len(out)
	out = append(out, sp.dlqs...)
	sortDLQ(out[n:])
	return out
}

func sortDLQ(qs []DLQRequest) {
	for i := 1; i < len(qs); i++ {
		for j := i; j > 0 && qs[j].First < qs[j-1].First; j-- {
			qs[j], qs[j-1] = qs[j-1], qs[j]
		}
	}
}

// CompleteDLQ reports the end of a DLQ produce: produceErr nil means the records reached
// the dead-letter topic; otherwise every attempt failed. Either way (Kafka: "proceeding to
// ARCHIVED regardless") the records become ARCHIVED and count as delivery-complete, and
// the returned write persists that (kind WriteDLQ; its result is ignored, the head rule
// runs when it completes). The error is non-nil only if id is not outstanding.
func (sp *SharePartition) CompleteDLQ(nowMs int64, id DLQID, produceErr error) (*Write, error) {
	k := -1
	for i := range sp.dlqs {
		if sp.dlqs[i].ID == id {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, errf(ErrInvalidArgument, -1, "DLQ request %d is not outstanding", id)
	}
	q := sp.dlqs[k]
	sp.dlqs = append(sp.dlqs[:k], sp.dlqs[k+1:]...)
	n := q.Last - q.First + 1
	switch {
	case produceErr != nil:
		sp.stats.DLQProduceFailed += n
	case q.Cause == CauseRejected:
		sp.stats.DLQRecordsRejected += n
	default:
		sp.stats.DLQRecordsLimit += n
	}
	w := sp.beginWrite(WriteDLQ)
	for i := sp.firstEndingAtOrAfter(q.First); i < len(sp.batches) && sp.batches[i].first <= q.Last; i++ {
		b := &sp.batches[i]
		if b.recs == nil {
			if b.whole.state == Archiving && b.whole.dlqStarted() {
				sp.archiveDLQ(&b.whole, b.first, b.size())
			}
			continue
		}
		for off := max(q.First, b.first); off <= min(q.Last, b.last); off++ {
			if r := &b.recs[off-b.first]; r.state == Archiving && r.dlqStarted() {
				sp.archiveDLQ(r, off, 1)
			}
		}
	}
	w.add(q.First, q.Last, Archived, q.DeliveryCount)
	return sp.issueWrite(w), nil
}

// archiveDLQ ends a record's DLQ step: ARCHIVED, no owner, no lock (Kafka's
// InFlightState.archive). The flag stays: the record went through the queue.
func (sp *SharePartition) archiveDLQ(r *rec, off, n int64) {
	sp.setState(r, Archived, off, n)
	r.lock, r.owner = 0, noOwner
}
