// Package linearize checks that a run's client-visible history (sim.Result.History: every
// fetch result and acknowledgement outcome, with call and return virtual times, lost
// responses included) is linearizable against a small sequential specification of a
// share-partition, using porcupine. It is written from the client's point of view and does
// not use package model.
//
// # Operations
//
// The history is split per share-partition and then per offset: a fetch result that
// acquired offset o with delivery count d becomes the operation "C acquired o with d" in
// o's history, an acknowledgement outcome becomes "C acknowledged o with type T → code". A
// lost response (ReturnMs −1) is open-ended: it may take effect at any time after its call,
// or never. A lost fetch names no offsets, so it is not an operation but makes its client an
// unseen acquirer of the share-partition from its call on (see below). Offsets with the
// same operations (same delivery counts and types) and the same offset-dependent events
// form one class, checked once; porcupine checks the classes of a share-partition in
// chunks, under a time limit per share-partition (Options.TimeLimit, DefaultTimeLimit,
// `sharesim run --lin-time-limit`); a share-partition that runs out of time is Unknown, not
// a failure.
//
// Check takes a whole history. Stream takes it as it is recorded (sim.Options.OnHistory)
// and checks each offset's sub-history once the caller says the offset is finished, then
// forgets it, so that memory follows the offsets in flight (checker.Checker.Attach does
// this for a run).
//
// # Specification of one offset
//
// State: unknown (never fetched, or a hole after a reload: the next delivery has count 1),
// available (last delivery count in a range), acquired (owner, count, lock deadline in a
// range), acknowledged, archived, archived in the leader's memory only (lock expiry or
// session release at the delivery limit), gone (below the applied log start).
//
//   - Fetch "C acquired o with d": legal iff o is unknown and d = 1, or available with
//     last count p and d = p+1. It becomes acquired by C; the lock runs until the
//     linearization point plus the lock duration.
//   - Acknowledgement with NONE: if C holds o (acquired by C, lock not yet run out at the
//     linearization point) the type applies: ACCEPT → acknowledged, RELEASE → available
//     (archived at the limit), REJECT and GAP → archived, RENEW → lock restarted. A success
//     is also legal without effect when o is unknown (a hole: Kafka skips it), terminal or
//     gone (below the start offset, where Kafka ignores acknowledgements). It is illegal
//     when o is available or held by another client.
//   - INVALID_RECORD_STATE / INVALID_REQUEST: nothing changes. It proves that C did not
//     hold o only when the acknowledgement named o alone and no other acknowledgement of o
//     by C was in flight (the later one may find the record pending behind the earlier
//     one's write); otherwise it proves nothing about this offset.
//   - Any other error (not leader, failed write, ...): nothing changes, except that a RENEW
//     applied before a failing range is not undone, and Kafka 4.1 leaves a record whose
//     write failed after its lock fired acquired with no lock at all.
//   - LOST: either nothing happened, or it succeeded (as with NONE) at any time after its
//     call.
//
// Transitions nobody sees, taken by the specification whenever they are possible:
//
//   - lock expiry: from the earliest possible deadline on (acquisition call plus lock
//     duration; RENEW moves it); acquired → available, or archived (in memory) at the limit;
//   - a dead member's records (sim.HiddenMemberGone, from the earliest send time of its
//     requests the history does not show): released (Kafka 4.1: with the count given back),
//     or, if it had received them, accepted or archived by its unseen acknowledgements;
//   - an unseen acquisition by a client with a lost fetch or a dead member, from that time
//     on: the count goes up by one and its lock has to run out (or be released) before
//     anyone else gets the record. Unseen acquirers that never name the offset in the
//     history are merged into one "unseen" owner, which cannot acknowledge the record (it
//     never received it);
//   - compaction of the offset's batch (sim.HiddenCompaction): available → archived.
//
// Events that happen at a known time whether or not anybody looks, and that no transition
// may pass without applying them:
//
//   - reload (sim.HiddenReload: failover or eviction): acquisitions are forgotten; the
//     record becomes what the last successful state write persisted: at least what a visible
//     successful RELEASE wrote, at most its current count (lock-expiry writes are not
//     waited for and may have failed); never-written records become unknown again;
//     acknowledged and archived records written by a visible success stay so;
//   - all locks expired (sim.HiddenLockExpiry);
//   - the log start moved past the offset (sim.HiddenLogStart): gone.
//
// Time: each state carries a lower bound of the current linearization time (the latest
// call of an operation linearized so far, or the time of a hidden transition taken); an
// operation's linearization point lies between that bound and its return. This is exact
// for porcupine's orders, and lets the specification use the lock duration: a second client
// cannot acquire a record before the first one's lock can have run out unless something
// visible or hidden released it.
//
// The state is a set of such states (the specification is nondeterministic); states of the
// same kind, owner and number of applied events are merged into their hull, which can only
// accept more histories.
//
// # What it catches, and what not
//
// It catches, per offset: a record held by two clients at once when the first one's lock
// cannot have run out and nothing released it; a record delivered again after a successful
// ACCEPT, REJECT or release at the limit (across reloads too); an acknowledgement that
// succeeds for a client that does not hold the record (unless the record could be a hole,
// terminal or gone); a holder's single-offset acknowledgement failing with
// INVALID_RECORD_STATE inside its lock; delivery counts that do not step by one, go down
// without a reload (or a Kafka 4.1 session release), exceed the limit, or a first delivery
// with a count above one without unseen acquisitions; deliveries below the applied log
// start.
//
// It cannot see: anything across offsets (each offset is checked alone, so the atomicity of
// a multi-offset fetch or acknowledgement, ordering between offsets, or which offset made a
// multi-offset acknowledgement fail are not checked); whether a fetch should have returned
// records it did not (absence is never a violation); delivery-count jumps once a client of
// the share-partition lost a fetch response or died (unseen acquisitions, merged into one
// "unseen" owner, make the count only non-decreasing); anything about records no client
// operation names. Hidden events come from the simulator (sim.Result.HiddenEvents); a
// history without them is checked as if none happened.
package linearize
