package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/dynamostore"
	"github.com/groundwire/groundwire/lambda/emulator"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// The binaries built, by GOARCH, once per test run (a link takes seconds),
// in a directory removed by TestMain.
var builds struct {
	sync.Mutex
	dir string
	bin map[string]string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	os.Exit(code)
}

// build cross-compiles the bootstrap as it is deployed and returns the
// path of the binary.
func build(t testing.TB, goarch string) string {
	t.Helper()
	return buildPackage(t, ".", goarch)
}

// buildPackage builds the main package pkg (relative to this directory) as
// the bootstrap is deployed and returns the path of the binary.
func buildPackage(t testing.TB, pkg, goarch string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	key := pkg + " " + goarch
	if bin := builds.bin[key]; bin != "" {
		return bin
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "groundwire-bootstrap-")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir, builds.bin = dir, map[string]string{}
	}
	out := filepath.Join(builds.dir, goarch, filepath.Clean(pkg), "bootstrap")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-trimpath", "-o", out, "./"+filepath.Clean(pkg))
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOARCH=%s go build %s: %v\n%s", goarch, pkg, err, msg)
	}
	builds.bin[key] = out
	return out
}

// TestCrossBuild builds the deployable binary for both Lambda
// architectures, as the README says.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-builds the Lambda binary (slow); skipped with -short")
	}
	for _, arch := range []string{"arm64", "amd64"} {
		bin := build(t, arch)
		st, err := os.Stat(bin)
		if err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", arch, err)
		}
		t.Logf("linux/%s bootstrap: %.1f MB", arch, float64(st.Size())/1e6)
	}
}

// runtimeAPI is a minimal Lambda Runtime API (what the Lambda service and
// the Runtime Interface Emulator offer the bootstrap): it hands out one
// event at a time and collects the responses. Like the emulator it also
// serves the invoke API (emulator.InvokePath) and counts the invocations in
// flight there: from the invoke's arrival to the function's answer, whether
// or not the invoking client still waits (the emulator runs the function
// on when its client goes away).
type runtimeAPI struct {
	events    chan invocation
	next      chan time.Time // when set, gets the arrival time of a GET next if it has room
	timeout   time.Duration  // the function timeout: the deadline handed out
	mu        sync.Mutex
	responses map[string]chan []byte
	n         int
	invokes   invokeStats
}

// invokeStats count the invocations through the invoke API.
type invokeStats struct {
	total, inFlight, max int
	overlaps             int // invokes that arrived while another ran
	timeouts             int // invokes the function did not answer in time
}

type invocation struct {
	id   string
	body []byte
}

func newRuntimeAPI(t testing.TB) (*runtimeAPI, string) {
	r := &runtimeAPI{events: make(chan invocation), timeout: time.Minute, responses: map[string]chan []byte{}}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, strings.TrimPrefix(srv.URL, "http://")
}

func (r *runtimeAPI) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	const prefix = "/2018-06-01/runtime/"
	p := strings.TrimPrefix(req.URL.Path, prefix)
	switch {
	case req.URL.Path == emulator.InvokePath:
		r.serveInvoke(w, req)
	case req.Method == http.MethodGet && p == "invocation/next":
		if r.next != nil {
			select {
			case r.next <- time.Now():
			default:
			}
		}
		select {
		case inv := <-r.events:
			w.Header().Set("Lambda-Runtime-Aws-Request-Id", inv.id)
			w.Header().Set("Lambda-Runtime-Deadline-Ms", fmt.Sprint(time.Now().Add(r.timeout).UnixMilli()))
			w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:groundwire")
			w.Write(inv.body)
		case <-req.Context().Done():
		}
	case req.Method == http.MethodPost && strings.HasPrefix(p, "invocation/"):
		rest := strings.TrimPrefix(p, "invocation/")
		id, kind, _ := strings.Cut(rest, "/")
		body, _ := io.ReadAll(req.Body)
		if kind == "error" {
			body = append([]byte("ERROR "), body...)
		}
		r.mu.Lock()
		ch := r.responses[id]
		r.mu.Unlock()
		if ch != nil {
			ch <- body
		}
		w.WriteHeader(http.StatusAccepted)
	case req.Method == http.MethodPost && p == "init/error":
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		for _, ch := range r.responses {
			select {
			case ch <- append([]byte("INIT ERROR "), body...):
			default:
			}
		}
		r.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, req)
	}
}

