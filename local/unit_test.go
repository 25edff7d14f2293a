package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"net"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/groundwire/groundwire/lambda"
)

var apiGatewayID = regexp.MustCompile(`^[A-Za-z0-9_-]{15}=$`)

func TestEvents(t *testing.T) {
	r := httptest.NewRequest("GET", "http://localhost:8787/ws?token=abc&x=1&x=2", nil)
	r.Header.Set("Origin", "http://localhost:8787")
	r.Header.Add("Accept-Language", "sv")
	r.Header.Add("Accept-Language", "en")
	r.Header.Set("User-Agent", "test-agent")
	r.RemoteAddr = "192.0.2.7:51234"
	now := time.Date(2025, 11, 22, 10, 15, 30, 0, time.UTC)
	p := newPeer(r, newID(), now)

	ev := connectEvent(r, p)
	rc := ev.RequestContext
	assert.Equal(t, "$connect", rc.RouteKey)
	assert.Equal(t, lambda.EventConnect, rc.EventType)
	assert.Equal(t, "local", rc.Stage)
	assert.Equal(t, "IN", rc.MessageDirection)
	assert.Equal(t, "localhost:8787", rc.DomainName)
	assert.NotEmpty(t, rc.APIID)
	assert.Equal(t, "192.0.2.7", rc.Identity.SourceIP)
	assert.Equal(t, "test-agent", rc.Identity.UserAgent)
	assert.Equal(t, "22/Nov/2025:10:15:30 +0000", rc.RequestTime)
	assert.Equal(t, now.UnixMilli(), rc.RequestTimeEpoch)
	assert.Equal(t, now.UnixMilli(), rc.ConnectedAt)
	assert.Regexp(t, apiGatewayID, rc.ConnectionID)
	assert.Regexp(t, apiGatewayID, rc.RequestID)
	assert.Equal(t, "localhost:8787", ev.Headers["Host"])
	assert.Equal(t, "http://localhost:8787", ev.Headers["Origin"])
	assert.Equal(t, "en", ev.Headers["Accept-Language"], "the last value, as API Gateway does")
	assert.Equal(t, []string{"sv", "en"}, ev.MultiValueHeaders["Accept-Language"])
	assert.Equal(t, "abc", ev.QueryStringParameters["token"])
	assert.Equal(t, "2", ev.QueryStringParameters["x"])
	assert.Equal(t, []string{"1", "2"}, ev.MultiValueQueryStringParameters["x"])

	msg := messageEvent(p, `{"type":"cancel"}`, now.Add(time.Second))
	mrc := msg.RequestContext
	assert.Equal(t, "$default", mrc.RouteKey)
	assert.Equal(t, lambda.EventMessage, mrc.EventType)
	assert.Equal(t, `{"type":"cancel"}`, msg.Body)
	assert.False(t, msg.IsBase64Encoded)
	assert.Equal(t, rc.ConnectionID, mrc.ConnectionID)
	assert.Equal(t, rc.ConnectedAt, mrc.ConnectedAt)
	assert.Regexp(t, apiGatewayID, mrc.MessageID)
	assert.Equal(t, now.Add(time.Second).UnixMilli(), mrc.RequestTimeEpoch)

	dis := disconnectEvent(p, 1001, "going away", now)
	drc := dis.RequestContext
	assert.Equal(t, "$disconnect", drc.RouteKey)
	assert.Equal(t, lambda.EventDisconnect, drc.EventType)
	assert.EqualValues(t, 1001, drc.DisconnectStatusCode)
	if assert.NotNil(t, drc.DisconnectReason) {
		assert.Equal(t, "going away", *drc.DisconnectReason)
	}
}

// clientFrame builds a masked client frame header for a payload of n bytes.
func clientFrame(opcode byte, n int) []byte {
	h := []byte{0x80 | opcode}
	switch {
	case n < 126:
		h = append(h, 0x80|byte(n))
	case n < 1<<16:
		h = append(h, 0x80|126)
		h = binary.BigEndian.AppendUint16(h, uint16(n))
	default:
		h = append(h, 0x80|127)
		h = binary.BigEndian.AppendUint64(h, uint64(n))
	}
	h = append(h, 1, 2, 3, 4) // mask key
	return append(h, bytes.Repeat([]byte{'x'}, n)...)
}

