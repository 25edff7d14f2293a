package main

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail/jsonw"
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
// when it holds none. It decodes escapes and bytes that are not UTF-8 as
// encoding/json does (see unquote).
func jsonString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	s := value[1 : len(value)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	return unquote(s)
}

// unquote decodes s, the text between the quotes of a valid JSON string,
// exactly as encoding/json does (its unquoteBytes, of which this is a
// copy): escapes decoded, a \u escape of half a surrogate pair that is not
// followed by the other half read as U+FFFD, and each byte that starts no
// UTF-8 rune too (TestUnquote compares the two).
func unquote(s []byte) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return "", false
			}
			switch s[r] {
			default:
				return "", false
			case '"', '\\', '/', '\'':
				b = append(b, s[r])
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r-1:])
				if rr < 0 {
					return "", false
				}
				r += 4
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r+1:])); dec != unicode.ReplacementChar {
						r += 6 // a valid pair
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			}
			r++
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
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
		p = plainRun(b, p, false)
		if p >= len(b) {
			break
		}
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
		if p = plainRun(b, p, true); p >= len(b) {
			break
		}
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

// plainRun returns the end of the run of bytes from p that a JSON string
// holds as they are: up to the next '"' or '\\' (or, with controls, byte
// below 0x20), or the end of b. It reads eight bytes at a time: with each
// byte c of x, c^'"' and c^'\\' are 0 for those bytes, and v-0x01 (v-0x20)
// borrows into the top bit of a byte v below 0x01 (0x20) that lacks it;
// what borrows on into the bytes after the first such byte may mark them
// wrongly, but only the first one counts.
func plainRun(b []byte, p int, controls bool) int {
	const ones = 0x0101010101010101
	for ; p+8 <= len(b); p += 8 {
		x := binary.LittleEndian.Uint64(b[p:])
		q, bs := x^'"'*ones, x^'\\'*ones
		m := (q-ones)&^q | (bs-ones)&^bs
		if controls {
			m |= (x - 0x20*ones) &^ x
		}
		if m &= 0x80 * ones; m != 0 {
			return p + bits.TrailingZeros64(m)>>3
		}
	}
	for ; p < len(b); p++ {
		if c := b[p]; c == '"' || c == '\\' || controls && c < 0x20 {
			break
		}
	}
	return p
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

// appendResult appends v, a *batchOut or a batchErr, to dst as one line of
// JSON, byte for byte as a json.Encoder that does not escape HTML writes it
// (TestAppendResult compares the two), without its reflection.
func appendResult(dst []byte, v any) []byte {
	switch v := v.(type) {
	case *batchOut:
		dst = append(dst, `{"id":`...)
		dst = appendString(dst, v.ID)
		dst = append(dst, `,"verdict":`...)
		dst = appendString(dst, v.Verdict)
		dst = append(dst, `,"numbers":`...)
		if v.Numbers == nil {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, '[')
			for i, n := range v.Numbers {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(dst, `{"text":`...)
				dst = appendString(dst, n.Text)
				dst = append(dst, `,"canonical":`...)
				dst = appendString(dst, n.Canonical)
				dst = append(dst, `,"kind":`...)
				dst = appendString(dst, n.Kind.String())
				dst = append(dst, `,"state":`...)
				dst = appendString(dst, n.State.String())
				dst = append(dst, `,"grounded":`...)
				dst = strconv.AppendBool(dst, n.Grounded)
				dst = append(dst, `,"source":`...)
				dst = strconv.AppendInt(dst, int64(n.Source), 10)
				if n.Formula != "" {
					dst = append(dst, `,"formula":`...)
					dst = appendString(dst, n.Formula)
				}
				dst = append(dst, '}')
			}
			dst = append(dst, ']')
		}
		return append(dst, "}\n"...)
	case batchErr:
		dst = append(dst, '{')
		if v.ID != "" {
			dst = append(dst, `"id":`...)
			dst = appendString(dst, v.ID)
			dst = append(dst, ',')
		}
		if v.Line != 0 {
			dst = append(dst, `"line":`...)
			dst = strconv.AppendInt(dst, int64(v.Line), 10)
			dst = append(dst, ',')
		}
		dst = append(dst, `"error":`...)
		dst = appendString(dst, v.Error)
		return append(dst, "}\n"...)
	}
	panic("appendResult: not a batch result")
}

// appendString appends s to dst as a JSON string, as an encoding/json
// Encoder that does not escape HTML writes it.
func appendString(dst []byte, s string) []byte { return jsonw.AppendString(dst, s, false) }
