package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// quickLine reads the fields batch needs from line, a JSON object, without
// encoding/json (about half of batch's time went to it before): once
// validJSON has found the line valid, the object's members are passed over
// by their structure. It reads only what it can read exactly as
// json.Unmarshal into batchIn would, and reports ok false for the rest,
// which scoreLine decodes with encoding/json: a line that is not valid JSON
// or not an object, a key with an escape or that matches a field only
// case-insensitively, an id or answer that is not a string, sources that
// are missing or null, an id that is empty. Strings with an escape or bytes
// that are not UTF-8 are decoded by encoding/json alone.
func quickLine(line []byte) (id, answer string, sources []byte, ok bool) {
	if !validJSON(line) {
		return "", "", nil, false
	}
	p := skipSpace(line, 0)
	if p >= len(line) || line[p] != '{' {
		return "", "", nil, false
	}
	var haveID, haveAnswer bool
	p = skipSpace(line, p+1)
	for p < len(line) && line[p] == '"' {
		ke := stringEnd(line, p)
		key := line[p+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return "", "", nil, false
		}
		p = skipSpace(line, ke)
		p = skipSpace(line, p+1) // past ':'
		ve := valueEnd(line, p)
		value := line[p:ve]
		switch k := string(key); {
		case k == "id":
			if id, ok = jsonString(value); !ok {
				return "", "", nil, false
			}
			haveID = true
		case k == "answer":
			if answer, ok = jsonString(value); !ok {
				return "", "", nil, false
			}
			haveAnswer = true
		case k == "sources":
			sources = value
		case strings.EqualFold(k, "id") || strings.EqualFold(k, "answer") || strings.EqualFold(k, "sources"):
			return "", "", nil, false
		}
		p = skipSpace(line, ve)
		if p < len(line) && line[p] == ',' {
			p = skipSpace(line, p+1)
		}
	}
	if !haveID || id == "" || !haveAnswer || len(sources) == 0 || string(sources) == "null" {
		return "", "", nil, false
	}
	return id, answer, sources, true
}

// jsonString returns the string that value, valid JSON, holds, and false
// when it holds none.
func jsonString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	s := value[1 : len(value)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	var v string
	return v, json.Unmarshal(value, &v) == nil
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

// stringEnd returns the end of the string of valid JSON that starts at p.
func stringEnd(b []byte, p int) int {
	for p++; p < len(b); p++ {
		switch b[p] {
		case '\\':
			p++
		case '"':
			return p + 1
		}
	}
	return p
}

// valueEnd returns the end of the value of valid JSON that starts at p.
func valueEnd(b []byte, p int) int {
	if p >= len(b) {
		return p
	}
	switch b[p] {
	case '"':
		return stringEnd(b, p)
	case '{', '[':
		depth := 0
		for ; p < len(b); p++ {
			switch b[p] {
			case '"':
				p = stringEnd(b, p) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return p + 1
				}
			}
		}
		return p
	}
	// A number or a literal: up to the next separator.
	for p < len(b) && b[p] != ',' && b[p] != '}' && b[p] != ']' && b[p] != ' ' &&
		b[p] != '\t' && b[p] != '\n' && b[p] != '\r' {
		p++
	}
	return p
}

// validJSON reports whether b is one JSON value, as json.Valid does, in a
// loop of its own that is several times faster (TestValidJSON compares the
// two). It may report false for valid JSON it does not read, nested deeper
// than maxDepth, which quickLine then leaves to encoding/json; never true
// for invalid JSON.
func validJSON(b []byte) bool {
	const maxDepth = 64
	var stack [maxDepth]byte // the open '{' and '[' (their closing bytes)
	depth := 0
	p := skipSpace(b, 0)
	for {
		// A value at p.
		if p >= len(b) {
			return false
		}
		switch c := b[p]; {
		case c == '"':
			if p = validString(b, p); p < 0 {
				return false
			}
		case c == '{' || c == '[':
			if depth == maxDepth {
				return false
			}
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			stack[depth] = end
			depth++
			p = skipSpace(b, p+1)
			if p < len(b) && b[p] == end {
				depth--
				p++
				break
			}
			if c == '{' {
				if p = validKey(b, p); p < 0 {
					return false
				}
			}
			continue
		case c == '-' || c-'0' < 10:
			if p = validNumber(b, p); p < 0 {
				return false
			}
		case c == 't' && bytes.HasPrefix(b[p:], []byte("true")):
			p += 4
		case c == 'f' && bytes.HasPrefix(b[p:], []byte("false")):
			p += 5
		case c == 'n' && bytes.HasPrefix(b[p:], []byte("null")):
			p += 4
		default:
			return false
		}
		// After a value: the end of its container or of b, or a comma
		// and the next member.
		for {
			p = skipSpace(b, p)
			if depth == 0 {
				return p == len(b)
			}
			if p >= len(b) {
				return false
			}
			if b[p] == stack[depth-1] {
				depth--
				p++
				continue
			}
			if b[p] != ',' {
				return false
			}
			p = skipSpace(b, p+1)
			if stack[depth-1] == '}' {
				if p = validKey(b, p); p < 0 {
					return false
				}
			}
			break
		}
	}
}

// validKey returns where the value after the key and colon at p starts,
// or -1.
func validKey(b []byte, p int) int {
	if p >= len(b) || b[p] != '"' {
		return -1
	}
	if p = validString(b, p); p < 0 {
		return -1
	}
	if p = skipSpace(b, p); p >= len(b) || b[p] != ':' {
		return -1
	}
	return skipSpace(b, p+1)
}

// validString returns the end of the JSON string at p, or -1: no control
// byte, and escapes of \", \\, \/, \b, \f, \n, \r, \t and \u with four hex
// digits (bytes beyond ASCII are not checked, as encoding/json does not).
func validString(b []byte, p int) int {
	for p++; p < len(b); p++ {
		switch c := b[p]; {
		case c == '"':
			return p + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if p++; p >= len(b) {
				return -1
			}
			switch b[p] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if p+4 >= len(b) {
					return -1
				}
				for _, h := range b[p+1 : p+5] {
					if !(h-'0' < 10 || (h|0x20)-'a' < 6) {
						return -1
					}
				}
				p += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// validNumber returns the end of the JSON number at p, or -1:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte, p int) int {
	digits := func(p int) int { // at least one
		q := p
		for q < len(b) && b[q]-'0' < 10 {
			q++
		}
		if q == p {
			return -1
		}
		return q
	}
	if b[p] == '-' {
		p++
	}
	switch {
	case p < len(b) && b[p] == '0':
		p++
	default:
		if p = digits(p); p < 0 {
			return -1
		}
	}
	if p < len(b) && b[p] == '.' {
		if p = digits(p + 1); p < 0 {
			return -1
		}
	}
	if p < len(b) && (b[p] == 'e' || b[p] == 'E') {
		p++
		if p < len(b) && (b[p] == '+' || b[p] == '-') {
			p++
		}
		if p = digits(p); p < 0 {
			return -1
		}
	}
	return p
}
