package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/groundwire/groundwire/lambda"
)

// registry holds the open connections by id and is the handler's
// lambda.Sender: what API Gateway's Management API (PostToConnection) is in
// AWS. Send hands the frame to the connection's writer; it waits only when
// the connection's queue is full, at most until the client is found slow
// (see client.deliver).
type registry struct {
	mu      sync.RWMutex
	clients map[string]*client
}

func newRegistry() *registry {
	return &registry{clients: make(map[string]*client)}
}

var _ lambda.Sender = (*registry)(nil)

// Send implements lambda.Sender: data is kept until written, then its
// buffer goes back to lambda's pool. A connection that is not (or no longer)
// open, is closing, or was dropped for not reading gives an error wrapping
// lambda.ErrGone, as API Gateway's 410 Gone does.
func (r *registry) Send(ctx context.Context, connID string, data []byte) error {
	c := r.get(connID)
	if c == nil {
		return fmt.Errorf("connection %s: %w", connID, lambda.ErrGone)
	}
	return c.deliver(ctx, data, true)
}

// get returns the open connection with the id, or nil.
func (r *registry) get(id string) *client {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.clients[id]
}

func (r *registry) add(c *client) {
	r.mu.Lock()
	r.clients[c.peer.connID] = c
	r.mu.Unlock()
}

func (r *registry) remove(c *client) {
	r.mu.Lock()
	if r.clients[c.peer.connID] == c {
		delete(r.clients, c.peer.connID)
	}
	r.mu.Unlock()
}

func (r *registry) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.clients)
}

// all returns the open connections.
func (r *registry) all() []*client {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*client, 0, len(r.clients))
	for _, c := range r.clients {
		out = append(out, c)
	}
	return out
}
