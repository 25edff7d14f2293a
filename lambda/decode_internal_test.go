package lambda

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// decodeByTokens is how DecodeClientFrame worked before it read the frame
// in one pass: the keys checked with encoding/json's Decoder.Token, then
// json.Unmarshal. It is the reference DecodeClientFrame must agree with.
func decodeByTokens(b []byte) (ClientFrame, error) {
	id, err := checkKeysByTokens(b)
	if err != nil {
		return ClientFrame{ID: id}, err
	}
	var f ClientFrame
	if err := json.Unmarshal(b, &f); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return ClientFrame{ID: id}, Errorf(EBadRequest, "Field %s must be a string.", te.Field)
		}
		return ClientFrame{ID: id}, Errorf(EBadRequest, "Malformed JSON.")
	}
	return f, nil
}

func checkKeysByTokens(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	malformed := Errorf(EBadRequest, "Malformed JSON.")
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return "", malformed
	}
	id, seenID, pendingID := "", 0, false
	keys := []map[string]bool{{}}
	expectKey := true
	for len(keys) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return "", malformed
		}
		inObject := keys[len(keys)-1] != nil
		if inObject && expectKey {
			if tok == json.Delim('}') {
				keys = keys[:len(keys)-1]
				expectKey = len(keys) > 0 && keys[len(keys)-1] != nil
				continue
			}
			k, ok := tok.(string)
			if !ok {
				return idIf(id, seenID), malformed
			}
			if keys[len(keys)-1][k] {
				if len(keys) == 1 && k == "id" {
					seenID++
				}
				return idIf(id, seenID), Errorf(EBadRequest, "Duplicate key %s.", quoteKey(k))
			}
			keys[len(keys)-1][k] = true
			if len(keys) == 1 {
				for _, f := range clientFields {
					if k != f && strings.EqualFold(k, f) {
						return idIf(id, seenID), Errorf(EBadRequest, "Unknown key %s: keys are case-sensitive, write %q.", quoteKey(k), f)
					}
				}
			}
			expectKey = false
			if len(keys) == 1 && k == "id" {
				seenID++
				pendingID = true
			}
			continue
		}
		if pendingID {
			if s, ok := tok.(string); ok {
				id = s
			}
			pendingID = false
		}
		switch tok {
		case json.Delim('{'):
			keys = append(keys, map[string]bool{})
			expectKey = true
			continue
		case json.Delim('['):
			keys = append(keys, nil)
			continue
		case json.Delim(']'), json.Delim('}'):
			keys = keys[:len(keys)-1]
		}
		expectKey = len(keys) > 0 && keys[len(keys)-1] != nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", malformed
	}
	return idIf(id, seenID), nil
}

// sameDecoding fails t when DecodeClientFrame and the reference disagree on b.
func sameDecoding(t *testing.T, b []byte) {
	t.Helper()
	got, gerr := DecodeClientFrame(b)
	want, werr := decodeByTokens(b)
	if got != want || (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%q:\n got %+v, %v\nwant %+v, %v", b, got, gerr, want, werr)
	}
}

