package lambda_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

func TestBadInput(t *testing.T) {
	for _, c := range []struct{ name, body, want, msg string }{
		{"malformed json", `{"type":"message",`, "error::bad_request", "Malformed JSON."},
		{"not an object", `"hello"`, "error::bad_request", "Malformed JSON."},
		{"wrong field type keeps id", `{"type":"message","id":"m1","text":5}`, "error:m1:bad_request", "Field text must be a string."},
		{"missing type", `{"id":"m1","text":"hi"}`, "error:m1:bad_request", "Missing field: type."},
		{"missing id", `{"type":"message","text":"hi"}`, "error::bad_request", "Missing field: id."},
		{"missing text", `{"type":"message","id":"m1"}`, "error:m1:bad_request", "Missing field: text."},
		{"blank text", `{"type":"message","id":"m1","text":"  "}`, "error:m1:bad_request", "Missing field: text."},
		{"bad lang", `{"type":"message","id":"m1","text":"hi","lang":"de"}`, "error:m1:bad_request", `Unknown lang: use "en" or "sv".`},
		{"unknown type", `{"type":"dance","id":"m1"}`, "error:m1:unknown_type", "Unknown type."},
		{"confirm without id", `{"type":"confirm_action"}`, "error::bad_request", "Missing field: suggestionId."},
		{"text too long", fmt.Sprintf(`{"type":"message","id":"m1","text":%q}`, strings.Repeat("a", 4001)), "error:m1:too_large", "The text is over 4000 characters."},
		{"body too large", fmt.Sprintf(`{"type":"message","id":"m1","text":"hi","pad":%q}`, strings.Repeat("a", 128*1024)), "error::too_large", "The message is over 131072 bytes."},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t)
			hs.connect("c1")
			hs.send("c1", c.body)
			fs := hs.frames("c1")
			if got := hs.summary("c1"); got != c.want || fs[0].Message != c.msg {
				t.Fatalf("got %s %q, want %s %q", got, fs[0].Message, c.want, c.msg)
			}
			// the connection and its state stay usable
			hs.sender.Reset("c1")
			hs.send("c1", msg("m2", "How much does Premium cost?"))
			if got, want := hs.summary("c1"), "sources:m2 stream:m2 stream_end:m2:done response:m2:verified"; got != want {
				t.Fatalf("after error: %s", got)
			}
		})
	}
}

func TestTextLimitCountsCharacters(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", strings.Repeat("å", 4000))) // 8000 bytes, 4000 characters
	if got := hs.summary("c1"); strings.Contains(got, "error") {
		t.Fatalf("4000 characters refused: %s", got)
	}
}

func TestBase64Body(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	req := event(lambda.EventMessage, "c1")
	req.Body = base64.StdEncoding.EncodeToString([]byte(`{"type":"message","id":"m1","text":"How much does Premium cost?"}`))
	req.IsBase64Encoded = true
	hs.h.Handle(t.Context(), req)
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s", got)
	}
}

func TestRateLimit(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	for i := range 10 {
		hs.send("c1", msg(fmt.Sprint("m", i), "hello"))
	}
	hs.sender.Reset("c1")
	hs.send("c1", msg("m10", "hello"))
	if got, want := hs.summary("c1"), "error:m10:rate_limited"; got != want {
		t.Fatalf("11th message: %s", got)
	}
	// cancel and confirm are never limited
	hs.send("c1", cancel(""))
	hs.send("c1", confirm("nope"))
	if got, want := hs.summary("c1"), "error:m10:rate_limited action_executed:Unknown suggestion"; got != want {
		t.Fatalf("frames: %s", got)
	}
	// other connections have their own bucket
	hs.connect("c2")
	hs.send("c2", msg("x", "hello"))
	if strings.Contains(hs.summary("c2"), "rate_limited") {
		t.Fatal("c2 limited by c1's messages")
	}
	// 5 per second sustained
	hs.clock.Advance(time.Second)
	hs.sender.Reset("c1")
	for i := range 6 {
		hs.send("c1", msg(fmt.Sprint("n", i), "hello"))
	}
	if got := strings.Count(hs.summary("c1"), "rate_limited"); got != 1 {
		t.Fatalf("after 1 s, 6 messages: %d refused: %s", got, hs.summary("c1"))
	}
}

func TestRateLimitOff(t *testing.T) {
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.Limits.NoRateLimit = true })
	hs.connect("c1")
	for i := range 30 {
		hs.send("c1", msg(fmt.Sprint("m", i), "hello"))
	}
	if strings.Contains(hs.summary("c1"), "rate_limited") {
		t.Fatal("rate limited with NoRateLimit")
	}
}

func TestInternalErrorsLoggedMasked(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	fs := &faultyStore{Store: lambda.NewMemStore()}
	hs := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = fs
		cfg.Logger = logger
	})
	hs.connect("c1")
	fs.setFail("StartAnswer", true)
	hs.send("c1", msg("m1", "call me at +46 70 123 45 67, token s3cret"))
	if got, want := hs.summary("c1"), "error:m1:internal"; got != want {
		t.Fatalf("frames: %s", got)
	}
	if m := hs.frames("c1")[0].Message; m != "Internal error." {
		t.Fatalf("client told %q", m)
	}
	var rec map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &rec); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if rec["conn"] != "c1" || rec["msg"] != "m1" || rec["level"] != "ERROR" {
		t.Fatalf("log record %v", rec)
	}
	log := buf.String()
	if strings.Contains(log, "123 45 67") || !strings.Contains(log, "+** ** *** ** 67") {
		t.Fatalf("phone not masked: %s", log)
	}
	if strings.Contains(log, "s3cret") || strings.Contains(log, "call me") {
		t.Fatalf("message text logged: %s", log)
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"call +46 70 123 45 67 now": "call +** ** *** ** 67 now",
		"070-123 45 67":             "***-*** ** 67",
		"399 kr and 2025":           "399 kr and 2025",
		"id 1234567":                "id *****67",
	} {
		if got := lambda.Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}
