package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/dynamostore"
	"github.com/groundwire/groundwire/lambda/emulator"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// The README's "Deploy on AWS" and "Run the deployable binary locally" are
// checked here: what can run without AWS and the emulator download runs
// (the build commands, -create-table, the binary under a Lambda Runtime
// API), the rest is checked for what broke it before (ports, paths,
// variables, a token that "Connect" never had).

// readmeBlocks returns the commands of the fenced sh blocks of the README
// section titled heading (up to the next heading of the same or a higher
// level), one logical command per entry: continuation lines joined,
// comments and blank lines dropped.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(data)
	i := strings.Index(text, "\n"+heading+"\n")
	require.GreaterOrEqual(t, i, 0, "README has no %q", heading)
	text = text[i+len(heading)+2:]
	level := strings.Fields(heading)[0]
	for _, h := range []string{"\n## ", "\n" + level + " "} {
		if j := strings.Index(text, h); j >= 0 {
			text = text[:j]
		}
	}
	var cmds []string
	in := false
	cur := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "```sh":
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		}
		if !in {
			continue
		}
		if c := strings.Index(line, " #"); c >= 0 && !strings.Contains(line[:c], "'") {
			line = line[:c] // a trailing comment
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cur += line + " "
		if strings.HasSuffix(line, "\\") {
			cur = strings.TrimSuffix(cur, "\\ ")
			continue
		}
		if strings.HasSuffix(line, "||") || strings.HasSuffix(line, "&&") || strings.HasSuffix(line, "|") {
			continue // the command goes on
		}
		cmds = append(cmds, strings.Join(strings.Fields(cur), " "))
		cur = ""
	}
	require.NotEmpty(t, cmds, "no sh block under %q", heading)
	return cmds
}

// exports returns the variables the commands export (export A=1 B=2).
func exports(cmds []string) map[string]string {
	vars := map[string]string{}
	for _, c := range cmds {
		if f := strings.Fields(c); len(f) > 1 && f[0] == "export" {
			for _, kv := range f[1:] {
				if k, v, ok := strings.Cut(kv, "="); ok {
					vars[k] = v
				}
			}
		}
	}
	return vars
}

