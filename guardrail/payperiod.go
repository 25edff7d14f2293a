package guardrail

import "unicode/utf8"

// This file reads the period of a price that is named apart from it: "an
// annual fee of 399 kr" and "399 kr, billed yearly" are 399 kr per year,
// "månadskostnaden är 49 kr" 49 kr per month. A price printed with no
// period of its own takes the period of the nearest phrase of its sentence
// that names one for a payment, with no other number between them:
//   - an adjective or adverb of period before a word for a price or a
//     payment ("annual fee", "monthly cost", "yearly subscription",
//     "årlig avgift", "with quarterly billing"), or one word before it
//     ("a one-time setup fee", "the monthly Premium price"), or two when
//     the first is a name ("the annual Family plan fee"), but then a
//     word that is a verb too only before "is", "of", … ("the yearly
//     Premium cost is", "a yearly service charge of"; not "monthly
//     backups cost 29 kr": the backups are monthly);
//   - a Swedish compound of a period, 's' and such a word ("årsavgift",
//     "månadskostnaden");
//   - a verb of billing before an adverb of period, or before "per",
//     "every", "a", "varje" … and a period ("billed annually", "charged
//     every month", "betalas årsvis", "dras varje månad");
//   - "once" and a period ("once a year": per year).
//
// A payment made once is a period of its own, once, which agrees with no
// other: "a one-time fee", "a one-off charge", "a single payment", "paid
// once", "betalas en gång", "engångsavgift", and "once" right after the
// price at the end of its clause ("399 kr once."; but "once you upgrade"
// says nothing).
//
// After the price, an adjective and noun count only right after "with",
// "as", "in", "med", "som" (or one of them and an article: "399 kr with
// annual billing", "as an annual fee"; not "958 kr over the monthly
// price"). The sentence of a price ends at '.', '!', '?', ';', a line
// break, a number, a conjunction ("and", "but", "och", …; after the price,
// not one before a verb: "399 kr and is billed yearly") or a word of
// comparison ("than", "compared", "jämfört"), and what follows a word of
// comparison before the price is what it is compared with ("compared with
// the monthly price, you save 958 kr"). Two such phrases as near as each
// other that name different periods name none. An adjective of period
// before another word says nothing of a price ("daily backups", "the
// annual plan"), nor does a compound of a period with another word
// ("dagsläget", "årsskiftet"). The phrases are looked for within
// maxPayWords words either side of the price, so that in a stream a price
// is held at most that far past it.

// payWords are, in English and Swedish, the words for a price or a payment
// ("noun"; "verbal" those that are verbs too: "monthly backups cost"),
// the verbs of billing ("verb"), the conjunctions that begin another
// clause ("stop": "49 kr, and the yearly price of Premium is 399 kr"),
// the words of comparison ("than"), those that may lead an adjective and
// noun after a price ("lead"), the words of a payment made once ("once",
// and Swedish "gång": "en gång"), the nouns of a count of times ("times":
// "billed four times a year") and the auxiliary verbs ("aux").
var payWords = newWordSet(table(`
	noun = price prices pricing fee fees payment payments
	noun = subscription subscriptions membership billing invoicing renewal renewals licence
	verbal = cost costs charge charges rate rates bill bills invoice invoices license
	noun = pris priset priser avgift avgiften avgifter kostnad kostnaden kostnader belopp beloppet
	noun = betalning betalningen betalningar abonnemang abonnemanget medlemskap medlemskapet
	noun = faktura fakturan fakturor fakturering faktureringen debitering debiteringen licens licensen
	verb = billed charged paid payable invoiced debited renewed renews renew pay pays
	verb = faktureras debiteras betalas dras förnyas betalar betala
	stop = and but or while whereas och men eller medan samt
	than = than compared versus vs instead än jämfört istället
	lead = with as via in med som
	aux = is are was were will can may gets get är blir blev kommer kan ska
	once = one-time one-off onetime single once
	gång = gång
	times = times gånger`))

