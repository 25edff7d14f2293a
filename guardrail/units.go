package guardrail

// The units and currencies the guard reads, as data: one row per unit,
// "dimension name = spellings", where name is the Unit's name (its String)
// and the spellings are what is printed with a number, lower case: before
// it (a currency: "$160", "SEK 399", "SEK499"), after it ("399 kr", "5TB",
// "12 €"), or after it and a hyphen ("a 14-day trial", "5-GB plan"). Two
// quantities that both state a unit must state the same one. A spelling
// that stands for units of different names (kroner: DKK or NOK; ¥: JPY or
// CNY) is a unit of its own, which agrees only with itself: ambiguity
// fails closed. The conventions of the README: kr is SEK (SPEC), $ is USD.

// currencySpec holds the currencies: their ISO 4217 code (the name), the
// code and the symbols, and the English and Swedish names that name one
// currency only, singular and plural. TestCurrenciesAreISO holds the codes
// to iso-codes' ISO 4217 table where it is installed. USD, EUR and GBP
// come first (usd, eur, gbp).
const currencySpec = `
	currency USD = $ usd dollar dollars dollarn buck bucks
	currency EUR = € eur euro euros euron
	currency GBP = £ gbp pound pounds pund quid
	currency SEK = kr sek kronor krona kronan spänn :-
	currency öre = öre
	currency NOK = nok
	currency DKK = dkk
	currency ISK = isk
	currency kroner = krone kroner
	currency CHF = chf
	currency JPY = jpy yen
	currency ¥ = ¥
	currency CNY = cny yuan renminbi rmb
	currency INR = ₹ inr
	currency KRW = ₩ krw
	currency RUB = ₽ rub ruble rubles rouble roubles rubel rubler
	currency TRY = ₺ try
	currency UAH = ₴ uah hryvnia hryvnias
	currency ILS = ₪ ils shekel shekels sheqel
	currency PHP = ₱ php
	currency THB = ฿ thb baht
	currency NGN = ₦ ngn naira
	currency VND = ₫ vnd
	currency PLN = zł pln zloty zlotys zloties złoty
	currency CZK = kč czk koruna korun
	currency HUF = huf forint forints
	currency RON = ron
	currency BGN = bgn
	currency ZAR = zar rand rands
	currency BRL = brl reais
	currency MXN = mxn
	currency ARS = ars
	currency CLP = clp
	currency COP = cop
	currency PEN = pen
	currency AUD = aud
	currency CAD = cad
	currency NZD = nzd
	currency HKD = hkd
	currency SGD = sgd
	currency TWD = twd
	currency MYR = myr ringgit
	currency IDR = idr rupiah
	currency AED = aed
	currency SAR = sar
	currency QAR = qar
	currency KWD = kwd
	currency EGP = egp
	currency KES = kes
	currency MAD = mad
	currency franc = franc francs
	currency peso = peso pesos
	currency rupee = rupee rupees
	currency dinar = dinar dinars
	currency dirham = dirham dirhams
	currency riyal = riyal riyals rial rials
	currency lira = lira lire liras
	currency cent = cent cents
	currency penny = penny pence pennies
	currency ¤ =`