// decodeSeeds are frames of every shape: valid, malformed, duplicate and
// case-variant keys, escapes, invalid UTF-8, nesting, numbers out of range.
var decodeSeeds = []string{
	`{"type":"message","id":"m1","text":"What does Premium cost?"}`,
	`{"type":"message","id":"m1","text":"hi","lang":"sv"}`,
	`{"type":"confirm_action","suggestionId":"abc"}`,
	`{"type":"cancel"}`, `{"type":"cancel","id":null}`, `{}`, ` { } `, `{"a":{},"b":[]}`,
	`{"type":"message","id":"m1","id":"m2","text":"hi"}`,
	`{"type":"cancel","id":"m1","type":"message","text":"hi"}`,
	`{"type":"message","id":"m1","text":"hi","meta":{"a":1,"b":[{"c":1,"c":2}]}}`,
	`{"type":"message","ID":"m1","text":"hi"}`, `{"Type":"message"}`, `{"ſuggestionId":"x"}`, `{"\u0069d":"a","id":"b"}`,
	`{"type":"message","id":"m1","Id":"m2","text":"hi"}`,
	`{"type":"cancel"} {"type":"cancel"}`, `[{"type":"cancel"}]`, `{"type":"message","id":"m1","text":`,
	`{"type":"message","id":{"x":1},"text":"hi"}`, `{"id":5}`, `{"type":true}`, `{"lang":[1]}`, `{"id":"a","text":1e400}`,
	`{"x":1e400}`, `{"x":-0.5e-3}`, `{"x":01}`, `{"x":1.}`, `{"x":-}`, `{"x":.5}`, `{"x":1e}`, `{"x":tru}`, `{"x":nul}`,
	`{"x":"a\qb"}`, `{"x":"\u12"}`, `{"x":"\u12G4"}`, "{\"x\":\"a\x01\"}", "{\"id\":\"\xff\xfe\"}", `{"id":"\ud800"}`,
	`{"text":"line\nbreak \"quoted\" \/ \u00e9\t"}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a"}`, `{1:2}`,
	`{"type": "message", "id": "m1", "text": "hi"}`, "{\n  \"type\": \"cancel\",\n  \"id\": \"m1\"\n}",
	`{"type":"message" ,"id":"m1"	,	"text":"hi" }`, `{"a":[1, 2, {"b": 3}], "c": null}`, `{"":"", ""`,
	`{"a":[1,2,]}`, `{"a":[,]}`, `{"a":[1 2]}`, `{"a":]`, `{"a":}`, `{`, `}`, ``, `"x"`, `null`, `{}x`, `{} `, "{}\n\t\r",
	`{"id":"a","x":{"id":"b","id":"c"}}`, `{"id":"a","b":{"Id":1}}`, `{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k1":19}`,
	"{\"a\xff\":1,\"a\xfe\":2}", `{"\ud800":1,"\udc00":2}`, `{"a":{"b":{"c":[{"d":[[{}]]}]}}}`,
}

func TestDecodeClientFrameAgrees(t *testing.T) {
	for _, s := range decodeSeeds {
		sameDecoding(t, []byte(s))
	}
	// Mutations of the seeds: bytes dropped, repeated, replaced by JSON's
	// structural characters, and frames cut short.
	rng := rand.New(rand.NewPCG(23, 5))
	alphabet := []byte(`{}[]:,"\ 0123456789.eE+-tfnulidIDxabc` + "\xff\x01")
	n := 0
	for _, s := range decodeSeeds {
		for k := 0; k < 300; k++ {
			b := []byte(s)
			for m := 1 + rng.IntN(3); m > 0 && len(b) > 0; m-- {
				i := rng.IntN(len(b))
				switch rng.IntN(4) {
				case 0:
					b = append(b[:i:i], b[i+1:]...)
				case 1:
					b = append(b[:i+1:i+1], b[i:]...)
				case 2:
					b[i] = alphabet[rng.IntN(len(alphabet))]
				case 3:
					b = b[:i]
				}
			}
			sameDecoding(t, b)
			n++
		}
	}
	t.Logf("%d seeds, %d mutations agree", len(decodeSeeds), n)
}

// TestDecodeClientFrameDepth: nested as deep as encoding/json allows (10,000
// objects and arrays open at once) and one deeper, in arrays and objects,
// both decoders agree (found by a tester: the one-pass reader took any
// depth).
func TestDecodeClientFrameDepth(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		for _, inner := range []int{maxNesting - 2, maxNesting - 1, maxNesting, maxNesting + 5} {
			closeBy := "]"
			if open != "[" {
				closeBy = "}"
			}
			b := []byte(`{"type":"message","id":"deep","text":"hi","x":` + strings.Repeat(open, inner) + "1" + strings.Repeat(closeBy, inner) + "}")
			got, gerr := DecodeClientFrame(b)
			want, werr := decodeByTokens(b)
			if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s ×%d inside the frame: got %+v, %v; the reference %+v, %v", open, inner, got, gerr, want, werr)
			}
			if accept := inner < maxNesting; (gerr == nil) != accept {
				t.Errorf("%s ×%d inside the frame: error %v, want accepted %v", open, inner, gerr, accept)
			}
		}
	}
}

func FuzzDecodeClientFrame(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameDecoding(t, b) })
}

func BenchmarkDecodeClientFrame(b *testing.B) {
	frame := []byte(`{"type":"message","id":"lg-17-42","text":"What does Premium cost?"}`)
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			DecodeClientFrame(frame)
		}
	})
	b.Run("tokens", func(b *testing.B) {
		for b.Loop() {
			decodeByTokens(frame)
		}
	})
}