// serveInvoke is the emulator's invoke API: the event goes to the function,
// and its answer back (the function's error document as it is, a timeout
// as the emulator's plain text). Like the emulator it does not stop when
// the client goes away; unlike it, it accepts an invoke while another runs
// (it waits for the function), counting the overlap.
func (r *runtimeAPI) serveInvoke(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.n++
	id := fmt.Sprintf("req-%d", r.n)
	ch := make(chan []byte, 1)
	r.responses[id] = ch
	st := &r.invokes
	st.total++
	st.inFlight++
	st.max = max(st.max, st.inFlight)
	if st.inFlight > 1 {
		st.overlaps++
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		st.inFlight--
		delete(r.responses, id)
		r.mu.Unlock()
	}()
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	timedOut := func() {
		r.mu.Lock()
		st.timeouts++
		r.mu.Unlock()
		fmt.Fprintf(w, "Task timed out after %.2f seconds", r.timeout.Seconds())
	}
	select {
	case r.events <- invocation{id, body}:
	case <-deadline.C:
		timedOut()
		return
	}
	select {
	case out := <-ch:
		switch {
		case bytes.HasPrefix(out, []byte("INIT ERROR ")):
			w.WriteHeader(http.StatusBadGateway)
			w.Write(bytes.TrimPrefix(out, []byte("INIT ERROR ")))
		default:
			w.Write(bytes.TrimPrefix(out, []byte("ERROR ")))
		}
	case <-deadline.C:
		timedOut()
	}
}

// stats returns the invoke API's counts.
func (r *runtimeAPI) stats() invokeStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.invokes
}

// invoke sends one event to the function and waits for its response.
func (r *runtimeAPI) invoke(t *testing.T, ev events.APIGatewayWebsocketProxyRequest) events.APIGatewayProxyResponse {
	t.Helper()
	body, _ := json.Marshal(ev)
	r.mu.Lock()
	r.n++
	id := fmt.Sprintf("req-%d", r.n)
	ch := make(chan []byte, 1)
	r.responses[id] = ch
	r.mu.Unlock()
	select {
	case r.events <- invocation{id, body}:
	case <-time.After(20 * time.Second):
		t.Fatal("the function never asked for its next event")
	}
	select {
	case out := <-ch:
		var resp events.APIGatewayProxyResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("response %s: %v", out, err)
		}
		return resp
	case <-time.After(20 * time.Second):
		t.Fatal("no response")
	}
	return events.APIGatewayProxyResponse{}
}

func wsEvent(typ, conn, body string) events.APIGatewayWebsocketProxyRequest {
	return events.APIGatewayWebsocketProxyRequest{Body: body, RequestContext: events.APIGatewayWebsocketProxyRequestContext{
		EventType: typ, ConnectionID: conn, RouteKey: "$default", Stage: "prod",
		DomainName: "abc123.execute-api.us-east-1.amazonaws.com",
	}}
}

// startDynalite starts dynalite on a loopback port when it is installed
// (GROUNDWIRE_DYNAMO_ENDPOINT wins); "" when there is none.
// needBinaryHost skips a test that runs the Lambda binary with -short, and
// on hosts where the binary cannot run.
func needBinaryHost(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the Lambda binary (slow); skipped with -short")
	}
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("the Lambda binary runs on linux/amd64 or linux/arm64 only")
	}
}

// needDynalite returns the endpoint of a dynalite started for the test; the
// test is skipped without one (why says what for), and fails under CI=true.
func needDynalite(t *testing.T, why string) string {
	t.Helper()
	dynamo := startDynalite(t)
	if dynamo == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("dynalite is not installed (npm install -g dynalite@4.0.0)")
		}
		t.Skip("needs dynalite (npm install -g dynalite@4.0.0): " + why)
	}
	return dynamo
}

// dynamoClient is a DynamoDB client of a local endpoint, in region (an
// endpoint such as DynamoDB Local keeps each region's tables apart).
func dynamoClient(endpoint, region string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: region, BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local"}, nil
		}),
	})
}