// unitSpec holds the other units. A name with a '/' is a rate, which a
// unit followed by a period also reads as ("100 km/h", "100 km per hour":
// km/h; "5 MB/s"); a name with ² or ³ an area or volume, spelled with 2 or
// 3 (which ² and ³ fold to).
const unitSpec = `
	time ns = ns nanosecond nanoseconds nanosekund nanosekunder
	time µs = µs μs microsecond microseconds mikrosekund mikrosekunder
	time ms = ms millisecond milliseconds millisekund millisekunder
	time second = sec secs second seconds sekund sekunder sekunders
	time minute = min mins minute minutes minut minuter minuters
	time hour = h hr hrs hour hours tim timme timmar timmars
	time day = day days dag dagar dagars dygn dygns
	time workday = workday workdays weekday weekdays arbetsdag arbetsdagar arbetsdagars vardag vardagar vardagars bankdag bankdagar bankdagars
	time week = week weeks wk wks vecka veckor veckors
	time fortnight = fortnight fortnights
	time month = month months mo mos mån månad månader månaders
	time quarter = quarter quarters kvartal kvartals
	time half-year = halvår halvårs
	time year = year years yr yrs år års
	time decade = decade decades decennium decennier
	time century = century centuries sekel sekler århundrade århundraden
	time irregular =
	time once =
	length µm = µm μm micrometre micrometres micrometer micrometers mikrometer
	length mm = mm millimetre millimetres millimeter millimeters
	length cm = cm centimetre centimetres centimeter centimeters
	length dm = dm decimetre decimetres decimeter decimeters
	length m = m metre metres meter meters
	length km = km kilometre kilometres kilometer kilometers
	length mil = mil
	length in = inch inches tum
	length ft = ft foot feet fot
	length yd = yd yard yards
	length mi = mi mile miles
	length nmi = nmi sjömil
	area mm² = mm2
	area cm² = cm2 kvadratcentimeter
	area m² = m2 sqm kvm kvadratmeter
	area km² = km2 kvadratkilometer
	area ft² = ft2 sqft
	area ha = ha hectare hectares hektar
	area acre = acre acres
	volume ml = ml millilitre millilitres milliliter milliliters
	volume cl = cl centilitre centilitres centiliter centiliters
	volume dl = dl decilitre decilitres deciliter deciliters
	volume l = l litre litres liter liters
	volume cm³ = cm3
	volume m³ = m3 kubikmeter
	volume gal = gal gallon gallons
	mass mg = mg milligram milligrams milligramme milligrammes
	mass g = g gram grams gramme grammes
	mass hg = hg hekto hektogram
	mass kg = kg kilo kilos kilogram kilograms kilogramme kilogrammes
	mass t = tonne tonnes
	mass ton = ton tons
	mass lb = lb lbs
	mass oz = oz ounce ounces
	speed km/h = kmh kph
	speed m/s =
	speed mph = mph
	speed knot = knot knots knop
	data bit = bit bits
	data kbit = kbit kilobit kilobits
	data Mbit = mbit megabit megabits
	data Gbit = gbit gigabit gigabits
	data Tbit = tbit terabit terabits
	data B = byte bytes
	data KB = kb kilobyte kilobytes
	data MB = mb megabyte megabytes meg megs
	data GB = gb gigabyte gigabytes gig gigs
	data TB = tb terabyte terabytes
	data PB = pb petabyte petabytes
	data KiB = kib
	data MiB = mib
	data GiB = gib
	data TiB = tib
	data-rate bit/s = bps
	data-rate kbit/s = kbps
	data-rate Mbit/s = mbps
	data-rate Gbit/s = gbps
	data-rate KB/s =
	data-rate MB/s =
	data-rate GB/s =
	power W = w watt watts
	power kW = kw kilowatt kilowatts
	power MW = mw megawatt megawatts
	energy Wh = wh
	energy kWh = kwh kilowattimme kilowattimmar
	energy MWh = mwh
	frequency Hz = hz hertz
	frequency kHz = khz kilohertz
	frequency MHz = mhz megahertz
	frequency GHz = ghz gigahertz
	temperature °C = °c celsius
	temperature °F = °f fahrenheit
	count user = users user användare
	count household =
	count device =
	count account =`

// unitWords reads the spellings of every unit and currency after a number.
var unitWords = newWordSet(table(currencySpec + unitSpec)).withLetters()

// names are the names of the units and periods (Unit), by code: names[0]
// is none, then the currencies in the order of currencySpec (those written
// before a number: codes 1 to lastCurrency), then the other units, then
// the periods of several units (periodMultiples), then the periods per a
// count and a time (perCounts, perTimes). Every
// value of the unit and period words has a code (TestNames).
var names = func() []string {
	out := []string{""}
	for _, spec := range [...]string{currencySpec, unitSpec} {
		rows(spec, func(dim, name, _ string) { out = append(out, name) })
	}
	for _, m := range periodMultiples {
		out = append(out, m.name)
	}
	for _, c := range perCounts {
		for _, t := range perTimes {
			out = append(out, c+" per "+t)
		}
	}
	if len(out) >= int(boundUnit) {
		panic("guardrail: too many units for a byte")
	}
	return out
}()

// The currencies a code or symbol names before a number: codes 1 to
// lastCurrency.
const (
	usd uint8 = iota + 1
	eur
	gbp
)

