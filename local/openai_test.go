package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeOpenAI serves an OpenAI-compatible streaming chat endpoint that
// answers every request with the given tokens, as server-sent events.
func fakeOpenAI(t *testing.T, tokens ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, tok := range tokens {
			chunk, _ := json.Marshal(map[string]any{
				"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "test-model",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": tok}}},
			})
			fmt.Fprintf(w, "data: %s\n\n", chunk)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// -model openai: the answer comes from an OpenAI-compatible endpoint named
// by OPENAI_BASE_URL/OPENAI_API_KEY/OPENAI_MODEL and is verified like the
// mock's.
func TestOpenAIModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []string
		status string
	}{
		{"grounded", []string{"Premium", " costs", " 399", " kr", " a month."}, "verified"},
		{"hallucinated", []string{"Premium", " costs", " 499", " kr", " a month."}, "blocked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := fakeOpenAI(t, tc.tokens...)
			env := map[string]string{"OPENAI_BASE_URL": api.URL + "/v1/", "OPENAI_API_KEY": "sk-test", "OPENAI_MODEL": "test-model"}
			cfg := defaultConfig()
			cfg.Model, cfg.NoWASM = "openai", true
			wired, err := wire(cfg, slog.New(slog.DiscardHandler), func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if wired.ModelName != "openai test-model" {
				t.Fatalf("model name %q", wired.ModelName)
			}
			ts := startServerDeps(t, func(d *deps) { d.Model = wired.Model })
			c := ts.dial(t, "/ws", nil)
			defer c.close()
			c.message("m1", "What does Premium cost?")
			fs := c.answer("m1")
			resp := fs[len(fs)-1]
			if resp.Type != "response" || resp.Status != tc.status {
				t.Fatalf("frames %s, last %+v", types(fs), resp)
			}
			if strings.Contains(deltas(fs, "m1"), "499") {
				t.Fatalf("ungrounded number streamed: %q", deltas(fs, "m1"))
			}
			c.quiet(50 * time.Millisecond)
		})
	}
}
