package kb

import (
	"slices"
	"sync"
)

// The thesaurus: words customers use for the same thing in a support
// question, in English and Swedish. A query word in a group also matches
// the other words of its group (at weight wSynonym), so "regret my
// purchase" finds "right of withdrawal" and "testa gratis" finds
// "provperiod". Only query words are expanded; the index holds the
// knowledge base's own words. Groups are general support vocabulary, not
// tied to the default knowledge base.
var synonymGroups = [][]string{
	// money
	{"price", "prices", "cost", "costs", "fee", "fees", "charge", "charged", "pricing", "expensive", "cheap", "penalty", "penalties", "rate"},
	{"pris", "priser", "priset", "kostar", "kostnad", "kostnader", "avgift", "avgifter", "avgiften", "dyr", "dyrt", "billig", "billigt", "straff", "straffavgift"},
	{"cheaper", "discount", "discounts", "save", "saving", "savings", "deal", "offer", "offers", "reduced", "reduction", "campaign", "promo", "budget", "off"},
	{"billigare", "rabatt", "rabatter", "spara", "sparar", "erbjudande", "erbjudanden", "kampanj", "rea", "lägre"},
	{"refund", "refunds", "refunded", "reimburse", "reimbursement", "repay", "repaid"},
	{"återbetalning", "återbetala", "återbetalas", "pengarna", "pengar", "tillbakabetalning"},
	{"raise", "raised", "increase", "increases", "higher", "expensive", "changes"},
	{"höjs", "höja", "höjning", "höjer", "dyrare", "prisändring", "prisändringar", "prishöjning"},
	// the plan that costs least
	{"basic", "cheapest", "lowest", "smallest", "entry", "starter"},
	{"basic", "billigaste", "billigast", "lägsta", "bas", "grund"},
	// what is added to a plan
	{"tillval", "tillägg", "tillägget", "tilläggen", "tilläggstjänst"},
	{"extra", "add-on", "addon", "additional"},
	{"moms", "momsen", "mervärdesskatt"},
	{"vat", "tax", "taxes"},
	{"user", "users", "seat", "seats", "licence", "licences", "license", "licenses"},
	{"användare", "användarna", "licens", "licenser", "platser"},
	// when something applies
	{"effect", "applies", "apply", "valid"},
	{"gäller", "gälla", "träder", "giltig"},
	// subscription life cycle
	{"cancel", "cancelled", "canceled", "cancelling", "cancellation", "terminate", "quit", "unsubscribe", "stop", "ends", "ended"},
	{"säga", "säger", "uppsägning", "avsluta", "avslutar", "avbryta", "sluta", "uppsagt"},
	{"regret", "withdraw", "withdrawal", "undo"},
	{"ångra", "ångrar", "ångrat", "ångerrätt", "ångerrätten"},
	{"buy", "bought", "purchase", "purchased", "order", "ordered", "subscribe", "subscribed"},
	{"köp", "köpa", "köpt", "köpte", "beställa", "beställning", "beställt", "teckna", "tecknade", "tecknat", "skaffa", "skaffar"},
	{"subscription", "subscriptions", "plan", "plans", "membership", "tier", "package"},
	{"abonnemang", "abonnemanget", "prenumeration", "prenumerationen", "medlemskap", "paket"},
	{"trial", "try", "test", "testing", "demo"},
	{"provperiod", "provperioden", "testa", "prova", "provas", "testperiod"},
	{"upgrade", "downgrade", "switch", "change"},
	{"uppgradera", "nedgradera", "byta", "byter", "ändra"},
	{"difference", "differences", "different", "compare", "comparison", "versus", "vs"},
	{"skillnad", "skillnaden", "skillnader", "jämföra", "jämförelse", "olika"},
	// files and storage
	{"delete", "deleted", "remove", "removed", "erase", "erased", "trash", "bin"},
	{"radera", "raderade", "raderat", "papperskorg", "papperskorgen", "slänga", "slängt"},
	{"recover", "restore", "restored", "undelete", "back"},
	{"återställa", "återställ", "återskapa", "tillbaka"},
	{"speed", "slow", "slower", "fast", "faster", "bandwidth"},
	{"hastighet", "hastigheten", "långsam", "långsamt", "seg", "segt", "bandbredd"},
	{"hardware", "box", "equipment"},
	{"hårdvara", "hårdvaran", "box", "boxen", "utrustning"},
	{"full", "exceed", "exceeded", "over"},
	{"full", "fullt", "slut", "överskrida"},
	{"share", "sharing", "shared", "link", "links"},
	{"dela", "delar", "delning", "delningslänk", "delningslänkar", "länk", "länkar"},
	{"failed", "fail", "fails", "declined", "bounced", "rejected"},
	{"misslyckad", "misslyckades", "misslyckas", "nekad", "nekades", "avvisad"},
	{"member", "members", "persons"},
	{"medlem", "medlemmar", "medlemmarna"},
	{"document", "documents", "doc", "docs", "photo", "photos", "picture", "pictures", "file", "files", "folder", "folders"},
	{"dokument", "foto", "foton", "bild", "bilder", "fil", "filer", "mapp", "mappen", "mappar"},
	{"max", "maximum", "limit", "limits", "largest", "biggest", "most", "size"},
	{"högst", "max", "maximal", "maximalt", "största", "gräns", "gränser", "storlek"},
	{"storage", "space", "room", "capacity", "gb", "tb", "gigabyte", "terabyte"},
	{"lagring", "lagringsutrymme", "utrymme", "plats", "kapacitet", "gb", "tb"},
	{"old", "older", "earlier", "previous", "version", "versions"},
	{"gamla", "gammal", "äldre", "tidigare", "version", "versioner"},
	{"once", "simultaneously", "batch", "same"},
	{"samtidigt", "gången", "gång"},
	// contact
	{"phone", "call", "telephone", "ring"},
	{"telefon", "telefonnummer", "ringa", "nummer", "numret"},
	{"email", "mail", "e-mail", "emails"},
	{"e-post", "epost", "mejl", "mail", "mejla"},
	{"reply", "replies", "answer", "answered", "respond", "response"},
	{"svar", "svara", "svarar", "besvaras", "besvarad"},
	{"open", "opening", "hours", "closed"},
	{"öppet", "öppettider", "öppna", "stängt", "stänger"},
	{"weekday", "weekdays", "week", "weeks", "monday", "friday"},
	{"vardag", "vardagar", "veckorna", "veckodagar", "vecka", "veckor", "måndag", "fredag"},
	{"weekend", "weekends", "saturday", "saturdays", "sunday", "sundays"},
	{"helg", "helgen", "helger", "lördag", "lördagar", "söndag", "söndagar"},
	{"christmas", "holiday", "holidays", "xmas"},
	{"jul", "julafton", "helgdag", "helgdagar", "röda"},
	// service level
	{"down", "outage", "outages", "downtime", "offline", "broken", "unavailable", "uptime", "availability"},
	{"nere", "driftstopp", "störning", "störningar", "avbrott", "tillgänglighet", "tillgänglig"},
	{"compensation", "compensate", "compensated", "credit", "credits"},
	{"ersättning", "kompensation", "kompensera", "kredit", "krediter", "servicekrediter"},
	// shipping
	{"ship", "shipping", "shipped", "delivery", "deliver", "delivered", "postage", "freight", "parcel", "package"},
	{"frakt", "frakten", "leverans", "leveransen", "leverera", "porto", "paket", "paketet", "skicka", "skickar"},
	{"return", "returns", "returned", "back"},
	{"retur", "returer", "returnera", "returnerar", "tillbaka"},
	// privacy and security
	{"encrypted", "encryption", "encrypt", "secure", "security", "safe"},
	{"krypterad", "krypterade", "kryptering", "krypterat", "säker", "säkert", "säkerhet"},
	{"data", "information", "info", "personal"},
	{"uppgifter", "personuppgifter", "data", "information"},
	{"gdpr", "privacy", "rights"},
	{"gdpr", "integritet", "dataskydd", "rättigheter"},
	// payment
	{"pay", "payment", "payments", "paying", "paid"},
	{"betala", "betalar", "betalning", "betalningen", "betalt", "betalsätt"},
	{"dras", "dra", "drar", "drogs", "dragits", "debiteras", "debitera", "debiterad"},
	{"accept", "accepted", "methods", "method", "options", "ways"},
	{"betalsätt", "betalningsmetod", "betalningsmetoder", "alternativ"},
	{"invoice", "invoices", "bill", "bills", "billing", "receipt", "receipts"},
	{"faktura", "fakturan", "fakturor", "räkning", "räkningen", "kvitto", "kvitton"},
	{"late", "overdue", "reminder", "forgot", "forgotten", "forget", "unpaid", "missed", "miss"},
	{"sen", "försenad", "påminnelse", "påminnelseavgift", "glömt", "glömde", "glömmer", "glömma", "obetald", "obetalda", "dröjsmålsränta"},
	{"card", "visa", "mastercard", "amex"},
	{"kort", "kortet", "kreditkort", "bankkort", "visa", "mastercard"},
	{"yearly", "annual", "annually", "year", "years"},
	{"år", "året", "årsvis", "årlig", "årligen", "årsbetalning", "helår"},
	{"monthly", "month", "months"},
	{"månad", "månaden", "månader", "månadsvis", "månatlig"},
	// account
	{"password", "passwords", "login", "log", "signin", "sign"},
	{"lösenord", "lösenordet", "inloggning", "logga", "logga"},
	{"locked", "lock", "blocked", "wrong", "attempts", "incorrect"},
	{"låst", "låses", "spärrad", "spärrat", "fel", "felaktiga", "försök"},
	{"2fa", "mfa", "two-factor", "twofactor", "bankid", "authenticator", "verification"},
	{"2fa", "tvåfaktorsautentisering", "tvåstegsverifiering", "bankid", "verifiering"},
	{"activate", "enable", "turn", "set"},
	{"aktivera", "aktiverar", "slå", "sätta"},
	{"device", "devices", "computer", "computers", "phones", "tablet", "laptop", "laptops", "connect", "connected"},
	{"enhet", "enheter", "dator", "datorer", "telefoner", "surfplatta", "laptop", "ansluta", "koppla"},
	{"student", "students", "university", "studying"},
	{"student", "studenter", "studentrabatt", "studerar", "studentkort", "universitet", "universitetet", "högskola", "högskolan", "pluggar", "plugga"},
	{"senior", "seniors", "pensioner", "pensioners", "retired", "retiree", "elderly", "aged"},
	{"senior", "seniorer", "pensionär", "pensionärer", "pensionärsrabatt", "seniorrabatt", "pensionerad"},
	{"family", "household", "kids", "children"},
	{"familj", "familjen", "hushåll", "barn", "barnen"},
	{"business", "company", "team", "enterprise", "corporate", "employees"},
	{"företag", "företaget", "firma", "bolag", "team", "anställda"},
}

