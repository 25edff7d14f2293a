package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// InvokePath is the Lambda Runtime Interface Emulator's invoke endpoint.
const InvokePath = "/2015-03-31/functions/function/invocations"

// DefaultFunctionTimeout is the Runtime Interface Emulator's default
// function timeout (AWS_LAMBDA_FUNCTION_TIMEOUT=300).
const DefaultFunctionTimeout = 300 * time.Second

// timeoutGrace is how long after the function timeout an invocation's
// caller still waits: the emulator reports a timed-out invocation 100 ms
// after the timeout.
const timeoutGrace = time.Second

var (
	// ErrUnavailable is wrapped by Handle's error when no endpoint is up
	// (or none is left to retry on).
	ErrUnavailable = errors.New("emulator: no Lambda endpoint is up")
	// ErrClosed is returned by Handle once Close was called.
	ErrClosed = errors.New("emulator: forwarder closed")
)

// ForwarderOptions configure a Forwarder.
type ForwarderOptions struct {
	// Client sends the invocations (default: an http.Client without
	// timeout: an invocation lasts as long as the function runs).
	Client *http.Client
	// MaxInFlight is how many invocations one endpoint runs at once. The
	// Runtime Interface Emulator runs one at a time, like one Lambda
	// execution environment, so the default is 1 and further invocations
	// wait for a free endpoint. Negative means no limit.
	MaxInFlight int
	// FunctionTimeout is the function's configured timeout: the emulator's
	// AWS_LAMBDA_FUNCTION_TIMEOUT (default DefaultFunctionTimeout). A
	// caller waits for an invocation at most this long (plus a second);
	// an endpoint that has not answered by then is marked down.
	FunctionTimeout time.Duration
	// ProbeInterval is how often an endpoint marked down is probed
	// (default 1 s).
	ProbeInterval time.Duration
	// Logger gets a line when an endpoint goes down or comes back, and
	// when an invocation is retried on another endpoint (default: none).
	Logger *slog.Logger
}

// Forwarder invokes a Lambda function through runtime invoke endpoints, one
// event per invocation, spreading concurrent invocations over the endpoints
// (the least busy first, round-robin among equals). Invocations of one
// connection overlap — a cancel or confirm arrives while a message's
// answer still streams — so run at least two endpoints (for example two
// Runtime Interface Emulators with the same binary, sharing the state
// store): with one, a cancel waits until the answer it should stop has
// ended. Handle has the signature of lambda.Handler.Handle, so the local
// server can use either. A Forwarder is safe for concurrent use.
//
// An endpoint never gets overlapping invocations: it stays busy until the
// function has answered, even when the caller of Handle gave up (its
// context is not the invocation's; the emulator would run the function on
// anyway). An endpoint that fails — refused or broken connection, a 5xx
// status, no answer within the function timeout — is marked down, skipped,
// and probed every ProbeInterval until it answers again. An invocation that
// failed on a down endpoint is retried on another when that cannot run the
// function twice: always for CONNECT and DISCONNECT events, and for a
// MESSAGE only when the request never reached the endpoint (a message may
// confirm an action, which must execute at most once).
type Forwarder struct {
	client   *http.Client
	max      int
	wait     time.Duration // FunctionTimeout + timeoutGrace
	probeGap time.Duration
	log      *slog.Logger

	ctx        context.Context // of every invocation: cancelled by Close
	abort      context.CancelFunc
	stopProbes context.CancelFunc
	probeCtx   context.Context
	wg         sync.WaitGroup // invocations and probes running

	retries atomic.Uint64

	mu     sync.Mutex
	eps    []endpoint
	next   int
	closed bool
	freed  chan struct{} // closed and replaced whenever a slot frees or an endpoint's state changes
}

// endpoint is one invoke URL and its state; guarded by Forwarder.mu.
type endpoint struct {
	url     string
	busy    int
	up      bool
	since   time.Time // when up last changed (or the forwarder started)
	lastErr string    // why it went down
	probing bool
	results [numResults]uint64
}

// result is how an invocation ended.
type result int

