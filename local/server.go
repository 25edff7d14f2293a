package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/emulator"
	"github.com/groundwire/groundwire/web"
)

// deps are what the server is wired from (main's wire, or tests).
type deps struct {
	Retriever lambda.Retriever
	Model     lambda.Model
	Store     lambda.Store
	Executors map[string]lambda.Executor // nil: lambda.DefaultExecutors()
	Clock     lambda.Clock               // nil: the system clock
	Page      http.Handler               // the page and its assets (web.Handler)
	Logger    *slog.Logger

	// What /healthz reports.
	Version   string
	KB        string     // "embedded" or the directory
	Snippets  func() int // snippets in the knowledge base (it may be reloaded)
	ModelName string

	// Reloader, when set, re-reads the -kb directory (run watches it).
	Reloader *kb.Reloader
	// Dense, when set (-embeddings), is the retriever: it is given each
	// base the Reloader loads.
	Dense *lambda.DenseRetriever

	// WrapSender, when set, wraps the sender the handler replies through
	// (fault injection in tests).
	WrapSender func(lambda.Sender) lambda.Sender
	// WrapHandler, when set, wraps what runs the events (tests: holding an
	// invocation back).
	WrapHandler func(invoker) invoker
}

// invoker runs one API Gateway event: the lambda handler in process, or
// the forwarder to a Lambda runtime endpoint (-lambda).
type invoker interface {
	Handle(context.Context, events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error)
}

// decodedInvoker is the in-process handler, which takes a frame decoded
// already (lambda.Handler.HandleDecoded).
type decodedInvoker interface {
	HandleDecoded(context.Context, events.APIGatewayWebsocketProxyRequest, *lambda.Decoded) (events.APIGatewayProxyResponse, error)
}

// Server is the local server: the page, /healthz, /metrics, and the
// WebSocket endpoint that turns a connection into the API Gateway events
// the lambda handler takes.
type Server struct {
	cfg      config
	d        deps
	log      *slog.Logger
	handler  invoker
	fwd      *emulator.Forwarder // the handler with -lambda, else nil
	reg      *registry
	metrics  *metrics
	mux      *http.ServeMux
	upgrader websocket.Upgrader
	started  time.Time
	connect  []string      // allowedOrigins(-origins): the CSP's WebSocket hosts
	tick     time.Duration // the writers' timer: pings, idle and age checks

	// ctx is the parent of every invocation's context; cancelled when a
	// shutdown runs out of time, and when Serve returns.
	ctx     context.Context
	cancel  context.CancelFunc
	workers *workers // run the invocations

	mu      sync.Mutex
	closing bool
	conns   int            // connections accepted or being accepted
	perIP   map[string]int // conns by client address (only when MaxConnsPerIP > 0)
	wg      sync.WaitGroup // one per connection counted in conns
}

