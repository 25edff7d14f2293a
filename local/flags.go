package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/emulator"
)

// envPrefix prefixes the environment variable of every flag:
// -token-delay is GROUNDWIRE_TOKEN_DELAY.
const envPrefix = "GROUNDWIRE_"

// config is everything the flags (or their environment variables) set.
type config struct {
	Addr            string
	KBDir           string // "" means the embedded knowledge base
	KBWatch         time.Duration
	Model           string // "mock" or "openai"
	Embeddings      string // -embeddings: an OpenAI-compatible API's URL; "" lexical search only
	EmbedModel      string
	EmbedCache      string // "" the user cache dir's groundwire/embeddings
	EmbedTimeout    time.Duration
	EmbedWeight     float64
	TokenDelay      delayRange
	Mode            lambda.Mode
	Policy          guardrail.Policy
	Hallucination   float64
	Seed            uint64
	Origins         []string // as given: hosts or origins
	AuthToken       string
	AuthSecret      string        // admits tokens signed with it (lambda.SignToken)
	NewToken        time.Duration // -new-token: print a signed token valid this long, and exit
	MaxConns        int
	MaxConnsPerIP   int      // 0: no cap
	Lambda          []string // Lambda runtime invoke endpoints to forward events to
	MaxFrame        int      // bytes
	MaxMessage      int      // bytes
	IdleTimeout     time.Duration
	MaxConnAge      time.Duration
	Rate            float64
	Burst           int
	NoRateLimit     bool
	SuggestWindow   time.Duration
	ShutdownTimeout time.Duration
	LambdaTimeout   time.Duration
	NoWASM          bool
	Pprof           bool // serve /debug/pprof/ to loopback clients
	LogLevel        string
	LogFormat       string // auto, text or json

	// Not flags: timings of the keepalive, shortened by tests.
	PingPeriod time.Duration
	PongWait   time.Duration
	WriteWait  time.Duration
	CloseGrace time.Duration
	// Not a flag: how often a Lambda endpoint that is down is probed.
	LambdaProbe time.Duration
}

// defaultConfig returns the defaults of every setting.
func defaultConfig() config {
	return config{
		Addr:            "localhost:8787",
		Model:           "mock",
		EmbedTimeout:    lambda.DefaultEmbeddingsTimeout,
		EmbedWeight:     lambda.DefaultEmbeddingsWeight,
		KBWatch:         2 * time.Second,
		TokenDelay:      delayRange{20 * time.Millisecond, 80 * time.Millisecond},
		Mode:            lambda.ModeHold,
		Seed:            1,
		MaxConns:        1000,
		MaxConnsPerIP:   100,
		MaxFrame:        32 * 1024,
		MaxMessage:      lambda.DefaultMaxBodyBytes,
		IdleTimeout:     10 * time.Minute,
		MaxConnAge:      2 * time.Hour,
		Rate:            lambda.DefaultMessagesPerSecond,
		Burst:           lambda.DefaultMessageBurst,
		SuggestWindow:   lambda.DefaultSuggestionWindow,
		ShutdownTimeout: 5 * time.Second,
		LambdaTimeout:   emulator.DefaultFunctionTimeout,
		LambdaProbe:     time.Second,
		LogLevel:        "info",
		LogFormat:       "auto",
		PingPeriod:      30 * time.Second,
		PongWait:        75 * time.Second,
		WriteWait:       10 * time.Second,
		CloseGrace:      time.Second,
	}
}

// flagDoc documents one flag in the usage text.
type flagDoc struct {
	name, arg, help string
}

