package lambda

import (
	"strings"
	"unicode"
	"unicode/utf8"
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
	// The words of the lower-cased text, runs of letters, each lower-cased
	// on its own (a letter's lower case is a letter, another rune's is
	// not), an ASCII one in a buffer rather than a new string.
	sv, en := 0, 0
	var buf [16]byte
	count := func(w string) {
		if len(w) <= len(buf) && isASCII(w) {
			b := buf[:len(w)]
			for i := range len(w) {
				c := w[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b[i] = c
			}
			if swedishWords[string(b)] {
				sv++
			}
			if englishWords[string(b)] {
				en++
			}
			return
		}
		w = strings.ToLower(w)
		if swedishWords[w] {
			sv++
		}
		if englishWords[w] {
			en++
		}
	}
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			count(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		count(text[start:])
	}
	if sv > en {
		return Swedish
	}
	return English
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
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
