package lambda

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"unicode/utf8"
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
//
// It reads b once (see frameReader), with the result of checking the keys
// with encoding/json's Decoder.Token and then decoding with json.Unmarshal
// (a test compares both on generated and fuzzed frames), at a tenth of the
// cost.
func DecodeClientFrame(b []byte) (ClientFrame, error) {
	sc := readerScratch.Get().(*frameScratch)
	r := frameReader{b: b, keys: sc.keys[:0], levels: sc.levels[:0]}
	defer sc.keep(&r)
	if err := r.read(); err != nil {
		if r.malformed {
			return ClientFrame{}, err
		}
		return ClientFrame{ID: idIf(r.id, r.seenID)}, err
	}
	switch {
	case r.tooDeep:
		// json.Unmarshal's syntax error, after the keys were checked
		return ClientFrame{ID: idIf(r.id, r.seenID)}, Errorf(EBadRequest, "Malformed JSON.")
	case r.typeErr != "":
		// json.Unmarshal's first type error, after the keys were checked
		return ClientFrame{ID: idIf(r.id, r.seenID)}, Errorf(EBadRequest, "Field %s must be a string.", r.typeErr)
	}
	return r.f, nil
}

// frameScratch is what a frameReader's keys and levels grow in, kept for
// the next frame (readerScratch) rather than allocated for every one.
type frameScratch struct {
	keys   [][]byte
	levels []frameLevel
}

var readerScratch = sync.Pool{New: func() any { return new(frameScratch) }}

// keep takes r's slices back, holding nothing of its frame, unless a
// frame of many keys or levels grew them.
func (sc *frameScratch) keep(r *frameReader) {
	// what r wrote before it grew them, if it did
	clear(sc.keys[:cap(sc.keys)])
	clear(sc.levels[:cap(sc.levels)])
	if cap(r.keys) <= 64 && cap(r.levels) <= 16 {
		clear(r.keys[:cap(r.keys)])
		clear(r.levels[:cap(r.levels)])
		sc.keys, sc.levels = r.keys[:0], r.levels[:0]
	}
	readerScratch.Put(sc)
}

// frameReader walks a JSON text once, validating it as encoding/json does
// (strings, escapes, numbers within float64's range, literals, nothing after
// the object), refusing duplicate keys at any depth and keys that match a
// field only case-insensitively, and decoding the fields of ClientFrame
// from the top-level object as json.Unmarshal does (strings with escapes or
// invalid UTF-8 are decoded by encoding/json itself). Errors come in the
// order the text is read, as a token reader meets them.
type frameReader struct {
	b         []byte
	i         int
	f         ClientFrame
	typeErr   string // the first field whose value is not a string or null
	tooDeep   bool   // the text nests too deep (see maxNesting)
	malformed bool   // not JSON

	id     string // the top-level "id" string read so far
	seenID int    // how many top-level "id" keys were met

	keys   [][]byte     // the keys of the open objects, outermost first
	levels []frameLevel // the open objects and arrays
}

// frameLevel is an open object (its keys start at keys[start]; set holds
// them once there are many) or array.
type frameLevel struct {
	object bool
	start  int
	set    map[string]bool
}

// maxNesting is how many objects and arrays may be open at once, as in
// encoding/json, which refuses a text nested deeper.
const maxNesting = 10000

// manyKeys is how many keys of one object are compared one by one before
// a map is used.
const manyKeys = 16

// bad marks the text as not JSON (nothing in it is trusted, not even an id
// read before) and returns the error.
func (r *frameReader) bad() error {
	r.malformed = true
	return Errorf(EBadRequest, "Malformed JSON.")
}

func (r *frameReader) read() error {
	if r.skipSpace(); !r.eat('{') {
		return r.bad()
	}
	r.levels = append(r.levels, frameLevel{object: true})
	opened := true // just after '{' or '['
	for len(r.levels) > 0 {
		top := &r.levels[len(r.levels)-1]
		r.skipSpace()
		switch {
		case opened && r.eat(closer(top.object)):
			r.pop()
			opened = false
			continue
		case !opened && r.eat(closer(top.object)):
			r.pop()
			continue
		case !opened && !r.eat(','):
			return r.bad()
		}
		opened = false
		field := -1 // the ClientFrame field this value is, or -1
		if top.object {
			r.skipSpace() // after ',': `{"a":1, "b":2}`
			k, err := r.key()
			if err != nil {
				return err
			}
			if field, err = r.checkKey(top, k); err != nil {
				return err
			}
			if r.skipSpace(); !r.eat(':') {
				return r.bad()
			}
		}
		r.skipSpace()
		if r.i >= len(r.b) {
			return r.bad()
		}
		switch c := r.b[r.i]; {
		case c == '{' || c == '[':
			if len(r.levels) == maxNesting {
				// json.Unmarshal's "exceeded max depth", after the keys
				// were checked (a token reader has no such limit)
				r.tooDeep = true
			}
			r.i++
			r.levels = append(r.levels, frameLevel{object: c == '{', start: len(r.keys)})
			opened = true
			if field >= 0 && r.typeErr == "" {
				r.typeErr = clientFields[field]
			}
		case c == '"':
			raw, err := r.str()
			if err != nil {
				return err
			}
			if field >= 0 {
				r.setField(field, raw)
			}
		default:
			null, err := r.scalar()
			if err != nil {
				return err
			}
			if field >= 0 && !null && r.typeErr == "" {
				r.typeErr = clientFields[field]
			}
		}
	}
	if r.skipSpace(); r.i != len(r.b) {
		return r.bad()
	}
	return nil
}

