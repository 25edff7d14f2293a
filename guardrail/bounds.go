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
// (after it, "150 kr more than Basic" is a difference); "under" is an
// upper bound but before a length of time, where it is also Swedish for
// "during" ("under 30 dagar"). Not "from" ("from 49 kr" may start a
// range).

// Bound kinds. boundOver is "over" or "över", a lower bound but before a
// length of time, where it says during ("retried 3 times over 7 days");
// boundUnder is "under", an upper bound but before a length of time, where
// it is Swedish for during ("under 30 dagar"): see qualifierOf.
const (
	boundUpper uint8 = 1 + iota
	boundLower
	boundOver
	boundUnder
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
	case "under":
		return boundUnder
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

// orBounds and andBounds are the words after "or"/"eller" and after
// "and"/"och" that make the quantity before them a bound: a lower one
// ("l") or an upper one ("u"). (Tables, not map literals: each entry of a
// literal is code of the WASM guard's initialisation.)
var (
	orBounds = table(`
		l = more older above over higher greater longer larger bigger later
		l = mer mera fler äldre över högre längre större senare
		u = less fewer younger below under lower shorter smaller earlier
		u = mindre färre yngre lägre kortare tidigare`)
	andBounds = table(`
		l = up above over older upward upwards uppåt äldre över mer fler
		u = below under younger nedåt yngre`)
)

// boundNamed returns the bound a value of orBounds or andBounds names.
func boundNamed(v string) uint8 {
	switch v {
	case "l":
		return boundLower
	case "u":
		return boundUpper
	}
	return 0
}

// boundAfter returns the bound the words right after end in text make of
// the quantity that ends there: "+" or "-plus" right after it ("18+",
// "20-plus"), or, after at most one word (what it counts: "3 devices or
// more"), "or" or "eller" and a word of comparison ("65 or older", "3
// enheter eller fler", "2 GB or less"), or "and" or "och" and a direction
// ("500 kr and up", "65 and over", "och uppåt"); or 0. pending reports
// that text ends before that can be told (a stream waits for more).
func boundAfter(text string, end int) (b uint8, pending bool) {
	rest := text[end:]
	switch {
	case rest == "" || rest == "-" || rest == "-p" || rest == "-pl" || rest == "-plu":
		return 0, true
	case rest[0] == '+':
		if len(rest) == 1 {
			return boundLower, true // "+5" would make a sum
		}
		if isDigit(rune(rest[1])) {
			return 0, false
		}
		return boundLower, false
	case hasPrefix(rest, "-plus"):
		if len(rest) == 5 {
			return boundLower, true
		}
		if !isLetterByte(rest[5]) {
			return boundLower, false
		}
		return 0, false
	}
	// The words after it, one at a time: decided as soon as they tell.
	var ws [3]string
	i := end
	for n := range ws {
		if i >= len(text) {
			return 0, true
		}
		if text[i] != ' ' {
			return 0, false
		}
		j := i + 1
		for j < len(text) && isLetterByte(text[j]) {
			j++
		}
		if j == i+1 {
			return 0, false
		}
		if j == len(text) {
			return 0, true // the word may go on
		}
		ws[n] = lowerString(text[i+1 : j])
		i = j
		if n == 0 {
			continue // a join, or what it counts ("3 devices or more")
		}
		switch ws[n-1] {
		case "or", "eller":
			return boundNamed(orBounds[ws[n]]), false
		case "and", "och":
			return boundNamed(andBounds[ws[n]]), false
		}
	}
	return 0, false
}
