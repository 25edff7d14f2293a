package lambda

import (
	"regexp"
	"strings"
)

// phoneLike matches runs that may be phone numbers (or other long digit
// sequences such as account numbers): at least 6 digits with the usual
// separators in between.
var phoneLike = regexp.MustCompile(`\+?[0-9](?:[0-9 ()./\-]*[0-9]){5,}`)

// Mask hides the digits of every phone-like run in s except the last two, so
// that logs can say which input failed without holding personal numbers.
// Every logged string that may hold user text goes through Mask.
func Mask(s string) string {
	return phoneLike.ReplaceAllStringFunc(s, func(m string) string {
		digits := 0
		for i := 0; i < len(m); i++ {
			if m[i] >= '0' && m[i] <= '9' {
				digits++
			}
		}
		var b strings.Builder
		seen := 0
		for i := 0; i < len(m); i++ {
			c := m[i]
			if c >= '0' && c <= '9' {
				seen++
				if seen <= digits-2 {
					c = '*'
				}
			}
			b.WriteByte(c)
		}
		return b.String()
	})
}
