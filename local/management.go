package main

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/emulator"
)

// managementConns offers the open connections to the Management API that
// -lambda serves at /@connections/: what API Gateway's PostToConnection,
// GetConnection and DeleteConnection reach in AWS.
type managementConns struct{ reg *registry }

var _ emulator.Connections = managementConns{}

func (m managementConns) Send(id string, data []byte) error {
	// registry.Send keeps data until it is written (lambda.Sender's
	// contract); the Management API promises nothing about its request's
	// bytes.
	return m.reg.Send(context.Background(), id, bytes.Clone(data))
}

func (m managementConns) Info(id string) (emulator.Info, bool) {
	c := m.reg.get(id)
	if c == nil {
		return emulator.Info{}, false
	}
	return emulator.Info{
		ConnectedAt:  c.peer.connectedAt,
		LastActiveAt: time.Unix(0, c.lastActive.Load()),
		SourceIP:     c.peer.sourceIP,
		UserAgent:    c.peer.userAgent,
	}, true
}

// Close disconnects the client as API Gateway's DeleteConnection does: a
// close frame (1000), then the DISCONNECT event.
func (m managementConns) Close(id string) error {
	c := m.reg.get(id)
	if c == nil {
		return fmt.Errorf("connection %s: %w", id, lambda.ErrGone)
	}
	c.close(closeNormal, "disconnected by the server", true)
	return nil
}
