package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Serve serves on ln until ctx is done, then shuts down gracefully (see
// shutdown) and returns nil; it returns an error only when serving fails.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.cancel()
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		fctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		s.closeForwarder(fctx)
		cancel()
		return err
	case <-ctx.Done():
	}

	s.log.Info("shutting down", "connections", s.reg.len())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	hsDone := make(chan error, 1)
	go func() { hsDone <- hs.Shutdown(sctx) }() // stops listening; waits for plain requests
	s.shutdown(sctx)
	s.closeForwarder(sctx)
	if err := <-hsDone; err != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// closeForwarder (-lambda) waits until ctx is done for the invocations
// that outlived their connections, then aborts them.
func (s *Server) closeForwarder(ctx context.Context) {
	if s.fwd != nil {
		s.fwd.Close(ctx)
	}
}

// shutdown ends every connection: no new ones are accepted, each active
// answer ends with stream_end cancelled (the server sends the handler the
// `cancel` a client would, which also withdraws unconfirmed suggestions),
// then each connection is closed with 1001 after its queued frames. When
// ctx expires first, the invocations still running are cancelled and the
// connections closed at once.
func (s *Server) shutdown(ctx context.Context) {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, c := range s.reg.all() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.drain(ctx, c)
			c.close(closeGoingAway, reasonShutdown, true)
		}()
	}
	wg.Wait()

	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	s.log.Warn("shutdown timed out: closing the remaining connections", "connections", s.reg.len())
	s.cancel()
	for _, c := range s.reg.all() {
		c.ws.Close()
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// recancelEvery is how often drain cancels again while a connection's
// invocations run.
const recancelEvery = 50 * time.Millisecond

// drain stops dispatching c's frames and cancels its answer until every
// invocation dispatched before has returned (or ctx expires): a message
// read just before draining may begin its answer after the first cancel,
// and is cancelled by the next.
func (s *Server) drain(ctx context.Context, c *client) {
	c.drainMu.Lock()
	c.draining.Store(true)
	c.drainMu.Unlock()
	idle := make(chan struct{})
	go func() { // no invocation is added to c.inflight from here on
		c.inflight.Wait()
		close(idle)
	}()
	t := time.NewTicker(recancelEvery)
	defer t.Stop()
	for {
		s.handler.Handle(ctx, messageEvent(c.peer, `{"type":"cancel"}`, time.Now()))
		select {
		case <-idle:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
