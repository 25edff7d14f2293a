package guardrail

import (
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail/jsonw"
)

// The word tables are written as text and read once, when the package is
// initialised: a Go map literal compiles to code for each of its entries,
// and in the browser the guard's code is what the page downloads first.
// For the same reason the text is split by hand, and the few string
// functions the package needs are written out here, not taken from
// package strings (whose general versions add kilobytes).

// table reads lines "value = word word …" into a map word → value; a line
// "= word …" gives its words the value "". Words and values hold no space.
func table(spec string) map[string]string {
	m := map[string]string{}
	for len(spec) > 0 {
		line := spec
		if i := indexByte(spec, '\n'); i >= 0 {
			line, spec = spec[:i], spec[i+1:]
		} else {
			spec = ""
		}
		eq := indexByte(line, '=')
		if eq < 0 {
			continue
		}
		value := ""
		fields(line[:eq], func(w string) {
			if value != "" {
				value += " "
			}
			value += w
		})
		fields(line[eq+1:], func(w string) { m[w] = value })
	}
	return m
}

// series adds words, in order, as lexemes of kind with the values first,
// first+step, …
func series(m map[string][]lexeme, kind int, first, step int64, words string) {
	i := int64(0)
	fields(words, func(w string) {
		m[w] = append(m[w], lexeme{kind, first + i*step})
		i++
	})
}

// fields calls fn with each word of s, words being separated by spaces,
// tabs and newlines.
func fields(s string, fn func(string)) {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
			if start >= 0 {
				fn(s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}

// hasPrefix, hasSuffix, trimPrefix and trimSuffix are package strings'
// functions of the same names.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

func trimPrefix(s, prefix string) string {
	if hasPrefix(s, prefix) {
		return s[len(prefix):]
	}
	return s
}

func trimSuffix(s, suffix string) string {
	if hasSuffix(s, suffix) {
		return s[:len(s)-len(suffix)]
	}
	return s
}

// itoa is strconv.FormatInt(v, 10).
func itoa(v int64) string {
	var b [20]byte
	return string(jsonw.AppendInt(b[:0], v))
}

// indexFunc is strings.IndexFunc.
func indexFunc(s string, f func(rune) bool) int {
	for i, r := range s {
		if f(r) {
			return i
		}
	}
	return -1
}

// cut is strings.Cut with a one-byte separator.
func cut(s string, sep byte) (before, after string, found bool) {
	if i := indexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// contains reports whether sub is within s (a plain search: the texts are
// snippets and sub a word).
func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// lowerString is strings.ToLower (invalid UTF-8 becomes U+FFFD).
func lowerString(s string) string {
	b := make([]byte, 0, len(s))
	for _, c := range s {
		if c < 0x80 {
			b = append(b, lowerASCII(byte(c)))
		} else {
			b = utf8.AppendRune(b, toLower(c))
		}
	}
	return string(b)
}

// digitsValue is the value of a string of ASCII digits (0 for none).
func digitsValue(s string) int {
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// trimSpaces returns s without the spaces around it.
func trimSpaces(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