func startDynalite(t *testing.T) string {
	if ep := os.Getenv("GROUNDWIRE_DYNAMO_ENDPOINT"); ep != "" {
		return ep
	}
	bin, err := exec.LookPath("dynalite")
	if err != nil {
		return ""
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", port, "--createTableMs", "0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(15 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatal("dynalite did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBinary runs the linux binary (on linux hosts of the same
// architecture) against a Lambda Runtime API, the Management API emulator
// (GROUNDWIRE_ENDPOINT) and DynamoDB (AWS_ENDPOINT_URL_DYNAMODB): dynalite
// when installed, else a closed port, where it must fail closed.
func TestBinary(t *testing.T) {
	needBinaryHost(t)
	bin := build(t, runtime.GOARCH)

	rec := emulator.NewRecorder()
	mgmt := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}))
	defer mgmt.Close()

	dynamo := startDynalite(t)
	up := dynamo != ""
	if !up {
		if os.Getenv("CI") == "true" {
			t.Fatal("dynalite is not installed (npm install -g dynalite@4.0.0)")
		}
		t.Log("dynalite not installed: running against a DynamoDB that is down")
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		dynamo = "http://" + l.Addr().String()
		l.Close()
	} else {
		db := dynamoClient(dynamo, "us-east-1")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := dynamostore.CreateTable(ctx, db, "groundwire-bin"); err != nil {
			t.Fatal(err)
		}
	}

	rt, rtAddr := newRuntimeAPI(t)
	logs := startFunction(t, bin, rtAddr, dynamo, "groundwire-bin", mgmt.URL, "GROUNDWIRE_TOKEN_DELAY=0")

	connect := wsEvent(lambda.EventConnect, "c1=", "")
	if resp := rt.invoke(t, connect); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("connect without token: %d", resp.StatusCode)
	}
	connect.QueryStringParameters = map[string]string{"token": "s3cret"}
	rec.Open("c1=", emulator.Info{})
	resp := rt.invoke(t, connect)
	frames := func() string {
		var fs []lambdatest.Frame
		for _, b := range rec.Sent("c1=") {
			var f lambdatest.Frame
			json.Unmarshal(b, &f)
			fs = append(fs, f)
		}
		return lambdatest.Summary(fs)
	}
	if !up {
		// fail-closed: the connection is refused, a confirm executes nothing
		if resp.StatusCode != http.StatusInternalServerError {
			t.Fatalf("connect with DynamoDB down: %d", resp.StatusCode)
		}
		rt.invoke(t, wsEvent(lambda.EventMessage, "c1=", `{"type":"confirm_action","suggestionId":"0123456789abcdef0123456789abcdef"}`))
		if got := frames(); got != "action_executed:"+lambda.MsgNotConfirmed {
			t.Fatalf("frames %s", got)
		}
		time.Sleep(100 * time.Millisecond) // let the logs be written
		if jsonLogs(t, logs.String()) == 0 {
			t.Fatal("the store errors were not logged")
		}
		return
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("connect: %d", resp.StatusCode)
	}
	rt.invoke(t, wsEvent(lambda.EventMessage, "c1=", `{"type":"message","id":"m1","text":"How much does Premium cost per month? Call me on +46 70 123 45 67"}`))
	got := frames()
	if !strings.HasPrefix(got, "sources:m1 stream:m1 stream_end:m1:") || !strings.HasSuffix(got, "action_suggestion:m1:schedule_callback") {
		t.Fatalf("frames %s", got)
	}
	var sugg lambdatest.Frame
	sent := rec.Sent("c1=")
	json.Unmarshal(sent[len(sent)-1], &sugg)
	rt.invoke(t, wsEvent(lambda.EventMessage, "c1=", `{"type":"confirm_action","suggestionId":"`+sugg.SuggestionID+`"}`))
	rt.invoke(t, wsEvent(lambda.EventMessage, "c1=", `{"type":"confirm_action","suggestionId":"`+sugg.SuggestionID+`"}`))
	if got := frames(); !strings.HasSuffix(got, "action_executed:Callback scheduled to +46 70 123 45 67 action_executed:"+lambda.MsgAlreadyExecuted) {
		t.Fatalf("frames %s", got)
	}
	if resp := rt.invoke(t, wsEvent(lambda.EventDisconnect, "c1=", "")); resp.StatusCode != http.StatusOK {
		t.Fatalf("disconnect: %d", resp.StatusCode)
	}
}

// startFunction runs the binary as the Lambda service would, against the
// Runtime API at rtAddr, DynamoDB at dynamo (table) and the Management API
// at mgmt, with the extra environment; it is killed when the test ends,
// and its logs shown if the test failed.
func startFunction(t *testing.T, bin, rtAddr, dynamo, table, mgmt string, env ...string) *syncBuffer {
	t.Helper()
	logs := &syncBuffer{}
	cmd := exec.Command(bin)
	cmd.Env = append(append(lambdaEnv(rtAddr),
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ENDPOINT_URL_DYNAMODB="+dynamo,
		"GROUNDWIRE_TABLE="+table,
		"GROUNDWIRE_ENDPOINT="+mgmt,
		"GROUNDWIRE_AUTH_TOKEN=s3cret",
		"GROUNDWIRE_AWS_TIMEOUT=1s",
	), env...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("function logs (%s):\n%s", rtAddr, logs.String())
		}
	})
	return logs
}

