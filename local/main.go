// Command local is groundwire's local server: `go run ./local`, then open
// http://localhost:8787. It serves the chat page and carries the WebSocket
// protocol over a real WebSocket, turning each connection into the API
// Gateway events ($connect, $default, $disconnect) that the lambda handler
// takes in AWS, with API Gateway's limits enforced locally. It starts with
// the embedded knowledge base and the deterministic mock model.
//
// Run `go run ./local -h` for the flags; each can also be set with an
// environment variable GROUNDWIRE_<NAME>.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it serves until ctx is done (SIGINT, SIGTERM)
// and returns the exit code: 0 after a clean shutdown (and for -h), 2 for a
// usage error, 1 when the server cannot start or fails.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "local: %s\nRun 'go run ./local -h' for the flags.\n", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	}
	if cfg.NewToken > 0 {
		fmt.Fprintln(stdout, lambda.SignToken([]byte(cfg.AuthSecret), time.Now().Add(cfg.NewToken)))
		return 0
	}
	log := newLogger(cfg, stderr)
	d, err := wire(cfg, log, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "local: %v\n", err)
		return 1
	}
	s, err := newServer(cfg, d)
	if err != nil {
		fmt.Fprintf(stderr, "local: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "local: %v\n", err)
		return 1
	}
	if len(cfg.Lambda) > 0 {
		fmt.Fprintf(stdout, "groundwire listening on %s, forwarding events to %s; Management API at %s/%s/@connections\n",
			displayURL(cfg.Addr, ln.Addr()), strings.Join(cfg.Lambda, ", "), displayURL(cfg.Addr, ln.Addr()), stage)
	} else {
		fmt.Fprintf(stdout, "groundwire listening on %s (knowledge base: %s, %d snippets; model: %s)\n",
			displayURL(cfg.Addr, ln.Addr()), d.KB, d.Snippets(), d.ModelName)
	}
	if cfg.AuthToken != "" || cfg.AuthSecret != "" {
		fmt.Fprintln(stdout, "auth token required: open the page with ?token=<the token>")
	}
	if cfg.AuthSecret != "" {
		fmt.Fprintln(stdout, "signed tokens accepted: mint one with -auth-secret <the secret> -new-token 1h")
	}
	if !loopback(ln.Addr()) && cfg.AuthToken == "" && cfg.AuthSecret == "" {
		log.Warn("listening beyond this machine without -auth-token: anyone who can reach it can use it", "addr", ln.Addr().String())
	}
	if d.Reloader != nil && cfg.KBWatch > 0 {
		stop := watchKB(ctx, d.Reloader, cfg.KBWatch, log, d.Dense)
		defer stop()
	}
	if err := s.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "local: %v\n", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// watchKB re-reads the -kb directory when its files change, until stop is
// called (it waits for the watcher to return); dense, when not nil, embeds
// each new base.
func watchKB(ctx context.Context, r *kb.Reloader, every time.Duration, log *slog.Logger, dense *lambda.DenseRetriever) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Watch(ctx, every, func(b *kb.Base, err error) {
			if err != nil {
				log.Warn("knowledge base: reload failed, keeping the previous one", "err", err.Error())
				return
			}
			logProblems(log, b)
			log.Info("knowledge base reloaded", "snippets", b.Len())
			if dense != nil {
				dense.Load(ctx, b) // a failure is logged; lexical search goes on
			}
		})
	}()
	return func() {
		cancel()
		<-done
	}
}

// displayURL is the address to open: the host of -addr (localhost when
// empty or unspecified) with the port actually bound.
func displayURL(addr string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = ""
	}
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return "http://" + bound.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func loopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