const (
	resultOK            result = iota // the function answered
	resultFunctionError               // the function failed or timed out (the endpoint is fine)
	resultEndpointError               // connection failed or 5xx: the endpoint is marked down
	resultAborted                     // Close aborted it
	numResults
)

// Result labels, as in EndpointStatus.Invocations.
const (
	ResultOK            = "ok"
	ResultFunctionError = "function_error"
	ResultEndpointError = "endpoint_error"
)

// NewForwarder returns a forwarder to endpoints: base URLs of runtime
// invoke APIs ("http://127.0.0.1:9001"), or full invoke URLs (ending in
// /invocations). Call Close when done with it.
func NewForwarder(endpoints []string, opts ForwarderOptions) (*Forwarder, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("emulator: no Lambda endpoint")
	}
	f := &Forwarder{
		client:   opts.Client,
		max:      opts.MaxInFlight,
		wait:     opts.FunctionTimeout,
		probeGap: opts.ProbeInterval,
		log:      opts.Logger,
		freed:    make(chan struct{}),
	}
	if f.client == nil {
		f.client = &http.Client{}
	}
	if f.max == 0 {
		f.max = 1
	}
	if f.wait <= 0 {
		f.wait = DefaultFunctionTimeout
	}
	f.wait += timeoutGrace
	if f.probeGap <= 0 {
		f.probeGap = time.Second
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	now := time.Now()
	for _, ep := range endpoints {
		ep = strings.TrimSpace(ep)
		if !strings.HasPrefix(ep, "http://") && !strings.HasPrefix(ep, "https://") {
			return nil, fmt.Errorf("emulator: endpoint %q is not an http(s) URL", ep)
		}
		if !strings.HasSuffix(ep, "/invocations") {
			ep = strings.TrimSuffix(ep, "/") + InvokePath
		}
		f.eps = append(f.eps, endpoint{url: ep, up: true, since: now})
	}
	f.ctx, f.abort = context.WithCancel(context.Background())
	f.probeCtx, f.stopProbes = context.WithCancel(f.ctx)
	return f, nil
}

// changedLocked wakes the invocations waiting for an endpoint.
func (f *Forwarder) changedLocked() {
	close(f.freed)
	f.freed = make(chan struct{})
}

// acquire picks the least busy endpoint that is up, not yet tried and has
// a free slot, waiting while all such endpoints are busy. It fails at once
// when there is none.
func (f *Forwarder) acquire(ctx context.Context, tried []bool) (int, error) {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return -1, ErrClosed
		}
		best, candidates := -1, false
		for k := range f.eps {
			i := (f.next + k) % len(f.eps)
			e := &f.eps[i]
			if !e.up || tried[i] {
				continue
			}
			candidates = true
			if f.max > 0 && e.busy >= f.max {
				continue
			}
			if best < 0 || e.busy < f.eps[best].busy {
				best = i
			}
		}
		if best >= 0 {
			f.eps[best].busy++
			f.wg.Add(1) // under mu, before Close can wait: see Close
			f.next = (best + 1) % len(f.eps)
			f.mu.Unlock()
			return best, nil
		}
		if !candidates {
			err := f.unavailableLocked(tried)
			f.mu.Unlock()
			return -1, err
		}
		freed := f.freed
		f.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return -1, ctx.Err()
		}
	}
}

// unavailableLocked is the error of an invocation that has no endpoint
// left: ErrUnavailable and why the endpoints are down.
func (f *Forwarder) unavailableLocked(tried []bool) error {
	var why []string
	for i, e := range f.eps {
		switch {
		case !e.up:
			why = append(why, e.lastErr)
		case tried[i]:
			why = append(why, e.url+": tried")
		}
	}
	return fmt.Errorf("%w (%s)", ErrUnavailable, strings.Join(why, "; "))
}

// outcome is what one invocation returned.
type outcome struct {
	resp   events.APIGatewayProxyResponse
	err    error
	result result
	sent   bool // the whole request reached the endpoint
}

// invokeResult is what an invocation returns: the proxy response, or the
// runtime's error document when the function failed.
type invokeResult struct {
	events.APIGatewayProxyResponse
	ErrorMessage string `json:"errorMessage"`
	ErrorType    string `json:"errorType"`
}