// lambdaEnv is the environment the Lambda service gives a function (with
// a dummy region and credentials), its Runtime API at rtAddr.
func lambdaEnv(rtAddr string) []string {
	return []string{
		"AWS_LAMBDA_RUNTIME_API=" + rtAddr,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local",
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// jsonLogs checks that every line the function logged is a JSON object
// and returns how many there were.
func jsonLogs(t *testing.T, logs string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["level"] == nil || m["msg"] == nil {
			t.Fatalf("log line is not slog JSON: %s", line)
		}
		n++
	}
	return n
}

// TestForwarderDropsMidAnswer runs the binary under two emulator stand-ins
// (the Runtime API for the function, the invoke API for the forwarder),
// sharing DynamoDB, and drops clients mid-answer through the forwarder
// again and again, as the local server does when a browser tab closes:
// the message's invocation is given up, the connection is gone
// (PostToConnection answers 410), $disconnect follows and the next client
// connects at once. The function runs on after its invoking client has
// gone, so an endpoint must get nothing more until the function has
// answered; the stand-ins count the invocations in flight.
func TestForwarderDropsMidAnswer(t *testing.T) {
	needBinaryHost(t)
	dynamo := needDynalite(t, "the two instances share their state")
	db := dynamoClient(dynamo, "us-east-1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, dynamostore.CreateTable(ctx, db, "groundwire-fwd"))
	bin := build(t, runtime.GOARCH)

	rec := emulator.NewRecorder()
	mgmt := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}))
	defer mgmt.Close()

	const functionTimeout = 10 * time.Second // short: nothing may wait for the default 300 s
	var apis []*runtimeAPI
	var urls []string
	for range 2 {
		api, addr := newRuntimeAPI(t)
		api.timeout = functionTimeout
		startFunction(t, bin, addr, dynamo, "groundwire-fwd", mgmt.URL, "GROUNDWIRE_TOKEN_DELAY=2ms")
		apis, urls = append(apis, api), append(urls, "http://"+addr)
	}
	fw, err := emulator.NewForwarder(urls, emulator.ForwarderOptions{FunctionTimeout: functionTimeout})
	require.NoError(t, err)
	defer func() { // after a failure: the stand-ins answer within the function timeout
		ctx, cancel := context.WithTimeout(context.Background(), functionTimeout)
		defer cancel()
		fw.Close(ctx)
	}()

	long := "$say " + strings.Repeat("Premium is the plan with priority support, and you can switch plans whenever you like. ", 40)
	const rounds = 25
	for i := range rounds {
		id := fmt.Sprintf("drop%d=", i)
		rec.Open(id, emulator.Info{})
		connect := wsEvent(lambda.EventConnect, id, "")
		connect.QueryStringParameters = map[string]string{"token": "s3cret"}
		resp, err := fw.Handle(context.Background(), connect)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)

		msgCtx, drop := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := fw.Handle(msgCtx, wsEvent(lambda.EventMessage, id, `{"type":"message","id":"m1","text":"`+long+`"}`))
			errc <- err
		}()
		for deadline := time.Now().Add(functionTimeout); len(rec.Sent(id)) < 3; time.Sleep(time.Millisecond) {
			require.True(t, time.Now().Before(deadline), "round %d: the answer did not start", i)
		}
		rec.Close(id) // the client is gone: the function's next post gets 410
		drop()        // and the local server gives up the connection's invocations
		select {
		case err := <-errc:
			require.ErrorIs(t, err, context.Canceled)
		case <-time.After(functionTimeout):
			t.Fatalf("round %d: the forwarder held its caller after the caller gave up", i)
		}
		resp, err = fw.Handle(context.Background(), wsEvent(lambda.EventDisconnect, id, ""))
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), functionTimeout)
	defer cancelClose()
	fw.Close(closeCtx) // the answers still running end

	total := 0
	for i, api := range apis {
		st := api.stats()
		t.Logf("endpoint %d: %+v", i, st)
		assert.Zero(t, st.overlaps, "endpoint %d got an invocation while the function ran one", i)
		assert.Equal(t, 1, st.max, "endpoint %d", i)
		assert.Zero(t, st.timeouts, "endpoint %d", i)
		total += st.total
	}
	assert.Equal(t, 3*rounds, total, "one connect, message and disconnect a round")
	for i := range rounds {
		var last lambdatest.Frame
		sent := rec.Sent(fmt.Sprintf("drop%d=", i))
		require.NoError(t, json.Unmarshal(sent[len(sent)-1], &last))
		assert.Equal(t, lambda.TypeStream, last.Type, "round %d: the answer was not cut mid-stream", i)
	}
}
