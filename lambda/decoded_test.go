package lambda_test

import (
	"context"
	"testing"

	"github.com/groundwire/groundwire/lambda"
)

// TestHandleDecoded: a frame decoded by the server is answered as Handle
// answers its body, and one that was not decoded from the event's body
// (another body, or a base64 one) is not used: the body is decoded.
func TestHandleDecoded(t *testing.T) {
	const body = `{"type":"message","id":"m1","text":"What does Premium cost?"}`
	decode := func(b string) *lambda.Decoded {
		d := &lambda.Decoded{Body: b}
		d.Frame, d.Err = lambda.DecodeClientFrame([]byte(b))
		return d
	}
	run := func(conn string, req func() (string, bool), d *lambda.Decoded) string {
		hs := newHarness(t)
		hs.connect(conn)
		ev := event(lambda.EventMessage, conn)
		ev.Body, ev.IsBase64Encoded = req()
		if d == nil {
			hs.h.Handle(context.Background(), ev)
		} else if resp, err := hs.h.HandleDecoded(context.Background(), ev, d); err != nil || resp.StatusCode != 200 {
			t.Fatalf("HandleDecoded: %d %v", resp.StatusCode, err)
		}
		return hs.summary(conn)
	}
	plain := func() (string, bool) { return body, false }
	want := run("c1", plain, nil)
	if want == "" {
		t.Fatal("the message was not answered")
	}
	if got := run("c1", plain, decode(body)); got != want {
		t.Errorf("decoded frame: got %s, want %s", got, want)
	}
	// a frame decoded from another body is not the event's
	other := decode(`{"type":"cancel","id":"x"}`)
	if got := run("c1", plain, other); got != want {
		t.Errorf("another body's frame: got %s, want %s", got, want)
	}
	// nor is one whose body the event carries base64-encoded
	b64 := func() (string, bool) { return "eyJ0eXBlIjoiY2FuY2VsIn0=", true } // {"type":"cancel"}
	enc := decode("eyJ0eXBlIjoiY2FuY2VsIn0=")
	enc.Frame, enc.Err = lambda.ClientFrame{Type: lambda.TypeMessage, ID: "m1", Text: "What does Premium cost?"}, nil
	if got, want := run("c1", b64, enc), run("c1", b64, nil); got != want {
		t.Errorf("base64 body: got %s, want %s", got, want)
	}
}
