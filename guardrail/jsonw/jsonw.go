// Package jsonw writes JSON strings and integers byte for byte as
// encoding/json does, for the encoders that do without its reflection: the
// WASM guard's results, the server's frames and guardrail batch's output
// lines. Standard library only, and only unicode/utf8 of it (package
// strconv would link its errors into the WASM guard); it builds for
// js/wasm.
package jsonw

import "unicode/utf8"

// AppendString appends s to dst as a JSON string as encoding/json writes
// it: '"', '\\' and the bytes below 0x20 escaped (\b, \f, \n, \r, \t, else
// \u00XX), each byte that starts no UTF-8 rune as \ufffd, U+2028 and
// U+2029 as \u2028 and \u2029, and with html also <, > and & as \u003c,
// \u003e and \u0026 (json.Marshal; an Encoder with SetEscapeHTML(false)
// writes them as they are).
func AppendString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	safe := &safeSet
	if html {
		safe = &htmlSafeSet
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if safe[s[i]] {
			i++
			continue
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			if e := shortEscape[b]; e != 0 {
				dst = append(dst, '\\', e)
			} else {
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// safeSet marks the bytes written as they are: the ASCII bytes from space
// on but '"' and '\\'; htmlSafeSet also leaves out '<', '>' and '&'. A
// byte of a multi-byte rune is not in them (it is decoded).
var safeSet, htmlSafeSet = func() (plain, html [256]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		plain[b] = b != '"' && b != '\\'
		html[b] = plain[b] && b != '<' && b != '>' && b != '&'
	}
	return plain, html
}()

// shortEscape is the letter after '\\' of the bytes written so, 0 for the
// others.
var shortEscape = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// AppendInt appends v in decimal to dst, as encoding/json writes an
// integer and strconv.AppendInt(dst, v, 10) does.
func AppendInt(dst []byte, v int64) []byte {
	var b [20]byte // the digits of the largest magnitude, 1<<63
	i := len(b)
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	for u >= 10 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	b[i] = byte('0' + u)
	if v < 0 {
		dst = append(dst, '-')
	}
	return append(dst, b[i:]...)
}
