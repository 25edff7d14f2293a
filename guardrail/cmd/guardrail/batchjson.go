package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// quickLine reads the fields batch needs from line, a JSON object, without
// encoding/json's decoder (about half of batch's time went to it before):
// once json.Valid has found the line valid, the object's members are passed
// over by their structure. It reads only what it can read exactly as
// json.Unmarshal into batchIn would, and reports ok false for the rest,
// which scoreLine decodes with encoding/json: a line that is not valid JSON
// or not an object, a key with an escape or that matches a field only
// case-insensitively, an id or answer that is not a string, sources that
// are missing or null, an id that is empty. Strings with an escape or bytes
// that are not UTF-8 are decoded by encoding/json alone.
func quickLine(line []byte) (id, answer string, sources []byte, ok bool) {
	if !json.Valid(line) {
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
