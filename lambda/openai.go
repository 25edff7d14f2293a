package lambda

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/groundwire/groundwire/kb"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// OpenAIConfig configures a model behind any OpenAI-compatible streaming
// chat-completions endpoint. The mains read these from the environment;
// the package never does.
type OpenAIConfig struct {
	// BaseURL of the API, e.g. "https://api.openai.com/v1/" or a local
	// server's ".../v1/". Empty: the library's default (OpenAI).
	BaseURL string
	APIKey  string
	// Model name (required), e.g. "gpt-4o-mini".
	Model string
	// HTTPClient to use (default http.DefaultClient).
	HTTPClient *http.Client
	// MaxTokens bounds the answer (default 400).
	MaxTokens int
	// Retries of a failed request before streaming starts (default 0: a
	// realtime answer fails fast and the client is told).
	Retries int
}

// OpenAI is a [Model] streaming from an OpenAI-compatible endpoint with a
// retrieve-first prompt: the snippets are the only context and the model is
// told to use only their numbers, exactly as written (the guard checks it
// anyway). It is safe for concurrent use.
type OpenAI struct {
	client openai.Client
	cfg    OpenAIConfig
}

// NewOpenAI returns the model for cfg.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, errors.New("lambda: OpenAIConfig.Model is required")
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 400
	}
	opts := []option.RequestOption{option.WithMaxRetries(max(cfg.Retries, 0))}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &OpenAI{client: openai.NewClient(opts...), cfg: cfg}, nil
}

var _ Model = (*OpenAI)(nil)

// Stream implements [Model]. Errors of the request (status, network) are
// returned by the first Next.
func (m *OpenAI) Stream(ctx context.Context, p Prompt) (Tokens, error) {
	params := openai.ChatCompletionNewParams{
		Model: m.cfg.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(SystemPrompt(p)),
			openai.UserMessage(p.Question),
		},
		MaxTokens:   openai.Int(int64(m.cfg.MaxTokens)),
		Temperature: openai.Float(0),
	}
	return &openAITokens{s: m.client.Chat.Completions.NewStreaming(ctx, params)}, nil
}

// SystemPrompt is the retrieve-first instruction given to a real model.
// It avoids labelling snippets with numbers (a model echoing "[1]" would
// say an ungrounded number).
func SystemPrompt(p Prompt) string {
	lang := "English"
	if p.Lang == Swedish {
		lang = "Swedish"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `You are groundwire, a customer support agent. Answer the user's question using only the knowledge-base snippets below.
Every number you write (prices, amounts, percentages, dates, times, phone numbers) must appear in the snippets, written exactly as it is written there. Never compute, convert, round, combine or invent numbers, and never mention line numbers or snippet positions.
If the snippets do not answer the question, say briefly that you cannot find it in the knowledge base.
Answer in %s, in at most three sentences of plain text.
`, lang)
	if p.Confidence == kb.ConfidenceLow {
		b.WriteString("The search is not sure these snippets answer the question: your answer follows the words \"" + p.Lang.texts().MayHelp + "\"; say what they cover and that they may not be exactly what was asked.\n")
	}
	b.WriteString(`
Snippets:
`)
	for _, s := range p.Snippets {
		fmt.Fprintf(&b, "--- from %s\n%s\n", s.File, s.Snippet)
	}
	return b.String()
}

type openAITokens struct {
	s *ssestream.Stream[openai.ChatCompletionChunk]
}

func (t *openAITokens) Next() (string, error) {
	for t.s.Next() {
		c := t.s.Current()
		if len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
			return c.Choices[0].Delta.Content, nil
		}
	}
	if err := t.s.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (t *openAITokens) Close() error { return t.s.Close() }
