package lambda

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// Decoded is a client frame as DecodeClientFrame decoded Body: a server
// that decodes each frame for itself (for its metrics) hands it to
// HandleDecoded with the event, rather than have it decoded twice.
type Decoded struct {
	Body  string
	Frame ClientFrame
	Err   error
}

// HandleDecoded is Handle for a MESSAGE event whose body d was decoded
// from (d is used only when req.Body is d.Body, not base64-encoded).
func (h *Handler) HandleDecoded(ctx context.Context, req events.APIGatewayWebsocketProxyRequest, d *Decoded) (events.APIGatewayProxyResponse, error) {
	if req.RequestContext.EventType != EventMessage || req.RequestContext.ConnectionID == "" {
		return h.Handle(ctx, req)
	}
	h.message(ctx, req, d)
	return status(200), nil
}

// message handles one MESSAGE event: one client frame, decoded already
// when d is not nil.
func (h *Handler) message(ctx context.Context, req events.APIGatewayWebsocketProxyRequest, d *Decoded) {
	c := h.conn(req.RequestContext.ConnectionID)
	f, err := h.parse(c, req, d)
	if err != nil {
		h.sendError(ctx, c, f.ID, err)
		return
	}
	if h.cfg.LogText {
		h.log.DebugContext(ctx, "frame", "conn", c.id, "type", f.Type, "msg", Mask(f.ID), "text", Mask(f.Text))
	}
	switch f.Type {
	case TypeMessage:
		h.answer(ctx, c, f)
	case TypeCancel:
		h.cancel(ctx, c, f.ID)
	case TypeConfirmAction:
		h.confirm(ctx, c, f.SuggestionID)
	}
}

// parse decodes and validates a client frame. On error the returned frame
// holds what could be decoded (its ID for the error frame).
func (h *Handler) parse(c *conn, req events.APIGatewayWebsocketProxyRequest, d *Decoded) (ClientFrame, error) {
	var f ClientFrame
	b, err := body(req)
	if err != nil {
		return f, Errorf(EBadRequest, "The body is not valid base64.")
	}
	if len(b) > h.limits.MaxBodyBytes {
		return f, Errorf(ETooLarge, "The message is over %d bytes.", h.limits.MaxBodyBytes)
	}
	if d != nil && !req.IsBase64Encoded && d.Body == b {
		f, err = d.Frame, d.Err
	} else {
		f, err = DecodeClientFrame([]byte(b))
	}
	if !utf8.ValidString(b) {
		// JSON reads each invalid byte as U+FFFD: two ids would be one,
		// and the client could not match the reply to its id. The id is
		// echoed only when it was valid itself.
		if strings.ContainsRune(f.ID, utf8.RuneError) || checkIDs(f) != nil {
			f.ID = ""
		}
		return f, Errorf(EBadRequest, "The frame is not valid UTF-8.")
	}
	if err != nil {
		return f, err
	}
	if err := checkIDs(f); err != nil {
		// The over-long id is not echoed: that is what the limit is for.
		f.ID = ""
		return f, err
	}
	switch f.Type {
	case "":
		return f, Errorf(EBadRequest, "Missing field: type.")
	case TypeMessage:
		if c.limiter != nil && !c.limiter.AllowN(h.clock.Now(), 1) {
			return f, Errorf(ERateLimited, "Too many messages; slow down.")
		}
		switch {
		case f.ID == "":
			return f, Errorf(EBadRequest, "Missing field: id.")
		case strings.TrimSpace(f.Text) == "":
			return f, Errorf(EBadRequest, "Missing field: text.")
		case utf8.RuneCountInString(f.Text) > h.limits.MaxTextChars:
			return f, Errorf(ETooLarge, "The text is over %d characters.", h.limits.MaxTextChars)
		}
		if _, ok := parseLang(f.Lang); !ok {
			return f, Errorf(EBadRequest, "Unknown lang: use \"en\" or \"sv\".")
		}
	case TypeCancel:
	case TypeConfirmAction:
		if f.SuggestionID == "" {
			return f, Errorf(EBadRequest, "Missing field: suggestionId.")
		}
	default:
		return f, Errorf(EUnknownType, "Unknown type.")
	}
	return f, nil
}

// cancel handles a `cancel` frame (SPEC §7). A cancel naming an id that is
// not the active answer does nothing. Otherwise it cancels the active answer
// if any and withdraws the connection's pending suggestions; with nothing
// active it sends nothing. The cancelled answer's stream_end cancelled is
// sent by its streamer: at once under the connection's lock when it streams
// in this process, else (another instance) at the streamer's next check of
// the cancel flag, which this invocation waits for (see awaitEnd).
func (h *Handler) cancel(ctx context.Context, c *conn, msgID string) {
	c.mu.Lock()
	cancelled, err := h.store.CancelAnswer(ctx, c.id, msgID)
	if err != nil {
		h.logError(ctx, "cancel: store", c.id, msgID, err)
		h.sendLocked(ctx, c, msgID, errorFrame(msgID, err))
		c.mu.Unlock()
		return
	}
	if msgID != "" && cancelled == "" {
		c.mu.Unlock()
		return
	}
	settled := cancelled == ""
	if live := c.live; live != nil && live.msgID == cancelled {
		settled = h.stopLocked(ctx, c, live)
	}
	c.mu.Unlock()
	if !settled {
		h.awaitEnd(ctx, c, cancelled, h.stopAt(ctx))
	}
	if err := h.store.WithdrawSuggestions(ctx, c.id, h.clock.Now()); err != nil {
		h.logError(ctx, "cancel: withdraw suggestions", c.id, msgID, err)
		h.send(ctx, c, msgID, errorFrame(msgID, err))
	}
}