func closer(object bool) byte {
	if object {
		return '}'
	}
	return ']'
}

func (r *frameReader) pop() {
	r.keys = r.keys[:r.levels[len(r.levels)-1].start]
	r.levels = r.levels[:len(r.levels)-1]
}

func (r *frameReader) skipSpace() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *frameReader) eat(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// key reads an object's key, decoded.
func (r *frameReader) key() ([]byte, error) {
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return nil, r.bad()
	}
	raw, err := r.str()
	if err != nil {
		return nil, err
	}
	if plain(raw) {
		return raw[1 : len(raw)-1], nil
	}
	return []byte(unquote(raw)), nil
}

// checkKey refuses a key the object top already has, and at the top level
// one that names a field only when case is ignored; it returns the index
// of the field of ClientFrame the key names at the top level, or -1.
func (r *frameReader) checkKey(top *frameLevel, k []byte) (int, error) {
	outer := len(r.levels) == 1
	isID := outer && string(k) == "id"
	dup := false
	if top.set != nil {
		dup = top.set[string(k)]
	} else {
		for _, o := range r.keys[top.start:] {
			if bytes.Equal(o, k) {
				dup = true
				break
			}
		}
	}
	if dup {
		if isID {
			r.seenID++ // which one is meant is unknown: echo neither
		}
		return -1, Errorf(EBadRequest, "Duplicate key %s.", quoteKey(string(k)))
	}
	r.keys = append(r.keys, k)
	switch n := len(r.keys) - top.start; {
	case n > manyKeys && top.set == nil:
		top.set = make(map[string]bool, 2*n)
		for _, o := range r.keys[top.start:] {
			top.set[string(o)] = true
		}
	case top.set != nil:
		top.set[string(k)] = true
	}
	if !outer {
		return -1, nil
	}
	field := -1
	for i, f := range clientFields {
		if string(k) == f {
			field = i
		} else if bytes.EqualFold(k, []byte(f)) {
			return -1, Errorf(EBadRequest, "Unknown key %s: keys are case-sensitive, write %q.", quoteKey(string(k)), f)
		}
	}
	if isID {
		r.seenID++
	}
	return field, nil
}

// setField sets the field of ClientFrame at index i (in clientFields) to
// the JSON string raw, decoded.
func (r *frameReader) setField(i int, raw []byte) {
	var s string
	switch {
	case clientFields[i] == "type" && plain(raw):
		s = clientType(raw[1 : len(raw)-1])
	case plain(raw):
		s = string(raw[1 : len(raw)-1])
	default:
		s = unquote(raw)
	}
	switch clientFields[i] {
	case "type":
		r.f.Type = s
	case "id":
		r.f.ID, r.id = s, s
	case "text":
		r.f.Text = s
	case "lang":
		r.f.Lang = s
	case "suggestionId":
		r.f.SuggestionID = s
	}
}

// clientType returns b as a string: the constant when it is one of the
// client frame types (not allocated again).
func clientType(b []byte) string {
	for _, t := range [...]string{TypeMessage, TypeCancel, TypeConfirmAction} {
		if string(b) == t {
			return t
		}
	}
	return string(b)
}

// str reads a JSON string, validated, and returns it with its quotes.
func (r *frameReader) str() ([]byte, error) {
	start := r.i
	r.i++ // the opening quote
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			return r.b[start:r.i], nil
		case c < 0x20:
			return nil, r.bad()
		case c == '\\':
			if r.i+1 >= len(r.b) {
				return nil, r.bad()
			}
			switch r.b[r.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i += 2
			case 'u':
				if r.i+6 > len(r.b) {
					return nil, r.bad()
				}
				for _, h := range r.b[r.i+2 : r.i+6] {
					if !isHex(h) {
						return nil, r.bad()
					}
				}
				r.i += 6
			default:
				return nil, r.bad()
			}
		default:
			r.i++
		}
	}
	return nil, r.bad()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// plain reports whether the JSON string raw (with its quotes) is its own
// value: no escapes and valid UTF-8.
func plain(raw []byte) bool {
	s := raw[1 : len(raw)-1]
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// unquote decodes a validated JSON string as encoding/json does (invalid
// UTF-8 and lone surrogates become U+FFFD).
func unquote(raw []byte) string {
	var s string
	json.Unmarshal(raw, &s) // cannot fail: raw was validated
	return s
}

// scalar reads a number or a literal and reports whether it was null. A
// number must be within float64's range, as encoding/json's Decoder.Token
// requires.
func (r *frameReader) scalar() (null bool, err error) {
	rest := r.b[r.i:]
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(rest, []byte(lit)) {
			r.i += len(lit)
			return lit == "null", nil
		}
	}
	start := r.i
	r.eat('-')
	switch {
	case r.eat('0'):
	case r.i < len(r.b) && '1' <= r.b[r.i] && r.b[r.i] <= '9':
		r.digits()
	default:
		return false, r.bad()
	}
	if r.eat('.') && !r.digits() {
		return false, r.bad()
	}
	if r.eat('e') || r.eat('E') {
		if !r.eat('+') {
			r.eat('-')
		}
		if !r.digits() {
			return false, r.bad()
		}
	}
	if _, err := strconv.ParseFloat(string(r.b[start:r.i]), 64); err != nil {
		return false, r.bad()
	}
	return false, nil
}

// digits reads one or more digits and reports whether there was one.
func (r *frameReader) digits() bool {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

func idIf(id string, seen int) string {
	if seen != 1 || len(id) > MaxIDBytes {
		return ""
	}
	return id
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