// once is the period of a payment made once ("a one-time fee", "paid
// once", "engångsavgift"), which agrees with no other period.
var once = unitNamed("once")

// maxPayWords is how many words either side of a price are read for the
// phrase that names its period.
const maxPayWords = 8

// payWord is what a word near a price may be in a phrase of period.
type payWord struct {
	adj     uint8 // the period of an adjective or adverb of period
	adverb  uint8 // the period of an adverb that stands after a verb ("annually")
	period  uint8 // the period of a period word ("month", "år"; "months" too)
	count   uint8 // a count a join may put before a period ("every two weeks", see periodCounts)
	times   uint8 // a count of times: "twice" (2), "thrice" (3), or a count before "times"/"gånger" (see timesWords)
	timesN  bool  // "times", "gånger"
	comp    uint8 // the period of a compound of a period and a payment word
	noun    bool  // a word for a price or a payment
	verbal  bool  // a noun that is a verb too ("cost", "charges")
	name    bool  // a word that begins with a capital ("Premium")
	plain   bool  // none of the other things: a word a phrase may hold between an adjective and its noun
	last    bool  // (after the price) the last word of its clause: a mark of punctuation or the end follows it
	gång    bool  // Swedish "gång": "en gång" is once
	verb    bool  // a verb of billing
	join    bool  // "per", "every", "a", "varje", … before a period
	stop    bool  // a conjunction: the clause of the price ends before it
	than    bool  // a word of comparison: what follows it is another price's
	lead    bool  // "with", "as", … : may lead an adjective and noun after a price
	article bool  // "a", "an", "the", "en", "ett"
	aux     bool  // "is", "will", "är", …: after a conjunction, the clause goes on
	of      bool  // "of", "på": after a noun that is a verb too, it is the noun
}

// pricePeriod returns the period the sentence around a price, the
// quantity at [start,end), names for it (see above), or 0. Its reads past
// the price go through at, so that in a stream a price waits for the
// words that may name its period.
func (s *scanner) pricePeriod(start, end int) uint8 {
	var ws [2 * maxPayWords]payWord
	// The words before the price, nearest first, then after it.
	nb := 0
	for i := start; nb < maxPayWords; nb++ {
		// (Runes read backwards, as the words after the price are read
		// forwards: a quotation mark or a dash beyond ASCII is no letter.)
		j := i
		for j > 0 {
			c, n := utf8.DecodeLastRuneInString(s.t[:j])
			if isLetter(c) || c == '\n' || c == '.' || c == '!' || c == '?' || c == ';' || uint32(c-'0') < 10 {
				break
			}
			j -= n
		}
		k := j
		for k > 0 {
			c, n := utf8.DecodeLastRuneInString(s.t[:k])
			if c == '-' && k > 1 {
				c, _ = utf8.DecodeLastRuneInString(s.t[:k-1])
			}
			if !isLetter(c) {
				break
			}
			k -= n
		}
		if k == j {
			break
		}
		w := payWordOf(s.t[k:j])
		if w.than {
			nb = 0 // what follows a comparison is what the price is compared with
		}
		if w.stop || w.than {
			break
		}
		ws[maxPayWords-1-nb] = w
		i = k
	}
	na, stopped := 0, false
	for i := end; na < maxPayWords; {
		c := s.at(i)
		for c != eof && !isLetter(c) {
			if c == '\n' || c == '.' || c == '!' || c == '?' || c == ';' || uint32(c-'0') < 10 {
				break
			}
			i += runeLen(c)
			c = s.at(i)
		}
		k := i
		for isLetter(c) || c == '-' && isLetter(s.at(k+1)) {
			k += runeLen(c)
			c = s.at(k)
		}
		if k == i {
			break
		}
		w := payWordOf(s.t[i:k])
		switch c {
		case eof, '.', ',', ';', ':', '!', '?', ')', '\n':
			w.last = true
		}
		i = k
		if stopped && !w.aux && !w.verb || w.than {
			break // another clause ("and Premium …"), or a comparison
		}
		if stopped = w.stop; stopped {
			continue // the same clause goes on if a verb follows ("and is billed …")
		}
		ws[maxPayWords+na] = w
		na++
	}
	// The words before the price and after it, in the order of the text;
	// no phrase runs across the price.
	before, after := enGång(ws[maxPayWords-nb:maxPayWords]), enGång(ws[maxPayWords:maxPayWords+na])
	best, dist := uint8(0), len(ws)
	take := func(code uint8, n int) {
		switch {
		case code == 0 || n > dist:
		case n < dist:
			best, dist = code, n
		case code != best:
			best = 0 // as near, and another period: none
		}
	}
	for i := range before {
		code, n := payPhrase(before[i:])
		take(code, len(before)-i-n) // the words between it and the price
	}
	for i := range after {
		// After the price, an adjective and noun only right after
		// "with", "in", … (and an article): "in annual fees", "as an
		// annual fee".
		led := i > 0 && (after[i-1].lead || after[i-1].article && i > 1 && after[i-2].lead)
		if code, _ := payPhrase(after[i:]); code != 0 && (led || after[i].adj == 0 || after[i].verb) {
			take(code, i)
		}
	}
	if len(after) > 0 && after[0].adverb == once && after[0].last {
		take(once, 0) // "399 kr once." (not "once you upgrade")
	}
	return best
}

