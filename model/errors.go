package model

import (
	"errors"
	"fmt"
)

// ErrorCode is a Kafka error code as the share-partition leader reports it.
type ErrorCode uint8

// Error codes reported by the core.
const (
	ErrNone                    ErrorCode = iota
	ErrInvalidRecordState                // INVALID_RECORD_STATE
	ErrInvalidRequest                    // INVALID_REQUEST
	ErrCoordinatorNotAvailable           // COORDINATOR_NOT_AVAILABLE
	ErrNotLeaderOrFollower               // NOT_LEADER_OR_FOLLOWER
	ErrFencedLeaderEpoch                 // FENCED_LEADER_EPOCH (share coordinator)
	ErrFencedStateEpoch                  // FENCED_STATE_EPOCH (share coordinator)
	ErrUnknownServerError                // UNKNOWN_SERVER_ERROR
	ErrOffsetNotAvailable                // start offset could not be resolved
	ErrInvalidArgument                   // caller broke the core's API contract
)

var codeNames = [...]string{
	ErrNone:                    "NONE",
	ErrInvalidRecordState:      "INVALID_RECORD_STATE",
	ErrInvalidRequest:          "INVALID_REQUEST",
	ErrCoordinatorNotAvailable: "COORDINATOR_NOT_AVAILABLE",
	ErrNotLeaderOrFollower:     "NOT_LEADER_OR_FOLLOWER",
	ErrFencedLeaderEpoch:       "FENCED_LEADER_EPOCH",
	ErrFencedStateEpoch:        "FENCED_STATE_EPOCH",
	ErrUnknownServerError:      "UNKNOWN_SERVER_ERROR",
	ErrOffsetNotAvailable:      "OFFSET_NOT_AVAILABLE",
	ErrInvalidArgument:         "INVALID_ARGUMENT",
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

// AckErrorForWriteFailure maps a failed state write's error to the code the leader returns
// to the acknowledging client (Kafka 4.x mapping). Fencing errors become
// NOT_LEADER_OR_FOLLOWER; coordinator unavailability stays COORDINATOR_NOT_AVAILABLE.
func AckErrorForWriteFailure(writeErr error) ErrorCode {
	switch CodeOf(writeErr) {
	case ErrNone:
		return ErrNone
	case ErrCoordinatorNotAvailable:
		return ErrCoordinatorNotAvailable
	case ErrFencedLeaderEpoch, ErrFencedStateEpoch, ErrNotLeaderOrFollower:
		return ErrNotLeaderOrFollower
	}
	return ErrUnknownServerError
}

// IsFencingWriteError reports whether a state-write error means this leader's
// share-partition must be discarded and rebuilt (Kafka evicts it).
func IsFencingWriteError(writeErr error) bool {
	switch CodeOf(writeErr) {
	case ErrFencedLeaderEpoch, ErrFencedStateEpoch:
		return true
	}
	return false
}