// phraseWords are phrases of a question that mean one word; the word is
// searched for as a query word of its own, and the words of the phrase are
// then only searched for when the knowledge base knows them ("sagt upp" →
// "uppsägning"; "sagt" alone means nothing).
var phraseWords = map[string]string{
	"säga upp":       "uppsägning",
	"säger upp":      "uppsägning",
	"sägger upp":     "uppsägning",
	"sagt upp":       "uppsägning",
	"sa upp":         "uppsägning",
	"ta bort":        "radera",
	"tar bort":       "radera",
	"tagit bort":     "radera",
	"money back":     "refund",
	"log in":         "login",
	"logga in":       "inloggning",
	"change my mind": "regret",
	"ångrat mig":     "ångra",
	"hook up":        "connect",
	"go over":        "exceed",
	"run out":        "full",
	"runs out":       "full",
	"tar slut":       "full",
	"vara med":       "medlemmar",
	"drogs inte":     "misslyckad",
	"gick inte":      "misslyckad",
	"didnt go":       "failed",
	"kick in":        "effect",
	"go up":          "increase",
	"goes up":        "increase",
	"going up":       "increase",
	"move down":      "downgrade",
	"träda i kraft":  "gälla",
	// whether the product works on a system: the system named after the
	// phrase is what the question is about (see platformSlots)
	"use it on":         "system",
	"run it on":         "system",
	"runs on":           "system",
	"run on":            "system",
	"work on":           "system",
	"works on":          "system",
	"funkar på":         "system",
	"fungerar på":       "system",
	"funkar den på":     "system",
	"funkar det på":     "system",
	"funkar appen på":   "system",
	"fungerar det på":   "system",
	"fungerar den på":   "system",
	"fungerar appen på": "system",
	"köra på":           "system",
	"kör på":            "system",
	"write back":        "reply",
	"writes back":       "reply",
	"get back to":       "reply",
	"hear back":         "reply",
	"höra av sig":       "svar",
	"hör av sig":        "svar",
	"hör av er":         "svar",
	"hör ni av":         "svar",
}

