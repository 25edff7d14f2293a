package lambda_test

import (
	"encoding/json"
	"testing"

	"github.com/groundwire/groundwire/lambda"
)

// Golden JSON of every frame: the wire format of SPEC §5.
func TestProtocolGolden(t *testing.T) {
	cites := []lambda.Citation{{File: "kb/en/pricing.md", Line: 3, Snippet: "Premium: 399 kr/month."}}
	for _, c := range []struct {
		frame any
		want  string
	}{
		{lambda.SourcesFrame{Type: "sources", ID: "m1", Citations: cites},
			`{"type":"sources","id":"m1","citations":[{"file":"kb/en/pricing.md","line":3,"snippet":"Premium: 399 kr/month."}]}`},
		{lambda.SourcesFrame{Type: "sources", ID: "m1", Citations: []lambda.Citation{}},
			`{"type":"sources","id":"m1","citations":[]}`},
		{lambda.StreamFrame{Type: "stream", ID: "m1", Delta: " Premium"},
			`{"type":"stream","id":"m1","delta":" Premium"}`},
		{lambda.StreamEndFrame{Type: "stream_end", ID: "m1", Reason: "done"},
			`{"type":"stream_end","id":"m1","reason":"done"}`},
		{lambda.ResponseFrame{Type: "response", ID: "m1", Text: "Premium: 399 kr/month.", Citations: cites, Status: "verified",
			Numbers: []lambda.NumberVerdict{{Text: "399 kr/month", Canonical: "399", Kind: "integer", State: "grounded", Grounded: true, Citation: 0}}},
			`{"type":"response","id":"m1","text":"Premium: 399 kr/month.","citations":[{"file":"kb/en/pricing.md","line":3,"snippet":"Premium: 399 kr/month."}],"status":"verified","numbers":[{"text":"399 kr/month","canonical":"399","kind":"integer","state":"grounded","grounded":true,"citation":0}]}`},
		{lambda.ResponseFrame{Type: "response", ID: "m1", Text: "I cannot verify that.", Citations: cites, Status: "blocked",
			Numbers: []lambda.NumberVerdict{{Kind: "integer", State: "ungrounded", Grounded: false, Citation: -1}},
			Error:   "Verification failed: Number mismatch"},
			`{"type":"response","id":"m1","text":"I cannot verify that.","citations":[{"file":"kb/en/pricing.md","line":3,"snippet":"Premium: 399 kr/month."}],"status":"blocked","numbers":[{"text":"","canonical":"","kind":"integer","state":"ungrounded","grounded":false,"citation":-1}],"error":"Verification failed: Number mismatch"}`},
		{lambda.ActionSuggestionFrame{Type: "action_suggestion", ID: "m1", SuggestionID: "0123456789abcdef0123456789abcdef", Action: "schedule_callback", Payload: map[string]string{"phone": "+46 70 123 45 67"}},
			`{"type":"action_suggestion","id":"m1","suggestionId":"0123456789abcdef0123456789abcdef","action":"schedule_callback","payload":{"phone":"+46 70 123 45 67"}}`},
		{lambda.ActionExecutedFrame{Type: "action_executed", SuggestionID: "0123456789abcdef0123456789abcdef", Result: lambda.ActionResult{Success: true, Ignored: true, Message: "Already executed"}},
			`{"type":"action_executed","suggestionId":"0123456789abcdef0123456789abcdef","result":{"success":true,"ignored":true,"message":"Already executed"}}`},
		{lambda.ErrorFrame{Type: "error", Code: "too_large", Message: "The text is over 4000 characters.", ID: "m1"},
			`{"type":"error","code":"too_large","message":"The text is over 4000 characters.","id":"m1"}`},
		{lambda.ErrorFrame{Type: "error", Code: "bad_request", Message: "Malformed JSON."},
			`{"type":"error","code":"bad_request","message":"Malformed JSON."}`},
	} {
		b, err := json.Marshal(c.frame)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
	}

	var f lambda.ClientFrame
	if err := json.Unmarshal([]byte(`{"type":"confirm_action","suggestionId":"abc"}`), &f); err != nil || f.SuggestionID != "abc" {
		t.Fatalf("client frame %+v %v", f, err)
	}
	if err := json.Unmarshal([]byte(`{"type":"message","id":"m1","text":"Hej","lang":"sv"}`), &f); err != nil || f.Lang != "sv" || f.Text != "Hej" {
		t.Fatalf("client frame %+v %v", f, err)
	}
}

// Frames the handler really sends match the golden shapes (numbers have
// exactly the six fields of SPEC §5).
func TestResponseNumbersShape(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", "$say Premium: 399 kr/month."))
	raw := hs.sender.Raw("c1")
	var resp map[string]any
	json.Unmarshal(raw[len(raw)-1], &resp)
	n := resp["numbers"].([]any)[0].(map[string]any)
	if len(n) != 6 || n["state"] != "grounded" || n["text"] != "399 kr/month" {
		t.Fatalf("number fields %v", n)
	}
}

func TestErrorHelpers(t *testing.T) {
	e := lambda.Errorf(lambda.ETooLarge, "big %d", 1)
	if lambda.ErrorCode(e) != "too_large" || lambda.ErrorMessage(e) != "big 1" {
		t.Fatal(e)
	}
	other := json.Unmarshal([]byte("{"), &struct{}{})
	if lambda.ErrorCode(other) != "internal" || lambda.ErrorMessage(other) != "Internal error." {
		t.Fatal(other)
	}
	if lambda.ErrorCode(nil) != "" || lambda.ErrorMessage(nil) != "" {
		t.Fatal("nil")
	}
}