// readAll reads r in chunks of the given size until EOF or an error.
func readAll(r io.Reader, chunk int) error {
	buf := make([]byte, chunk)
	for {
		if _, err := r.Read(buf); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func TestFrameLimitConn(t *testing.T) {
	const limit = 1000
	for _, tc := range []struct {
		name   string
		stream []byte
		want   error
	}{
		{"small frames", bytes.Join([][]byte{clientFrame(1, 10), clientFrame(0, 1000), clientFrame(9, 4), clientFrame(2, 125)}, nil), nil},
		{"16-bit length over", append(clientFrame(1, 10), clientFrame(1, 1001)...), errFrameTooLarge},
		{"continuation over", append(clientFrame(1, 10), clientFrame(0, 70000)...), errFrameTooLarge},
		{"64-bit length", clientFrame(2, 1<<16+1), errFrameTooLarge},
	} {
		for _, chunk := range []int{1, 3, 7, 4096} {
			a, b := net.Pipe()
			go func() {
				a.Write(tc.stream)
				a.Close()
			}()
			fl := newFrameLimitConn(b, limit)
			err := readAll(fl, chunk)
			b.Close()
			if !errors.Is(err, tc.want) || fl.tooLarge.Load() != (tc.want != nil) {
				t.Errorf("%s, chunks of %d: %v, want %v", tc.name, chunk, err, tc.want)
			}
		}
	}
}

func TestFlagsAndEnv(t *testing.T) {
	env := map[string]string{
		"GROUNDWIRE_ADDR":               ":9000",
		"GROUNDWIRE_TOKEN_DELAY":        "0",
		"GROUNDWIRE_MODE":               "after",
		"GROUNDWIRE_MAX_FRAME":          "16KB",
		"GROUNDWIRE_ORIGINS":            "a.example, https://b.example",
		"GROUNDWIRE_NO_RATE_LIMIT":      "true",
		"GROUNDWIRE_HALLUCINATION_RATE": "0.25",
	}
	cfg, err := parseConfig([]string{"-addr", "127.0.0.1:1234", "-max-message", "65536", "-seed", "7"},
		func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:1234" { // the flag wins over the environment
		t.Errorf("addr %q", cfg.Addr)
	}
	if cfg.TokenDelay != (delayRange{}) || cfg.Mode != lambda.ModeAfter || cfg.MaxFrame != 16*1024 ||
		cfg.MaxMessage != 65536 || cfg.Seed != 7 || !cfg.NoRateLimit || cfg.Hallucination != 0.25 ||
		strings.Join(cfg.Origins, "|") != "a.example|https://b.example" {
		t.Errorf("config %+v", cfg)
	}
	if got := strings.Join(allowedOrigins(cfg.Origins), " "); got != "http://a.example https://a.example https://b.example" {
		t.Errorf("allowed origins %q", got)
	}

	def, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if def.Addr != "localhost:8787" || def.TokenDelay != (delayRange{20 * time.Millisecond, 80 * time.Millisecond}) ||
		def.MaxFrame != 32*1024 || def.MaxMessage != 128*1024 || def.IdleTimeout != 10*time.Minute ||
		def.MaxConnAge != 2*time.Hour || def.SuggestWindow != 30*time.Second || def.Rate != 5 || def.Burst != 10 {
		t.Errorf("defaults %+v", def)
	}

	for _, bad := range [][]string{
		{"-token-delay", "80ms-20ms"}, {"-token-delay", "-5ms"}, {"-max-frame", "0"}, {"-max-frame", "lots"},
		{"-hallucination-rate", "2"}, {"-model", "gpt"}, {"-log-level", "loud"}, {"-rate", "0"},
	} {
		if _, err := parseConfig(bad, func(string) string { return "" }, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}

func TestDelayRange(t *testing.T) {
	for in, want := range map[string]delayRange{
		"0":         {},
		"50ms":      {50 * time.Millisecond, 50 * time.Millisecond},
		"20ms-80ms": {20 * time.Millisecond, 80 * time.Millisecond},
		"0-1s":      {0, time.Second},
	} {
		var d delayRange
		if err := d.Set(in); err != nil || d != want {
			t.Errorf("%q: %v %v", in, d, err)
		}
		if err := (&delayRange{}).Set(d.String()); err != nil {
			t.Errorf("%q does not parse back: %v", d.String(), err)
		}
	}
}

func TestUsageListsEveryFlag(t *testing.T) {
	cfg := defaultConfig()
	fs := newFlagSet(&cfg)
	var out bytes.Buffer
	usage(&out, fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out.String(), "-"+f.Name+" ") || !strings.Contains(out.String(), envName(f.Name)) {
			t.Errorf("usage lacks -%s or %s", f.Name, envName(f.Name))
		}
	})
	documented := 0
	for _, g := range flagGroups {
		for _, d := range g.flags {
			documented++
			if fs.Lookup(d.name) == nil {
				t.Errorf("usage documents -%s, which does not exist", d.name)
			}
		}
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if documented != n {
		t.Errorf("%d flags documented, %d defined", documented, n)
	}
}

func TestDisplayURL(t *testing.T) {
	bound := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8787}
	for addr, want := range map[string]string{
		"localhost:8787": "http://localhost:8787",
		":8787":          "http://localhost:8787",
		"0.0.0.0:8787":   "http://localhost:8787",
		"127.0.0.1:0":    "http://127.0.0.1:8787",
	} {
		if got := displayURL(addr, bound); got != want {
			t.Errorf("%s: %s, want %s", addr, got, want)
		}
	}
}

func TestActionResultNames(t *testing.T) {
	for _, tc := range []struct {
		r    lambda.ActionResult
		want string
	}{
		{lambda.ActionResult{Success: true}, "executed"},
		{lambda.ActionResult{Success: true, Ignored: true, Message: lambda.MsgAlreadyExecuted}, "ignored"},
		{lambda.ActionResult{Message: lambda.MsgExpired}, "expired"},
		{lambda.ActionResult{Message: lambda.MsgCancelled}, "cancelled"},
		{lambda.ActionResult{Message: lambda.MsgUnknown}, "unknown"},
		{lambda.ActionResult{Message: lambda.MsgFailed}, "failed"},
	} {
		if got := actionResult(tc.r.Success, tc.r.Ignored, tc.r.Message); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.r, got, tc.want)
		}
	}
}

// Event ids are shaped as API Gateway's (16 characters of URL-safe base64
// of 11 bytes) and unique, connection ids too.
func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := range 100000 {
		id := eventID()
		if i%10 == 0 {
			id = newID()
		}
		b, err := base64.URLEncoding.DecodeString(id)
		if err != nil || len(b) != 11 || len(id) != 16 {
			t.Fatalf("id %q: %d bytes, %v", id, len(b), err)
		}
		if seen[id] {
			t.Fatalf("id %q twice", id)
		}
		seen[id] = true
	}
}