// invoke posts one event to an endpoint's url and reads the answer. ctx is
// the forwarder's: only Close aborts an invocation.
func (f *Forwarder) invoke(ctx context.Context, url string, body []byte) outcome {
	// Whether the request reached the endpoint: written whole on the
	// connection of the last attempt (the transport tries again on a new
	// connection when a kept-alive one turns out closed).
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) { wrote.Store(false) },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				wrote.Store(true)
			}
		},
	})
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return outcome{err: err, result: resultFunctionError}
	}
	hreq.Header.Set("Content-Type", "application/json")
	fail := func(r result, format string, args ...any) outcome {
		if ctx.Err() != nil {
			r = resultAborted
		}
		return outcome{err: fmt.Errorf("invoke %s: "+format, append([]any{url}, args...)...), result: r, sent: wrote.Load()}
	}
	resp, err := f.client.Do(hreq)
	if err != nil {
		return fail(resultEndpointError, "%w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 6<<20)) // Lambda's response limit
	if err != nil {
		return fail(resultEndpointError, "%w", err)
	}
	switch {
	case resp.StatusCode >= 500:
		return fail(resultEndpointError, "%s: %s", resp.Status, bytes.TrimSpace(data))
	case resp.StatusCode != http.StatusOK:
		return fail(resultFunctionError, "%s: %s", resp.Status, bytes.TrimSpace(data))
	}
	var out invokeResult
	if err := json.Unmarshal(data, &out); err != nil {
		// The emulator answers a timed-out invocation with plain text
		// ("Task timed out after 3.00 seconds").
		return fail(resultFunctionError, "%s", bytes.TrimSpace(data))
	}
	if out.ErrorType != "" || out.ErrorMessage != "" {
		return fail(resultFunctionError, "function error %s: %s", out.ErrorType, out.ErrorMessage)
	}
	return outcome{resp: out.APIGatewayProxyResponse, result: resultOK, sent: true}
}

// start runs one invocation on endpoint i (acquired: busy, and counted in
// wg) in its own goroutine and returns where its outcome will be sent. The
// endpoint stays busy until the invocation has ended, whoever waits for it.
func (f *Forwarder) start(i int, body []byte) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		defer f.wg.Done()
		o := f.invoke(f.ctx, f.eps[i].url, body)
		f.mu.Lock()
		e := &f.eps[i]
		e.busy--
		e.results[o.result]++
		if o.result == resultEndpointError {
			f.downLocked(i, o.err.Error())
		}
		f.changedLocked()
		f.mu.Unlock()
		done <- o
	}()
	return done
}

// downLocked marks endpoint i down and starts probing it.
func (f *Forwarder) downLocked(i int, why string) {
	e := &f.eps[i]
	e.lastErr = why
	if e.up {
		e.up = false
		e.since = time.Now()
		f.log.Warn("lambda endpoint down", "endpoint", e.url, "err", why)
	}
	if !e.probing && !f.closed {
		e.probing = true
		f.wg.Add(1)
		go f.probe(i)
	}
}

// probeEvent is what a probe invokes: an event without a connection id,
// which the function refuses at once (400) without touching its store or
// any connection. Any proxy response means the endpoint and the function
// work.
var probeEvent, _ = json.Marshal(events.APIGatewayWebsocketProxyRequest{
	RequestContext: events.APIGatewayWebsocketProxyRequestContext{
		EventType: "MESSAGE", RouteKey: "$default", Stage: "probe",
	},
})

