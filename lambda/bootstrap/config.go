package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
)

// config is the bootstrap's configuration, read from the environment.
type config struct {
	Table  string           // GROUNDWIRE_TABLE (required)
	Mode   lambda.Mode      // GROUNDWIRE_MODE: hold (default) | after
	Policy guardrail.Policy // GROUNDWIRE_POLICY: default | strict
	Model  string           // GROUNDWIRE_MODEL: mock (default) | openai
	OpenAI lambda.OpenAIConfig
	// OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL (required for openai)
	// Embeddings turns dense retrieval on (off when URL is ""):
	// GROUNDWIRE_EMBEDDINGS (an OpenAI-compatible API's URL),
	// GROUNDWIRE_EMBEDDINGS_MODEL (required with it),
	// GROUNDWIRE_EMBEDDINGS_CACHE (default /tmp/groundwire-embeddings),
	// GROUNDWIRE_EMBEDDINGS_TIMEOUT (default 2s), GROUNDWIRE_EMBEDDINGS_WEIGHT
	// (default lambda.DefaultEmbeddingsWeight), the key from
	// GROUNDWIRE_EMBEDDINGS_API_KEY or OPENAI_API_KEY (lambda.EmbeddingsKey).
	Embeddings          lambda.EmbeddingsConfig
	TokenDelayMin       time.Duration // GROUNDWIRE_TOKEN_DELAY: "20ms-80ms" (default), "50ms", "0"
	TokenDelayMax       time.Duration
	MockSeed            uint64   // GROUNDWIRE_MOCK_SEED (default 1)
	HallucinationRate   float64  // GROUNDWIRE_HALLUCINATION_RATE: 0–1 (default 0)
	AuthToken           string   // GROUNDWIRE_AUTH_TOKEN: required `token` query parameter on connect
	AuthSecret          string   // GROUNDWIRE_AUTH_SECRET: also admits tokens signed with it (lambda.SignToken)
	Origins             []string // GROUNDWIRE_ORIGINS: comma-separated allowed origins, "*" for any
	CancelCheckInterval time.Duration
	// GROUNDWIRE_CANCEL_CHECK_INTERVAL (default 200ms): how often the
	// streaming loop reads the cancel flag from DynamoDB while tokens come.
	CancelHandoffTimeout time.Duration
	// GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT (default 0: the handler's,
	// max(3 × interval, 1s)): how long a cancel waits for the streaming
	// instance to send stream_end cancelled before sending it itself.
	CoalesceInterval time.Duration
	// GROUNDWIRE_COALESCE_INTERVAL (default 100ms, 0: a frame per token):
	// released answer text is posted at most this often and waits at most
	// this long; the first text goes out at once.
	DeadlineMargin time.Duration
	// GROUNDWIRE_DEADLINE_MARGIN (default 1s): an answer still streaming
	// this long before the function's timeout ends with stream_end
	// cancelled (at most half the invocation's time).
	Endpoint      string        // GROUNDWIRE_ENDPOINT: Management API endpoint override (local runs)
	NoRateLimit   bool          // GROUNDWIRE_NO_RATE_LIMIT: true for load tests
	LogLevel      slog.Level    // GROUNDWIRE_LOG_LEVEL: debug | info (default) | warn | error
	LogText       bool          // GROUNDWIRE_LOG_TEXT: log message texts (masked) at debug level
	AWSMaxRetries int           // GROUNDWIRE_AWS_MAX_ATTEMPTS: attempts per AWS call (default 3)
	AWSTimeout    time.Duration // GROUNDWIRE_AWS_TIMEOUT: bound of one AWS call, retries included (default 2s)
}

// Defaults.
const (
	defaultCancelCheck = 200 * time.Millisecond
	defaultCoalesce    = 100 * time.Millisecond
	defaultAttempts    = 3
	defaultAWSTimeout  = 2 * time.Second
	// the only writable directory of a Lambda execution environment
	defaultEmbeddingsCache = "/tmp/groundwire-embeddings"
)

