package lambda_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// sseServer is an OpenAI-compatible chat-completions endpoint that streams
// the given content pieces as SSE chunks, then what tail says: "done"
// ([DONE]), "error" (an error event), "hang" (wait until the client goes).
type sseServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	auth     string
	gone     chan struct{}
}

func newSSEServer(t *testing.T, status int, pieces []string, tail string) *sseServer {
	s := &sseServer{gone: make(chan struct{}, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.auth = r.Header.Get("Authorization")
		s.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"upstream overloaded","type":"server_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, p := range pieces {
			b, _ := json.Marshal(p)
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1763806530,\"model\":\"test-model\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":%s},\"finish_reason\":null}]}\n\n", b)
			if i == 0 {
				// a chunk without content (as some servers send)
				io.WriteString(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1763806530,\"model\":\"test-model\",\"choices\":[]}\n\n")
			}
			fl.Flush()
		}
		switch tail {
		case "done":
			io.WriteString(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1763806530,\"model\":\"test-model\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		case "error":
			io.WriteString(w, "data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n")
		case "hang":
			fl.Flush()
			<-r.Context().Done()
			s.gone <- struct{}{}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) model(t *testing.T) *lambda.OpenAI {
	m, err := lambda.NewOpenAI(lambda.OpenAIConfig{BaseURL: s.URL + "/v1/", APIKey: "sk-test", Model: "test-model", HTTPClient: s.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readAll(toks lambda.Tokens) (string, error) {
	var b strings.Builder
	for {
		tok, err := toks.Next()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		b.WriteString(tok)
	}
}

func TestOpenAIStreams(t *testing.T) {
	s := newSSEServer(t, 200, []string{"Premium", " costs", " 399", " kr/month."}, "done")
	toks, err := s.model(t).Stream(t.Context(), lambda.Prompt{Question: "Vad kostar Premium?", Lang: lambda.Swedish, Snippets: pricing})
	if err != nil {
		t.Fatal(err)
	}
	defer toks.Close()
	got, err := readAll(toks)
	if err != nil || got != "Premium costs 399 kr/month." {
		t.Fatalf("got %q, %v", got, err)
	}
	if s.auth != "Bearer sk-test" {
		t.Fatalf("auth %q", s.auth)
	}
	req := s.requests[0]
	if req["model"] != "test-model" || req["stream"] != true {
		t.Fatalf("request %v", req)
	}
	msgs := req["messages"].([]any)
	system := msgs[0].(map[string]any)["content"].(string)
	user := msgs[1].(map[string]any)["content"].(string)
	if !strings.Contains(system, "Premium: 399 kr/month.") || !strings.Contains(system, "kb/en/pricing.md") ||
		!strings.Contains(system, "Answer in Swedish") || !strings.Contains(system, "exactly as it is written") {
		t.Fatalf("system prompt %q", system)
	}
	if user != "Vad kostar Premium?" {
		t.Fatalf("user message %q", user)
	}
}

func TestOpenAIMidStreamError(t *testing.T) {
	s := newSSEServer(t, 200, []string{"Premium", " costs"}, "error")
	toks, _ := s.model(t).Stream(t.Context(), lambda.Prompt{Question: "q", Snippets: pricing})
	defer toks.Close()
	got, err := readAll(toks)
	if err == nil || got != "Premium costs" || !strings.Contains(err.Error(), "model overloaded") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestOpenAIHTTPError(t *testing.T) {
	s := newSSEServer(t, 500, nil, "")
	toks, err := s.model(t).Stream(t.Context(), lambda.Prompt{Question: "q", Snippets: pricing})
	if err != nil {
		t.Fatal(err)
	}
	defer toks.Close()
	if _, err := toks.Next(); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("Next: %v", err)
	}
	if len(s.requests) != 1 {
		t.Fatalf("%d requests: no retries by default", len(s.requests))
	}
}

func TestOpenAICancel(t *testing.T) {
	s := newSSEServer(t, 200, []string{"Premium"}, "hang")
	ctx, cancel := context.WithCancel(t.Context())
	toks, _ := s.model(t).Stream(ctx, lambda.Prompt{Question: "q", Snippets: pricing})
	defer toks.Close()
	if tok, err := toks.Next(); tok != "Premium" || err != nil {
		t.Fatalf("first token %q %v", tok, err)
	}
	errc := make(chan error, 1)
	go func() { _, err := toks.Next(); errc <- err }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Next after cancel returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after cancel")
	}
	select {
	case <-s.gone: // the request was torn down
	case <-time.After(5 * time.Second):
		t.Fatal("server request still open")
	}
}

func TestOpenAIInHandler(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"Premium", " costs", " 399", " kr", " a", " month."}, "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"},
		{[]string{"Premium", " costs", " 349", " kr", " a", " month."}, "sources:m1 stream:m1 stream_end:m1:blocked response:m1:blocked"},
	} {
		s := newSSEServer(t, 200, c.pieces, "done")
		hs := newHarness(t, func(cfg *lambda.Config) { cfg.Model = s.model(t) })
		hs.connect("c1")
		hs.send("c1", msg("m1", "How much does Premium cost?"))
		if got := hs.summary("c1"); got != c.want {
			t.Fatalf("frames: %s\nwant %s", got, c.want)
		}
		if d := deltas(hs.frames("c1"), "m1"); strings.Contains(d, "349") {
			t.Fatalf("ungrounded number streamed: %q", d)
		}
	}
}

func TestOpenAIConfig(t *testing.T) {
	if _, err := lambda.NewOpenAI(lambda.OpenAIConfig{}); err == nil {
		t.Fatal("no model name accepted")
	}
}