// flagGroups orders the usage text; every flag defined in newFlagSet
// must appear here (TestUsageListsEveryFlag).
var flagGroups = []struct {
	title string
	flags []flagDoc
}{
	{"Server", []flagDoc{
		{"addr", "HOST:PORT", "listen address"},
		{"origins", "LIST", "comma-separated Origins allowed besides the server's own: hosts (app.example.com, http and https) or origins (https://app.example.com); * allows any"},
		{"auth-token", "TOKEN", "when set, clients must connect with ?token=TOKEN (else HTTP 401)"},
		{"auth-secret", "SECRET", "when set (16+ bytes), clients may also connect with ?token= a token signed with it and not expired"},
		{"new-token", "DURATION", "print a token signed with -auth-secret that is valid for DURATION, and exit"},
		{"max-conns", "N", "most simultaneous WebSocket connections; more get HTTP 503"},
		{"max-conns-per-ip", "N", "most simultaneous WebSocket connections from one client address; more get HTTP 429; 0 no cap"},
		{"no-wasm", "", "serve the page without building the in-browser guard (guardrail.wasm)"},
		{"shutdown-timeout", "DURATION", "how long a shutdown waits for connections to close"},
		{"pprof", "", "serve Go profiles at /debug/pprof/ (to loopback clients only; profiling and local/loadgen)"},
		{"log-level", "LEVEL", "debug, info, warn or error"},
		{"log-format", "FORMAT", "auto (text on a terminal, JSON otherwise), text or json"},
	}},
	{"AWS emulation", []flagDoc{
		{"lambda", "URL", "forward every event to this Lambda runtime invoke endpoint (the Runtime Interface Emulator running lambda/bootstrap) instead of the built-in handler, and serve the Management API at /@connections/ to loopback clients; repeat or comma-separate to spread overlapping invocations"},
		{"lambda-timeout", "DURATION", "the function's timeout, as the emulators run it (their AWS_LAMBDA_FUNCTION_TIMEOUT): an endpoint silent for longer is marked down"},
	}},
	{"Agent", []flagDoc{
		{"kb", "DIR", "knowledge base: a directory of markdown files (default: the embedded one)"},
		{"kb-watch", "DURATION", "how often to look for changes in the -kb directory and reload it; 0 never"},
		{"model", "NAME", "mock or openai (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL)"},
		{"embeddings", "URL", "dense retrieval besides the lexical search: an OpenAI-compatible API (http://localhost:11434/v1 for Ollama) or its /embeddings endpoint; key in GROUNDWIRE_EMBEDDINGS_API_KEY (default OPENAI_API_KEY when the URL is OpenAI's or OPENAI_BASE_URL's host); off by default"},
		{"embeddings-model", "NAME", "the embedding model (required with -embeddings), e.g. bge-m3 (multilingual)"},
		{"embeddings-cache", "DIR", "where the snippets' vectors are kept between runs (default: the user cache directory's groundwire/embeddings)"},
		{"embeddings-timeout", "DURATION", "bound of embedding one message; past it, or on any failure, the message is searched lexically"},
		{"embeddings-weight", "W", "what the similarity ranking counts against the lexical ranking's 1 when the two are fused; raise it for a model that ranks your snippets well on its own"},
		{"token-delay", "RANGE", "mock model's delay per token: a range (20ms-80ms), one duration, or 0"},
		{"mode", "MODE", "hold (verify while streaming) or after (stream, then verify)"},
		{"policy", "POLICY", "default (small counts in words that no source states or contradicts pass as unverified, numbers one shown operation over cited ones gives as derived) or strict (they block)"},
		{"hallucination-rate", "P", "probability (0-1) that the mock model changes the numbers it says"},
		{"seed", "N", "seed of the mock model"},
		{"suggestion-window", "DURATION", "how long an action suggestion can be confirmed"},
	}},
	{"Limits (API Gateway's, enforced locally)", []flagDoc{
		{"max-frame", "SIZE", "largest WebSocket frame; a larger one closes the connection with 1009"},
		{"max-message", "SIZE", "largest message (all frames of it); larger closes with 1009"},
		{"idle-timeout", "DURATION", "close a connection with no message either way for this long (1001)"},
		{"max-conn-age", "DURATION", "close a connection this long after it opened (1001)"},
		{"rate", "N", "sustained `message` frames per second per connection"},
		{"burst", "N", "burst of `message` frames per connection"},
		{"no-rate-limit", "", "turn the message rate limit off (load tests)"},
	}},
}

