package dynamostore_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/groundwire/groundwire/lambda/dynamostore"
)

// endpoint is the DynamoDB endpoint the tests use: GROUNDWIRE_DYNAMO_ENDPOINT,
// or a dynalite started by TestMain on a loopback port.
var endpoint string

// unavailable says why there is no endpoint.
var unavailable string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if ep := os.Getenv("GROUNDWIRE_DYNAMO_ENDPOINT"); ep != "" {
		endpoint = ep
		return m.Run()
	}
	bin := findDynalite()
	if bin == "" {
		unavailable = "dynalite not found on PATH or in node_modules/.bin: install it with `npm install -g dynalite@4.0.0`, or set GROUNDWIRE_DYNAMO_ENDPOINT to a DynamoDB endpoint"
		return m.Run()
	}
	port, err := freePort()
	if err != nil {
		unavailable = "no free port for dynalite: " + err.Error()
		return m.Run()
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	cmd.Stdout, cmd.Stderr = &out, &out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		unavailable = "starting dynalite: " + err.Error()
		return m.Run()
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			unavailable = "dynalite did not start: " + out.String()
			return m.Run()
		}
		time.Sleep(50 * time.Millisecond)
	}
	endpoint = "http://" + addr
	return m.Run()
}

// findDynalite looks for the dynalite binary on PATH, then in node_modules/.bin
// of this directory and its parents.
func findDynalite() string {
	if p, err := exec.LookPath("dynalite"); err == nil {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "node_modules", ".bin", "dynalite")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// need skips the test when there is no DynamoDB endpoint — or fails it on
// CI (CI=true), where dynalite must be installed.
func need(t *testing.T) {
	t.Helper()
	if unavailable == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(unavailable)
	}
	t.Skip(unavailable)
}

// client returns a DynamoDB client for ep with dummy credentials and
// bounded retries, as the bootstrap configures it.
func client(ep string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}, nil
		}),
		BaseEndpoint:     aws.String(ep),
		RetryMaxAttempts: 2,
		HTTPClient:       &http.Client{Timeout: 5 * time.Second},
	})
}

var tables atomic.Int64

// newTable creates a fresh table and returns its name.
func newTable(t *testing.T) string {
	t.Helper()
	need(t)
	name := fmt.Sprintf("groundwire-test-%d-%d", os.Getpid(), tables.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := client(endpoint)
	if err := dynamostore.CreateTable(ctx, db, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// newStore returns a store on a fresh table, with its own client.
func newStore(t *testing.T) *dynamostore.Store {
	return dynamostore.New(client(endpoint), newTable(t), dynamostore.Options{})
}
