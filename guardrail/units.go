package guardrail

// Units and currencies, normalised to one name per quantity: kr = SEK =
// kronor = :-; € = EUR = euro; GB; day; … Two quantities that both state a
// unit must state the same one.
var unitWords = newWordSet(table(`
	SEK = kr sek kronor krona :-
	öre = öre
	EUR = € eur euro euros
	USD = $ usd dollar dollars
	GBP = £ gbp pound pounds
	KB = kb
	MB = mb
	GB = gb
	TB = tb
	PB = pb
	kbit = kbit
	Mbit = mbit
	Gbit = gbit
	Mbit/s = mbps
	Gbit/s = gbps
	ms = ms millisecond milliseconds millisekunder
	second = sec second seconds sekund sekunder
	minute = min mins minute minutes minut minuter
	hour = h hr hrs hour hours tim timme timmar
	day = day days dag dagar dygn
	week = week weeks vecka veckor
	month = month months månad månader
	year = year years år
	kg = kg
	g = g
	km = km
	cm = cm
	mm = mm
	lb = lb lbs
	user = users user användare`)).withLetters()

// Periods: what a price or a rate is per. "per month" = "a month" = "/mån".
var periodWords = newWordSet(table(`
	month = month mo mon mån månad månaden
	year = year yr år året
	week = week wk vecka veckan
	day = day dag dagen dygn
	hour = hour h hr timme timmen tim
	user = user användare seat`)).withLetters()

// periodSpaced are read after a space after a quantity: the adverbs that
// stand alone ("399 kr monthly"), valued by their period, and the joins
// that come between the quantity and its period ("per month", "a year",
// "i månaden", "om året"), valued "". All are letters, so a word read
// here ends where no word of either kind goes on: one read finds what a
// read of the adverbs and one of the joins would.
var periodSpaced = newWordSet(table(`
	month = monthly månadsvis
	year = yearly annually årligen
	week = weekly
	day = daily
	= per a an each every i om pro`)).withPairs()

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

var currencyCodes = newWordSet(table(`
	SEK = sek
	USD = usd
	EUR = eur
	GBP = gbp`))