// newFlagSet defines every flag on a fresh FlagSet bound to cfg.
func newFlagSet(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("local", flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "")
	fs.Func("origins", "", func(s string) error {
		cfg.Origins = nil
		for _, o := range strings.Split(s, ",") {
			if o = strings.TrimSpace(o); o != "" {
				cfg.Origins = append(cfg.Origins, o)
			}
		}
		return nil
	})
	fs.StringVar(&cfg.AuthToken, "auth-token", cfg.AuthToken, "")
	fs.StringVar(&cfg.AuthSecret, "auth-secret", cfg.AuthSecret, "")
	fs.DurationVar(&cfg.NewToken, "new-token", cfg.NewToken, "")
	fs.IntVar(&cfg.MaxConns, "max-conns", cfg.MaxConns, "")
	fs.IntVar(&cfg.MaxConnsPerIP, "max-conns-per-ip", cfg.MaxConnsPerIP, "")
	fs.BoolVar(&cfg.NoWASM, "no-wasm", cfg.NoWASM, "")
	fs.BoolVar(&cfg.Pprof, "pprof", cfg.Pprof, "")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "")
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "")

	fs.Func("lambda", "", func(v string) error {
		for _, u := range strings.Split(v, ",") {
			if u = strings.TrimSpace(u); u != "" {
				cfg.Lambda = append(cfg.Lambda, u)
			}
		}
		return nil
	})
	fs.DurationVar(&cfg.LambdaTimeout, "lambda-timeout", cfg.LambdaTimeout, "")

	fs.StringVar(&cfg.KBDir, "kb", cfg.KBDir, "")
	fs.DurationVar(&cfg.KBWatch, "kb-watch", cfg.KBWatch, "")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "")
	fs.StringVar(&cfg.Embeddings, "embeddings", cfg.Embeddings, "")
	fs.StringVar(&cfg.EmbedModel, "embeddings-model", cfg.EmbedModel, "")
	fs.StringVar(&cfg.EmbedCache, "embeddings-cache", cfg.EmbedCache, "")
	fs.DurationVar(&cfg.EmbedTimeout, "embeddings-timeout", cfg.EmbedTimeout, "")
	fs.Float64Var(&cfg.EmbedWeight, "embeddings-weight", cfg.EmbedWeight, "")
	fs.Var(&cfg.TokenDelay, "token-delay", "")
	fs.Var((*modeValue)(&cfg.Mode), "mode", "")
	fs.Var((*policyValue)(&cfg.Policy), "policy", "")
	fs.Float64Var(&cfg.Hallucination, "hallucination-rate", cfg.Hallucination, "")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "")
	fs.DurationVar(&cfg.SuggestWindow, "suggestion-window", cfg.SuggestWindow, "")

	fs.Var((*byteSize)(&cfg.MaxFrame), "max-frame", "")
	fs.Var((*byteSize)(&cfg.MaxMessage), "max-message", "")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", cfg.IdleTimeout, "")
	fs.DurationVar(&cfg.MaxConnAge, "max-conn-age", cfg.MaxConnAge, "")
	fs.Float64Var(&cfg.Rate, "rate", cfg.Rate, "")
	fs.IntVar(&cfg.Burst, "burst", cfg.Burst, "")
	fs.BoolVar(&cfg.NoRateLimit, "no-rate-limit", cfg.NoRateLimit, "")
	return fs
}

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// errUsage marks errors in flags or their environment variables (exit 2).
var errUsage = errors.New("usage")

