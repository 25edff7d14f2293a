package lambda

import (
	"context"
	"errors"
	"time"
)

// Store holds the state of connections that must be shared between
// invocations: in Lambda a cancel or a confirm may land on another instance
// than the message it refers to. Every method is one atomic step (the
// in-memory store takes a mutex; a DynamoDB store gives the same guarantee
// with one conditional write per method, or one per suggestion in
// WithdrawSuggestions). Implementations must be safe for concurrent use.
//
// Times are passed in (the handler's clock), so that implementations need no
// clock of their own and tests are deterministic. Records that are no longer
// needed may be forgotten, but suggestions are kept at least 5 minutes after
// they expire (DynamoDB: TTL attribute ≥ ExpiresAt+5min).
//
// # Answers
//
// A connection has at most one answer record: the message being answered,
// with its cancel flag. The record is the only arbiter between the
// invocation that streams an answer and those that cancel or supersede it:
// exactly one of them wins (EndAnswer returns true, or CancelAnswer /
// StartAnswer returns the id), and only the winner sends that message's
// stream_end.
//
// # Suggestions
//
// A suggestion moves pending → executing → executed, or pending → cancelled.
// ClaimSuggestion is the only way out of pending into executing, so an
// action executes at most once however many confirms race.
type Store interface {
	// PutConnection records a new connection (CONNECT).
	PutConnection(ctx context.Context, c Connection) error

	// DeleteConnection removes everything of the connection: the connection,
	// its answer record (a streaming answer sees itself cancelled) and its
	// suggestions (later confirms see them as unknown). Deleting an unknown
	// connection is not an error.
	DeleteConnection(ctx context.Context, connID string) error

	// StartAnswer makes msgID the connection's active answer, not cancelled.
	// If another answer was active and not cancelled, it is superseded
	// (from now on AnswerCancelled reports it cancelled and EndAnswer
	// returns false for it) and its id is returned; the caller then owes
	// the client its stream_end cancelled. Otherwise superseded is "".
	StartAnswer(ctx context.Context, connID, msgID string, now time.Time) (superseded string, err error)

	// CancelAnswer sets the cancel flag of the active answer when it is not
	// cancelled yet and msgID is "" or its id. It returns the id it
	// cancelled (the caller owes the client its stream_end cancelled), or ""
	// when nothing matched: no active answer, another id, already cancelled.
	CancelAnswer(ctx context.Context, connID, msgID string) (cancelled string, err error)

	// AnswerCancelled reports whether the answer msgID must stop: true when it
	// is cancelled, superseded, ended or unknown; false only while it is the
	// connection's active, uncancelled answer.
	AnswerCancelled(ctx context.Context, connID, msgID string) (bool, error)

	// EndAnswer removes the answer record of msgID if it is the connection's
	// record (cancelled or not). It returns true when the answer was still
	// active and uncancelled: the caller won and may send stream_end done or
	// blocked and what follows. False: it had been cancelled or superseded;
	// the caller sends nothing more for msgID.
	EndAnswer(ctx context.Context, connID, msgID string) (ended bool, err error)

	// PutSuggestion records a new pending suggestion (Status is ignored and
	// set to pending). IDs are unique; putting an existing ID is an error.
	PutSuggestion(ctx context.Context, s Suggestion) error

	// ClaimSuggestion is the atomic transition a confirm makes. For the
	// suggestion id seen from connection connID at time now, it returns:
	//
	//   - ClaimUnknown: no such suggestion, or it belongs to another connection;
	//   - ClaimCancelled: it was withdrawn (whatever the time);
	//   - ClaimAlreadyExecuted: it is executing or executed and now ≤ ExpiresAt;
	//   - ClaimExpired: now > ExpiresAt (pending: never confirmed in time;
	//     executing/executed: the repeat window after execution is over);
	//   - ClaimExecute: it was pending and now ≤ ExpiresAt; it is now
	//     executing, ExpiresAt = now + Window. The caller must execute it.
	//
	// With ClaimUnknown the returned Suggestion is zero; otherwise it is the
	// record after the transition.
	ClaimSuggestion(ctx context.Context, connID, id string, now time.Time) (Suggestion, ClaimOutcome, error)

	// FinishSuggestion marks an executing suggestion executed with
	// ExpiresAt = now + Window (repeats within the window are "Already
	// executed"). Finishing a suggestion that is gone is not an error.
	FinishSuggestion(ctx context.Context, connID, id string, now time.Time) error

	// WithdrawSuggestions cancels every pending suggestion of the connection
	// (executing and executed ones are left alone).
	WithdrawSuggestions(ctx context.Context, connID string, now time.Time) error
}

// Connection is one WebSocket connection.
type Connection struct {
	ID          string
	ConnectedAt time.Time
}

// SuggestionStatus is where a suggestion stands.
type SuggestionStatus string

// Suggestion statuses.
const (
	SuggestionPending   SuggestionStatus = "pending"
	SuggestionExecuting SuggestionStatus = "executing"
	SuggestionExecuted  SuggestionStatus = "executed"
	SuggestionCancelled SuggestionStatus = "cancelled"
)

// Suggestion is an action offered to a connection.
type Suggestion struct {
	ID           string // 128 random bits, hex
	ConnectionID string
	MessageID    string
	Action       string
	Payload      map[string]string
	Status       SuggestionStatus
	CreatedAt    time.Time
	// Window is how long a confirm is accepted after the suggestion, and how
	// long repeats are "Already executed" after its execution (30 s).
	Window time.Duration
	// ExpiresAt: CreatedAt+Window while pending; claim or finish time +
	// Window once executing or executed.
	ExpiresAt time.Time
}

// ClaimOutcome is the result of [Store.ClaimSuggestion].
type ClaimOutcome int

// Claim outcomes.
const (
	ClaimUnknown ClaimOutcome = iota
	ClaimExecute
	ClaimAlreadyExecuted
	ClaimExpired
	ClaimCancelled
)

func (o ClaimOutcome) String() string {
	switch o {
	case ClaimExecute:
		return "execute"
	case ClaimAlreadyExecuted:
		return "already_executed"
	case ClaimExpired:
		return "expired"
	case ClaimCancelled:
		return "cancelled"
	default:
		return "unknown"
	}
}

// ErrDuplicateSuggestion is returned by PutSuggestion for an ID in use.
var ErrDuplicateSuggestion = errors.New("lambda: duplicate suggestion id")
