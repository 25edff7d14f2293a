package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// ssmClient makes the one SSM Parameter Store call the function needs,
// GetParameters, as the SDK's client would: a JSON 1.1 request signed with
// the SDK's Signature Version 4 signer and the function's credentials,
// retried by the configuration's retryer. It replaces the SDK's SSM
// package, whose initialisation alone (the schemas of its 146 operations)
// cost every cold start 15–32 ms, secrets or not.
type ssmClient struct {
	cfg      aws.Config
	endpoint string
	signer   *v4.Signer
}

// ssmParameters is GetParameters' answer: the parameters found (an ARN
// asked for is answered with the parameter's Name and ARN) and the names
// not found.
type ssmParameters struct {
	Parameters []struct {
		Name, ARN, Value string
	}
	InvalidParameters []string
}

// newSSMClient returns a client for the region of cfg. Its endpoint is, as
// for the SDK's clients, AWS_ENDPOINT_URL_SSM, else AWS_ENDPOINT_URL
// (cfg.BaseEndpoint), else the region's public endpoint; other partitions
// than aws and aws-cn (and FIPS endpoints) are given by
// AWS_ENDPOINT_URL_SSM.
func newSSMClient(cfg aws.Config, getenv func(string) string) *ssmClient {
	endpoint := ""
	if !strings.EqualFold(getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"), "true") {
		endpoint = getenv("AWS_ENDPOINT_URL_SSM")
		if endpoint == "" {
			endpoint = aws.ToString(cfg.BaseEndpoint)
		}
	}
	if endpoint == "" {
		domain := "amazonaws.com"
		if strings.HasPrefix(cfg.Region, "cn-") {
			domain = "amazonaws.com.cn"
		}
		endpoint = "https://ssm." + cfg.Region + "." + domain
	}
	return &ssmClient{cfg: cfg, endpoint: strings.TrimSuffix(endpoint, "/") + "/", signer: v4.NewSigner()}
}

// ssmError is an error SSM answered with: its HTTP status and error code
// (what the retryer reads to decide whether to try again).
type ssmError struct {
	status        int
	code, message string
}

func (e *ssmError) Error() string {
	if e.message == "" {
		return fmt.Sprintf("SSM: %s (HTTP %d)", e.code, e.status)
	}
	return fmt.Sprintf("SSM: %s: %s (HTTP %d)", e.code, e.message, e.status)
}

// HTTPStatusCode and ErrorCode are what the SDK's retryer asks of an error.
func (e *ssmError) HTTPStatusCode() int { return e.status }
func (e *ssmError) ErrorCode() string   { return e.code }

// maxSSMResponse bounds what is read of an answer: ten parameters of 8 KB
// each, with their metadata, take well under it.
const maxSSMResponse = 1 << 20

// GetParameters reads the named parameters, decrypted.
func (c *ssmClient) GetParameters(ctx context.Context, names []string) (*ssmParameters, error) {
	body, err := json.Marshal(struct {
		Names          []string
		WithDecryption bool
	}{names, true})
	if err != nil {
		return nil, err
	}
	var retryer aws.Retryer
	if c.cfg.Retryer != nil {
		retryer = c.cfg.Retryer()
	} else {
		retryer = retry.NewStandard(func(o *retry.StandardOptions) {
			if c.cfg.RetryMaxAttempts > 0 {
				o.MaxAttempts = c.cfg.RetryMaxAttempts
			}
		})
	}
	for attempt := 1; ; attempt++ {
		out, err := c.getParameters(ctx, body)
		if err == nil || attempt >= retryer.MaxAttempts() || ctx.Err() != nil || !retryer.IsErrorRetryable(err) {
			return out, err
		}
		delay, derr := retryer.RetryDelay(attempt, err)
		if derr != nil {
			return nil, err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, err
		}
	}
}

// getParameters makes one attempt.
func (c *ssmClient) getParameters(ctx context.Context, body []byte) (*ssmParameters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "AmazonSSM.GetParameters")
	if c.cfg.Credentials != nil && !aws.IsCredentialsProvider(c.cfg.Credentials, aws.AnonymousCredentials{}) {
		creds, err := c.cfg.Credentials.Retrieve(ctx)
		if err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		sum := sha256.Sum256(body)
		if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "ssm", c.cfg.Region, time.Now()); err != nil {
			return nil, err
		}
	}
	var client aws.HTTPClient = http.DefaultClient
	if c.cfg.HTTPClient != nil {
		client = c.cfg.HTTPClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSSMResponse+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSSMResponse {
		return nil, fmt.Errorf("SSM: answer larger than %d bytes", maxSSMResponse)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, ssmErrorOf(resp.StatusCode, data)
	}
	var out ssmParameters
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("SSM: reading its answer: %w", err)
	}
	return &out, nil
}

// ssmErrorOf reads an error answer of the JSON 1.1 protocol:
// {"__type": "[namespace#]Code", "message": "…"}.
func ssmErrorOf(status int, data []byte) error {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"` // or "Message": json matches either
	}
	json.Unmarshal(data, &e) // an answer that is not JSON leaves the code empty
	code := e.Type
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = http.StatusText(status)
	}
	return &ssmError{status: status, code: code, message: e.Message}
}