// parseConfig parses the command line over the environment over the
// defaults. getenv is os.Getenv in production. -h returns flag.ErrHelp
// after writing the usage to stdout.
func parseConfig(args []string, getenv func(string) string, stdout io.Writer) (config, error) {
	cfg := defaultConfig()
	fs := newFlagSet(&cfg)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return cfg, err
		}
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] {
			return
		}
		env := envName(f.Name)
		if v, ok := lookup(getenv, env); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: invalid value for %s: %v", errUsage, env, e)
			}
		}
	})
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// validate checks what single flags cannot.
func (c config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Model != "mock" && c.Model != "openai":
		return bad("-model must be mock or openai, not %q", c.Model)
	case c.Hallucination < 0 || c.Hallucination > 1:
		return bad("-hallucination-rate must be between 0 and 1")
	case c.MaxConns < 1:
		return bad("-max-conns must be at least 1")
	case c.MaxConnsPerIP < 0:
		return bad("-max-conns-per-ip must not be negative (0: no cap)")
	case c.MaxFrame < 1 || c.MaxMessage < 1:
		return bad("-max-frame and -max-message must be positive")
	case c.IdleTimeout <= 0 || c.MaxConnAge <= 0:
		return bad("-idle-timeout and -max-conn-age must be positive")
	case !c.NoRateLimit && (c.Rate <= 0 || c.Burst < 1):
		return bad("-rate must be positive and -burst at least 1 (or -no-rate-limit)")
	case c.KBWatch < 0:
		return bad("-kb-watch must not be negative")
	case c.SuggestWindow <= 0:
		return bad("-suggestion-window must be positive")
	case c.ShutdownTimeout <= 0:
		return bad("-shutdown-timeout must be positive")
	case c.LambdaTimeout <= 0:
		return bad("-lambda-timeout must be positive")
	}
	if c.AuthSecret != "" && len(c.AuthSecret) < lambda.MinSecretBytes {
		return bad("-auth-secret must be at least %d bytes", lambda.MinSecretBytes)
	}
	if c.NewToken < 0 || c.NewToken > 0 && c.AuthSecret == "" {
		return bad("-new-token wants a positive duration and -auth-secret")
	}
	for _, u := range c.Lambda {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return bad("-lambda wants an http(s) URL of a Lambda runtime invoke endpoint, not %q", u)
		}
	}
	if c.Embeddings != "" {
		if err := (lambda.EmbeddingsConfig{URL: c.Embeddings, Model: c.EmbedModel}).Validate(); err != nil {
			return bad("-embeddings: %v (and -embeddings-model NAME)", err)
		}
	}
	if c.EmbedTimeout <= 0 {
		return bad("-embeddings-timeout must be positive")
	}
	if !(c.EmbedWeight > 0) || math.IsInf(c.EmbedWeight, 0) {
		return bad("-embeddings-weight must be a positive number")
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		return bad("%v", err)
	}
	switch c.LogFormat {
	case "auto", "text", "json":
	default:
		return bad("-log-format must be auto, text or json, not %q", c.LogFormat)
	}
	return nil
}

// usage writes the help text: every flag with its environment variable and
// default.
func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: local [flags]        (from the repository: go run ./local [flags])

groundwire's local server: the chat page at http://localhost:8787 and the agent
over a WebSocket on / and /ws, carrying the protocol exactly as API Gateway
would. It starts with the embedded knowledge base and the deterministic mock
model; nothing else is needed.

Every flag can also be set with an environment variable GROUNDWIRE_<NAME>
(e.g. GROUNDWIRE_TOKEN_DELAY=0); a flag on the command line wins.
Sizes take a unit: 32KB, 128KB, 1MB (KB = 1024 bytes) or plain bytes.
`)
	// One table for all groups, so that the columns line up.
	var nameW, envW int
	name := func(d flagDoc) string {
		if d.arg == "" {
			return "-" + d.name
		}
		return "-" + d.name + " " + d.arg
	}
	for _, g := range flagGroups {
		for _, d := range g.flags {
			nameW = max(nameW, len(name(d)))
			envW = max(envW, len(envName(d.name)))
		}
	}
	for _, g := range flagGroups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, d := range g.flags {
			f := fs.Lookup(d.name)
			if f == nil {
				continue
			}
			help := d.help
			if def := defaultText(f); def != "" {
				help += " (default " + def + ")"
			}
			fmt.Fprintf(w, "  %-*s  %-*s  %s\n", nameW, name(d), envW, envName(d.name), help)
		}
	}
	fmt.Fprint(w, `
