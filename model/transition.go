package model

// This file is the one place where the legal (state, trigger) pairs of a record live.
// Every change of a record's state in the core goes through transition (ordinary
// triggers) or forceArchive (triggers that bypass the validity rule).

// trigger is what happens to an offset.
type trigger uint8

const (
	trigAcquire    trigger = iota // T-ACQ: a fetch takes the record
	trigAccept                    // T-ACCEPT
	trigRelease                   // T-RELEASE
	trigReject                    // T-REJECT
	trigGap                       // T-GAP
	trigExpire                    // T-EXPIRE: the lock fired
	trigLeave                     // T-LEAVE: the owner's share session ended
	trigRollbackLF                // a failed write's rollback after the lock fired (4.2, KAFKA-19476)
)

// outcome is the result of applying a trigger to one record.
type outcome struct {
	state State
	dc    int16
	cause Cause // why the record ended where it did (terminal states)
	ok    bool  // false: the trigger is not legal from this state; nothing changes
}

// transition applies an ordinary trigger to a record in state from with delivery count dc.
// belowStart says the offset lies below SPSO (after a log-start move). The rules:
//
//   - AVAILABLE → ACQUIRED only by T-ACQ, delivery count + 1 (the only increment).
//   - ACQUIRED → ACKNOWLEDGED by T-ACCEPT; → ARCHIVED by T-REJECT and T-GAP.
//   - ACQUIRED → AVAILABLE by T-RELEASE, T-EXPIRE, T-LEAVE and a lock-fired rollback, with
//     the limit substitution: if dc ≥ limit the target becomes ARCHIVED. An offset below
//     SPSO is ARCHIVED instead of made available (T-EXPIRE, T-LEAVE).
//   - Kafka 4.1's T-LEAVE decrements dc and skips the limit (the records were "never
//     handed to the application"); Kafka 4.2 keeps dc and applies the limit (KAFKA-19972).
//   - ACKNOWLEDGED and ARCHIVED have no exits; no state moves to itself.
//   - Kafka 4.4 with the dead-letter queue on (Config.DLQEnabled, read at every
//     transition): T-REJECT goes to ARCHIVING, and the limit substitution goes to
//     ARCHIVING instead of ARCHIVED; below SPSO it is ARCHIVED as before, and a
//     lock-fired rollback at the limit is ARCHIVED with no DLQ step (Kafka's
//     InFlightState.completeStateTransition). ARCHIVING has no ordinary exits: only the
//     end of its DLQ step (archiveDLQ) moves it, to ARCHIVED.
func (c *Config) transition(from State, dc int16, t trigger, belowStart bool) outcome {
	switch from {
	case Available:
		if t == trigAcquire {
			return outcome{state: Acquired, dc: dc + 1, ok: true}
		}
	case Acquired:
		switch t {
		case trigAccept:
			return outcome{state: Acknowledged, dc: dc, cause: CauseAccepted, ok: true}
		case trigReject:
			if c.dlqEnabled() {
				return outcome{state: Archiving, dc: dc, cause: CauseRejected, ok: true}
			}
			return outcome{state: Archived, dc: dc, cause: CauseRejected, ok: true}
		case trigGap:
			return outcome{state: Archived, dc: dc, cause: CauseGap, ok: true}
		case trigRelease:
			return c.makeAvailable(dc, false, c.dlqEnabled())
		case trigExpire:
			return c.makeAvailable(dc, belowStart, c.dlqEnabled())
		case trigRollbackLF:
			return c.makeAvailable(dc, belowStart, false)
		case trigLeave:
			if c.Version == Kafka41 || c.Bug == BugLeaveDecrementsCount { // bug zoo: 4.1's decrement in 4.2
				if belowStart {
					return outcome{state: Archived, dc: dc, cause: CauseLogStart, ok: true}
				}
				return outcome{state: Available, dc: dc - 1, ok: true}
			}
			return c.makeAvailable(dc, belowStart, c.dlqEnabled())
		}
	}
	return outcome{state: from, dc: dc}
}

// makeAvailable is the limit substitution: a record returning to AVAILABLE whose delivery
// count has reached the limit is ARCHIVED instead, or ARCHIVING when dlq (Kafka 4.4's
// dead-letter queue). The delivery count never changes.
func (c *Config) makeAvailable(dc int16, belowStart, dlq bool) outcome {
	if belowStart {
		return outcome{state: Archived, dc: dc, cause: CauseLogStart, ok: true}
	}
	if int(dc) >= c.DeliveryCountLimit {
		if dlq {
			return outcome{state: Archiving, dc: dc, cause: CauseLimit, ok: true}
		}
		return outcome{state: Archived, dc: dc, cause: CauseLimit, ok: true}
	}
	return outcome{state: Available, dc: dc, ok: true}
}

// ackTrigger maps an acknowledgement type (other than RENEW) to its trigger.
func ackTrigger(t AckType) trigger {
	switch t {
	case AckAccept:
		return trigAccept
	case AckRelease:
		return trigRelease
	case AckReject:
		return trigReject
	}
	return trigGap
}

// Cause says why a record reached its terminal state (or CauseNone while it has not).
type Cause uint8

// Causes of a terminal state.
const (
	CauseNone      Cause = iota
	CauseAccepted        // ACCEPT acknowledgement
	CauseRejected        // REJECT acknowledgement
	CauseGap             // GAP acknowledgement (no deliverable record at the offset)
	CauseLimit           // delivery count reached group.share.delivery.count.limit
	CauseLogStart        // below the log start offset (retention, DeleteRecords)
	CauseCompacted       // no longer in the log at fetch (compaction)
	CauseAborted         // part of an aborted transaction under read_committed
	CauseRestored        // loaded in a terminal state from the share coordinator after a failover
)

var causeNames = [...]string{"none", "accepted", "rejected", "gap", "limit", "log-start", "compacted", "aborted", "restored"}

// String names the cause.
func (c Cause) String() string {
	if int(c) < len(causeNames) {
		return causeNames[c]
	}
	return "unknown"
}
