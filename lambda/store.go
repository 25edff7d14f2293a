package lambda

import (
	"context"
	"errors"
	"time"
)

// Store holds the state of connections that must be shared between
// invocations: in Lambda a cancel or a confirm may land on another instance
// than the message it refers to. Every transition that decides between
// racing invocations is one atomic step on one record (the in-memory store
// takes a mutex; a DynamoDB store makes it one conditional write on one
// item): cancelling an answer, taking its end, claiming a suggestion.
// Methods that touch several records (StartAnswer, ReleaseAnswer,
// WithdrawSuggestions, DeleteConnection) may take several steps, in an
// order that keeps the guarantees below. Implementations must be safe for
// concurrent use.
//
// Times are passed in (the handler's clock), so that implementations need no
// clock of their own and tests are deterministic. Records that are no longer
// needed may be forgotten, but suggestions are kept at least 5 minutes after
// they expire (DynamoDB: TTL attribute ≥ ExpiresAt+5min).
//
// # Answers
//
// Every answer (a connection's message being answered) has a record from
// StartAnswer until ReleaseAnswer or DeleteConnection. A record is active
// until it is cancelled — by CancelAnswer, or superseded by the next
// StartAnswer of its connection — and its end is untaken until someone
// takes it. The connection's current answer is the last one started and not
// released.
//
// The end of an answer is the frame that closes it for the client: its
// stream_end (and what follows it), or the error frame that replaces them.
// Exactly one invocation sends it: the one that takes it, with EndAnswer
// while the answer is active (stream_end done or blocked, or error) or with
// TakeAnswerEnd once it is cancelled (stream_end cancelled). However many
// invocations race for one answer's end, on however many instances, exactly
// one of these calls returns true. The taker sends nothing of that message
// after the end, and releases the record (ReleaseAnswer) once the end is
// sent. Invocations that must send nothing of the connection before that end
// (a cancel, the message that superseded it) wait for the release with
// AnswerReleased. Thus the streaming invocation, which takes the end itself
// as soon as it sees its answer cancelled, is the only sender of the
// message's frames, and nothing of the stream can follow its stream_end.
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
	// its answer records (a streaming answer sees itself cancelled, its end
	// cannot be taken, waiters see it released) and its suggestions (later
	// confirms see them as unknown). Deleting an unknown connection is not
	// an error.
	DeleteConnection(ctx context.Context, connID string) error

	// StartAnswer records msgID as the connection's current answer: active,
	// its end untaken. It returns the previous current answer, "" if none.
	// The previous answer is superseded: cancelled, unless it was cancelled
	// already or its end taken. Its end may not have been sent yet: the
	// caller must send nothing of msgID before AnswerReleased reports the
	// previous one released. Message ids are unique per connection: while
	// msgID has a record (started and not released), StartAnswer fails with
	// ErrAnswerInUse and changes nothing.
	StartAnswer(ctx context.Context, connID, msgID string, now time.Time) (previous string, err error)

	// CancelAnswer cancels msgID, or the connection's current answer when
	// msgID is "", if that answer is active (not cancelled yet, its end not
	// taken). It returns the id it cancelled, or "" when nothing matched:
	// no such answer, another id, already cancelled, its end taken,
	// released. The end of the cancelled answer is still to be taken
	// (TakeAnswerEnd).
	CancelAnswer(ctx context.Context, connID, msgID string) (cancelled string, err error)

	// AnswerCancelled reports whether the answer msgID must stop: true when
	// it is cancelled or superseded, its end is taken, or it has no record
	// (released, deleted, unknown); false only while it is active.
	AnswerCancelled(ctx context.Context, connID, msgID string) (bool, error)

	// EndAnswer takes the end of msgID if it is active (not cancelled, its
	// end untaken): it returns true and the caller sends stream_end done or
	// blocked and what follows (or the error frame), then ReleaseAnswer.
	// False: it is cancelled (its end goes to TakeAnswerEnd), its end is
	// taken, or it has no record; the caller does not send its end. The
	// record is kept (taken) until ReleaseAnswer.
	EndAnswer(ctx context.Context, connID, msgID string) (ended bool, err error)

	// TakeAnswerEnd takes the end of msgID if it is cancelled and its end
	// untaken: it returns true and the caller sends stream_end cancelled,
	// then ReleaseAnswer. False: the answer is active (not cancelled), its
	// end is taken by someone else, or it has no record; the caller sends
	// nothing for msgID. Of any number of racing EndAnswer and TakeAnswerEnd
	// calls for one answer, exactly one returns true.
	TakeAnswerEnd(ctx context.Context, connID, msgID string) (won bool, err error)

	// ReleaseAnswer removes the record of msgID, whatever its state (no
	// record: not an error); if it is the current answer, the connection
	// has none afterwards. The taker of the end calls it once the end is
	// sent; an invocation that gives up an answer without sending its end
	// (its connection is gone) may too.
	ReleaseAnswer(ctx context.Context, connID, msgID string) error

	// AnswerReleased reports whether msgID has no record: released, its
	// connection deleted, or never started. Invocations waiting for an
	// answer's end to be sent poll it.
	AnswerReleased(ctx context.Context, connID, msgID string) (bool, error)

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

// ErrAnswerInUse is returned by StartAnswer for a message id whose answer
// is still being given (its record is not released).
var ErrAnswerInUse = errors.New("lambda: message id in use")

// ErrDuplicateSuggestion is returned by PutSuggestion for an ID in use.
var ErrDuplicateSuggestion = errors.New("lambda: duplicate suggestion id")
