package lambda_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/groundwire/groundwire/lambda"
)

// The sample events in testdata/events are what API Gateway sends; they must
// survive unmarshal → marshal unchanged (no field we do not model).
func TestSampleEventsRoundTrip(t *testing.T) {
	for _, name := range []string{"connect.json", "message.json", "disconnect.json"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "events", name))
			if err != nil {
				t.Fatal(err)
			}
			var req events.APIGatewayWebsocketProxyRequest
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatal(err)
			}
			back, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			json.Unmarshal(raw, &a)
			json.Unmarshal(back, &b)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("round trip changed the event:\n%s\n%s", raw, back)
			}
			if req.RequestContext.ConnectionID == "" || req.RequestContext.EventType == "" || req.RequestContext.RouteKey == "" {
				t.Fatalf("sample lacks requestContext fields: %+v", req.RequestContext)
			}
		})
	}
}

func TestSampleEventsDriveHandler(t *testing.T) {
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.AuthToken = "s3cret" })
	connect := readEvent(t, "connect.json")
	conn := connect.RequestContext.ConnectionID
	if resp, _ := hs.h.Handle(t.Context(), connect); resp.StatusCode != 200 {
		t.Fatalf("connect: %d", resp.StatusCode)
	}
	wrong := readEvent(t, "connect.json")
	wrong.QueryStringParameters = map[string]string{"token": "nope"}
	wrong.MultiValueQueryStringParameters = nil
	if resp, _ := hs.h.Handle(t.Context(), wrong); resp.StatusCode != 401 {
		t.Fatalf("wrong token: %d", resp.StatusCode)
	}
	foreign := readEvent(t, "connect.json")
	foreign.Headers["Origin"] = "https://evil.test"
	foreign.MultiValueHeaders = nil
	if resp, _ := hs.h.Handle(t.Context(), foreign); resp.StatusCode != 403 {
		t.Fatalf("foreign origin: %d", resp.StatusCode)
	}

	if resp, _ := hs.h.Handle(t.Context(), readEvent(t, "message.json")); resp.StatusCode != 200 {
		t.Fatalf("message: %d", resp.StatusCode)
	}
	if got, want := hs.summary(conn), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if resp, _ := hs.h.Handle(t.Context(), readEvent(t, "disconnect.json")); resp.StatusCode != 200 {
		t.Fatalf("disconnect: %d", resp.StatusCode)
	}
}