// probe invokes probeEvent on down endpoint i every probeGap, when nothing
// runs on it, until it answers or Close is called.
func (f *Forwarder) probe(i int) {
	defer f.wg.Done()
	t := time.NewTicker(f.probeGap)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-f.probeCtx.Done():
			f.mu.Lock()
			f.eps[i].probing = false
			f.mu.Unlock()
			return
		}
		f.mu.Lock()
		e := &f.eps[i]
		if e.busy > 0 { // an invocation that outlived its caller has not ended
			f.mu.Unlock()
			continue
		}
		e.busy++
		url := e.url
		f.mu.Unlock()

		o := f.invoke(f.probeCtx, url, probeEvent)

		f.mu.Lock()
		e.busy--
		back := o.result == resultOK && !f.closed
		if back {
			e.up, e.since, e.lastErr, e.probing = true, time.Now(), "", false
		} else if o.err != nil {
			e.lastErr = o.err.Error()
		}
		f.changedLocked()
		f.mu.Unlock()
		if back {
			f.log.Info("lambda endpoint back", "endpoint", url)
			return
		}
	}
}

// Handle invokes the function with req and returns its response. It
// returns when ctx is done, or after the function timeout, without
// stopping the invocation: its endpoint stays busy until it ends.
func (f *Forwarder) Handle(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	// CONNECT and DISCONNECT can run twice; a MESSAGE only if it never ran.
	anyRetry := req.RequestContext.EventType != "MESSAGE"
	tried := make([]bool, len(f.eps))
	var lastErr error
	for {
		i, err := f.acquire(ctx, tried)
		if err != nil {
			if lastErr != nil && errors.Is(err, ErrUnavailable) {
				err = lastErr // the failure, not the lack of another endpoint
			}
			return events.APIGatewayProxyResponse{}, err
		}
		tried[i] = true
		done := f.start(i, body)
		timer := time.NewTimer(f.wait)
		var o outcome
		select {
		case o = <-done:
			timer.Stop()
		case <-ctx.Done():
			timer.Stop()
			return events.APIGatewayProxyResponse{}, ctx.Err()
		case <-timer.C:
			f.mu.Lock()
			f.downLocked(i, fmt.Sprintf("%s: no answer within the function timeout (%s)", f.eps[i].url, f.wait-timeoutGrace))
			f.changedLocked()
			f.mu.Unlock()
			return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: no answer within the function timeout (%s)", f.eps[i].url, f.wait-timeoutGrace)
		}
		if o.err == nil {
			return o.resp, nil
		}
		if o.result != resultEndpointError || !(anyRetry || !o.sent) || ctx.Err() != nil {
			return events.APIGatewayProxyResponse{}, o.err
		}
		lastErr = o.err
		f.retries.Add(1)
		f.log.Info("retrying the invocation on another endpoint", "event", req.RequestContext.EventType, "err", o.err.Error())
	}
}

// EndpointStatus is the state of one endpoint.
type EndpointStatus struct {
	URL      string
	Up       bool
	Since    time.Time // when it went up or down (or the forwarder started)
	Error    string    // why it is down; "" when up
	InFlight int       // invocations running on it (a probe included)
	// Invocations ended, by result: ResultOK, ResultFunctionError (the
	// function failed or timed out), ResultEndpointError (connection
	// failed or 5xx; the endpoint went down).
	Invocations map[string]uint64
}

// Status is the state of a Forwarder.
type Status struct {
	Endpoints []EndpointStatus
	// Retries counts invocations retried on another endpoint.
	Retries uint64
}

// Status returns the state of the endpoints.
func (f *Forwarder) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := Status{Retries: f.retries.Load()}
	for _, e := range f.eps {
		st.Endpoints = append(st.Endpoints, EndpointStatus{
			URL: e.url, Up: e.up, Since: e.since, Error: e.lastErr, InFlight: e.busy,
			Invocations: map[string]uint64{
				ResultOK:            e.results[resultOK],
				ResultFunctionError: e.results[resultFunctionError],
				ResultEndpointError: e.results[resultEndpointError],
			},
		})
	}
	return st
}

// Close stops the forwarder: Handle fails with ErrClosed from now on,
// probes stop, and the invocations still running are waited for until ctx
// is done, then aborted.
func (f *Forwarder) Close(ctx context.Context) {
	// Every wg.Add happens under mu while closed is false, so none comes
	// after the Wait below.
	f.mu.Lock()
	f.closed = true
	f.changedLocked()
	f.mu.Unlock()
	f.stopProbes()
	done := make(chan struct{})
	go func() {
		f.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		f.abort()
		<-done
	}
	f.abort()
}
