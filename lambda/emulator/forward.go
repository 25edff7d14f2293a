package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/aws/aws-lambda-go/events"
)

// InvokePath is the Lambda Runtime Interface Emulator's invoke endpoint.
const InvokePath = "/2015-03-31/functions/function/invocations"

// ForwarderOptions configure a Forwarder.
type ForwarderOptions struct {
	// Client sends the invocations (default: an http.Client without
	// timeout: a `message` invocation lasts as long as its answer streams;
	// the caller's context bounds it).
	Client *http.Client
	// MaxInFlight is how many invocations one endpoint runs at once. The
	// Runtime Interface Emulator runs one at a time, like one Lambda
	// execution environment, so the default is 1 and further invocations
	// wait for a free endpoint. Negative means no limit.
	MaxInFlight int
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
type Forwarder struct {
	client *http.Client
	max    int
	urls   []string

	mu    sync.Mutex
	busy  []int
	next  int
	freed chan struct{} // closed and replaced whenever a slot frees
}

// NewForwarder returns a forwarder to endpoints: base URLs of runtime
// invoke APIs ("http://127.0.0.1:9001"), or full invoke URLs (ending in
// /invocations).
func NewForwarder(endpoints []string, opts ForwarderOptions) (*Forwarder, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("emulator: no Lambda endpoint")
	}
	f := &Forwarder{client: opts.Client, max: opts.MaxInFlight, busy: make([]int, len(endpoints)), freed: make(chan struct{})}
	if f.client == nil {
		f.client = &http.Client{}
	}
	if f.max == 0 {
		f.max = 1
	}
	for _, ep := range endpoints {
		ep = strings.TrimSpace(ep)
		if !strings.HasPrefix(ep, "http://") && !strings.HasPrefix(ep, "https://") {
			return nil, fmt.Errorf("emulator: endpoint %q is not an http(s) URL", ep)
		}
		if !strings.HasSuffix(ep, "/invocations") {
			ep = strings.TrimSuffix(ep, "/") + InvokePath
		}
		f.urls = append(f.urls, ep)
	}
	return f, nil
}

// acquire picks the least busy endpoint with a free slot, waiting for one
// when all are full.
func (f *Forwarder) acquire(ctx context.Context) (int, error) {
	for {
		f.mu.Lock()
		best := -1
		for k := range f.urls {
			i := (f.next + k) % len(f.urls)
			if f.max > 0 && f.busy[i] >= f.max {
				continue
			}
			if best < 0 || f.busy[i] < f.busy[best] {
				best = i
			}
		}
		if best >= 0 {
			f.busy[best]++
			f.next = (best + 1) % len(f.urls)
			f.mu.Unlock()
			return best, nil
		}
		freed := f.freed
		f.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (f *Forwarder) release(i int) {
	f.mu.Lock()
	f.busy[i]--
	close(f.freed)
	f.freed = make(chan struct{})
	f.mu.Unlock()
}

// invokeResult is what an invocation returns: the proxy response, or the
// runtime's error document when the function failed.
type invokeResult struct {
	events.APIGatewayProxyResponse
	ErrorMessage string `json:"errorMessage"`
	ErrorType    string `json:"errorType"`
}

// Handle invokes the function with req and returns its response.
func (f *Forwarder) Handle(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	i, err := f.acquire(ctx)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	defer f.release(i)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, f.urls[i], bytes.NewReader(body))
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(hreq)
	if err != nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: %w", f.urls[i], err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 6<<20)) // Lambda's response limit
	if err != nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: %w", f.urls[i], err)
	}
	if resp.StatusCode != http.StatusOK {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: %s: %s", f.urls[i], resp.Status, bytes.TrimSpace(data))
	}
	var out invokeResult
	if err := json.Unmarshal(data, &out); err != nil {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: decoding the response: %w", f.urls[i], err)
	}
	if out.ErrorType != "" || out.ErrorMessage != "" {
		return events.APIGatewayProxyResponse{}, fmt.Errorf("invoke %s: function error %s: %s", f.urls[i], out.ErrorType, out.ErrorMessage)
	}
	return out.APIGatewayProxyResponse, nil
}
