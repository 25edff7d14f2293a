package lambda

import (
	"context"
	"errors"
)

// Sender delivers one server frame to a connection: in AWS through the API
// Gateway Management API (PostToConnection), locally over the WebSocket.
// Implementations must be safe for concurrent use; the handler never sends
// two frames to the same connection at once from one process. data is the
// frame's own: the handler does not touch it after Send, so a Sender may
// keep it (queue it for a writer) without copying, and once it has written
// it give its buffer back with [RecycleFrame] (a Sender that passes data
// on to another must then not keep it).
type Sender interface {
	Send(ctx context.Context, connectionID string, data []byte) error
}

// ErrGone is wrapped by a Sender's error when the connection no longer exists
// (API Gateway answers 410 Gone). It ends that connection's work: the
// handler stops streaming to it and deletes its state.
var ErrGone = errors.New("lambda: connection gone")

// SenderFunc adapts a function to [Sender].
type SenderFunc func(ctx context.Context, connectionID string, data []byte) error

// Send implements [Sender].
func (f SenderFunc) Send(ctx context.Context, connectionID string, data []byte) error {
	return f(ctx, connectionID, data)
}
