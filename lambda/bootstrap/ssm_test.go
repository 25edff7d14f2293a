package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testCreds = aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}

// testSSMConfig is a configuration for an SSM at url whose retryer tries
// attempts times without waiting.
func testSSMConfig(url string, attempts int) aws.Config {
	return aws.Config{
		Region: "eu-north-1", BaseEndpoint: aws.String(url),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return testCreds, nil }),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = attempts
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			})
		},
	}
}

func TestSSMEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name, region, base string
		vars               map[string]string
		want               string
	}{
		{"region", "eu-north-1", "", nil, "https://ssm.eu-north-1.amazonaws.com/"},
		{"china", "cn-north-1", "", nil, "https://ssm.cn-north-1.amazonaws.com.cn/"},
		{"AWS_ENDPOINT_URL", "eu-north-1", "http://127.0.0.1:4566", nil, "http://127.0.0.1:4566/"},
		{"AWS_ENDPOINT_URL_SSM wins", "eu-north-1", "http://127.0.0.1:4566",
			map[string]string{"AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:9000/"}, "http://127.0.0.1:9000/"},
		{"ignored", "eu-north-1", "http://127.0.0.1:4566",
			map[string]string{"AWS_ENDPOINT_URL_SSM": "http://127.0.0.1:9000", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"},
			"https://ssm.eu-north-1.amazonaws.com/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := aws.Config{Region: tc.region}
			if tc.base != "" {
				cfg.BaseEndpoint = aws.String(tc.base)
			}
			assert.Equal(t, tc.want, newSSMClient(cfg, env(tc.vars)).endpoint)
		})
	}
}

// TestSSMSignature checks that the request SSM gets is the one signed: its
// Authorization header is what signing the received method, host, headers
// and body at its X-Amz-Date gives, for the service ssm in the region.
func TestSSMSignature(t *testing.T) {
	var checked atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		assert.JSONEq(t, `{"Names":["/gw/a"],"WithDecryption":true}`, string(body))
		at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
		if !assert.NoError(t, err) { // (require only in the test's goroutine)
			return
		}
		again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.Path, bytes.NewReader(body))
		again.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		again.Header.Set("X-Amz-Target", r.Header.Get("X-Amz-Target"))
		sum := sha256.Sum256(body)
		assert.NoError(t, v4.NewSigner().SignHTTP(context.Background(), testCreds, again, hex.EncodeToString(sum[:]), "ssm", "eu-north-1", at))
		assert.Equal(t, again.Header.Get("Authorization"), r.Header.Get("Authorization"))
		assert.Contains(t, r.Header.Get("Authorization"), "/eu-north-1/ssm/aws4_request")
		assert.Equal(t, "AmazonSSM.GetParameters", r.Header.Get("X-Amz-Target"))
		assert.Equal(t, "application/x-amz-json-1.1", r.Header.Get("Content-Type"))
		checked.Store(true)
		w.Write([]byte(`{"Parameters":[{"Name":"/gw/a","Value":"v","Type":"SecureString"}],"InvalidParameters":[]}`))
	}))
	defer srv.Close()
	out, err := newSSMClient(testSSMConfig(srv.URL, 1), env(nil)).GetParameters(context.Background(), []string{"/gw/a"})
	require.NoError(t, err)
	require.True(t, checked.Load())
	require.Len(t, out.Parameters, 1)
	assert.Equal(t, "v", out.Parameters[0].Value)
}

func TestSSMErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  []string // status and body of each attempt, "503 {...}"
		attempts int32    // attempts made
		want     string   // in the error; "" for success
	}{
		{"throttled, then answered", []string{`400 {"__type":"ThrottlingException","message":"Rate exceeded"}`, `200 {"Parameters":[]}`}, 2, ""},
		{"unavailable, then answered", []string{`503 `, `200 {"Parameters":[]}`}, 2, ""},
		{"unavailable every time", []string{`500 oops`, `500 oops`, `500 oops`}, 3, "SSM: Internal Server Error (HTTP 500)"},
		{"denied: not retried", []string{`400 {"__type":"com.amazonaws.ssm#AccessDeniedException","Message":"not allowed"}`}, 1,
			"SSM: AccessDeniedException: not allowed (HTTP 400)"},
		{"not JSON", []string{`200 <html>`}, 1, "SSM: reading its answer"},
		{"too large", []string{`200 {"Parameters":[],"x":"` + strings.Repeat("a", maxSSMResponse) + `"}`}, 1, "answer larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if !assert.Less(t, i, len(tc.answers), "attempt %d not expected", i+1) {
					w.WriteHeader(http.StatusTeapot)
					return
				}
				status, body, _ := strings.Cut(tc.answers[i], " ")
				code := map[string]int{"200": 200, "400": 400, "500": 500, "503": 503}[status]
				w.WriteHeader(code)
				w.Write([]byte(body))
			}))
			defer srv.Close()
			_, err := newSSMClient(testSSMConfig(srv.URL, 3), env(nil)).GetParameters(context.Background(), []string{"/gw/a"})
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			}
			assert.Equal(t, tc.attempts, n.Load())
		})
	}
}