// enGång returns words with each Swedish "en gång" read as one word, the
// adverb "once" (reusing words' array).
func enGång(words []payWord) []payWord {
	out := words[:0]
	for i := 0; i < len(words); i++ {
		if w := words[i]; w.article && i+1 < len(words) && words[i+1].gång {
			w = payWord{adverb: once, last: words[i+1].last}
			out = append(out, w)
			i++
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// payPhrase returns the period the phrase that begins words names for a
// payment and its length in words, or 0 (see pricePeriod).
func payPhrase(words []payWord) (uint8, int) {
	if len(words) == 0 {
		return 0, 0
	}
	w := words[0]
	if w.comp != 0 {
		return w.comp, 1
	}
	if len(words) < 2 {
		return 0, 0
	}
	if w.verb && words[1].adverb == once {
		words = words[1:] // "paid once a year": as "once a year"
		if code, n := payPhrase(words); code != 0 {
			return code, n + 1
		}
		return once, 2
	}
	if w.verb && secondOf(words).count != 0 && len(words) > 2 && words[2].timesN {
		// "billed four times a year": as "billed twice a year"
		words = append([]payWord{w, {times: secondOf(words).count}}, words[3:]...)
		if code, n := payPhrase(words); code != 0 {
			return code, n + 1
		}
		return 0, 0
	}
	switch next := words[1]; {
	case w.verb && next.times != 0 && len(words) > 3 && words[2].join && words[3].period != 0:
		// "billed twice a year", "betalas två gånger per år"
		if code := periodDivided(words[3].period, int(next.times)); code != 0 {
			return code, 4
		}
	case w.verb && next.join && len(words) > 3 && words[2].count != 0 && words[3].period != 0:
		// "billed every two weeks", "betalas var tredje månad"
		if code := periodTimes(int(words[2].count), words[3].period); code != 0 {
			return code, 4
		}
	case w.adverb == once && next.join && len(words) > 2 && words[2].period != 0:
		return words[2].period, 3 // "once a year": per year
	case w.adj != 0 && next.noun:
		return w.adj, 2
	case w.adj != 0 && next.plain:
		// A word between the adjective and its noun ("a one-time setup
		// fee", "the monthly Premium price"), or two when the first is a
		// name ("the annual Family plan fee"); a noun that is a verb too
		// only before "is", "of", … ("the yearly Premium cost is 399 kr",
		// "a yearly service charge of 399 kr"; not "monthly backups cost
		// 29 kr").
		for n := 2; n <= 3 && n < len(words); n++ {
			if words[n].noun && (!words[n].verbal || n+1 < len(words) && (words[n+1].aux || words[n+1].of)) {
				return w.adj, n + 1
			}
			if !words[n].plain || !next.name {
				break
			}
		}
	case w.verb && next.adverb != 0:
		return next.adverb, 2
	case w.verb && next.join && len(words) > 2 && words[2].period != 0:
		return words[2].period, 3
	}
	return 0, 0
}

// payWordOf reads a word of the text (letters, perhaps joined by hyphens)
// for pricePeriod. A word is one thing at most, looked up in that order.
func payWordOf(w string) payWord {
	var p payWord
	var buf [66]byte
	if len(w) > 64 {
		return p // no word of a phrase is that long
	}
	b := lowerInto(buf[:0], w)
	switch string(b) {
	case "a", "an", "the", "en", "ett":
		p.article = true
	case "of", "på":
		p.of = true
	}
	switch payWords.value(b) {
	case "noun":
		p.noun = true
		return p
	case "verbal":
		p.noun, p.verbal = true, true
		return p
	case "gång":
		p.gång = true
		return p
	case "times":
		p.timesN = true
		return p
	case "verb":
		p.verb = true
		return p
	case "stop":
		p.stop = true
		return p
	case "than":
		p.than = true
		return p
	case "lead":
		p.lead = true
		return p
	case "aux":
		p.aux = true
		return p
	case "once":
		if string(b) == "once" {
			p.adverb = once // an adverb: "paid once"
		} else {
			p.adj = once // "a one-time fee"
		}
		return p
	}
	if n := periodSpaced.node(b); n != nil {
		p.join, p.adverb, p.adj = n.value == "" || n.value == "n", n.code, n.code
		return p
	}
	if v := timesWords.value(b); v != "" {
		p.times = uint8(digitsValue(v))
		return p
	}
	if v := periodCounts.value(b); v != "" {
		p.count = uint8(digitsValue(v)) // (and "second" a period too)
	}
	if p.period = periodWords.codeOf(b); p.period != 0 {
		return p
	}
	if p.period = timeUnitWords.codeOf(b); p.period != 0 {
		return p // a unit of time in the plural: "every two weeks"
	}
	if p.count != 0 {
		return p
	}
	// An adjective whose adverb adds "ly" ("annual") or "en" ("årlig",
	// also "årliga", "årligt").
	n := len(b)
	if n >= 5 && (b[n-1] == 'a' || b[n-1] == 't') && b[n-2] == 'g' {
		n-- // a Swedish ending
	}
	switch {
	case n >= 4 && b[n-2] == 'a' && b[n-1] == 'l':
		p.adj = periodSpaced.codeOf(append(b[:n], 'l', 'y'))
	case n >= 4 && b[n-3] == 'l' && b[n-2] == 'i' && b[n-1] == 'g':
		p.adj = periodSpaced.codeOf(append(b[:n], 'e', 'n'))
	}
	// A compound of a period word, 's' and a payment word ("årsavgift").
	for k := 2; k < 10 && k+4 < len(b) && p.adj == 0; k++ {
		if b[k] == 's' && payWords.value(b[k+1:]) == "noun" {
			if p.comp = periodWords.codeOf(b[:k]); p.comp != 0 {
				break
			}
		}
	}
	if p.plain = p.adj == 0 && p.comp == 0 && !p.article; p.plain {
		c, _ := utf8.DecodeRuneInString(w)
		p.name = toLower(c) != c
	}
	return p
}

// secondOf returns the second of words (none when there is none).
func secondOf(words []payWord) payWord {
	if len(words) < 2 {
		return payWord{}
	}
	return words[1]
}
