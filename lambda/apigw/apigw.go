// Package apigw sends server frames to WebSocket clients through the API
// Gateway Management API (PostToConnection): the lambda.Sender of the
// deployed Lambda.
//
// # Endpoint
//
// The Management API of a WebSocket API lives at https://{domainName}/{stage}
// (or a custom domain's base path). A Lambda function learns both from each
// event's request context, so the sender takes the endpoint from the context
// of the call: wrap the handler with [Wrap] (or call [WithRequest] on the
// context yourself) and every frame sent during that invocation goes to the
// API that invoked it. [Options.Endpoint] overrides it (local runs against an
// emulator, custom domains). One client is cached per endpoint.
//
// # Limits and errors
//
// API Gateway refuses WebSocket frames over 32 KB, so none is ever posted: a
// `stream` frame whose JSON is larger is split into several `stream` frames
// whose deltas concatenate to the original (cut on rune boundaries); any
// other frame that large is an error ([ErrFrameTooLarge]) and is not sent.
// A 410 GoneException becomes an error wrapping lambda.ErrGone, which ends
// that connection's work in the handler.
package apigw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi/types"

	"github.com/groundwire/groundwire/lambda"
)

// MaxFrameBytes is API Gateway's limit on one WebSocket frame (32 KB).
const MaxFrameBytes = 32 * 1024

// ErrFrameTooLarge is returned (wrapped) for a frame over MaxFrameBytes that
// cannot be split (anything but a `stream` frame). Nothing is sent.
var ErrFrameTooLarge = errors.New("apigw: frame over 32 KB")

// ErrNoEndpoint is returned when neither the context nor Options.Endpoint
// says where the Management API is.
var ErrNoEndpoint = errors.New("apigw: no Management API endpoint (use apigw.Wrap or WithRequest, or set Options.Endpoint)")

// Options configure a Sender.
type Options struct {
	// Endpoint, when set, is used for every send instead of the one derived
	// from the event (e.g. "http://127.0.0.1:8787" for a local emulator).
	Endpoint string
	// Timeout bounds one PostToConnection, retries included (default 5 s).
	Timeout time.Duration
	// ClientOptions are applied to every Management API client (retryer,
	// HTTP client, ...).
	ClientOptions []func(*apigatewaymanagementapi.Options)
}

// Sender posts frames to connections; it implements lambda.Sender and is
// safe for concurrent use.
type Sender struct {
	cfg  aws.Config
	opts Options

	mu      sync.Mutex
	clients map[string]*apigatewaymanagementapi.Client
}

var _ lambda.Sender = (*Sender)(nil)

// New returns a sender using cfg (region, credentials, retryer, HTTP
// client) for its Management API clients.
func New(cfg aws.Config, opts Options) *Sender {
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	return &Sender{cfg: cfg, opts: opts, clients: map[string]*apigatewaymanagementapi.Client{}}
}

type endpointKey struct{}

// WithEndpoint returns a context whose sends go to the Management API at
// endpoint (like "https://abc123.execute-api.eu-north-1.amazonaws.com/prod").
func WithEndpoint(ctx context.Context, endpoint string) context.Context {
	return context.WithValue(ctx, endpointKey{}, endpoint)
}

// WithRequest returns a context whose sends go to the Management API of the
// API and stage that sent req.
func WithRequest(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) context.Context {
	if ep := EndpointOf(req); ep != "" {
		return WithEndpoint(ctx, ep)
	}
	return ctx
}

// EndpointOf returns https://{domainName}/{stage} of the event, or "" when
// the event does not say.
func EndpointOf(req events.APIGatewayWebsocketProxyRequest) string {
	rc := req.RequestContext
	if rc.DomainName == "" {
		return ""
	}
	ep := "https://" + rc.DomainName
	if rc.Stage != "" {
		ep += "/" + rc.Stage
	}
	return ep
}

// HandlerFunc is the shape of lambda.Handler.Handle.
type HandlerFunc func(context.Context, events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error)

// Wrap returns a handler that puts the event's endpoint into the context
// (WithRequest) before calling h.
func Wrap(h HandlerFunc) HandlerFunc {
	return func(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
		return h(WithRequest(ctx, req), req)
	}
}

