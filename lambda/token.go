package lambda

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Signed, expiring connect tokens: an alternative to one shared AuthToken.
// A server holding Config.AuthSecret hands each client a token that is only
// good until its expiry, and no token reveals the secret:
//
//	<expiry, unix seconds>.<nonce, base64url>.<HMAC-SHA256(secret, expiry "." nonce), base64url>
//
// A token can be replayed until it expires (it is a bearer token), so keep
// lifetimes short; the nonce only makes every token different.

// Errors of VerifyToken.
var (
	ErrTokenMalformed = errors.New("lambda: malformed token")
	ErrTokenSignature = errors.New("lambda: token signature does not match")
	ErrTokenExpired   = errors.New("lambda: token expired")
)

// MinSecretBytes is the shortest AuthSecret accepted.
const MinSecretBytes = 16

// SignToken returns a token valid until expires, signed with secret.
func SignToken(secret []byte, expires time.Time) string {
	nonce := make([]byte, 12)
	rand.Read(nonce) // never fails (crypto/rand)
	body := strconv.FormatInt(expires.Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce)
	return body + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(secret, body))
}

// VerifyToken checks a token's signature against secret, then its expiry
// against now.
func VerifyToken(secret []byte, token string, now time.Time) error {
	i := strings.LastIndexByte(token, '.')
	if i < 0 || strings.Count(token, ".") != 2 {
		return ErrTokenMalformed
	}
	body, sig := token[:i], token[i+1:]
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return ErrTokenMalformed
	}
	if !hmac.Equal(got, tokenMAC(secret, body)) {
		return ErrTokenSignature
	}
	exp, err := strconv.ParseInt(body[:strings.IndexByte(body, '.')], 10, 64)
	if err != nil {
		return ErrTokenMalformed
	}
	if !now.Before(time.Unix(exp, 0)) {
		return ErrTokenExpired
	}
	return nil
}

func tokenMAC(secret []byte, body string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// authorized reports whether a CONNECT's token passes: no auth configured,
// the shared AuthToken, or a valid token signed with AuthSecret.
func (h *Handler) authorized(token string) bool {
	if h.cfg.AuthToken == "" && len(h.cfg.AuthSecret) == 0 {
		return true
	}
	if h.cfg.AuthToken != "" && tokenEqual(token, h.cfg.AuthToken) {
		return true
	}
	return len(h.cfg.AuthSecret) > 0 && VerifyToken(h.cfg.AuthSecret, token, h.clock.Now()) == nil
}
