package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSSM is a stand-in for SSM Parameter Store's GetParameters (the
// JSON 1.1 protocol the SDK speaks), holding SecureString parameters.
type fakeSSM struct {
	params map[string]string // name → value
	mu     sync.Mutex
	calls  []ssmCall
}

type ssmCall struct {
	Names          []string
	WithDecryption bool
	Signed         bool
}

func (f *fakeSSM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") != "AmazonSSM.GetParameters" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"UnknownOperationException"}`))
		return
	}
	var in struct {
		Names          []string
		WithDecryption bool
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, ssmCall{in.Names, in.WithDecryption, strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")})
	f.mu.Unlock()
	out := struct {
		Parameters        []map[string]any
		InvalidParameters []string
	}{InvalidParameters: []string{}}
	for _, n := range in.Names {
		v, ok := f.params[n]
		if !ok {
			out.InvalidParameters = append(out.InvalidParameters, n)
			continue
		}
		if !in.WithDecryption {
			v = "AQICAHencrypted" // what SSM returns for a SecureString without decryption
		}
		out.Parameters = append(out.Parameters, map[string]any{
			"Name": n, "Type": "SecureString", "Value": v, "Version": 1,
			"ARN": "arn:aws:ssm:eu-north-1:123456789012:parameter" + n,
		})
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(out)
}

func (f *fakeSSM) client(t *testing.T) func() parameterGetter {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return func() parameterGetter {
		return newSSMClient(aws.Config{
			Region: "eu-north-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}, nil
			}),
		}, env(nil))
	}
}

func TestResolveSecrets(t *testing.T) {
	f := &fakeSSM{params: map[string]string{
		"/groundwire/auth-token":  "tok with spaces ",
		"/groundwire/auth-secret": "0123456789abcdef0123",
		"/groundwire/openai-key":  "sk-live",
	}}
	vars := map[string]string{
		"GROUNDWIRE_TABLE":             "gw",
		"GROUNDWIRE_MODEL":             "openai",
		"OPENAI_MODEL":                 "gpt-4o-mini",
		"GROUNDWIRE_AUTH_TOKEN_PARAM":  "/groundwire/auth-token",
		"GROUNDWIRE_AUTH_SECRET_PARAM": " /groundwire/auth-secret ",
		"OPENAI_API_KEY_PARAM":         "/groundwire/openai-key",
	}
	getenv, err := resolveSecrets(context.Background(), env(vars), f.client(t))
	require.NoError(t, err)
	c, err := loadConfig(getenv)
	require.NoError(t, err)
	assert.Equal(t, "tok with spaces ", c.AuthToken)
	assert.Equal(t, "0123456789abcdef0123", c.AuthSecret)
	assert.Equal(t, "sk-live", c.OpenAI.APIKey)
	assert.Equal(t, "gpt-4o-mini", getenv("OPENAI_MODEL"), "other variables pass through")
	require.Len(t, f.calls, 1, "one call for all secrets")
	assert.Equal(t, ssmCall{[]string{"/groundwire/auth-token", "/groundwire/auth-secret", "/groundwire/openai-key"}, true, true}, f.calls[0])
	assert.Empty(t, vars["GROUNDWIRE_AUTH_TOKEN"], "the environment itself is not changed")
}

func TestResolveSecretsPlain(t *testing.T) {
	// plain values (local runs): SSM is never asked
	vars := map[string]string{"GROUNDWIRE_TABLE": "gw", "GROUNDWIRE_AUTH_TOKEN": "s3cret"}
	getenv, err := resolveSecrets(context.Background(), env(vars), func() parameterGetter {
		t.Fatal("SSM client created without any _PARAM variable")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "s3cret", getenv("GROUNDWIRE_AUTH_TOKEN"))
}

func TestResolveSecretsErrors(t *testing.T) {
	f := &fakeSSM{params: map[string]string{"/gw/empty": "  ", "/gw/token": "t"}}
	newClient := f.client(t)
	for _, tc := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"both ways", map[string]string{"GROUNDWIRE_AUTH_TOKEN": "x", "GROUNDWIRE_AUTH_TOKEN_PARAM": "/gw/token"},
			[]string{"GROUNDWIRE_AUTH_TOKEN and GROUNDWIRE_AUTH_TOKEN_PARAM are both set"}},
		{"missing and empty", map[string]string{"GROUNDWIRE_AUTH_SECRET_PARAM": "/gw/nope", "OPENAI_API_KEY_PARAM": "/gw/empty"},
			[]string{`GROUNDWIRE_AUTH_SECRET_PARAM="/gw/nope": no such parameter`, `OPENAI_API_KEY_PARAM="/gw/empty": the parameter is empty`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveSecrets(context.Background(), env(tc.vars), newClient)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	// SSM unreachable: the function does not start (fail-closed), the error names the parameter
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	_, err := resolveSecrets(context.Background(), env(map[string]string{"GROUNDWIRE_AUTH_TOKEN_PARAM": "/gw/token"}), func() parameterGetter {
		return newSSMClient(aws.Config{Region: "eu-north-1", BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1, Credentials: aws.AnonymousCredentials{}}, env(nil))
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/gw/token")
}