func (s *Sender) endpoint(ctx context.Context) (string, error) {
	if s.opts.Endpoint != "" {
		return s.opts.Endpoint, nil
	}
	if ep, _ := ctx.Value(endpointKey{}).(string); ep != "" {
		return ep, nil
	}
	return "", ErrNoEndpoint
}

// client returns the cached client of an endpoint.
func (s *Sender) client(endpoint string) *apigatewaymanagementapi.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[endpoint]
	if c == nil {
		optFns := append([]func(*apigatewaymanagementapi.Options){func(o *apigatewaymanagementapi.Options) {
			o.BaseEndpoint = aws.String(endpoint)
		}}, s.opts.ClientOptions...)
		c = apigatewaymanagementapi.NewFromConfig(s.cfg, optFns...)
		s.clients[endpoint] = c
	}
	return c
}

// Send implements lambda.Sender: it posts data to the connection, split
// into several stream frames when it is a stream frame over 32 KB.
func (s *Sender) Send(ctx context.Context, connectionID string, data []byte) error {
	frames, err := Split(data, MaxFrameBytes)
	if err != nil {
		return err
	}
	ep, err := s.endpoint(ctx)
	if err != nil {
		return err
	}
	c := s.client(ep)
	for _, f := range frames {
		if err := s.post(ctx, c, connectionID, f); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sender) post(ctx context.Context, c *apigatewaymanagementapi.Client, connectionID string, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	_, err := c.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{
		ConnectionId: aws.String(connectionID),
		Data:         data,
	})
	if err == nil {
		return nil
	}
	if gone := (*types.GoneException)(nil); errors.As(err, &gone) {
		return fmt.Errorf("post to connection %s: %w (%w)", connectionID, lambda.ErrGone, err)
	}
	return fmt.Errorf("post to connection %s: %w", connectionID, err)
}

// Split returns data as frames of at most limit bytes each: data itself
// when it fits; for a larger `stream` frame, several stream frames (same id
// and other fields) whose deltas, concatenated, are the original delta, cut
// on rune boundaries. Any other frame over the limit is an error wrapping
// ErrFrameTooLarge.
func Split(data []byte, limit int) ([][]byte, error) {
	if len(data) <= limit {
		return [][]byte{data}, nil
	}
	var fields map[string]json.RawMessage
	var typ, delta string
	if err := json.Unmarshal(data, &fields); err != nil ||
		json.Unmarshal(fields["type"], &typ) != nil || typ != lambda.TypeStream ||
		json.Unmarshal(fields["delta"], &delta) != nil {
		return nil, fmt.Errorf("%w: %d bytes (type %q)", ErrFrameTooLarge, len(data), typ)
	}
	fields["delta"] = json.RawMessage(`""`)
	empty, err := marshal(fields)
	if err != nil {
		return nil, err
	}
	budget := limit - len(empty) // bytes left for the encoded delta's content
	if budget < 6 {              // room for at least one escaped rune
		return nil, fmt.Errorf("%w: %d bytes of other fields", ErrFrameTooLarge, len(empty))
	}
	var frames [][]byte
	for delta != "" {
		n, size := 0, 0 // bytes of delta taken, encoded size
		for n < len(delta) {
			r, w := utf8.DecodeRuneInString(delta[n:])
			rs := encodedLen(r, w)
			if size+rs > budget {
				break
			}
			size += rs
			n += w
		}
		d, err := marshal(delta[:n])
		if err != nil {
			return nil, err
		}
		fields["delta"] = d
		f, err := marshal(fields)
		if err != nil {
			return nil, err
		}
		if len(f) > limit { // encodedLen disagrees with encoding/json: never send it
			return nil, fmt.Errorf("%w: split frame of %d bytes", ErrFrameTooLarge, len(f))
		}
		frames = append(frames, f)
		delta = delta[n:]
	}
	return frames, nil
}

// marshal is json.Marshal as the handler encodes frames (HTML-escaped).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// encodedLen is how many bytes encoding/json writes for rune r (w bytes in
// the input) inside a string.
func encodedLen(r rune, w int) int {
	switch {
	case r == utf8.RuneError && w == 1:
		return 6 // \ufffd
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	}
	return w
}
