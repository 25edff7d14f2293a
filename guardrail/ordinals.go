package guardrail

// The ordinals of more than one word, or of number parts written together
// with an ordinal word: "twenty-first", "two hundredth", "one hundred and
// first", "tjugoförsta", "tvåhundrade". The ordinal words themselves are
// ordinalWords (calendar.go).

// ordinalAfter reads into t an English ordinal word that ends the spelled
// number [i,end) of the value val, whose last lexeme is last, joined to it
// by a hyphen, a space or " and ", when they form one number (see
// ordinalValue): "twenty-first", "two-hundredth", "one hundred and first".
// After a space a word that begins a compound does not ("twenty first-time
// buyers": a count and an adjective, as "two million first graders" is by
// ordinalValue's rule), nor "second" after "a" or "an", where it is a
// number of seconds ("a thirty-second ad"; "the thirty-second president").
// Swedish ordinal words (ending in "a" or "e") form none with English.
func (s *scanner) ordinalAfter(t *token, i, end int, val int64, last lexeme) bool {
	sep, j, x := s.ascii(end), end+1, s.t
	and := sep == ' ' && j+4 <= len(x) && x[j:j+4] == "and " // (read by spelled, and the word after)
	if and {
		j += 4
	} else if sep != ' ' && sep != '-' {
		return false
	}
	w, e, ok := s.read(ordinalWords, j)
	if !ok || x[e-1]|0x20 == 'a' || x[e-1]|0x20 == 'e' || sep == ' ' && s.ascii(e) == '-' {
		return false
	}
	n, ok := ordinalValue(val, last, w.value, and)
	if !ok {
		return false
	}
	if w.value == "2" {
		if a := lowerString(lastWord(x[:i])); a == "a" || a == "an" {
			return false
		}
	}
	*t = s.ordinalToken(i, e, itoa(n))
	return true
}

// ordinalValue is the value of the number val, whose last lexeme is last,
// ended by the ordinal of the value v (as written in a table), as the
// language writes them: a unit after a
// tens word ("twenty-first"); hundredth after a unit that begins its group
// ("two hundredth", "two thousand three hundredth"); a scale after a group
// below a thousand that no smaller scale precedes ("twenty-five
// thousandth"); and, when joined (after "and", or in a Swedish word), a
// unit, teen or tens after hundred or a scale ("one hundred and first",
// "hundraförsta").
func ordinalValue(val int64, last lexeme, v string, joined bool) (int64, bool) {
	o, g := int64(digitsValue(v)), val%1000 // the last group
	switch {
	case joined && (last.kind == lexHundred || last.kind == lexScale) && o < 100, o < 10 && last.kind == lexTens:
		return val + o, true
	case o == 100 && last.kind == lexUnit && g == last.val:
		return val + 99*g, true
	case o >= 1000:
		if g = val % o; g > 0 && g < 1000 && (val-g)%(o*1000) == 0 {
			return val + g*(o-1), true
		}
	}
	return 0, false
}

// swedishOrdinal reads a Swedish ordinal written together with the number
// parts before it (w, lower case): "tjugoförsta" is tjugo·första, 21st;
// "tvåhundrade" 200th. The first split whose parts and ordinal form one
// number counts.
func swedishOrdinal(w []byte) (int64, bool) {
	if len(w) == 0 || w[len(w)-1] != 'a' && w[len(w)-1] != 'e' { // Swedish
		return 0, false
	}
	for q := 1; q < len(w)-1; q++ { // the ordinal w[q:], the parts w[:q]
		if v, ok := ordinalWords.words[string(w[q:])]; ok {
			if l, ok := appendSwedish(nil, w[:q]); ok {
				if val, ok := parseNumber(l); ok {
					if n, ok := ordinalValue(val, l[len(l)-1], v, true); ok {
						return n, true
					}
				}
			}
		}
	}
	return 0, false
}
