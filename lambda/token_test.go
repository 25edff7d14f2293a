package lambda_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

var testSecret = []byte("0123456789abcdef-test-secret")

func TestSignedToken(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	tok := lambda.SignToken(testSecret, now.Add(time.Minute))
	if err := lambda.VerifyToken(testSecret, tok, now); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	if again := lambda.SignToken(testSecret, now.Add(time.Minute)); again == tok {
		t.Fatal("two tokens with the same expiry are equal: no nonce")
	}
	parts := strings.Split(tok, ".")
	for _, c := range []struct {
		name  string
		token string
		at    time.Time
		want  error
	}{
		{"expired", tok, now.Add(time.Minute), lambda.ErrTokenExpired},
		{"other secret", lambda.SignToken([]byte("another-secret-of-16+"), now.Add(time.Minute)), now, lambda.ErrTokenSignature},
		{"expiry changed", "1900000000." + parts[1] + "." + parts[2], now, lambda.ErrTokenSignature},
		{"nonce changed", parts[0] + ".AAAAAAAAAAAAAAAA." + parts[2], now, lambda.ErrTokenSignature},
		{"signature cut", parts[0] + "." + parts[1] + "." + parts[2][:10], now, lambda.ErrTokenSignature},
		{"not base64", parts[0] + "." + parts[1] + ".***", now, lambda.ErrTokenMalformed},
		{"two parts", parts[0] + "." + parts[2], now, lambda.ErrTokenMalformed},
		{"empty", "", now, lambda.ErrTokenMalformed},
	} {
		if err := lambda.VerifyToken(testSecret, c.token, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestConnectSignedToken(t *testing.T) {
	for _, c := range []struct {
		name, token string
		static      string
		want        int
	}{
		{"valid", lambda.SignToken(testSecret, epoch.Add(time.Minute)), "", 200},
		{"expired", lambda.SignToken(testSecret, epoch.Add(-time.Second)), "", 401},
		{"forged", lambda.SignToken([]byte("not-the-server-secret"), epoch.Add(time.Minute)), "", 401},
		{"missing", "", "", 401},
		{"static token still accepted", "s3cret", "s3cret", 200},
		{"signed token beside a static one", lambda.SignToken(testSecret, epoch.Add(time.Minute)), "s3cret", 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t, func(cfg *lambda.Config) {
				cfg.AuthSecret, cfg.AuthToken = testSecret, c.static
			})
			req := event(lambda.EventConnect, "c1")
			req.QueryStringParameters = map[string]string{"token": c.token}
			resp, err := hs.h.Handle(context.Background(), req)
			if err != nil || resp.StatusCode != c.want {
				t.Fatalf("got %d %v, want %d", resp.StatusCode, err, c.want)
			}
		})
	}
	if _, err := lambda.New(lambda.Config{AuthSecret: []byte("short")}); err == nil {
		t.Fatal("a short secret was accepted")
	}
}