func newServer(cfg config, d deps) (*Server, error) {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:     cfg,
		d:       d,
		log:     log,
		reg:     newRegistry(),
		perIP:   make(map[string]int),
		connect: allowedOrigins(cfg.Origins),
		metrics: newMetrics(),
		started: time.Now(),
		upgrader: websocket.Upgrader{
			// Client frames are small JSON (a question, a cancel, a
			// confirm); a larger frame is read through the buffer in
			// pieces. Every idle connection holds this buffer.
			ReadBufferSize:  1024,
			WriteBufferSize: 4096,
			// A write buffer is taken for each frame written and given
			// back: an idle connection holds none.
			WriteBufferPool: writeBuffers,
			// The origin is checked by the handler on CONNECT (SPEC §5),
			// before the upgrade, exactly as in AWS: a foreign Origin
			// never gets here.
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.workers = newWorkers(s.ctx)
	s.tick = min(cfg.PingPeriod, cfg.IdleTimeout/8, cfg.MaxConnAge/8)
	s.tick = max(s.tick, 5*time.Millisecond)

	var sender lambda.Sender = s.reg
	if d.WrapSender != nil {
		sender = d.WrapSender(sender)
	}
	if len(cfg.Lambda) > 0 {
		// The deployed shape (SPEC §9): events go to the Lambda runtime
		// endpoints and the function answers through the Management API.
		fwd, err := emulator.NewForwarder(cfg.Lambda, emulator.ForwarderOptions{
			FunctionTimeout: cfg.LambdaTimeout,
			ProbeInterval:   cfg.LambdaProbe,
			Logger:          log.With("component", "forwarder"),
		})
		if err != nil {
			s.cancel()
			return nil, err
		}
		s.handler, s.fwd = fwd, fwd
		s.metrics.forwarder(fwd)
	} else {
		h, err := lambda.New(lambda.Config{
			Retriever: d.Retriever,
			Model:     d.Model,
			Store:     d.Store,
			Sender:    sender,
			Clock:     d.Clock,
			Executors: d.Executors,
			Mode:      cfg.Mode,
			Policy:    cfg.Policy,
			Limits: lambda.Limits{
				MaxBodyBytes:      cfg.MaxMessage,
				MessagesPerSecond: cfg.Rate,
				MessageBurst:      cfg.Burst,
				NoRateLimit:       cfg.NoRateLimit,
			},
			AuthToken:        cfg.AuthToken,
			AuthSecret:       []byte(cfg.AuthSecret),
			AllowedOrigins:   allowedOrigins(cfg.Origins),
			SuggestionWindow: cfg.SuggestWindow,
			Logger:           log.With("component", "lambda"),
		})
		if err != nil {
			s.cancel()
			return nil, err
		}
		s.handler = h
	}
	if d.WrapHandler != nil {
		s.handler = d.WrapHandler(s.handler)
	}

	page := d.Page
	if page == nil {
		page = http.NotFoundHandler()
	}
	s.mux = http.NewServeMux()
	s.mux.Handle("/healthz", readOnly(http.HandlerFunc(s.healthz)))
	s.mux.Handle("/metrics", readOnly(s.metrics.handler()))
	s.mux.HandleFunc("/ws", s.serveWS)
	if len(cfg.Lambda) > 0 {
		// The function posts its frames here (GROUNDWIRE_ENDPOINT=
		// http://<addr>/local). Only loopback clients: anyone who can post
		// here can write to every connection.
		api := loopbackOnly(emulator.NewManagementAPI(managementConns{s.reg}, emulator.ManagementOptions{}))
		s.mux.Handle("/@connections/", api)
		s.mux.Handle("/"+stage+"/@connections/", api)
	}
	if cfg.Pprof {
		s.mux.Handle("/debug/pprof/", loopbackOnly(http.HandlerFunc(pprof.Index)))
		s.mux.Handle("/debug/pprof/profile", loopbackOnly(http.HandlerFunc(pprof.Profile)))
		s.mux.Handle("/debug/pprof/trace", loopbackOnly(http.HandlerFunc(pprof.Trace)))
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && websocket.IsWebSocketUpgrade(r) {
			s.serveWS(w, r)
			return
		}
		page.ServeHTTP(w, r)
	})
	return s, nil
}

var writeBuffers = &sync.Pool{}

// allowedOrigins turns -origins into the handler's AllowedOrigins: a bare
// host allows it over http and https; an origin with a scheme, or "*", is
// kept.
func allowedOrigins(list []string) []string {
	var out []string
	for _, o := range list {
		switch {
		case o == "*" || strings.Contains(o, "://"):
			out = append(out, strings.TrimSuffix(o, "/"))
		default:
			out = append(out, "http://"+o, "https://"+o)
		}
	}
	return out
}

