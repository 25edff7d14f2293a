package guardrail

import "unicode"

// A currency word may follow the words that say whose currency it is:
// "5 Canadian dollars", "5 Hong Kong dollars", "399 danska kronor". Read
// alone, the word would name the convention's currency (dollars are USD,
// kronor SEK), and the number before the qualifying words none at all: a
// number with no unit is grounded by one with any, so "399 Danish
// kroner" would pass for "399 kr". qualifiedCurrency reads such a name as
// one unit: the currency ISO 4217 names so (qualifiedSpec), or, for a name
// no row holds ("5 Jamaican dollars"), unknownCurrency, which agrees with
// no currency.

// qualifiedSpec holds the names of currencies (and of a few other units:
// "working days", "business days" are workdays) made of qualifying words
// and a currency (or unit) word: each row is a code and, after ':', a word of each
// unit of the currency words the qualifiers qualify (a currency word of
// the same unit is read alike: "dollar", "dollars"), then the qualifiers:
// English as ISO 4217 names the currency, and the Swedish adjectives ('_'
// joins the words of one).
const qualifiedSpec = `
	USD:dollar = us u.s. usa american amerikanska
	CAD:dollar = canadian kanadensiska
	AUD:dollar = australian australiska
	NZD:dollar = new_zealand nyzeeländska
	HKD:dollar = hong_kong hongkong
	SGD:dollar = singapore singaporianska
	TWD:dollar = taiwan new_taiwan taiwanesiska
	SEK:kronor = swedish svenska
	DKK:kronor:kroner = danish danska
	NOK:kronor:kroner = norwegian norska
	ISK:kronor:kroner = iceland icelandic isländska
	GBP:pound = british brittiska
	EUR:euro = european europeiska
	CHF:franc = swiss schweiziska
	MXN:peso = mexican mexikanska
	ARS:peso = argentine argentinian argentinska
	CLP:peso = chilean chilenska
	COP:peso = colombian colombianska
	PHP:peso = philippine filippinska
	INR:rupee = indian indiska
	JPY:yen = japanese japanska
	CNY:yuan = chinese kinesiska
	RUB:ruble = russian ryska
	TRY:lira = turkish turkiska
	ZAR:rand = south_african sydafrikanska
	PLN:zloty = polish polska
	CZK:koruna = czech tjeckiska
	HUF:forint = hungarian ungerska
	workday:day = working business banking
	day:day = calendar`

// qualifiedNames holds each qualifier (lower case, words joined by a
// space) followed by a space and the name of the unit of the currency word
// it qualifies ("canadian USD"), as the key of the currency they name; and
// qualifierWords the words of the qualifiers.
var qualifiedNames, qualifierWords = func() (*wordSet, *wordSet) {
	byName, words := map[string]string{}, map[string]string{}
	for q, v := range table(qualifiedSpec) {
		code, unit, _ := cut(v, ':')
		b := []byte(q)
		for i, x := range b {
			if x == '_' {
				b[i] = ' '
			}
		}
		for more := true; more; {
			var word string
			word, unit, more = cut(unit, ':')
			byName[string(b)+" "+names[unitWords.code(word)]] = code
		}
		fields(string(b), func(f string) { words[f] = "" })
	}
	return newWordSet(byName), newWordSet(words)
}()

// maxQualifiers is the most words qualifiedCurrency reads before the
// currency word ("New Zealand", "South African").
const maxQualifiers = 2

// qualifiedCurrency reads, at i, one or two words that qualify a currency
// word (a name or code, not a symbol) after them and that word ("Canadian
// dollars", "danska kronor") and returns its unit and end:
// the currency of qualifiedSpec, or unknownCurrency. A qualifying word is a
// word of qualifiedSpec's, a word that begins with a capital, or a Swedish
// adjective of a country (in -sk or -ska). Before another unit's word only
// the names of qualifiedSpec are read ("working days"). ok is false when
// no such words and word are at i.
func (s *scanner) qualifiedCurrency(i int) (unit uint8, end int, ok bool) {
	p := i
	for range maxQualifiers {
		e := p
		for c := s.at(e); isLetter(c) || e > p && c == '.'; c = s.at(e) {
			e += runeLen(c)
		}
		if e == p || !s.qualifies(p, e) {
			return 0, 0, false
		}
		if s.ascii(e) != ' ' {
			return 0, 0, false
		}
		w, end, found := s.read(unitWords, e+1)
		if !found || w.code == 0 || w.code == unknownCurrency || !isLetter(s.at(e+1)) || isLetter(s.at(end)) {
			p = e + 1
			continue
		}
		if c := qualifiedNames.code(lowerString(s.t[i:e]) + " " + names[w.code]); c != 0 {
			return c, end, true
		}
		if w.code > lastCurrency { // another unit: only the names of qualifiedSpec
			return 0, 0, false
		}
		return unknownCurrency, end, true
	}
	return 0, 0, false
}

// qualifies reports whether the word [p,e) may say whose a currency is:
// it begins with a capital, is a Swedish adjective of a country (-sk,
// -ska), or is a word of qualifiedSpec's qualifiers.
func (s *scanner) qualifies(p, e int) bool {
	if unicode.IsUpper(s.at(p)) {
		return true
	}
	if w := s.t[p:e]; hasSuffix(w, "sk") || hasSuffix(w, "ska") {
		return true
	}
	_, end, ok := s.read(qualifierWords, p)
	return ok && end == e
}