func findCmd(cmds []string, prefix string) []string {
	var out []string
	for _, c := range cmds {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func flagValue(cmd, name string) string {
	m := regexp.MustCompile(regexp.QuoteMeta(name) + `[ =](\S+)`).FindStringSubmatch(cmd)
	if m == nil {
		return ""
	}
	return m[1]
}

// sh runs a command line in the repository's root.
func sh(t *testing.T, env []string, script string) string {
	t.Helper()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "sh -c %q:\n%s", script, out)
	return strings.TrimSpace(string(out))
}

// TestDeployReadmeLocalSteps: the local steps need no AWS CLI, give every
// emulator its own invoke and Runtime API address, point the forwarder at
// the emulators, build into the architecture's directory, and set the
// region (both variables) and the template's timeout.
func TestDeployReadmeLocalSteps(t *testing.T) {
	cmds := readmeBlocks(t, "### Run the deployable binary locally")
	for _, c := range cmds {
		assert.False(t, strings.HasPrefix(c, "aws "), "an AWS CLI command: %s", c)
	}
	vars := exports(cmds)
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_DYNAMODB", "GROUNDWIRE_TABLE", "GROUNDWIRE_ENDPOINT"} {
		assert.NotEmpty(t, vars[k], "%s is not exported", k)
	}
	assert.Equal(t, vars["AWS_REGION"], vars["AWS_DEFAULT_REGION"])
	tpl := loadTemplate(t)
	assert.Equal(t, fmt2(tpl.props("Function")["Timeout"]), vars["AWS_LAMBDA_FUNCTION_TIMEOUT"], "the emulator's timeout is the template's")

	// dynalite listens where the SDK looks, and the table is made by the project
	dl := findCmd(cmds, "dynalite ")
	require.Len(t, dl, 1)
	assert.Equal(t, vars["AWS_ENDPOINT_URL_DYNAMODB"], "http://"+flagValue(dl[0], "--host")+":"+flagValue(dl[0], "--port"))
	assert.Len(t, findCmd(cmds, "go run ./lambda/bootstrap -create-table"), 1)

	// the build writes lambda/build/<Lambda architecture name>/bootstrap
	archLine := findCmd(cmds, "ARCH=")
	require.Len(t, archLine, 1)
	for goarch, lambdaArch := range map[string]string{"amd64": "x86_64", "arm64": "arm64"} {
		assert.Equal(t, lambdaArch, sh(t, []string{"GOARCH=" + goarch}, archLine[0]+`; echo "$ARCH"`))
		assert.Contains(t, tpl.Parameters["Architecture"].(map[string]any)["AllowedValues"], lambdaArch)
	}
	build := findCmd(cmds, "CGO_ENABLED=0 GOOS=linux GOARCH=$(go env GOARCH) go build ")
	require.Len(t, build, 1)
	bin := flagValue(build[0], "-o")
	assert.Equal(t, "lambda/build/$ARCH/bootstrap", bin)

	// emulators: distinct addresses, none on another's port or a service's
	used := map[string]string{"127.0.0.1:8787": "the local server", strings.TrimPrefix(vars["AWS_ENDPOINT_URL_DYNAMODB"], "http://"): "dynalite"}
	var invokeURLs []string
	ries := findCmd(cmds, "aws-lambda-rie ")
	require.GreaterOrEqual(t, len(ries), 2, "two emulators, so that a cancel need not wait")
	for _, r := range ries {
		rieAddr, apiAddr := flagValue(r, "--runtime-interface-emulator-address"), flagValue(r, "--runtime-api-address")
		require.NotEmpty(t, rieAddr, r)
		require.NotEmpty(t, apiAddr, "%s: without --runtime-api-address every emulator takes 127.0.0.1:9001", r)
		for _, a := range []string{rieAddr, apiAddr} {
			_, _, err := net.SplitHostPort(a)
			require.NoError(t, err, a)
			assert.Empty(t, used[a], "%s is already %s", a, used[a])
			used[a] = r
		}
		assert.True(t, strings.HasSuffix(r, " "+bin+" &"), "%s: runs %s in the background", r, bin)
		invokeURLs = append(invokeURLs, "http://"+rieAddr)
	}
	local := findCmd(cmds, "go run ./local -lambda ")
	require.Len(t, local, 1)
	assert.Equal(t, "go run ./local -lambda "+strings.Join(invokeURLs, ","), local[0])
}