// readOnly answers 405 to a request that is neither GET nor HEAD, as the
// page's routes do (without it, the page's catch-all route would answer
// 404 to a POST to /healthz).
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackOnly refuses requests that do not come from this machine
// (profiles show the server's internals).
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromLoopback(r) {
			http.Error(w, "served to loopback clients only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// fromLoopback reports whether r comes from a loopback address.
func fromLoopback(r *http.Request) bool {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeHTTP serves every route with the security headers the page has
// (web.SetSecurityHeaders: the CSP for the request's host and -origins,
// nosniff, no-referrer), whatever the route and status: 404, 426, /healthz,
// /metrics, the profiles, refused upgrades.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	web.SetSecurityHeaders(w.Header(), r, s.connect)
	s.mux.ServeHTTP(w, r)
}

// healthz reports the server's state as JSON: 200 "ok", or 503
// "shutting_down" once a shutdown has begun. With -lambda it lists the
// endpoints and their health: 200 "degraded" while some are down, 503
// "unavailable" while all are.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	status, code := "ok", http.StatusOK
	handler, endpoints := "in-process", []endpointHealth(nil)
	if s.fwd != nil {
		// Endpoint addresses and their errors are internal: loopback
		// clients (an operator, a probe on the host) see them, others
		// only each endpoint's state.
		handler, endpoints = "lambda", lambdaHealth(s.fwd.Status(), fromLoopback(r))
		down := 0
		for _, e := range endpoints {
			if e.State != "up" {
				down++
			}
		}
		switch {
		case down == len(endpoints):
			status, code = "unavailable", http.StatusServiceUnavailable
		case down > 0:
			status = "degraded"
		}
	}
	if closing {
		status, code = "shutting_down", http.StatusServiceUnavailable
	}
	up := time.Since(s.started)
	mode := "hold"
	if s.cfg.Mode == lambda.ModeAfter {
		mode = "after"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	body := map[string]any{
		"status":        status,
		"handler":       handler,
		"version":       s.d.Version,
		"uptime":        up.Round(time.Second).String(),
		"uptimeSeconds": int64(up.Seconds()),
		"connections":   s.reg.len(),
		"knowledgeBase": s.kbName(fromLoopback(r)),
		"snippets":      s.d.Snippets(),
		"model":         s.d.ModelName,
		"mode":          mode,
	}
	if endpoints != nil {
		body["lambda"] = endpoints
	}
	json.NewEncoder(w).Encode(body)
}

// kbName is the knowledge base as /healthz shows it: "embedded", or the
// -kb directory to loopback clients and "custom" to others (the path says
// where the server's files are).
func (s *Server) kbName(loopback bool) string {
	if s.d.KB == "" || s.d.KB == "embedded" || loopback {
		return s.d.KB
	}
	return "custom"
}

// endpointHealth is a Lambda endpoint in /healthz.
type endpointHealth struct {
	URL      string `json:"url,omitempty"`
	State    string `json:"state"` // up or down
	Since    string `json:"since"` // when it went up or down (or the server started)
	Error    string `json:"error,omitempty"`
	InFlight int    `json:"inFlight"`
}

func lambdaHealth(st emulator.Status, detail bool) []endpointHealth {
	out := make([]endpointHealth, 0, len(st.Endpoints))
	for _, e := range st.Endpoints {
		h := endpointHealth{State: "up", Since: e.Since.UTC().Format(time.RFC3339), InFlight: e.InFlight}
		if detail {
			h.URL, h.Error = e.URL, e.Error
		}
		if !e.Up {
			h.State = "down"
		}
		out = append(out, h)
	}
	return out
}

// admit counts a new connection from client address ip in, or returns the
// HTTP status refusing it: 503 when shutting down or full, 429 when that
// address holds -max-conns-per-ip connections already (one client cannot
// take every slot).
func (s *Server) admit(ip string) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return http.StatusServiceUnavailable, "The server is shutting down."
	case s.conns >= s.cfg.MaxConns:
		return http.StatusServiceUnavailable, "Too many connections; try again later."
	case s.cfg.MaxConnsPerIP > 0 && s.perIP[ip] >= s.cfg.MaxConnsPerIP:
		return http.StatusTooManyRequests, "Too many connections from your address; try again later."
	}
	s.conns++
	if s.cfg.MaxConnsPerIP > 0 {
		s.perIP[ip]++
	}
	s.wg.Add(1)
	return 0, ""
}

func (s *Server) release(ip string) {
	s.mu.Lock()
	s.conns--
	if s.cfg.MaxConnsPerIP > 0 {
		if s.perIP[ip]--; s.perIP[ip] <= 0 {
			delete(s.perIP, ip)
		}
	}
	s.mu.Unlock()
	s.wg.Done()
}

