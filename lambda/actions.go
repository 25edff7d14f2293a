package lambda

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// Action names (SPEC §6).
const (
	ActionScheduleCallback = "schedule_callback"
	ActionSendSMS          = "send_sms"
	ActionCreateTicket     = "create_ticket"
)

// MaxSubjectChars bounds a ticket's subject (the message text).
const MaxSubjectChars = 200

// Messages of action_executed results (SPEC §6–7).
const (
	MsgAlreadyExecuted = "Already executed"
	MsgExpired         = "Suggestion expired"
	MsgUnknown         = "Unknown suggestion"
	MsgCancelled       = "Suggestion cancelled"
	// MsgNotConfirmed: the store could not be reached, so nothing executed
	// (fail-closed); confirming again is safe.
	MsgNotConfirmed = "The action could not be confirmed, try again."
	MsgFailed       = "The action failed."
	MsgNoExecutor   = "This action is not available."
)

// triggers per action, lower case, in the order of SPEC §6.
var triggers = []struct {
	action string
	words  []string
}{
	{ActionScheduleCallback, []string{"call me", "call person", "call back", "ring mig", "ring upp"}},
	{ActionSendSMS, []string{"send sms", "text me", "skicka sms", "sms:a"}},
	{ActionCreateTicket, []string{"create ticket", "open ticket", "skapa ärende", "öppna ticket", "öppna ärende"}},
}

// DetectAction returns the action a message asks for and its payload, or ""
// when it asks for none. Triggers match case-insensitively as whole words;
// when several match, the one earliest in the text wins. schedule_callback
// and send_sms carry "phone" (the first phone number as the user wrote it)
// when the message holds one; create_ticket carries "subject" (the message,
// at most 200 characters).
func DetectAction(text string) (action string, payload map[string]string) {
	lower := strings.ToLower(text)
	best := -1
	for _, t := range triggers {
		for _, w := range t.words {
			if i := wordIndex(lower, w); i >= 0 && (best < 0 || i < best) {
				best, action = i, t.action
			}
		}
	}
	if action == "" {
		return "", nil
	}
	payload = map[string]string{}
	switch action {
	case ActionScheduleCallback, ActionSendSMS:
		for _, n := range guardrail.Extract(text) {
			if n.Kind == guardrail.KindPhone {
				payload["phone"] = n.Text
				break
			}
		}
	case ActionCreateTicket:
		payload["subject"] = truncate(strings.TrimSpace(text), MaxSubjectChars)
	}
	return action, payload
}

// wordIndex finds w in s where it is not part of a longer word.
func wordIndex(s, w string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return -1
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(w):])
		if (i == 0 || !isWordRune(before)) && (i+len(w) == len(s) || !isWordRune(after)) {
			return i
		}
		off = i + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Action is a confirmed suggestion handed to an executor.
type Action struct {
	SuggestionID string
	ConnectionID string
	MessageID    string
	Name         string
	Payload      map[string]string
}

// Executor performs one kind of action. Execute runs at most once per
// suggestion, detached from cancel and disconnect (bounded by
// Config.ActionTimeout), and must be safe for concurrent use. The message
// tells the user what was done; an *Error's message is shown on failure,
// any other error shows "The action failed." and is logged.
type Executor interface {
	Execute(ctx context.Context, a Action) (message string, err error)
}

// ExecutorFunc adapts a function to [Executor].
type ExecutorFunc func(ctx context.Context, a Action) (string, error)

// Execute implements [Executor].
func (f ExecutorFunc) Execute(ctx context.Context, a Action) (string, error) { return f(ctx, a) }

// DefaultExecutors simulate the three actions and say what they did; a
// callback or SMS whose message named no phone number goes to the number
// on the user's account (a real executor looks it up).
func DefaultExecutors() map[string]Executor {
	return map[string]Executor{
		ActionScheduleCallback: ExecutorFunc(func(ctx context.Context, a Action) (string, error) {
			if p := a.Payload["phone"]; p != "" {
				return "Callback scheduled to " + p, nil
			}
			return "Callback scheduled to the phone number on your account", nil
		}),
		ActionSendSMS: ExecutorFunc(func(ctx context.Context, a Action) (string, error) {
			if p := a.Payload["phone"]; p != "" {
				return "SMS sent to " + p, nil
			}
			return "SMS sent to the phone number on your account", nil
		}),
		ActionCreateTicket: ExecutorFunc(func(ctx context.Context, a Action) (string, error) {
			return "Ticket created: " + ticketNumber(a.SuggestionID), nil
		}),
	}
}

