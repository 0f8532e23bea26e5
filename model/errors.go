package model

import (
	"errors"
	"fmt"
)

// ErrorCode is a Kafka error code as the share-partition leader reports it.
type ErrorCode uint8

// Error codes reported by the core.
const (
	ErrNone                      ErrorCode = iota
	ErrInvalidRecordState                  // INVALID_RECORD_STATE
	ErrInvalidRequest                      // INVALID_REQUEST
	ErrCoordinatorNotAvailable             // COORDINATOR_NOT_AVAILABLE
	ErrNotLeaderOrFollower                 // NOT_LEADER_OR_FOLLOWER
	ErrFencedLeaderEpoch                   // FENCED_LEADER_EPOCH (share coordinator)
	ErrFencedStateEpoch                    // FENCED_STATE_EPOCH (share coordinator)
	ErrUnknownServerError                  // UNKNOWN_SERVER_ERROR
	ErrOffsetNotAvailable                  // start offset could not be resolved
	ErrInvalidArgument                     // caller broke the core's API contract
	ErrLeaderNotAvailable                  // LEADER_NOT_AVAILABLE (share-partition initialising or fenced)
	ErrNotCoordinator                      // NOT_COORDINATOR (share coordinator moved)
	ErrCoordinatorLoadInProgress           // COORDINATOR_LOAD_IN_PROGRESS (share coordinator loading)
	ErrGroupIDNotFound                     // GROUP_ID_NOT_FOUND (share coordinator has no such group)
	ErrUnknownTopicOrPartition             // UNKNOWN_TOPIC_OR_PARTITION (no state for the key)
	ErrSaslAuthenticationFailed            // SASL_AUTHENTICATION_FAILED (persister's client could not authenticate)
	ErrUnsupportedVersion                  // UNSUPPORTED_VERSION (share coordinator too old)
	ErrInvalidConfig                       // INVALID_CONFIG (IncrementalAlterConfigs refused a group config)
)

var codeNames = [...]string{
	ErrNone:                      "NONE",
	ErrInvalidRecordState:        "INVALID_RECORD_STATE",
	ErrInvalidRequest:            "INVALID_REQUEST",
	ErrCoordinatorNotAvailable:   "COORDINATOR_NOT_AVAILABLE",
	ErrNotLeaderOrFollower:       "NOT_LEADER_OR_FOLLOWER",
	ErrFencedLeaderEpoch:         "FENCED_LEADER_EPOCH",
	ErrFencedStateEpoch:          "FENCED_STATE_EPOCH",
	ErrUnknownServerError:        "UNKNOWN_SERVER_ERROR",
	ErrOffsetNotAvailable:        "OFFSET_NOT_AVAILABLE",
	ErrInvalidArgument:           "INVALID_ARGUMENT",
	ErrLeaderNotAvailable:        "LEADER_NOT_AVAILABLE",
	ErrNotCoordinator:            "NOT_COORDINATOR",
	ErrCoordinatorLoadInProgress: "COORDINATOR_LOAD_IN_PROGRESS",
	ErrGroupIDNotFound:           "GROUP_ID_NOT_FOUND",
	ErrUnknownTopicOrPartition:   "UNKNOWN_TOPIC_OR_PARTITION",
	ErrSaslAuthenticationFailed:  "SASL_AUTHENTICATION_FAILED",
	ErrUnsupportedVersion:        "UNSUPPORTED_VERSION",
	ErrInvalidConfig:             "INVALID_CONFIG",
}

// ParseErrorCode accepts Kafka's upper-case name of a code the core knows.
func ParseErrorCode(name string) (ErrorCode, bool) {
	for c, n := range codeNames {
		if n == name {
			return ErrorCode(c), true
		}
	}
	return ErrNone, false
}

// PersisterErrors are the codes a state read or write may fail with, as the share
// coordinator (or the persister's own client) reports them: the vocabulary that
// PersisterError maps. Anything else a persister reports maps to UNKNOWN_SERVER_ERROR.
var PersisterErrors = []ErrorCode{
	ErrNotCoordinator, ErrCoordinatorNotAvailable, ErrCoordinatorLoadInProgress,
	ErrGroupIDNotFound, ErrUnknownTopicOrPartition, ErrFencedLeaderEpoch, ErrFencedStateEpoch,
	ErrSaslAuthenticationFailed, ErrUnsupportedVersion, ErrInvalidRequest, ErrUnknownServerError,
}

// String returns Kafka's name of the code.
func (c ErrorCode) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("ErrorCode(%d)", uint8(c))
}

// Error is an error from the core with a Kafka error code and the offset it concerns
// (-1 when none).
type Error struct {
	Code   ErrorCode
	Offset int64
	Msg    string
}

func (e *Error) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s at offset %d: %s", e.Code, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Msg)
}

// Is makes errors.Is match on the code: errors.Is(err, &Error{Code: ErrInvalidRecordState}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// CodeOf returns the ErrorCode carried by err, ErrNone for nil and ErrUnknownServerError
// for any other error.
func CodeOf(err error) ErrorCode {
	if err == nil {
		return ErrNone
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrUnknownServerError
}

func errf(code ErrorCode, offset int64, format string, args ...any) *Error {
	return &Error{Code: code, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// PersisterError maps the error of a failed state read or write to the error the
// share-partition leader surfaces (Kafka's SharePartition.fetchPersisterError, the same for
// ReadShareGroupState during initialisation and WriteShareGroupState):
//
//	NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS → COORDINATOR_NOT_AVAILABLE
//	GROUP_ID_NOT_FOUND → GROUP_ID_NOT_FOUND
//	UNKNOWN_TOPIC_OR_PARTITION → UNKNOWN_TOPIC_OR_PARTITION
//	FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH → NOT_LEADER_OR_FOLLOWER
//	SASL_AUTHENTICATION_FAILED, UNSUPPORTED_VERSION and anything else → UNKNOWN_SERVER_ERROR
//
// A nil error maps to ErrNone.
func PersisterError(err error) ErrorCode {
	switch c := CodeOf(err); c {
	case ErrNone:
		return ErrNone
	case ErrNotCoordinator, ErrCoordinatorNotAvailable, ErrCoordinatorLoadInProgress:
		return ErrCoordinatorNotAvailable
	case ErrGroupIDNotFound, ErrUnknownTopicOrPartition:
		return c
	case ErrFencedLeaderEpoch, ErrFencedStateEpoch:
		return ErrNotLeaderOrFollower
	}
	return ErrUnknownServerError
}

// AckErrorForWriteFailure is the code the leader returns to the acknowledging client when
// the acknowledgement's (or session release's) state write failed: PersisterError.
func AckErrorForWriteFailure(writeErr error) ErrorCode { return PersisterError(writeErr) }

// IsFencingWriteError reports whether a failed acknowledgement or release write makes the
// leader discard its share-partition and build a new one on the next fetch (Kafka's
// SharePartitionManager removes it from its cache and marks it FENCED when the mapped error
// is NOT_LEADER_OR_FOLLOWER, GROUP_ID_NOT_FOUND or UNKNOWN_TOPIC_OR_PARTITION, or an
// unmapped FENCED_STATE_EPOCH). The error is the persister's, before mapping.
func IsFencingWriteError(writeErr error) bool {
	switch PersisterError(writeErr) {
	case ErrNotLeaderOrFollower, ErrGroupIDNotFound, ErrUnknownTopicOrPartition:
		return true
	}
	return false
}