// slotFillers are the words between a phrase asking whether the product
// works on a system and the system's name ("on my Chromebook", "på en Mac").
var slotFillers = wordSet("my a an the our min mitt mina en ett vår")

// platformSlots returns the words that name the system in a question
// whether the product works on one ("Can I use it on my Chromebook?",
// "Funkar appen på Linux?"): the first word after a phrase of phraseWords
// that stands for "system", past a possessive or an article. Such a word
// is what the supported systems answer, not a sign that the question is
// about something else: it weighs nothing in the off-topic rule.
func platformSlots(tokens []string, slots map[string]bool) map[string]bool {
	var arr [64]byte
	key := arr[:0]
	for n := 3; n >= 2; n-- {
		for i := 0; i+n < len(tokens); i++ {
			if key = joinKey(key, tokens[i:i+n]); phraseWords[string(key)] != "system" {
				continue
			}
			j := i + n
			for j < len(tokens)-1 && slotFillers[tokens[j]] {
				j++
			}
			if slots == nil {
				slots = map[string]bool{}
			}
			// the name, and the word after it ("old Blackberry", "Chrome OS")
			for _, t := range tokens[j:min(j+2, len(tokens))] {
				slots[t] = true
			}
		}
	}
	return slots
}

// phraseHints are phrases of a question that point to a word of the
// knowledge base. They only add to a snippet's score; they do not count in
// the relevance floor ("how much does a pizza cost" is still about pizza).
var phraseHints = map[string]string{
	"how much":           "price",
	"how much storage":   "tb",
	"how much space":     "tb",
	"how much room":      "tb",
	"hur mycket lagring": "tb",
	"hur mycket utrymme": "tb",
	"hur mycket plats":   "tb",
	"hur mycket":         "kostar",
	"vad kostar":         "pris",
	"sign up":            "subscribe",
	"send back":          "return",
	"skicka tillbaka":    "returnera",
	"at once":            "samtidigt",
	"åt gången":          "samtidigt",
	"get back":           "restore",
	"få tillbaka":        "återställa",
	"how long":           "days",
	"hur länge":          "dagar",
}

