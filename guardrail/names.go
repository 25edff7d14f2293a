package guardrail

import "unicode/utf8"

// A name with digits is letters and digits in one word ("A380", "MP4",
// "iPhone15") or runs of them joined by hyphens of which one has a digit
// and the first starts with a letter ("X-15", "COVID-19", "SARS-CoV-2").
// A space ends a name: "Boeing 777" and "iPhone 15" are a word and a
// number, the number checked as any other. A name must stand in a snippet
// as written, in any case and with or without its hyphens ("covid19" is
// "COVID-19"), or it is ungrounded: "X-15" does not ground "X-16". One
// whose letters before its last digits (its stem, of three letters or
// more) a snippet names alone, while no snippet names them with other
// digits, is unverified ("COVID-19" against "the impact of COVID").

// nameToken is the token of the name over [i,end): its canonical form is
// its letters with their case folded (see foldName) and its digits,
// without hyphens, and without a plural "s" after its last digit ("A380s"
// is "A380").
func (s *scanner) nameToken(i, end int) token {
	w := s.t[i:end]
	b := s.buf[:0]
	for _, c := range w {
		if c != '-' {
			b = utf8.AppendRune(b, foldName(c))
		}
	}
	if n := len(b); n >= 2 && b[n-1] == 'S' && w[len(w)-1] == 's' && b[n-2] >= '0' && b[n-2] <= '9' {
		b = b[:n-1]
	}
	s.buf = b
	return token{start: i, end: end, canon: s.keep(b), kind: kName}
}

// nameStem returns the stem of a name as printed, in lower case: what
// stands before its last run of digits and the hyphen before them
// ("covid" of "COVID-19", "sars-cov" of "SARS-CoV-2", "a" of "A380"), or
// "" when that has fewer than three letters.
func nameStem(name string) string {
	j := len(name)
	for j > 0 && (name[j-1] < '0' || name[j-1] > '9') { // a plural "s", letters after the digits
		j--
	}
	for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
		j--
	}
	for j > 0 && name[j-1] == '-' {
		j--
	}
	stem := name[:j]
	letters := 0
	for _, c := range stem {
		if isLetter(c) {
			letters++
		}
	}
	if letters < 3 {
		return ""
	}
	return lowerString(stem)
}

// stemUse reports whether the snippet's text names stem (a name's, in
// lower case) as a word of its own (alone: not joined to letters, digits
// or a hyphen on either side, nor followed by a space and a digit), and
// whether it names it before a space and a digit ("iPhone 14").
func (s *Source) stemUse(stem string) (alone, numbered bool) {
	t := s.lowerText()
	for k := 0; k+len(stem) <= len(t); {
		i := k
		for i+len(stem) <= len(t) && t[i:i+len(stem)] != stem {
			i++
		}
		if i+len(stem) > len(t) {
			break
		}
		e := i + len(stem)
		before, _ := utf8.DecodeLastRuneInString(t[:i])
		after, _ := utf8.DecodeRuneInString(t[e:])
		if (i == 0 || !isAlnum(before) && before != '-') && (e == len(t) || !isAlnum(after) && after != '-') {
			if after == ' ' && e+1 < len(t) && t[e+1] >= '0' && t[e+1] <= '9' {
				numbered = true
			} else {
				alone = true
			}
		}
		k = i + 1
	}
	return alone, numbered
}

// nameState is the state of a name no snippet states: unverified when a
// snippet names its stem alone and none names the stem with other digits,
// else ungrounded.
func nameState(n *Number, sources []*Source) State {
	stem := nameStem(n.Text)
	if stem == "" {
		return Ungrounded
	}
	alone := false
	for _, s := range sources {
		if s == nil {
			continue
		}
		for _, m := range s.Numbers {
			if m.Kind == KindName && nameStem(m.Text) == stem {
				return Ungrounded // another name of the stem
			}
		}
		a, numbered := s.stemUse(stem)
		if numbered {
			return Ungrounded
		}
		alone = alone || a
	}
	if alone {
		return Unverified
	}
	return Ungrounded
}

// foldName folds the case of a letter of a name: an ASCII letter to upper
// case ("a380" is "A380"), any other to lower case, as toLower does (which
// spares the WASM guard the tables of upper case).
func foldName(c rune) rune {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	if c < 0x80 {
		return c
	}
	return toLower(c)
}
