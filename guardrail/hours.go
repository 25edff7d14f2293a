package guardrail

// Hours: a time of day written as an hour, not as H:MM. Before "am", "pm",
// "a.m." or "p.m." an hour from 1 to 12, in digits or words, is that time
// ("6 pm" and "six pm" are 18:00, "12 am" 00:00); after "kl.", "kl" or
// "klockan" an hour from 0 to 24, alone or with its minutes after a dot,
// is that time ("kl. 8" is 08:00, "kl. 21.00" 21:00), and so is the second
// end of a range whose first end is one ("kl. 8–17", "mellan kl. 02 och
// 05"). Each is checked as the time it is, against a snippet's "18:00" or
// "6 pm" alike.

// hour makes t, a number just read, the time it is where it is an hour
// (see above), and reports whether it did.
func (s *scanner) hour(t *token) bool {
	var w string // the hour in digits
	switch t.kind {
	case kInteger, kDecimal:
		if n := t.end - t.start; n > 5 || n > 2 && t.kind == kInteger {
			return false // no hour: most numbers
		}
		w = s.t[t.start:t.end]
	case kWords: // "six pm", "klockan sex"
		if w = s.str(t.canon); len(w) > 2 {
			return false
		}
	default:
		return false
	}
	h, m, ok := hourText(w)
	if !ok {
		return false
	}
	if t.kind != kDecimal && h >= 1 && h <= 12 {
		if pm, end, ok := s.meridiem(t.end); ok {
			h %= 12
			if pm {
				h += 12
			}
			s.setTime(t, t.end, h, 0)
			t.end = end
			return true
		}
	}
	if s.pastEnd {
		return false
	}
	if h > 24 || !afterClockWord(s.t[:t.start]) {
		return false
	}
	s.setTime(t, t.end, h, m)
	return true
}

// setTime makes t, which ends at end, the time h:m.
func (s *scanner) setTime(t *token, end, h, m int) {
	b := appendPad2(s.buf[:0], h)
	b = appendPad2(append(b, ':'), m)
	s.buf = b
	*t = token{start: t.start, end: end, kind: kTime, canon: s.keep(b)}
}

// hourText reads "H", "HH", or, with minutes after a dot, "H.MM" and
// "HH.MM" (minutes to 59).
func hourText(w string) (h, m int, ok bool) {
	i := 0
	for i < len(w) && i < 2 && w[i] >= '0' && w[i] <= '9' {
		h = h*10 + int(w[i]-'0')
		i++
	}
	if i == 0 {
		return 0, 0, false
	}
	if i == len(w) {
		return h, 0, true
	}
	if len(w) != i+3 || w[i] != '.' || w[i+1] < '0' || w[i+1] > '5' || w[i+2] < '0' || w[i+2] > '9' {
		return 0, 0, false
	}
	return h, int(w[i+1]-'0')*10 + int(w[i+2]-'0'), true
}

// meridiem reads "am", "pm", "a.m." or "p.m." (in any case, after a space
// or not) at i, and whether it is pm, and where it ends.
func (s *scanner) meridiem(i int) (pm bool, end int, ok bool) {
	j := i
	if s.ascii(j) == ' ' {
		j++
	}
	c := s.ascii(j) | 0x20
	if c != 'a' && c != 'p' {
		return false, 0, false
	}
	k := j + 1
	if s.ascii(k) == '.' {
		k++
	}
	if s.ascii(k)|0x20 != 'm' {
		return false, 0, false
	}
	k++
	if s.ascii(k) == '.' && s.ascii(j+1) == '.' {
		k++ // "p.m."
	}
	if isLetter(s.at(k)) || isDigit(s.at(k)) {
		return false, 0, false
	}
	return c == 'p', k, true
}

// afterClockWord reports whether before, the text before a number, ends in
// a word that makes it a time ("kl. ", "klockan "), or in such a time and
// a word or dash that joins the ends of a range ("kl. 8–", "kl. 02 och ").
func afterClockWord(before string) bool {
	// "kl" within the 24 bytes before, or no such word: most numbers
	near := false
	for i := len(before) - 1; i > 0 && i >= len(before)-24; i-- {
		if before[i]|0x20 == 'l' && before[i-1]|0x20 == 'k' {
			near = true
			break
		}
	}
	if !near {
		return false
	}
	if w := lowerString(lastWord(before)); w == "kl" || w == "klockan" {
		return true
	}
	// The first end of a range: what joins it, then its hour.
	b, spaced := before, trimSuffix(before, " ")
	switch {
	case hasSuffix(spaced, "–"), hasSuffix(spaced, "—"):
		b = spaced[:len(spaced)-len("–")]
	case hasSuffix(spaced, "-"):
		b = spaced[:len(spaced)-1]
	default:
		w := lastWord(b)
		if !rangeWords[lowerString(w)] || len(w)+2 > len(b) {
			return false
		}
		b = b[:len(b)-len(w)-1] // the space before the word stays
	}
	b = trimSuffix(b, " ")
	i := len(b)
	for i > 0 && (b[i-1] >= '0' && b[i-1] <= '9' || b[i-1] == '.' || b[i-1] == ':') {
		i--
	}
	if _, _, ok := hourText(b[i:]); !ok && !isClock(b[i:]) {
		return false
	}
	w := lowerString(lastWord(b[:i]))
	return w == "kl" || w == "klockan"
}

// isClock reports whether w is written H:MM or HH:MM.
func isClock(w string) bool {
	n := len(w)
	return (n == 4 || n == 5) && w[n-3] == ':' && w[0] >= '0' && w[0] <= '9'
}
