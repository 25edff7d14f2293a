package guardrail

// Bounds: a quantity printed after words that make it an upper bound ("up
// to 6 members", "at most", "max", "a maximum of", "no more than",
// "högst", "upp till", "som mest") or a lower one ("at least 3 users",
// "min.", "a minimum of", "no less than", "minst", "som minst"), a
// qualifier (qualifiers.go): "up to 3 users" is not stated by "minimum 3
// users", and "6 members" agrees with "up to 6 members". Before the
// number, words of comparison are bounds too, strict or not alike: "more
// than 6", "over", "above", "mer än", "fler än", "över" lower ("over"
// and "över" not before a length of time: "over 7 days" is during them),
// "less than", "fewer than", "below", "mindre än", "färre än" upper
// (after it, "150 kr more than Basic" is a difference). Not "from" ("from
// 49 kr" may start a range), nor "under", which is also Swedish for
// "during".

// Bound kinds. boundOver is "over" or "över", a lower bound but before a
// length of time, where it says during ("retried 3 times over 7 days"):
// see qualifierOf.
const (
	boundUpper uint8 = 1 + iota
	boundLower
	boundOver
)

// boundBefore returns the bound the words right before start in text make
// of the quantity there (see above), or 0.
func boundBefore(text string, start int) uint8 {
	var b0, b1, b2 [8]byte
	w0, i := wordBefore(text, start, b0[:0])
	if b := boundWord(string(w0)); b != 0 {
		return b
	}
	switch string(w0) {
	case "":
		return 0
	case "above":
		return boundLower
	case "over", "över":
		return boundOver
	case "below":
		return boundUpper
	case "to", "till", "most", "mest", "least", "of", "than", "än":
	default:
		return 0
	}
	w1, i := wordBefore(text, i, b1[:0])
	switch string(w0) + " " + string(w1) {
	case "to up", "till upp", "most at", "mest som", "of maximum":
		return boundUpper
	case "least at", "of minimum":
		return boundLower
	case "than more", "than less", "than fewer", "än mer", "än fler", "än mindre", "än färre":
	default:
		return 0
	}
	more := string(w1) == "more" || string(w1) == "mer" || string(w1) == "fler"
	switch w2, _ := wordBefore(text, i, b2[:0]); string(w2) {
	case "no", "not", "inte":
		more = !more // "no more than" is at most, "no less than" at least
	}
	if more {
		return boundLower // "more than 6": above it
	}
	return boundUpper // "less than 6", "fewer than", "mindre än"
}

// wordBefore returns the word (letters, and one '.' at its end) that ends
// before the spaces before i in text, in lower case in buf (none when it
// is longer than buf), and where it starts.
func wordBefore(text string, i int, buf []byte) ([]byte, int) {
	j := i
	for j > 0 && text[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && (isLetterByte(text[k-1]) || text[k-1] == '.' && k == j) {
		k--
	}
	if k == j || j-k > cap(buf) {
		return nil, k
	}
	for _, c := range []byte(text[k:j]) {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, k
}

// boundWord returns the bound a word makes alone, lower-cased ("max",
// "minimum", "högst", "minst"), or 0.
func boundWord(w string) uint8 {
	switch w {
	case "max", "max.", "maximum", "maximalt", "högst":
		return boundUpper
	case "min", "min.", "minimum", "minimalt", "minst":
		return boundLower
	}
	return 0
}
