package lambda

import "unicode/utf8"

// jsonAppender is a frame that appends its JSON encoding to b, byte for
// byte what json.Marshal gives, without reflection. The handler sends five
// or more stream frames an answer, each once encoded.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

func (f StreamFrame) appendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, f.ID)
	b = append(b, `,"delta":`...)
	b = appendJSONString(b, f.Delta)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string as encoding/json writes it:
// quotes, backslashes and control characters escaped, and <, >, & (HTML),
// U+2028 and U+2029 (JavaScript) as \u escapes; invalid UTF-8 becomes
// \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
