package lambda

import (
	"strings"
	"unicode"
)

// Lang is the language of an answer: English or Swedish.
type Lang string

// The languages.
const (
	English Lang = "en"
	Swedish Lang = "sv"
)

// Texts of SPEC §3.7, per language.
type texts struct {
	NoSources string // retrieval found no snippet
	MayHelp   string // begins an answer from snippets found with low confidence
	Blocked   string // a number is not grounded
	ErrorLine string // error line shown with a block
}

var textsByLang = map[Lang]texts{
	English: {
		NoSources: "I couldn't find any references to this in the knowledge base.",
		MayHelp:   "This may help: ",
		Blocked:   "I cannot verify that.",
		ErrorLine: "Verification failed: Number mismatch",
	},
	Swedish: {
		NoSources: "Jag hittar inget stöd i kunskapsbasen.",
		MayHelp:   "Det här kan hjälpa: ",
		Blocked:   "Jag kan inte verifiera det.",
		ErrorLine: "Verifieringen misslyckades: siffrorna stämmer inte",
	},
}

func (l Lang) texts() texts {
	if t, ok := textsByLang[l]; ok {
		return t
	}
	return textsByLang[English]
}

var swedishWords = setOf("och att det som är en ett jag vad hur kostar kostnad inte har kan vi ni du mig min mitt mina för med på av till om hej tack vilken vilket vilka när var varför mycket pris priset priser abonnemang skicka ring ringa skapa öppna ärende kunskapsbasen finns får ska vill gäller månad månaden år året dag dagar timmar kronor också eller men så här där hos er ert era")

var englishWords = setOf("the a an what how is are does do cost costs price prices much many and of to for with my me i you your can could please call send create open ticket there this that which when where why month year day days hours it be have has will would")

func setOf(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// DetectLang guesses the language of a message: Swedish when it holds å, ä
// or ö, or more common Swedish words than English ones; otherwise English.
func DetectLang(text string) Lang {
	if strings.ContainsAny(text, "åäöÅÄÖ") {
		return Swedish
	}
	sv, en := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r)
	}) {
		if swedishWords[w] {
			sv++
		}
		if englishWords[w] {
			en++
		}
	}
	if sv > en {
		return Swedish
	}
	return English
}

// parseLang returns the language of a message's lang field ("" when absent)
// and whether it is valid.
func parseLang(s string) (Lang, bool) {
	switch Lang(strings.ToLower(s)) {
	case "":
		return "", true
	case English:
		return English, true
	case Swedish:
		return Swedish, true
	}
	return "", false
}