func fmt2(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestDeployReadmeAWSSteps: the two architectures build into their own
// directories, the template's code is the default one's and the sed for
// x86_64 points it to the other; the token the deploy stores is the
// template's default parameter, and "Connect" reads it back itself.
func TestDeployReadmeAWSSteps(t *testing.T) {
	build := readmeBlocks(t, "### Build and package")
	tpl := loadTemplate(t)
	outs := map[string]string{}
	for _, c := range findCmd(build, "CGO_ENABLED=0 GOOS=linux GOARCH=") {
		outs[strings.Fields(c)[2]] = flagValue(c, "-o")
		assert.Contains(t, c, "-tags lambda.norpc")
	}
	assert.Equal(t, map[string]string{"GOARCH=arm64": "lambda/build/arm64/bootstrap", "GOARCH=amd64": "lambda/build/x86_64/bootstrap"}, outs)
	assert.Equal(t, "build/arm64/", tpl.props("Function")["CodeUri"])
	sed := findCmd(build, "sed ")
	require.Len(t, sed, 1)
	out := filepath.Join(t.TempDir(), "template-x86_64.yaml")
	target := flagValue(sed[0], ">")
	require.Equal(t, "lambda/template-x86_64.yaml", target, "the copy sits beside the template (CodeUri is relative to it)")
	sh(t, nil, strings.Replace(sed[0], "> "+target, "> "+out, 1))
	x86, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(x86), "\n      CodeUri: build/x86_64/\n"), "the x86_64 template's CodeUri")
	assert.False(t, strings.Contains(string(x86), "CodeUri: build/arm64/"), "the x86_64 template still has the arm64 CodeUri")
	zipLine := findCmd(build, "zip -j ")
	require.Len(t, zipLine, 1)
	assert.Contains(t, zipLine[0], " lambda/build/arm64/bootstrap")

	deploy := readmeBlocks(t, "### Deploy")
	param := tpl.Parameters["AuthTokenParameter"].(map[string]any)["Default"].(string)
	put := findCmd(deploy, "aws ssm get-parameter --name "+param+" >/dev/null 2>&1 || aws ssm put-parameter --name "+param+" --type SecureString")
	assert.Len(t, put, 1, "the deploy stores the token in %s, once", param)
	vars := exports(deploy)
	assert.NotEmpty(t, vars["AWS_REGION"])
	assert.Equal(t, vars["AWS_REGION"], vars["AWS_DEFAULT_REGION"], "AWS CLI v1 reads AWS_DEFAULT_REGION")
	for _, c := range findCmd(deploy, "aws cloudformation package ") {
		assert.Equal(t, `"$BUCKET"`, flagValue(c, "--s3-bucket"), "a bucket the steps create")
	}

	connect := readmeBlocks(t, "### Connect")
	var tokenSet bool
	for _, c := range connect {
		if strings.HasPrefix(c, "TOKEN=") {
			tokenSet = true
			assert.Contains(t, c, "aws ssm get-parameter --name "+param+" --with-decryption")
		}
		if strings.Contains(c, "$TOKEN") && !strings.HasPrefix(c, "TOKEN=") {
			assert.True(t, tokenSet, "%q uses $TOKEN before Connect sets it", c)
		}
	}
	assert.True(t, tokenSet, "Connect never sets TOKEN")
}

