package lambda_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/lambda"
)

// TestStrictKeys: a frame with a key twice, or a key that names a field only
// when case is ignored, is refused with bad_request; the id is echoed only
// when it was read unambiguously.
func TestStrictKeys(t *testing.T) {
	for _, c := range []struct{ name, body, want, msg string }{
		{"duplicate id", `{"type":"message","id":"m1","id":"m2","text":"hi"}`, "error::bad_request", `Duplicate key "id".`},
		{"duplicate type", `{"type":"cancel","id":"m1","type":"message","text":"hi"}`, "error:m1:bad_request", `Duplicate key "type".`},
		{"duplicate suggestionId", `{"type":"confirm_action","suggestionId":"a","suggestionId":"b"}`, "error::bad_request", `Duplicate key "suggestionId".`},
		{"duplicate nested", `{"type":"message","id":"m1","text":"hi","meta":{"a":1,"b":[{"c":1,"c":2}]}}`, "error:m1:bad_request", `Duplicate key "c".`},
		{"upper-case id", `{"type":"message","ID":"m1","text":"hi"}`, "error::bad_request", `Unknown key "ID": keys are case-sensitive, write "id".`},
		{"id and ID", `{"type":"message","id":"m1","Id":"m2","text":"hi"}`, "error:m1:bad_request", `Unknown key "Id": keys are case-sensitive, write "id".`},
		{"lower-case suggestionid", `{"type":"confirm_action","suggestionid":"abc"}`, "error::bad_request", `Unknown key "suggestionid": keys are case-sensitive, write "suggestionId".`},
		{"Type", `{"Type":"message","id":"m1","text":"hi"}`, "error::bad_request", `Unknown key "Type": keys are case-sensitive, write "type".`},
		// Unicode case folding: U+017F LONG S folds to s, U+212A KELVIN SIGN to k.
		{"long s", `{"type":"confirm_action","ſuggestionId":"abc"}`, "error::bad_request", `Unknown key "ſuggestionId": keys are case-sensitive, write "suggestionId".`},
		{"trailing value", `{"type":"cancel"} {"type":"cancel"}`, "error::bad_request", "Malformed JSON."},
		{"array", `[{"type":"cancel"}]`, "error::bad_request", "Malformed JSON."},
		{"truncated after the id", `{"type":"message","id":"m1","text":`, "error::bad_request", "Malformed JSON."},
		{"id not a string", `{"type":"message","id":{"x":1},"text":"hi"}`, "error::bad_request", "Field id must be a string."},
		// Invalid UTF-8 would decode as U+FFFD: "\xff" and "\xfe" would be one id.
		{"invalid UTF-8 id", "{\"type\":\"message\",\"id\":\"\xff\",\"text\":\"hi\"}", "error::bad_request", "The frame is not valid UTF-8."},
		{"invalid UTF-8 text", "{\"type\":\"message\",\"id\":\"m1\",\"text\":\"h\xc3i\"}", "error:m1:bad_request", "The frame is not valid UTF-8."}, // a valid id is echoed
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t)
			hs.connect("c1")
			hs.send("c1", c.body)
			fs := hs.frames("c1")
			if got := hs.summary("c1"); got != c.want || fs[0].Message != c.msg {
				t.Fatalf("got %s %q, want %s %q", got, fs[0].Message, c.want, c.msg)
			}
			hs.sender.Reset("c1")
			hs.send("c1", msg("m2", "How much does Premium cost?"))
			if got, want := hs.summary("c1"), "sources:m2 stream:m2 stream_end:m2:done response:m2:verified"; got != want {
				t.Fatalf("after error: %s", got)
			}
		})
	}
}

// TestUnknownKeysIgnored: keys that are no field, in any case, are ignored
// (forward compatible).
func TestUnknownKeysIgnored(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", `{"type":"message","id":"m1","text":"How much does Premium cost?","client":"x","Client":{"v":[1,2]}}`)
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s", got)
	}
}

// TestWhitespaceBetweenKeys: frames as JSON writers print them with spaces
// and newlines between members (Python's json.dumps, JSON.stringify with an
// indent) are answered like compact ones.
func TestWhitespaceBetweenKeys(t *testing.T) {
	for name, body := range map[string]string{
		"python":   `{"type": "message", "id": "m1", "text": "How much does Premium cost?"}`,
		"indented": "{\n  \"type\": \"message\",\n  \"id\": \"m1\",\n  \"text\": \"How much does Premium cost?\"\n}",
		"tabs":     "{\"type\":\"message\"\t,\t\"id\":\"m1\" , \"text\":\"How much does Premium cost?\"}",
	} {
		t.Run(name, func(t *testing.T) {
			hs := newHarness(t)
			hs.connect("c1")
			hs.send("c1", body)
			if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
				t.Fatalf("frames: %s", got)
			}
		})
	}
}

// TestIDLimit: ids up to MaxIDBytes are served; longer ones get bad_request
// and are not echoed, so what the server sends back stays small whatever
// the id's size (no amplification).
func TestIDLimit(t *testing.T) {
	ok := strings.Repeat("i", lambda.MaxIDBytes)
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg(ok, "How much does Premium cost?"))
	want := fmt.Sprintf("sources:%[1]s stream:%[1]s stream_end:%[1]s:done response:%[1]s:verified", ok)
	if got := hs.summary("c1"); got != want {
		t.Fatalf("%d-byte id: %s", len(ok), got)
	}
	for _, n := range []int{lambda.MaxIDBytes + 1, 100 * 1024} {
		long := strings.Repeat("x", n)
		for _, c := range []struct {
			body any
			msg  string
		}{
			{msg(long, "How much does Premium cost?"), fmt.Sprintf("The id is over %d bytes.", lambda.MaxIDBytes)},
			{lambda.ClientFrame{Type: lambda.TypeCancel, ID: long}, fmt.Sprintf("The id is over %d bytes.", lambda.MaxIDBytes)},
			{lambda.ClientFrame{Type: lambda.TypeConfirmAction, SuggestionID: long}, fmt.Sprintf("The suggestionId is over %d bytes.", lambda.MaxIDBytes)},
		} {
			hs.sender.Reset("c1")
			hs.send("c1", c.body)
			fs := hs.frames("c1")
			if got := hs.summary("c1"); got != "error::bad_request" || fs[0].Message != c.msg {
				t.Fatalf("%d-byte id: %s %q, want error::bad_request %q", n, got, fs[0].Message, c.msg)
			}
			sent := 0
			for _, b := range hs.sender.Raw("c1") {
				sent += len(b)
			}
			if sent > 200 {
				t.Fatalf("%d-byte id: %d bytes sent back, want a short error", n, sent)
			}
		}
	}
}