// cent, penny and ore are the codes of the currencies' hundredths, which
// may follow the currency's name ("5 euro cents").
var cent, penny, ore = unitNamed("cent"), unitNamed("penny"), unitNamed("öre")

// inch is the code of inches, which the word "in" is only beside a
// conversion (see scanner.inches).
var inch = unitNamed("in")

// lastCurrency is the number of rows of currencySpec (TestNames); the
// last is unknownCurrency.
const lastCurrency = 60

// irregular is the period of several of a period's units whose length no
// unit has ("every 90 days", "every 2 hours"; see periods.go) and of the
// adverbs that read two ways ("biweekly": twice a week, or every two
// weeks): a period that agrees with no period, not even itself.
var irregular = unitNamed("irregular")

// unknownCurrency (¤) is the currency of a name no row holds: a currency
// word after words that qualify it ("5 Jamaican dollars"; see
// qualifiedCurrency). It agrees with no currency, not even itself.
const unknownCurrency uint8 = lastCurrency

// boundUnit is the unit of a snippet's bare value that counts something
// else ("25 engineers", "20%"'s 20): it grounds a bare value, and no value
// printed with a unit. No Unit has it.
const boundUnit uint8 = 0xFF

// rows calls fn with the dimension, name and spellings of each row of spec.
func rows(spec string, fn func(dim, name, words string)) {
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
		var f [2]string
		n := 0
		fields(line[:eq], func(w string) {
			if n < 2 {
				f[n] = w
			}
			n++
		})
		fn(f[0], f[1], line[eq+1:])
	}
}

// nameCode returns the code of v in names, or 0.
func nameCode(v string) uint8 {
	for c, w := range names {
		if w == v {
			return uint8(c)
		}
	}
	return 0
}

// perCount marks the periods that count something (perCounts: per user,
// household, device, account), by code.
var perCount = func() (m [256]bool) {
	for _, n := range perCounts {
		m[unitNamed(n)] = true
	}
	return m
}()

// Periods: what a price or a rate is per. "per month" = "a month" = "/mån".
// Besides time, what it counts per: a user (a seat, a person: "per
// capita"), a household, a device or an account; each agrees only with
// itself, so "99 kr per person" does not pass for "99 kr per household"
// (after a number these words are no unit: "3 devices" counts devices).
var periodWords = newWordSet(table(`
	month = month mo mon mån månad månaden
	year = year yr år året annum
	quarter = quarter qtr kvartal kvartalet
	half-year = halvår halvåret
	week = week wk vecka veckan
	fortnight = fortnight
	once = engång
	day = day dag dagen dygn
	hour = hour h hr timme timmen tim
	minute = min minute minut minuten
	second = s sec second sekund sekunden
	user = user användare seat person capita
	household = household hushåll
	device = device enhet
	account = account konto
	kWh = kwh kilowattimme
	MWh = mwh
	km = km kilometer
	mil = mil
	kg = kg kilo
	l = liter litre
	GB = gb`)).withLetters()

// periodSpaced are read after a space after a quantity: the adverbs that
// stand alone ("399 kr monthly", "4 % p.a."), valued by their period, and
// the joins that come between the quantity and its period ("per month", "a
// year", "i månaden", "om året"), valued "" ("n" those that may count:
// "every 3 months", see periods.go; "2" those that count two themselves:
// "varannan vecka"), and those that may lead other joins after a unit,
// valued "+" (up to three joins: "399 kr for the whole year", "för hela
// året", "the first year", "for a year"). All but "p.a."
// are letters, so a word read here ends where no word of either kind goes
// on: one read finds what a read of the adverbs and one of the joins would.
var periodSpaced = newWordSet(table(`
	month = monthly månadsvis månatligen
	year = yearly annually årligen årsvis p.a. p.a
	quarter = quarterly kvartalsvis
	half-year = semi-annually semiannually half-yearly halfyearly halvårsvis
	week = weekly veckovis
	fortnight = fortnightly
	irregular = biweekly bi-weekly bimonthly bi-monthly semimonthly semi-monthly biennially
	day = daily dagligen
	hour = hourly
	n = per each every pro varje var vart
	= a an i om
	+ = for the first whole calendar full för ett en hel hela helt första på
	2 = varannan vartannat`)).withPairs()

