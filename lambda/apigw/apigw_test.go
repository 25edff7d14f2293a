package apigw_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/apigw"
	"github.com/groundwire/groundwire/lambda/emulator"
)

func awsConfig() aws.Config {
	return aws.Config{
		Region: "eu-north-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "test"}, nil
		}),
		RetryMaxAttempts: 2,
	}
}

// server speaks the Management API over a Recorder, counting requests per
// path prefix.
type server struct {
	*httptest.Server
	rec   *emulator.Recorder
	mu    sync.Mutex
	paths []string
}

func newServer(t *testing.T) *server {
	s := &server{rec: emulator.NewRecorder()}
	api := emulator.NewManagementAPI(s.rec, emulator.ManagementOptions{RequireSignature: true})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.EscapedPath())
		s.mu.Unlock()
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestSend(t *testing.T) {
	srv := newServer(t)
	srv.rec.Open("c1", emulator.Info{})
	s := apigw.New(awsConfig(), apigw.Options{})
	ctx := context.Background()

	if err := s.Send(ctx, "c1", []byte(`{}`)); !errors.Is(err, apigw.ErrNoEndpoint) {
		t.Fatalf("send without endpoint: %v", err)
	}
	frame := []byte(`{"type":"stream","id":"m1","delta":"Premium"}`)
	if err := s.Send(apigw.WithEndpoint(ctx, srv.URL+"/prod"), "c1", frame); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(apigw.WithEndpoint(ctx, srv.URL+"/dev"), "c1", frame); err != nil {
		t.Fatal(err)
	}
	if got := srv.rec.Sent("c1"); len(got) != 2 || string(got[0]) != string(frame) {
		t.Fatalf("sent %q", got)
	}
	if strings.Join(srv.paths, ",") != "POST /prod/@connections/c1,POST /dev/@connections/c1" {
		t.Fatalf("paths %v", srv.paths)
	}

	// gone: an error wrapping lambda.ErrGone
	err := s.Send(apigw.WithEndpoint(ctx, srv.URL), "nope", frame)
	if !errors.Is(err, lambda.ErrGone) {
		t.Fatalf("send to unknown connection: %v", err)
	}

	// the override wins over the event's endpoint
	o := apigw.New(awsConfig(), apigw.Options{Endpoint: srv.URL})
	if err := o.Send(apigw.WithEndpoint(ctx, "https://unreachable.invalid/prod"), "c1", frame); err != nil {
		t.Fatal(err)
	}
}

