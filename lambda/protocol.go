package lambda

// Wire protocol (SPEC §5). Every frame is one JSON text frame with a "type".
// The JSON tags here are the protocol: change them only together with SPEC
// §5, the README's "Protocol" section and the golden tests.

// Client → server frame types.
const (
	TypeMessage       = "message"
	TypeCancel        = "cancel"
	TypeConfirmAction = "confirm_action"
)

// Server → client frame types.
const (
	TypeSources          = "sources"
	TypeStream           = "stream"
	TypeStreamEnd        = "stream_end"
	TypeResponse         = "response"
	TypeActionSuggestion = "action_suggestion"
	TypeActionExecuted   = "action_executed"
	TypeError            = "error"
)

// stream_end reasons.
const (
	ReasonDone      = "done"
	ReasonCancelled = "cancelled"
	// ReasonBlocked: in hold mode an ungrounded number stopped the stream; in
	// after mode the answer (already streamed) failed verification at the end
	// and the client must replace it with the blocked response.
	ReasonBlocked = "blocked"
)

// response statuses.
const (
	StatusVerified  = "verified"
	StatusNoSources = "no_sources"
	StatusBlocked   = "blocked"
)

// ClientFrame is any frame a client sends. Which fields matter depends on
// Type: message (ID, Text, optional Lang "en"/"sv"), cancel (optional ID),
// confirm_action (SuggestionID).
type ClientFrame struct {
	Type         string `json:"type"`
	ID           string `json:"id,omitempty"`
	Text         string `json:"text,omitempty"`
	Lang         string `json:"lang,omitempty"`
	SuggestionID string `json:"suggestionId,omitempty"`
}

// Citation is one retrieved snippet as the client sees it.
type Citation struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Snippet string `json:"snippet"`
}

// NumberVerdict is the verdict on one number of an answer. Citation is an
// index into the response's citations, or -1 when no citation grounds it.
type NumberVerdict struct {
	Text      string `json:"text"`
	Canonical string `json:"canonical"`
	Kind      string `json:"kind"`
	// State is "grounded", "ungrounded", "unverified" (a small count
	// written as a word that no snippet states or contradicts) or
	// "derived" (one shown operation over cited quantities: Formula).
	State    string `json:"state"`
	Grounded bool   `json:"grounded"`
	Citation int    `json:"citation"`
	// Formula and Operands are a derived number's operation ("399
	// kr/month × 12 = 4 788 kr a year") and the citations of its
	// operands.
	Formula  string `json:"formula,omitempty"`
	Operands []int  `json:"operands,omitempty"`
}

// SourcesFrame is sent before streaming: the snippets the answer is checked
// against (possibly none).
type SourcesFrame struct {
	Type      string     `json:"type"` // "sources"
	ID        string     `json:"id"`
	Citations []Citation `json:"citations"`
	// Confidence is how sure retrieval is of the citations: "high" or
	// "low"; absent when there are none.
	Confidence Confidence `json:"confidence,omitempty"`
}

// StreamFrame carries one piece of released answer text.
type StreamFrame struct {
	Type  string `json:"type"` // "stream"
	ID    string `json:"id"`
	Delta string `json:"delta"`
}

// StreamEndFrame ends the stream of a message: done, cancelled or blocked.
type StreamEndFrame struct {
	Type   string `json:"type"` // "stream_end"
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ResponseFrame is the final answer of a message. When Status is verified or
// no_sources, Text equals the concatenated stream deltas; when blocked, Text
// is the blocked sentence and Error the verification error line.
type ResponseFrame struct {
	Type      string          `json:"type"` // "response"
	ID        string          `json:"id"`
	Text      string          `json:"text"`
	Citations []Citation      `json:"citations"`
	Status    string          `json:"status"`
	Numbers   []NumberVerdict `json:"numbers"`
	Error     string          `json:"error,omitempty"`
}

// ActionSuggestionFrame offers an action the client may confirm within the
// confirmation window (30 s by default).
type ActionSuggestionFrame struct {
	Type         string            `json:"type"` // "action_suggestion"
	ID           string            `json:"id"`
	SuggestionID string            `json:"suggestionId"`
	Action       string            `json:"action"`
	Payload      map[string]string `json:"payload"`
}

// ActionResult says what a confirm did.
type ActionResult struct {
	Success bool   `json:"success"`
	Ignored bool   `json:"ignored"`
	Message string `json:"message"`
}

// ActionExecutedFrame answers a confirm_action.
type ActionExecutedFrame struct {
	Type         string       `json:"type"` // "action_executed"
	SuggestionID string       `json:"suggestionId"`
	Result       ActionResult `json:"result"`
}

// ErrorFrame reports a refused or failed client frame. ID is the message id
// when the frame had one.
type ErrorFrame struct {
	Type    string `json:"type"` // "error"
	Code    string `json:"code"`
	Message string `json:"message"`
	ID      string `json:"id,omitempty"`
}