Routes: GET / (the page; a WebSocket upgrade on / is the agent), /ws (WebSocket),
/healthz (JSON status), /metrics (Prometheus).
Stop with Ctrl-C (SIGINT) or SIGTERM: active answers end with stream_end
cancelled, connections close with 1001, and the server exits 0.
`)
}

// defaultText is a flag's default as the usage shows it ("" for none).
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "false", "0":
		if f.Name == "hallucination-rate" || f.Name == "token-delay" {
			return f.DefValue
		}
		return ""
	}
	if d, err := time.ParseDuration(f.DefValue); err == nil {
		return shortDuration(d)
	}
	return f.DefValue
}

// shortDuration prints 10m rather than 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// delayRange is the mock model's delay per token: [Lo, Hi].
type delayRange struct{ Lo, Hi time.Duration }

func (d *delayRange) String() string {
	if d.Lo == d.Hi {
		if d.Lo == 0 {
			return "0"
		}
		return d.Lo.String()
	}
	return d.Lo.String() + "-" + d.Hi.String()
}

// Set parses "20ms-80ms", "50ms" or "0".
func (d *delayRange) Set(s string) error {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	parse := func(s string) (time.Duration, error) {
		s = strings.TrimSpace(s)
		if s == "0" {
			return 0, nil
		}
		v, err := time.ParseDuration(s)
		if err == nil && v < 0 {
			err = errors.New("negative duration")
		}
		return v, err
	}
	l, err := parse(lo)
	if err != nil {
		return fmt.Errorf("want a duration or a range like 20ms-80ms: %v", err)
	}
	h := l
	if isRange {
		if h, err = parse(hi); err != nil {
			return fmt.Errorf("want a duration or a range like 20ms-80ms: %v", err)
		}
		if h < l {
			return errors.New("the range's upper bound is below its lower bound")
		}
	}
	d.Lo, d.Hi = l, h
	return nil
}

// modeValue is a lambda.Mode as a flag: hold or after.
type modeValue lambda.Mode

func (m *modeValue) String() string {
	if lambda.Mode(*m) == lambda.ModeAfter {
		return "after"
	}
	return "hold"
}

func (m *modeValue) Set(s string) error {
	switch s {
	case "hold":
		*m = modeValue(lambda.ModeHold)
	case "after":
		*m = modeValue(lambda.ModeAfter)
	default:
		return errors.New("want hold or after")
	}
	return nil
}

// policyValue is a guardrail.Policy as a flag: default or strict.
type policyValue guardrail.Policy

func (p *policyValue) String() string { return guardrail.Policy(*p).String() }

func (p *policyValue) Set(s string) error {
	v, ok := guardrail.ParsePolicy(s)
	if !ok {
		return errors.New("want default or strict")
	}
	*p = policyValue(v)
	return nil
}

// byteSize is a size in bytes as a flag: 32KB, 1MB, 32768.
type byteSize int

func (b *byteSize) String() string {
	switch v := int(*b); {
	case v > 0 && v%(1<<20) == 0:
		return strconv.Itoa(v>>20) + "MB"
	case v > 0 && v%(1<<10) == 0:
		return strconv.Itoa(v>>10) + "KB"
	default:
		return strconv.Itoa(v)
	}
}

func (b *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n > (1<<30)/mult {
		return fmt.Errorf("want a positive size like 32KB, not %q", s)
	}
	*b = byteSize(n * mult)
	return nil
}