// rates maps a unit and a period to the rate they make (km and hour: km/h),
// from the names of the rates: the unit before the '/', the period after;
// rateBase marks the units that make one.
var rates, rateBase = func() (out [][3]uint8, base []bool) {
	base = make([]bool, 256)
	for c, name := range names {
		if u, p, ok := cut(name, '/'); ok {
			if w, ok := periodWords.words[p]; ok {
				out = append(out, [3]uint8{nameCode(u), nameCode(w), uint8(c)})
				base[nameCode(u)] = true
			}
		}
	}
	return out, base
}()

// rate returns the rate that unit per period makes, when there is one,
// else unit and period as they are.
func rate(unit, period uint8) (uint8, uint8) {
	if !rateBase[unit] { // most: a price per a period
		return unit, period
	}
	for _, r := range rates {
		if r[0] == unit && r[1] == period {
			return r[2], 0
		}
	}
	return unit, period
}

// Scale words after a number: "1.5 million", "2 mkr" (also a currency),
// valued by their exponent, or their exponent and unit (the code of a word
// set's value is that of its last field).
const scaleSpec = `
	3 = thousand tusen
	6 = million mn mln miljon miljoner
	9 = billion bn miljard miljarder mdr md
	12 = trillion
	3 SEK = tkr
	6 SEK = mkr msek
	9 SEK = mdkr`

var scaleWords = newWordSet(table(scaleSpec)).withPairs()

// Short scales written right after the digits: "$8.2m", "50k", "3bn".
var gluedScales = newWordSet(table(`
	3 = k
	6 = m mn
	9 = bn`))

// currencyAfter reports whether a space and a currency's name, code or
// symbol follow i ("15m euros", "2m SEK").
func (s *scanner) currencyAfter(i int) bool {
	if s.ascii(i) != ' ' {
		return false
	}
	w, _, ok := s.read(unitWords, i+1)
	return ok && w.code != 0 && w.code <= lastCurrency
}

// currencyCodes are the currencies' codes, read before a number ("SEK 399",
// "USD499"), and gluedCurrencies what is read glued before one: a code or
// "kr" ("kr499").
var currencyCodes, gluedCurrencies = func() (*wordSet, *wordSet) {
	codes := map[string]string{}
	rows(currencySpec, func(_, name, _ string) {
		if len(name) == 3 && name[0] >= 'A' && name[0] <= 'Z' {
			codes[lowerString(name)] = name
		}
	})
	glued := map[string]string{"kr": "SEK"}
	for w, v := range codes {
		glued[w] = v
	}
	return newWordSet(codes), newWordSet(glued)
}()

// symbolCurrency returns the currency a symbol of one rune written before
// a number stands for ('$', '€', '£', '¥', '₹', …), or 0.
func symbolCurrency(c rune) uint8 {
	if c == '$' || c >= 0xA2 && c < 0x2100 || c == '฿' {
		for _, s := range currencySymbols {
			if s.r == c {
				return s.code
			}
		}
	}
	return 0
}

// currencySymbols are the spellings of the currencies of one rune that is
// no letter (see symbolCurrency).
var currencySymbols = func() (out []struct {
	r    rune
	code uint8
}) {
	rows(currencySpec, func(_, name, words string) {
		fields(words, func(w string) {
			for i, r := range w {
				if i == 0 && len(w) == len(string(r)) && !isLetter(r) && r != ':' {
					out = append(out, struct {
						r    rune
						code uint8
					}{r, nameCode(name)})
				}
			}
		})
	})
	return out
}()

// dollarPrefixes are the letters written right before '$' that tell which
// dollar it is ("A$5" AUD, "US$5", "R$5" the Brazilian real).
var dollarPrefixes = newWordSet(table(`
	USD = us
	AUD = a au
	CAD = c ca
	NZD = nz
	HKD = hk
	SGD = s sg
	TWD = nt
	MXN = mx
	BRL = r`))

// dollar returns the currency of the '$' at i: that the letters right
// before it name, USD when none do (the README's convention).
func (s *scanner) dollar(i int) uint8 {
	j := i
	for j > 0 && i-j <= 2 && s.t[j-1] < 0x80 && asciiClass[s.t[j-1]]&classLetter != 0 {
		j--
	}
	if j < i && (j == 0 || !isAlnum(lastRune(s.t[:j]))) {
		if c := dollarPrefixes.code(s.t[j:i]); c != 0 {
			return c
		}
	}
	return usd
}