// serveWS runs one WebSocket connection: $connect before the upgrade (a
// refusal becomes the HTTP status of the handshake), a $default event per
// text frame, $disconnect at the end.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "This is groundwire's WebSocket endpoint; the page is at /.", http.StatusUpgradeRequired)
		return
	}
	p := newPeer(r, newID(), time.Now())
	if code, msg := s.admit(p.sourceIP); code != 0 {
		s.metrics.connect(code)
		if code == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "10")
		}
		http.Error(w, msg, code)
		return
	}
	handedOff := false // to the connection's own goroutine, which releases the slot
	defer func() {
		if !handedOff {
			s.release(p.sourceIP)
		}
	}()

	log := s.log.With("conn", p.connID)
	resp, err := s.handler.Handle(s.ctx, connectEvent(r, p))
	if err != nil {
		// The function could not be invoked or failed: a clear status,
		// never a handshake cut short.
		s.metrics.connect(http.StatusBadGateway)
		log.Error("connect invocation failed", "err", err, "remote", p.sourceIP)
		http.Error(w, http.StatusText(http.StatusBadGateway), http.StatusBadGateway)
		return
	}
	if resp.StatusCode != http.StatusOK {
		s.metrics.connect(resp.StatusCode)
		log.Info("connection refused", "status", resp.StatusCode, "remote", p.sourceIP,
			"origin", lambda.Mask(r.Header.Get("Origin")))
		http.Error(w, http.StatusText(resp.StatusCode), resp.StatusCode)
		return
	}

	var fl *frameLimitConn
	hw := hijackWrapper{ResponseWriter: w, wrap: func(nc net.Conn) net.Conn {
		fl = newFrameLimitConn(nc, s.cfg.MaxFrame)
		return fl
	}}
	ws, err := s.upgrader.Upgrade(hw, r, nil)
	if err != nil {
		// The Upgrader has answered with an HTTP error; the handler
		// recorded the connection on CONNECT.
		s.metrics.connect(http.StatusBadRequest)
		log.Info("upgrade failed", "err", err)
		s.handler.Handle(context.WithoutCancel(s.ctx), disconnectEvent(p, closeAbnormal, "upgrade failed", time.Now()))
		return
	}
	s.metrics.connect(http.StatusSwitchingProtocols)
	// The connection outlives this HTTP handler, as in gorilla's chat
	// example: returning lets net/http drop what it holds for the request
	// (its read and write buffers, this goroutine's deep stack), about a
	// third of an idle connection's memory. run is the connection's reader.
	c := newClient(s, ws, fl, p, log)
	handedOff = true
	go func() {
		defer s.release(p.sourceIP)
		s.run(c)
	}()
}

// run carries one upgraded connection until it ends.
func (s *Server) run(c *client) {
	s.reg.add(c)
	s.metrics.connections.Inc()
	c.log.Info("connected", "remote", c.peer.sourceIP)
	go c.writePump()
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing { // accepted while shutdown looked at the registry
		c.draining.Store(true)
		c.close(closeGoingAway, reasonShutdown, true)
	}

	code, reason := c.readPump()

	c.close(0, "", false) // stops the writer, unless it is closing already
	t := time.NewTimer(s.cfg.CloseGrace + s.cfg.WriteWait)
	select {
	case <-c.writerDone:
	case <-t.C:
	}
	t.Stop()
	c.ws.Close()
	<-c.writerDone
	s.reg.remove(c)
	s.metrics.connections.Dec()
	s.metrics.disconnect(code)

	// $disconnect stops the connection's answer and forgets its state; the
	// invocations still running then return.
	if _, err := s.handler.Handle(context.WithoutCancel(s.ctx), disconnectEvent(c.peer, code, reason, time.Now())); err != nil {
		c.log.Error("disconnect invocation failed", "err", err.Error())
	}
	c.cancel()
	c.inflight.Wait()
	c.log.Info("disconnected", "code", code, "reason", reason,
		"duration", time.Since(c.opened).Round(time.Millisecond).String())
}