// ticketNumber invents a ticket number from the suggestion id.
func ticketNumber(suggestionID string) string {
	var n uint32
	for i := 0; i < len(suggestionID); i++ {
		n = n*31 + uint32(suggestionID[i])
	}
	return fmt.Sprintf("GW-%06d", n%1000000)
}

// newSuggestionID returns 128 random bits, hex.
func newSuggestionID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// suggestLocked offers the action the message asks for, if any, after its
// response. c.mu must be held. A suggestion that cannot be stored is not
// offered (it could not be confirmed).
func (h *Handler) suggestLocked(ctx context.Context, c *conn, msgID, text string) {
	action, payload := DetectAction(text)
	if action == "" {
		return
	}
	now := h.clock.Now()
	s := Suggestion{
		ID:           newSuggestionID(),
		ConnectionID: c.id,
		MessageID:    msgID,
		Action:       action,
		Payload:      payload,
		CreatedAt:    now,
		Window:       h.cfg.SuggestionWindow,
		ExpiresAt:    now.Add(h.cfg.SuggestionWindow),
	}
	if err := h.store.PutSuggestion(ctx, s); err != nil {
		// Fail closed and say so: no suggestion to confirm, nothing can
		// execute, and the client learns why none followed the response.
		h.logError(ctx, "suggest: store", c.id, msgID, err)
		h.sendLocked(ctx, c, msgID, errorFrame(msgID, err))
		return
	}
	h.sendLocked(ctx, c, msgID, ActionSuggestionFrame{
		Type:         TypeActionSuggestion,
		ID:           msgID,
		SuggestionID: s.ID,
		Action:       action,
		Payload:      payload,
	})
}

// confirm handles a `confirm_action` frame (SPEC §6): one atomic claim in
// the store decides; only ClaimExecute runs the executor. If the store
// fails, nothing executes and the client is told to try again
// (fail-closed: success false, MsgNotConfirmed).
func (h *Handler) confirm(ctx context.Context, c *conn, id string) {
	s, outcome, err := h.store.ClaimSuggestion(ctx, c.id, id, h.clock.Now())
	var res ActionResult
	switch {
	case err != nil:
		h.logError(ctx, "confirm: store", c.id, "", err)
		res = ActionResult{Message: MsgNotConfirmed}
	case outcome == ClaimExecute:
		res = h.execute(ctx, c, s)
	case outcome == ClaimAlreadyExecuted:
		res = ActionResult{Success: true, Ignored: true, Message: MsgAlreadyExecuted}
	case outcome == ClaimExpired:
		res = ActionResult{Message: MsgExpired}
	case outcome == ClaimCancelled:
		res = ActionResult{Message: MsgCancelled}
	default:
		res = ActionResult{Message: MsgUnknown}
	}
	h.send(ctx, c, "", ActionExecutedFrame{Type: TypeActionExecuted, SuggestionID: id, Result: res})
}

// execute runs a claimed suggestion's executor to the end, detached from
// cancellation of the invocation, then marks it executed.
func (h *Handler) execute(ctx context.Context, c *conn, s Suggestion) ActionResult {
	xctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.ActionTimeout)
	defer cancel()
	var res ActionResult
	if x := h.executors[s.Action]; x == nil {
		res = ActionResult{Message: MsgNoExecutor}
	} else {
		msg, err := x.Execute(xctx, Action{
			SuggestionID: s.ID,
			ConnectionID: s.ConnectionID,
			MessageID:    s.MessageID,
			Name:         s.Action,
			Payload:      s.Payload,
		})
		switch {
		case err == nil:
			res = ActionResult{Success: true, Message: msg}
		case ErrorCode(err) == EInternal:
			h.logError(ctx, "execute "+s.Action, c.id, s.MessageID, err)
			res = ActionResult{Message: MsgFailed}
		default:
			res = ActionResult{Message: ErrorMessage(err)}
		}
	}
	// The record stays "executing" if this fails: repeats are still
	// refused, never executed again.
	if err := h.store.FinishSuggestion(xctx, c.id, s.ID, h.clock.Now()); err != nil {
		h.logError(ctx, "confirm: finish", c.id, s.MessageID, err)
	}
	return res
}
