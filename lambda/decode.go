package lambda

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// MaxIDBytes bounds a client-chosen id (a message's `id`, a cancel's `id`,
// a confirm's `suggestionId`). Every frame of an answer repeats its id, so
// an unbounded id would let a client make the server send many times what
// it sent; a longer id is refused with `bad_request` and not echoed.
const MaxIDBytes = 128

// clientFields are the JSON keys of ClientFrame, exactly as written.
var clientFields = []string{"type", "id", "text", "lang", "suggestionId"}

// DecodeClientFrame decodes a client frame strictly: b must be one JSON
// object, in which no key appears twice (at any depth) and no key matches a
// field of ClientFrame only when case is ignored ("ID", "suggestionid").
// encoding/json alone accepts both, taking the last duplicate and any
// casing, so two readers of the same frame could see different ids. Keys
// that are no field are ignored (forward compatible). On error the frame
// holds the `id` when it was read unambiguously (a string key "id" that
// appears once and is within MaxIDBytes, in a frame that is JSON), for the
// error frame.
func DecodeClientFrame(b []byte) (ClientFrame, error) {
	id, err := checkKeys(b)
	if err != nil {
		return ClientFrame{ID: id}, err
	}
	var f ClientFrame
	if err := json.Unmarshal(b, &f); err != nil {
		return ClientFrame{ID: id}, Errorf(EBadRequest, "Malformed JSON.")
	}
	return f, nil
}

// checkKeys walks b's tokens, refusing duplicate keys and keys that match a
// field only case-insensitively, and returns the top-level "id" string when
// it was read before any error and is within MaxIDBytes.
func checkKeys(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	malformed := Errorf(EBadRequest, "Malformed JSON.")
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return "", malformed
	}
	id, seenID, pendingID := "", 0, false
	// keys holds the keys seen in each open object; nil for an array.
	keys := []map[string]bool{{}}
	expectKey := true // the next token in the innermost object is a key
	for len(keys) > 0 {
		tok, err := dec.Token()
		if err != nil {
			return "", malformed // not JSON: nothing in it is trusted
		}
		inObject := keys[len(keys)-1] != nil
		if inObject && expectKey {
			if tok == json.Delim('}') {
				keys = keys[:len(keys)-1]
				expectKey = len(keys) > 0 && keys[len(keys)-1] != nil
				continue
			}
			k, ok := tok.(string)
			if !ok { // the decoder reports a non-string key as an error; be sure
				return idIf(id, seenID), malformed
			}
			if keys[len(keys)-1][k] {
				if len(keys) == 1 && k == "id" {
					seenID++ // which one is meant is unknown: echo neither
				}
				return idIf(id, seenID), Errorf(EBadRequest, "Duplicate key %s.", quoteKey(k))
			}
			keys[len(keys)-1][k] = true
			if len(keys) == 1 {
				if f, ok := caseVariant(k); ok {
					return idIf(id, seenID), Errorf(EBadRequest, "Unknown key %s: keys are case-sensitive, write %q.", quoteKey(k), f)
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
		// A value ended: in an object, a key comes next.
		expectKey = len(keys) > 0 && keys[len(keys)-1] != nil
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", malformed
	}
	return idIf(id, seenID), nil
}

func idIf(id string, seen int) string {
	if seen != 1 || len(id) > MaxIDBytes {
		return ""
	}
	return id
}

// caseVariant returns the field k names when k equals it only ignoring case.
func caseVariant(k string) (string, bool) {
	for _, f := range clientFields {
		if k != f && strings.EqualFold(k, f) {
			return f, true
		}
	}
	return "", false
}

// quoteKey quotes a client's key for an error message, shortened.
func quoteKey(k string) string {
	if len(k) > 32 {
		k = k[:32] + "…"
	}
	return fmt.Sprintf("%q", k)
}

// checkIDs refuses ids over MaxIDBytes.
func checkIDs(f ClientFrame) error {
	switch {
	case len(f.ID) > MaxIDBytes:
		return Errorf(EBadRequest, "The id is over %d bytes.", MaxIDBytes)
	case len(f.SuggestionID) > MaxIDBytes:
		return Errorf(EBadRequest, "The suggestionId is over %d bytes.", MaxIDBytes)
	}
	return nil
}