// TestDeployLocal follows "Run the deployable binary locally" with stand-ins
// for what cannot run here: the README's build command, -create-table
// (twice) in dynalite with the README's environment, then the binary under
// a Lambda Runtime API (what the emulator serves it), its token read at
// cold start from an SSM stand-in as in AWS, its frames posted to the
// Management API the local server serves: a connect, a message and a
// disconnect, with their items in the table that -create-table made.
func TestDeployLocal(t *testing.T) {
	needBinaryHost(t)
	dynamo := needDynalite(t, "the steps create the table in it")
	cmds := readmeBlocks(t, "### Run the deployable binary locally")

	// the README's build, into a temporary lambda/build/
	dir := t.TempDir()
	build := findCmd(cmds, "CGO_ENABLED=0 GOOS=linux GOARCH=$(go env GOARCH) go build ")
	require.Len(t, build, 1)
	arch := sh(t, nil, findCmd(cmds, "ARCH=")[0]+`; echo "$ARCH"`)
	sh(t, nil, findCmd(cmds, "ARCH=")[0]+"; "+strings.Replace(build[0], "-o lambda/build/", "-o "+dir+"/lambda/build/", 1))
	bin := filepath.Join(dir, "lambda", "build", arch, "bootstrap")
	require.FileExists(t, bin)

	// the README's environment, with this test's endpoints
	rec := emulator.NewRecorder()
	mgmt := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}))
	defer mgmt.Close()
	vars := exports(cmds)
	vars["AWS_ENDPOINT_URL_DYNAMODB"] = dynamo
	vars["GROUNDWIRE_ENDPOINT"] = mgmt.URL
	vars["GROUNDWIRE_TABLE"] = "groundwire-deploy"
	vars["GROUNDWIRE_TOKEN_DELAY"] = "0"
	vars["AWS_EC2_METADATA_DISABLED"] = "true"
	envList := func(m map[string]string) []string {
		var l []string
		for k, v := range m {
			l = append(l, k+"="+v)
		}
		return l
	}

	// -create-table, twice: the second finds the table and is fine too
	for i := range 2 {
		cmd := exec.Command(bin, "-create-table")
		cmd.Env = envList(vars)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "run %d of -create-table:\n%s", i+1, out)
		assert.Contains(t, string(out), `"table":"groundwire-deploy"`)
		jsonLogs(t, string(out))
	}
	db := dynamoClient(dynamo, vars["AWS_REGION"]) // where -create-table made it
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	desc, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("groundwire-deploy")})
	require.NoError(t, err)
	assert.ElementsMatch(t, dynamostore.TableDefinition("").KeySchema, desc.Table.KeySchema)

	// the token as the template gives it: an SSM parameter's name
	ssmFake := &fakeSSM{params: map[string]string{"/groundwire/auth-token": "tok-" + arch}}
	ssmSrv := httptest.NewServer(ssmFake)
	defer ssmSrv.Close()
	delete(vars, "GROUNDWIRE_AUTH_TOKEN")
	vars["GROUNDWIRE_AUTH_TOKEN_PARAM"] = "/groundwire/auth-token"
	vars["AWS_ENDPOINT_URL_SSM"] = ssmSrv.URL

	rt, rtAddr := newRuntimeAPI(t)
	vars["AWS_LAMBDA_RUNTIME_API"] = rtAddr
	var logs syncBuffer
	cmd := exec.Command(bin)
	cmd.Env = envList(vars)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("function logs:\n%s", logs.String())
		}
	}()

	connItem := func() bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String("groundwire-deploy"),
			Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "conn#c1="}, "sk": &types.AttributeValueMemberS{Value: "conn"}},
			ConsistentRead: aws.Bool(true),
		})
		require.NoError(t, err)
		return out.Item != nil
	}
	connect := wsEvent(lambda.EventConnect, "c1=", "")
	connect.QueryStringParameters = map[string]string{"token": "local-token"} // the README's plain token is not this deployment's
	require.Equal(t, http.StatusUnauthorized, rt.invoke(t, connect).StatusCode, "connect with another token")
	connect.QueryStringParameters["token"] = "tok-" + arch
	rec.Open("c1=", emulator.Info{})
	require.Equal(t, http.StatusOK, rt.invoke(t, connect).StatusCode, "connect with the token from SSM")
	assert.True(t, connItem(), "the connection is in the table -create-table made")

	msg := `{"type":"message","id":"m1","text":"hej!! vad kostar premium per månad egentligen? och kan jag byta plan mitt i månaden eller måste jag vänta tills nästa faktura, tack på förhand"}`
	rt.invoke(t, wsEvent(lambda.EventMessage, "c1=", msg))
	var frames []lambdatest.Frame
	for _, b := range rec.Sent("c1=") {
		var f lambdatest.Frame
		require.NoError(t, json.Unmarshal(b, &f))
		frames = append(frames, f)
	}
	sum := lambdatest.Summary(frames)
	assert.Regexp(t, `^sources:m1 stream:m1 stream_end:m1:\w+`, sum)
	assert.NoError(t, lambdatest.CheckFlows(frames), sum)
	assert.NotEmpty(t, lambdatest.Deltas(frames, "m1"))

	require.Equal(t, http.StatusOK, rt.invoke(t, wsEvent(lambda.EventDisconnect, "c1=", "")).StatusCode, "disconnect")
	assert.False(t, connItem(), "the connection is gone from the table")

	ssmFake.mu.Lock()
	defer ssmFake.mu.Unlock()
	assert.Len(t, ssmFake.calls, 1, "the secret is read once, at cold start, for four invocations")
	jsonLogs(t, logs.String())
}
