package lambda_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
)

func TestConnectOriginAndToken(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string]string
		token   string
		allowed []string
		auth    string
		want    int
	}{
		{"no origin (not a browser)", map[string]string{"Host": "example.com"}, "", nil, "", 200},
		{"same host", map[string]string{"Host": "example.com:8787", "Origin": "http://example.com:8787"}, "", nil, "", 200},
		{"lower-case header names", map[string]string{"host": "example.com", "origin": "https://example.com"}, "", nil, "", 200},
		{"foreign origin", map[string]string{"Host": "example.com", "Origin": "https://evil.test"}, "", nil, "", 403},
		{"allowed origin", map[string]string{"Host": "example.com", "Origin": "https://app.test"}, "", []string{"https://APP.test"}, "", 200},
		{"any origin", map[string]string{"Host": "example.com", "Origin": "https://evil.test"}, "", []string{"*"}, "", 200},
		{"null origin", map[string]string{"Host": "example.com", "Origin": "null"}, "", nil, "", 403},
		{"token ok", nil, "s3cret", nil, "s3cret", 200},
		{"token wrong", nil, "guess", nil, "s3cret", 401},
		{"token missing", nil, "", nil, "s3cret", 401},
		{"origin checked before token", map[string]string{"Host": "example.com", "Origin": "https://evil.test"}, "", nil, "s3cret", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t, func(cfg *lambda.Config) {
				cfg.AllowedOrigins = c.allowed
				cfg.AuthToken = c.auth
			})
			req := event(lambda.EventConnect, "c1")
			req.Headers = c.headers
			if c.token != "" {
				req.QueryStringParameters = map[string]string{"token": c.token}
			}
			resp, err := hs.h.Handle(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, c.want, resp.StatusCode)
		})
	}
}

func TestUnknownEventType(t *testing.T) {
	hs := newHarness(t)
	resp, err := hs.h.Handle(context.Background(), event("FOO", "c1"))
	require.NoError(t, err)
	assert.Equal(t, 400, resp.StatusCode)
}

func TestNewRequiresDependencies(t *testing.T) {
	_, err := lambda.New(lambda.Config{})
	assert.Error(t, err, "New with an empty config")
}

func TestPriceQuestion(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", "How much does Premium cost?"))
	fs := hs.frames("c1")
	require.Equal(t, "sources:m1 stream:m1 stream_end:m1:done response:m1:verified", hs.summary("c1"))
	resp := last(fs, lambda.TypeResponse)
	require.NotEmpty(t, resp.Text)
	assert.Equal(t, deltas(fs, "m1"), resp.Text, "the response's text is the streamed text")
	require.NotEmpty(t, resp.Citations)
	assert.Equal(t, "kb/en/pricing.md", resp.Citations[0].File)
	found := false
	for _, n := range resp.Numbers {
		assert.True(t, n.Grounded, "ungrounded number %+v", n)
		found = found || n.Canonical == "399" && n.State == "grounded"
	}
	assert.True(t, found, "399 not among numbers %+v in %q", resp.Numbers, resp.Text)
}

// A small count in words that no snippet states or contradicts is shown as
// "unverified" under the default policy and blocks under the strict one.
func TestPolicyUnverifiedCount(t *testing.T) {
	const say = "$say Premium costs 399 kr/month, and two colleagues can share it."
	for _, c := range []struct {
		policy     guardrail.Policy
		wantStatus string
	}{{guardrail.Default, "verified"}, {guardrail.Strict, "blocked"}} {
		hs := newHarness(t, func(cfg *lambda.Config) { cfg.Policy = c.policy })
		hs.connect("c1")
		hs.send("c1", msg("m1", say))
		resp := last(hs.frames("c1"), lambda.TypeResponse)
		require.Equal(t, c.wantStatus, resp.Status, "%s policy (%+v)", c.policy, resp.Numbers)
		var states []string
		for _, n := range resp.Numbers {
			states = append(states, n.State)
			if n.State == "unverified" {
				// its text is withheld only when it blocks
				assert.Equal(t, c.policy == guardrail.Strict, n.Text == "", "%s policy: unverified number text %q", c.policy, n.Text)
				if c.policy == guardrail.Strict {
					assert.Equal(t, -1, n.Citation, "a withheld number cites nothing")
				}
			}
		}
		assert.Equal(t, []string{"grounded", "unverified"}, states, "%s policy", c.policy)
		if c.policy == guardrail.Default {
			assert.Equal(t, deltas(hs.frames("c1"), "m1"), resp.Text, "the verified text is the streamed text")
		}
	}
}