func TestEndpointOf(t *testing.T) {
	req := events.APIGatewayWebsocketProxyRequest{RequestContext: events.APIGatewayWebsocketProxyRequestContext{
		DomainName: "abc123.execute-api.eu-north-1.amazonaws.com", Stage: "prod",
	}}
	if got := apigw.EndpointOf(req); got != "https://abc123.execute-api.eu-north-1.amazonaws.com/prod" {
		t.Fatal(got)
	}
	if got := apigw.EndpointOf(events.APIGatewayWebsocketProxyRequest{}); got != "" {
		t.Fatal(got)
	}
	// Wrap puts the event's endpoint into the context; the sender posts there
	var seen []string
	s := apigw.New(awsConfig(), apigw.Options{ClientOptions: []func(*apigatewaymanagementapi.Options){
		func(o *apigatewaymanagementapi.Options) {
			o.HTTPClient = doer(func(r *http.Request) (*http.Response, error) {
				seen = append(seen, r.Method+" "+r.URL.String())
				return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
			})
		},
	}})
	h := apigw.Wrap(func(ctx context.Context, _ events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
		return events.APIGatewayProxyResponse{StatusCode: 200}, s.Send(ctx, "c1=", []byte(`{}`))
	})
	if _, err := h(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != "POST https://abc123.execute-api.eu-north-1.amazonaws.com/prod/@connections/c1%3D" {
		t.Fatalf("posted %v", seen)
	}
}

type doer func(*http.Request) (*http.Response, error)

func (d doer) Do(r *http.Request) (*http.Response, error) { return d(r) }

func TestSendErrorsBounded(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	s := apigw.New(awsConfig(), apigw.Options{Endpoint: srv.URL})
	err := s.Send(context.Background(), "c1", []byte(`{}`))
	if err == nil || errors.Is(err, lambda.ErrGone) {
		t.Fatalf("err = %v", err)
	}
	if got := n.Load(); got != 2 {
		t.Fatalf("%d attempts, want RetryMaxAttempts = 2", got)
	}
}

// TestSplitStream: a stream frame over 32 KB goes out as several stream
// frames of at most 32 KB whose deltas give the original back.
func TestSplitStream(t *testing.T) {
	deltas := []string{
		strings.Repeat("Premium kostar 399 kr i månaden. ", 3000),
		strings.Repeat("€", 20000),              // 3-byte runes
		strings.Repeat("<&>", 12000),            // HTML-escaped: 6 bytes each
		strings.Repeat("a\n\"\\\x01😀", 8000),    // escapes and 4-byte runes
		strings.Repeat("x", 40000) + "\xff\xfe", // invalid UTF-8
	}
	srv := newServer(t)
	srv.rec.Open("c1", emulator.Info{})
	s := apigw.New(awsConfig(), apigw.Options{Endpoint: srv.URL})
	for i, delta := range deltas {
		data, _ := json.Marshal(lambda.StreamFrame{Type: lambda.TypeStream, ID: "m1", Delta: delta})
		if len(data) <= apigw.MaxFrameBytes {
			t.Fatalf("case %d: frame of %d bytes is not over the limit", i, len(data))
		}
		frames, err := apigw.Split(data, apigw.MaxFrameBytes)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(frames) < 2 {
			t.Fatalf("case %d: %d frames", i, len(frames))
		}
		var whole strings.Builder
		for _, f := range frames {
			if len(f) > apigw.MaxFrameBytes {
				t.Fatalf("case %d: frame of %d bytes", i, len(f))
			}
			var sf lambda.StreamFrame
			if err := json.Unmarshal(f, &sf); err != nil {
				t.Fatal(err)
			}
			if sf.Type != lambda.TypeStream || sf.ID != "m1" || sf.Delta == "" {
				t.Fatalf("case %d: piece %+v", i, sf)
			}
			whole.WriteString(sf.Delta)
		}
		var orig lambda.StreamFrame // what the JSON carries (invalid UTF-8 replaced)
		json.Unmarshal(data, &orig)
		if whole.String() != orig.Delta {
			t.Fatalf("case %d: deltas do not give the original back", i)
		}
		before := len(srv.rec.Sent("c1"))
		if err := s.Send(context.Background(), "c1", data); err != nil {
			t.Fatal(err)
		}
		if got := len(srv.rec.Sent("c1")) - before; got != len(frames) {
			t.Fatalf("case %d: %d posts, want %d", i, got, len(frames))
		}
	}
	for _, f := range srv.rec.Sent("c1") {
		if len(f) > apigw.MaxFrameBytes || !utf8.Valid(f) {
			t.Fatalf("posted a frame of %d bytes", len(f))
		}
	}
}

func TestOversizedOtherFrames(t *testing.T) {
	srv := newServer(t)
	srv.rec.Open("c1", emulator.Info{})
	s := apigw.New(awsConfig(), apigw.Options{Endpoint: srv.URL})
	big := strings.Repeat("x", apigw.MaxFrameBytes)
	for _, f := range []any{
		lambda.ResponseFrame{Type: lambda.TypeResponse, ID: "m1", Text: big, Status: lambda.StatusVerified},
		lambda.ErrorFrame{Type: lambda.TypeError, Code: lambda.EInternal, Message: big},
		lambda.StreamFrame{Type: lambda.TypeStream, ID: big, Delta: "x"}, // no room left for a delta
	} {
		data, _ := json.Marshal(f)
		if err := s.Send(context.Background(), "c1", data); !errors.Is(err, apigw.ErrFrameTooLarge) {
			t.Fatalf("%T: %v", f, err)
		}
	}
	if _, err := apigw.Split([]byte(`not json`+big), apigw.MaxFrameBytes); !errors.Is(err, apigw.ErrFrameTooLarge) {
		t.Fatal(err)
	}
	if n := len(srv.rec.Sent("c1")); n != 0 {
		t.Fatalf("%d frames posted", n)
	}
	// exactly at the limit: sent as is
	data := []byte(`{"type":"response","text":"` + strings.Repeat("x", apigw.MaxFrameBytes-29) + `"}`)
	if len(data) != apigw.MaxFrameBytes {
		t.Fatal(len(data))
	}
	if err := s.Send(context.Background(), "c1", data); err != nil {
		t.Fatal(err)
	}
}

// deleteCounter records DeleteConnection calls.
type deleteCounter struct {
	lambda.Store
	deleted atomic.Int32
}

func (d *deleteCounter) DeleteConnection(ctx context.Context, id string) error {
	d.deleted.Add(1)
	return d.Store.DeleteConnection(ctx, id)
}

type oneSnippet struct{}

func (oneSnippet) Search(query string, k int) []lambda.Hit {
	return []lambda.Hit{{Snippet: &lambda.Snippet{File: "kb/pricing.md", Line: 3, Text: "Premium costs 399 kr per month."}, Score: 1}}
}

// TestGoneEndsWork: a 410 from the Management API stops the handler's work
// for that connection and deletes its state.
func TestGoneEndsWork(t *testing.T) {
	srv := newServer(t)
	srv.rec.Open("c1", emulator.Info{})
	store := &deleteCounter{Store: lambda.NewMemStore()}
	h, err := lambda.New(lambda.Config{
		Retriever: oneSnippet{}, Model: lambda.NewMock(lambda.MockDelay(0, 0)), Store: store,
		Sender: apigw.New(awsConfig(), apigw.Options{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	ev := func(typ, body string) events.APIGatewayWebsocketProxyRequest {
		return events.APIGatewayWebsocketProxyRequest{Body: body, RequestContext: events.APIGatewayWebsocketProxyRequestContext{
			EventType: typ, ConnectionID: "c1", DomainName: "example.invalid", Stage: "prod",
		}}
	}
	ctx := apigw.WithEndpoint(context.Background(), srv.URL+"/prod")
	if resp, _ := h.Handle(ctx, ev(lambda.EventConnect, "")); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	srv.rec.Close("c1") // the client went away without a DISCONNECT yet
	h.Handle(ctx, ev(lambda.EventMessage, `{"type":"message","id":"m1","text":"How much is Premium? call me"}`))
	if store.deleted.Load() != 1 {
		t.Fatalf("DeleteConnection called %d times after 410", store.deleted.Load())
	}
	posts := 0
	for _, p := range srv.paths {
		if strings.HasPrefix(p, "POST ") {
			posts++
		}
	}
	if posts != 1 {
		t.Fatalf("%d posts after the first 410: %v", posts, srv.paths)
	}
	if stop, _ := store.AnswerCancelled(context.Background(), "c1", "m1"); !stop {
		t.Fatal("answer still active")
	}
}