// synonyms maps a lower-case word to the other words of its groups.
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		for _, w := range g {
			for _, o := range g {
				if o != w && !contains(m[w], o) {
					m[w] = append(m[w], o)
				}
			}
		}
	}
	return m
}()

// thesaurusStems are the stems (both languages) of the words of the
// thesaurus and its phrases, stemmed once.
var thesaurusStems = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	add := func(w string) { m[w] = stems(w, "", nil) }
	for w := range synonyms {
		add(w)
	}
	for _, w := range phraseWords {
		add(w)
	}
	for _, w := range phraseHints {
		add(w)
	}
	return m
})

// stemsOf is stems(w, "", buf), from thesaurusStems when it has w.
func stemsOf(w string, buf []string) []string {
	if ss, ok := thesaurusStems()[w]; ok {
		return ss
	}
	return stems(w, "", buf)
}

// thesaurusWords are the words of the thesaurus, for nearSynonym.
var thesaurusWords = sync.OnceValue(func() fuzzyList {
	words := make([]string, 0, len(synonyms))
	for w := range synonyms {
		words = append(words, w)
	}
	return newFuzzyList(words)
})

// nearSynonym returns the first word of the thesaurus (in lexical order)
// within the edit budget of a word of at least 5 letters, or "".
func nearSynonym(word string) string {
	r := []rune(word)
	if len(r) < 5 {
		return ""
	}
	return firstNear(r, thesaurusWords(), editBudget(len(r)))
}

// joinKey is strings.Join(tokens, " ") written into buf (reused), so that
// a phrase table is looked up as table[string(key)] without allocating.
func joinKey(buf []byte, tokens []string) []byte {
	buf = buf[:0]
	for i, t := range tokens {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, t...)
	}
	return buf
}

func contains(s []string, w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}

// phrases returns the phrases of table found in a tokenized query: the word
// each stands for, and the tokens it covers.
func phrases(tokens []string, table map[string]string) (words []string, covered map[string]bool) {
	var usedArr [32]bool
	used := usedArr[:0] // the longest phrase wins
	if len(tokens) <= len(usedArr) {
		used = usedArr[:len(tokens)]
	} else {
		used = make([]bool, len(tokens))
	}
	var arr [64]byte
	key := arr[:0]
	for n := 3; n >= 2; n-- {
		for i := 0; i+n <= len(tokens); i++ {
			if slices.Contains(used[i:i+n], true) {
				continue
			}
			key = joinKey(key, tokens[i:i+n])
			if w, ok := table[string(key)]; ok {
				for j := i; j < i+n; j++ {
					used[j] = true
				}
				if !contains(words, w) {
					words = append(words, w)
				}
				if covered == nil {
					covered = map[string]bool{}
				}
				for _, t := range tokens[i : i+n] {
					covered[t] = true
				}
			}
		}
	}
	return words, covered
}
