package main

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := loadConfig(env(map[string]string{"GROUNDWIRE_TABLE": "groundwire"}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Table: "groundwire", Mode: lambda.ModeHold, Model: "mock",
		TokenDelayMin: 20 * time.Millisecond, TokenDelayMax: 80 * time.Millisecond, MockSeed: 1,
		CancelCheckInterval: 200 * time.Millisecond, CoalesceInterval: 100 * time.Millisecond, DeadlineMargin: time.Second,
		LogLevel:      slog.LevelInfo,
		AWSMaxRetries: 3, AWSTimeout: 2 * time.Second,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
}

func TestLoadConfigAll(t *testing.T) {
	c, err := loadConfig(env(map[string]string{
		"GROUNDWIRE_TABLE":                  " gw-prod ",
		"GROUNDWIRE_MODE":                   "After",
		"GROUNDWIRE_POLICY":                 "Strict",
		"GROUNDWIRE_MODEL":                  "openai",
		"OPENAI_BASE_URL":                   "http://127.0.0.1:8000/v1/",
		"OPENAI_API_KEY":                    "sk-test",
		"OPENAI_MODEL":                      "gpt-4o-mini",
		"GROUNDWIRE_TOKEN_DELAY":            "0",
		"GROUNDWIRE_MOCK_SEED":              "42",
		"GROUNDWIRE_HALLUCINATION_RATE":     "0.25",
		"GROUNDWIRE_AUTH_TOKEN":             "s3cret",
		"GROUNDWIRE_AUTH_SECRET":            "0123456789abcdef",
		"GROUNDWIRE_ORIGINS":                "https://app.example.com, https://x.example.com ,",
		"GROUNDWIRE_CANCEL_CHECK_INTERVAL":  "0",
		"GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT": "2s",
		"GROUNDWIRE_COALESCE_INTERVAL":      "0",
		"GROUNDWIRE_DEADLINE_MARGIN":        "250ms",
		"GROUNDWIRE_ENDPOINT":               "http://127.0.0.1:8787/",
		"GROUNDWIRE_NO_RATE_LIMIT":          "true",
		"GROUNDWIRE_LOG_LEVEL":              "debug",
		"GROUNDWIRE_LOG_TEXT":               "1",
		"GROUNDWIRE_AWS_MAX_ATTEMPTS":       "2",
		"GROUNDWIRE_AWS_TIMEOUT":            "500ms",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		Table: "gw-prod", Mode: lambda.ModeAfter, Policy: guardrail.Strict, MockSeed: 42, Model: "openai",
		OpenAI: lambda.OpenAIConfig{BaseURL: "http://127.0.0.1:8000/v1/", APIKey: "sk-test", Model: "gpt-4o-mini"}, HallucinationRate: 0.25,
		AuthToken: "s3cret", AuthSecret: "0123456789abcdef", Origins: []string{"https://app.example.com", "https://x.example.com"},
		Endpoint: "http://127.0.0.1:8787", NoRateLimit: true, LogLevel: slog.LevelDebug, LogText: true,
		AWSMaxRetries: 2, AWSTimeout: 500 * time.Millisecond, CancelHandoffTimeout: 2 * time.Second,
		DeadlineMargin: 250 * time.Millisecond,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
	c, err = loadConfig(env(map[string]string{"GROUNDWIRE_TABLE": "t", "GROUNDWIRE_TOKEN_DELAY": "10ms - 30ms"}))
	if err != nil || c.TokenDelayMin != 10*time.Millisecond || c.TokenDelayMax != 30*time.Millisecond {
		t.Fatalf("delay range: %v %v %v", c.TokenDelayMin, c.TokenDelayMax, err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	_, err := loadConfig(env(map[string]string{
		"GROUNDWIRE_MODE":                   "later",
		"GROUNDWIRE_POLICY":                 "lenient",
		"GROUNDWIRE_MODEL":                  "gpt",
		"GROUNDWIRE_TOKEN_DELAY":            "80ms-20ms",
		"GROUNDWIRE_MOCK_SEED":              "-1",
		"GROUNDWIRE_HALLUCINATION_RATE":     "2",
		"GROUNDWIRE_CANCEL_CHECK_INTERVAL":  "-5ms",
		"GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT": "soon",
		"GROUNDWIRE_COALESCE_INTERVAL":      "-1ms",
		"GROUNDWIRE_DEADLINE_MARGIN":        "0",
		"GROUNDWIRE_ENDPOINT":               "localhost:8787",
		"GROUNDWIRE_NO_RATE_LIMIT":          "maybe",
		"GROUNDWIRE_LOG_LEVEL":              "loud",
		"GROUNDWIRE_AWS_MAX_ATTEMPTS":       "0",
		"GROUNDWIRE_AWS_TIMEOUT":            "0",
		"GROUNDWIRE_AUTH_SECRET":            "short",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, name := range []string{"GROUNDWIRE_TABLE", "GROUNDWIRE_MODE", "GROUNDWIRE_POLICY", "GROUNDWIRE_MODEL", "GROUNDWIRE_TOKEN_DELAY", "GROUNDWIRE_MOCK_SEED",
		"GROUNDWIRE_HALLUCINATION_RATE", "GROUNDWIRE_CANCEL_CHECK_INTERVAL", "GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT", "GROUNDWIRE_ENDPOINT",
		"GROUNDWIRE_COALESCE_INTERVAL", "GROUNDWIRE_DEADLINE_MARGIN",
		"GROUNDWIRE_NO_RATE_LIMIT", "GROUNDWIRE_LOG_LEVEL", "GROUNDWIRE_AWS_MAX_ATTEMPTS", "GROUNDWIRE_AWS_TIMEOUT", "GROUNDWIRE_AUTH_SECRET"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

func TestOpenAI(t *testing.T) {
	vars := map[string]string{"GROUNDWIRE_TABLE": "t", "OPENAI_API_KEY": "k", "OPENAI_MODEL": "m"}
	c, err := loadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if got := openAIIgnored(c, env(vars)); !reflect.DeepEqual(got, []string{"OPENAI_API_KEY", "OPENAI_MODEL"}) {
		t.Fatal(got)
	}
	vars["GROUNDWIRE_MODEL"] = "openai"
	if c, err = loadConfig(env(vars)); err != nil || openAIIgnored(c, env(vars)) != nil {
		t.Fatal(c, err)
	}
	if h, err := newHandler(c, aws.Config{Region: "us-east-1"}, slog.New(slog.DiscardHandler)); err != nil || h == nil {
		t.Fatal(err)
	}
	delete(vars, "OPENAI_MODEL")
	if _, err := loadConfig(env(vars)); err == nil || !strings.Contains(err.Error(), "OPENAI_MODEL") {
		t.Fatalf("openai without a model: %v", err)
	}
}

func TestHandler(t *testing.T) {
	c, _ := loadConfig(env(map[string]string{"GROUNDWIRE_TABLE": "t"}))
	h, err := newHandler(c, aws.Config{Region: "us-east-1"}, slog.New(slog.DiscardHandler))
	if err != nil || h == nil {
		t.Fatal(err)
	}
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	hits := base.Search("How much does Premium cost per month?", 3)
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range hits {
		if !strings.HasPrefix(h.Snippet.File, "kb/") || h.Snippet.Line < 1 || h.Snippet.Text == "" || h.Snippet.Source == nil {
			t.Fatalf("hit %+v", h.Snippet)
		}
	}
	if hits := base.Search("zebra quantum xylophone", 3); len(hits) != 0 {
		t.Fatalf("irrelevant query found %d hits", len(hits))
	}
}

// Dense retrieval is off unless GROUNDWIRE_EMBEDDINGS is set; then its
// model is required, its cache is in /tmp, and the OpenAI key is sent only
// to OpenAI's host.
func TestEmbeddingsConfig(t *testing.T) {
	vars := map[string]string{"GROUNDWIRE_TABLE": "t", "OPENAI_API_KEY": "sk"}
	c, err := loadConfig(env(vars))
	if err != nil || c.Embeddings.URL != "" {
		t.Fatalf("off by default: %+v, %v", c.Embeddings, err)
	}
	vars["GROUNDWIRE_EMBEDDINGS"] = "https://api.openai.com/v1"
	if _, err := loadConfig(env(vars)); err == nil || !strings.Contains(err.Error(), "GROUNDWIRE_EMBEDDINGS") {
		t.Fatalf("no model: %v", err)
	}
	vars["GROUNDWIRE_EMBEDDINGS_MODEL"] = "text-embedding-3-small"
	c, err = loadConfig(env(vars))
	if err != nil || c.Embeddings.Weight != 0 {
		t.Fatalf("the default weight (kb's): %+v, %v", c.Embeddings, err)
	}
	vars["GROUNDWIRE_EMBEDDINGS_TIMEOUT"] = "750ms"
	vars["GROUNDWIRE_EMBEDDINGS_WEIGHT"] = "0.5"
	c, err = loadConfig(env(vars))
	if err != nil || c.Embeddings.Model != "text-embedding-3-small" || c.Embeddings.APIKey != "sk" ||
		c.Embeddings.CacheDir != "/tmp/groundwire-embeddings" || c.Embeddings.Timeout != 750*time.Millisecond || c.Embeddings.Weight != 0.5 {
		t.Fatalf("%+v, %v", c.Embeddings, err)
	}
	vars["GROUNDWIRE_EMBEDDINGS"] = "http://embeddings.internal:11434/v1"
	vars["GROUNDWIRE_EMBEDDINGS_CACHE"] = "/tmp/e"
	if c, err = loadConfig(env(vars)); err != nil || c.Embeddings.APIKey != "" || c.Embeddings.CacheDir != "/tmp/e" {
		t.Fatalf("another host: %+v, %v", c.Embeddings, err)
	}
	vars["GROUNDWIRE_EMBEDDINGS_TIMEOUT"] = "soon"
	if _, err := loadConfig(env(vars)); err == nil || !strings.Contains(err.Error(), "GROUNDWIRE_EMBEDDINGS_TIMEOUT") {
		t.Fatalf("bad timeout: %v", err)
	}
	vars["GROUNDWIRE_EMBEDDINGS_TIMEOUT"] = "1s"
	for _, w := range []string{"0", "-1", "heavy", "NaN", "Inf"} {
		vars["GROUNDWIRE_EMBEDDINGS_WEIGHT"] = w
		if _, err := loadConfig(env(vars)); err == nil || !strings.Contains(err.Error(), "GROUNDWIRE_EMBEDDINGS_WEIGHT") {
			t.Errorf("weight %q: %v", w, err)
		}
	}
}
