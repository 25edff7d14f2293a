package emulator

import (
	"fmt"
	"sync"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// Recorder is an in-memory Connections for tests: it records what is sent
// to each open connection. It is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	conns map[string]*recorded
}

type recorded struct {
	info   Info
	sent   [][]byte
	closed bool
}

// NewRecorder returns a Recorder without connections.
func NewRecorder() *Recorder { return &Recorder{conns: map[string]*recorded{}} }

// Open adds a live connection.
func (r *Recorder) Open(id string, info Info) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns[id] = &recorded{info: info}
}

// Sent returns the messages sent to a connection so far.
func (r *Recorder) Sent(id string) [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.conns[id]; c != nil {
		return append([][]byte(nil), c.sent...)
	}
	return nil
}

// Closed reports whether the connection was closed through Close.
func (r *Recorder) Closed(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.conns[id]
	return c != nil && c.closed
}

func (r *Recorder) live(id string) (*recorded, error) {
	c := r.conns[id]
	if c == nil || c.closed {
		return nil, fmt.Errorf("connection %s: %w", id, lambda.ErrGone)
	}
	return c, nil
}

// Send implements Connections.
func (r *Recorder) Send(id string, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.live(id)
	if err != nil {
		return err
	}
	c.sent = append(c.sent, append([]byte(nil), data...))
	c.info.LastActiveAt = time.Now()
	return nil
}

// Info implements Connections.
func (r *Recorder) Info(id string) (Info, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.live(id)
	if err != nil {
		return Info{}, false
	}
	return c.info, true
}

// Close implements Connections.
func (r *Recorder) Close(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.live(id)
	if err != nil {
		return err
	}
	c.closed = true
	return nil
}

var _ Connections = (*Recorder)(nil)
