// Package model is sharesim's share-partition core: the state a Kafka partition leader
// keeps for one share group on one topic-partition (KIP-932), as a pure Go value.
//
// The simulator, the explorer and the property tests all drive this same core. It does no
// I/O, starts no goroutine, reads no clock and draws no random numbers: every method that
// depends on time takes the virtual time nowMs (milliseconds) from its caller, and all
// results are returned, never delivered behind the caller's back. Kafka 4.2 behaviour is
// the default; Config.Version selects Kafka 4.1 or 4.3.
//
// # Driving a share-partition
//
//  1. Create it with New (fresh, at a start offset) or Load (from the share coordinator's
//     Snapshot on a new leader). Load is the one-step form of Kafka's lifecycle:
//     NewUninitialized (EMPTY), MaybeInitialize (INITIALIZING: send ReadShareGroupState),
//     CompleteInitialize with the answer (ACTIVE, or FAILED with the mapped error). A FAILED
//     or FENCED value is replaced by Reset (EMPTY again), as Kafka's manager replaces it on the
//     next fetch. See lifecycle.go for each state's answers.
//  2. For a share fetch, either in one step — gate with CanAcquire, read the partition log
//     from NextFetchOffset, call Acquire with the producer batches the read returned — or,
//     to let other operations land between the read and the acquire as they do in Kafka, in
//     two: BeginFetch returns the gate and the fetch offset (FetchRead); read the log from
//     FetchRead.FetchOffset; later call AcquireFetched with that fetch offset and the batches.
//     Anything may run in between (acknowledgements, lock expiries, member releases,
//     log-start moves, completed writes), except another fetch of the same share-partition
//     (Kafka holds a fetch lock per share-partition from before the read until the
//     acquire). The returned ranges are what the consumer receives.
//  3. For acknowledgements: Acknowledge. If it returns a *Write, the changes are provisional;
//     send the write to the share coordinator (StateStore.Write) and report the outcome with
//     CompleteWrite. The consumer's answer is the outcome, mapped by AckErrorForWriteFailure
//     (PersisterError); when IsFencingWriteError says so, discard the share-partition (Fence)
//     and rebuild it on the next fetch.
//  4. Locks are deadlines: NextDeadline says when the next lock fires; call ExpireLocks at
//     that time. It returns the writes the expiries issue; complete each with CompleteWrite.
//     After ExpireLocks(t) the next deadline is always later than t; a driver must treat
//     anything else as an internal error (it would never advance).
//  5. When a member's share session ends (close or disconnect): ReleaseMember, and complete
//     its write.
//  6. When a read at the next fetch offset finds the log start offset moved past it:
//     MoveLogStartOffset.
//  7. On leader failover: Fence the old value, StateStore.Read with the new leader epoch, and
//     Load a new one (or go through the lifecycle as in 1).
//
// For the explorer, the window is: BeginFetch (record FetchRead and the batches a read at
// FetchRead.FetchOffset returns: the member's pending read), any other step kinds, then
// AcquireFetched(nowMs, member, params, FetchRead.FetchOffset, batches, out). CopyFrom and
// StateCodec do not hold the pending read: it is the driver's, like the log.
//
// # Where the rules live
//
// Record-state transitions and the delivery-count limit: transition.go (one function).
// Acquisition, the read/acquire window, budgets, the in-flight cap, throttling: acquire.go.
// The lifecycle (EMPTY, INITIALIZING, ACTIVE, FAILED, FENCED): lifecycle.go. Error codes and
// the persister error mapping: errors.go. Acknowledgement
// validation, RENEW and member release: ack.go. Locks: locks.go. SPSO/SPEO, the head rule,
// the next fetch offset and forced archiving: offsets.go. State writes, commit and rollback:
// writes.go. The share coordinator's merge and fencing and reload after failover:
// persist.go. docs/semantics.md lists every rule with its source and the places where
// sharesim knowingly differs from Kafka.
//
// Config.Bug selects a variant of the bug zoo (bugs.go) that puts back a known Kafka bug, to
// prove the checkers catch it (docs/checking.md). explore.go is what the exhaustive explorer
// needs: a canonical state encoding (StateCodec), CopyFrom, and firing one chosen lock.
package model