// loadConfig reads the configuration through getenv (os.Getenv in main).
// Every problem is reported, not only the first.
func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		TokenDelayMin:       20 * time.Millisecond,
		TokenDelayMax:       80 * time.Millisecond,
		MockSeed:            1,
		CancelCheckInterval: defaultCancelCheck,
		CoalesceInterval:    defaultCoalesce,
		DeadlineMargin:      lambda.DefaultDeadlineMargin,
		LogLevel:            slog.LevelInfo,
		AWSMaxRetries:       defaultAttempts,
		AWSTimeout:          defaultAWSTimeout,
	}
	var errs []error
	bad := func(name, v, why string) {
		errs = append(errs, fmt.Errorf("%s=%q: %s", name, v, why))
	}
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }

	c.Table = get("GROUNDWIRE_TABLE")
	if c.Table == "" {
		errs = append(errs, errors.New("GROUNDWIRE_TABLE is required (the DynamoDB table)"))
	}
	switch v := strings.ToLower(get("GROUNDWIRE_MODE")); v {
	case "", "hold":
		c.Mode = lambda.ModeHold
	case "after":
		c.Mode = lambda.ModeAfter
	default:
		bad("GROUNDWIRE_MODE", v, "want hold or after")
	}
	if p, ok := guardrail.ParsePolicy(strings.ToLower(get("GROUNDWIRE_POLICY"))); ok {
		c.Policy = p
	} else {
		bad("GROUNDWIRE_POLICY", get("GROUNDWIRE_POLICY"), "want default or strict")
	}
	switch v := strings.ToLower(get("GROUNDWIRE_MODEL")); v {
	case "", "mock":
		c.Model = "mock"
	case "openai":
		c.Model = "openai"
		c.OpenAI = lambda.OpenAIConfig{
			BaseURL: get("OPENAI_BASE_URL"),
			APIKey:  get("OPENAI_API_KEY"),
			Model:   get("OPENAI_MODEL"),
		}
		if c.OpenAI.Model == "" {
			errs = append(errs, errors.New("OPENAI_MODEL is required with GROUNDWIRE_MODEL=openai"))
		}
	default:
		bad("GROUNDWIRE_MODEL", v, "want mock or openai")
	}
	if v := get("GROUNDWIRE_EMBEDDINGS"); v != "" {
		c.Embeddings = lambda.EmbeddingsConfig{
			URL:      v,
			Model:    get("GROUNDWIRE_EMBEDDINGS_MODEL"),
			APIKey:   lambda.EmbeddingsKey(v, get("GROUNDWIRE_EMBEDDINGS_API_KEY"), get("OPENAI_API_KEY"), get("OPENAI_BASE_URL")),
			CacheDir: defaultEmbeddingsCache,
			Timeout:  lambda.DefaultEmbeddingsTimeout,
		}
		if d := get("GROUNDWIRE_EMBEDDINGS_CACHE"); d != "" {
			c.Embeddings.CacheDir = d
		}
		if err := c.Embeddings.Validate(); err != nil {
			bad("GROUNDWIRE_EMBEDDINGS", v, err.Error()+" (and GROUNDWIRE_EMBEDDINGS_MODEL)")
		}
		if t := get("GROUNDWIRE_EMBEDDINGS_TIMEOUT"); t != "" {
			d, err := parseDuration(t)
			if err != nil || d == 0 {
				bad("GROUNDWIRE_EMBEDDINGS_TIMEOUT", t, "want a positive duration like 2s")
			}
			c.Embeddings.Timeout = d
		}
		if w := get("GROUNDWIRE_EMBEDDINGS_WEIGHT"); w != "" {
			f, err := strconv.ParseFloat(w, 64)
			if err != nil || !(f > 0) || math.IsInf(f, 0) {
				bad("GROUNDWIRE_EMBEDDINGS_WEIGHT", w, "want a positive number like 0.33")
			}
			c.Embeddings.Weight = f
		}
	}
	if v := get("GROUNDWIRE_TOKEN_DELAY"); v != "" {
		lo, hi, err := parseDelay(v)
		if err != nil {
			bad("GROUNDWIRE_TOKEN_DELAY", v, err.Error())
		}
		c.TokenDelayMin, c.TokenDelayMax = lo, hi
	}
	if v := get("GROUNDWIRE_MOCK_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			bad("GROUNDWIRE_MOCK_SEED", v, "want an unsigned integer")
		}
		c.MockSeed = seed
	}
	if v := get("GROUNDWIRE_HALLUCINATION_RATE"); v != "" {
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || p < 0 || p > 1 {
			bad("GROUNDWIRE_HALLUCINATION_RATE", v, "want a number from 0 to 1")
		}
		c.HallucinationRate = p
	}
	c.AuthToken = getenv("GROUNDWIRE_AUTH_TOKEN") // as is: spaces may be part of it
	c.AuthSecret = getenv("GROUNDWIRE_AUTH_SECRET")
	if c.AuthSecret != "" && len(c.AuthSecret) < lambda.MinSecretBytes {
		bad("GROUNDWIRE_AUTH_SECRET", "(hidden)", fmt.Sprintf("want at least %d bytes", lambda.MinSecretBytes))
	}
	for _, o := range strings.Split(get("GROUNDWIRE_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.Origins = append(c.Origins, o)
		}
	}
	if v := get("GROUNDWIRE_CANCEL_CHECK_INTERVAL"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			bad("GROUNDWIRE_CANCEL_CHECK_INTERVAL", v, err.Error())
		}
		c.CancelCheckInterval = d
	}
	if v := get("GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			bad("GROUNDWIRE_CANCEL_HANDOFF_TIMEOUT", v, err.Error())
		}
		c.CancelHandoffTimeout = d
	}
	if v := get("GROUNDWIRE_COALESCE_INTERVAL"); v != "" {
		d, err := parseDuration(v)
		if err != nil {
			bad("GROUNDWIRE_COALESCE_INTERVAL", v, err.Error())
		}
		c.CoalesceInterval = d
	}
	if v := get("GROUNDWIRE_DEADLINE_MARGIN"); v != "" {
		d, err := parseDuration(v)
		if err != nil || d == 0 {
			bad("GROUNDWIRE_DEADLINE_MARGIN", v, "want a positive duration like 1s")
		}
		c.DeadlineMargin = d
	}
	c.Endpoint = strings.TrimSuffix(get("GROUNDWIRE_ENDPOINT"), "/")
	if c.Endpoint != "" && !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
		bad("GROUNDWIRE_ENDPOINT", c.Endpoint, "want an http:// or https:// URL")
	}
	if v := get("GROUNDWIRE_NO_RATE_LIMIT"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad("GROUNDWIRE_NO_RATE_LIMIT", v, "want true or false")
		}
		c.NoRateLimit = b
	}
	if v := get("GROUNDWIRE_LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			bad("GROUNDWIRE_LOG_LEVEL", v, "want debug, info, warn or error")
		}
	}
	if v := get("GROUNDWIRE_LOG_TEXT"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad("GROUNDWIRE_LOG_TEXT", v, "want true or false")
		}
		c.LogText = b
	}
	if v := get("GROUNDWIRE_AWS_MAX_ATTEMPTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10 {
			bad("GROUNDWIRE_AWS_MAX_ATTEMPTS", v, "want an integer from 1 to 10")
		}
		c.AWSMaxRetries = n
	}
	if v := get("GROUNDWIRE_AWS_TIMEOUT"); v != "" {
		d, err := parseDuration(v)
		if err != nil || d == 0 {
			bad("GROUNDWIRE_AWS_TIMEOUT", v, "want a positive duration like 2s")
		}
		c.AWSTimeout = d
	}
	return c, errors.Join(errs...)
}

// parseDuration parses a Go duration; "0" is zero.
func parseDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, errors.New("want a duration like 100ms")
	}
	if d < 0 {
		return 0, errors.New("negative duration")
	}
	return d, nil
}

// parseDelay parses "lo-hi" or one duration for both.
func parseDelay(v string) (lo, hi time.Duration, err error) {
	a, b, found := strings.Cut(v, "-")
	if lo, err = parseDuration(strings.TrimSpace(a)); err != nil {
		return 0, 0, err
	}
	hi = lo
	if found {
		if hi, err = parseDuration(strings.TrimSpace(b)); err != nil {
			return 0, 0, err
		}
	}
	if hi < lo {
		return 0, 0, errors.New("the upper bound is below the lower one")
	}
	return lo, hi, nil
}

// openAIIgnored names OPENAI_* variables that are set although the mock
// model is used (so the deployer is told, not surprised).
func openAIIgnored(c config, getenv func(string) string) []string {
	if c.Model == "openai" {
		return nil
	}
	var set []string
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"} {
		if getenv(k) != "" {
			set = append(set, k)
		}
	}
	return set
}
