package lambda_test

import (
	"context"
	"testing"

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
			if err != nil || resp.StatusCode != c.want {
				t.Fatalf("got %d %v, want %d", resp.StatusCode, err, c.want)
			}
		})
	}
}

func TestUnknownEventType(t *testing.T) {
	hs := newHarness(t)
	resp, err := hs.h.Handle(context.Background(), event("FOO", "c1"))
	if err != nil || resp.StatusCode != 400 {
		t.Fatalf("got %d %v", resp.StatusCode, err)
	}
}

func TestNewRequiresDependencies(t *testing.T) {
	if _, err := lambda.New(lambda.Config{}); err == nil {
		t.Fatal("New with empty config succeeded")
	}
}

func TestPriceQuestion(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", "How much does Premium cost?"))
	fs := hs.frames("c1")
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	resp := last(fs, lambda.TypeResponse)
	if resp.Text == "" || resp.Text != deltas(fs, "m1") {
		t.Fatalf("response text %q, deltas %q", resp.Text, deltas(fs, "m1"))
	}
	if len(resp.Citations) == 0 || resp.Citations[0].File != "kb/en/pricing.md" {
		t.Fatalf("citations %+v", resp.Citations)
	}
	found := false
	for _, n := range resp.Numbers {
		if !n.Grounded {
			t.Fatalf("ungrounded number %+v", n)
		}
		if n.Canonical == "399" && n.State == "grounded" {
			found = true
		}
	}
	if !found {
		t.Fatalf("399 not among numbers %+v in %q", resp.Numbers, resp.Text)
	}
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
		if resp.Status != c.wantStatus {
			t.Fatalf("%s policy: status %q, want %q (%+v)", c.policy, resp.Status, c.wantStatus, resp.Numbers)
		}
		var states []string
		for _, n := range resp.Numbers {
			states = append(states, n.State)
			if n.State == "unverified" && (c.policy == guardrail.Strict) != (n.Text == "") {
				t.Errorf("%s policy: unverified number text %q (withheld only when it blocks)", c.policy, n.Text)
			}
		}
		if len(states) != 2 || states[0] != "grounded" || states[1] != "unverified" {
			t.Errorf("%s policy: states %q, want grounded, unverified", c.policy, states)
		}
		if c.policy == guardrail.Default && resp.Text != deltas(hs.frames("c1"), "m1") {
			t.Errorf("verified text %q is not the streamed text", resp.Text)
		}
	}
}
