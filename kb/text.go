package kb

import (
	_ "embed"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/swedish"
)

// Languages a snippet or a query can be in. An empty string means unknown.
const (
	English = "en"
	Swedish = "sv"
)

// tokenize splits text into lower-case words: runs of letters and digits.
// Case folding keeps å, ä and ö (diacritics are never stripped: "får" and
// "far" are different words). A hyphenated word also yields its joined
// form ("e-post" → "e", "post", "epost"). Single letters are dropped.
func tokenize(text string, fn func(tok string)) {
	tokenizeOrig(text, func(tok, _ string) { fn(tok) })
}

// tokenizeOrig is tokenize that also passes each token as written (its case
// kept); for a joined hyphenated word, the text it spans.
func tokenizeOrig(text string, fn func(tok, orig string)) {
	tokenizeWhile(text, func(tok, orig string) bool {
		fn(tok, orig)
		return true
	})
}

// firstToken is the first token tokenize gives for text, or "".
func firstToken(text string) (first string) {
	tokenizeWhile(text, func(tok, _ string) bool {
		first = tok
		return false
	})
	return first
}

// tokenizeWhile is tokenizeOrig that stops once fn returns false.
func tokenizeWhile(text string, fn func(tok, orig string) bool) {
	var (
		start     = -1
		parts     int // words of the hyphenated run being read
		joinStart int
		stopped   bool
	)
	// A run of words joined by hyphens only (any other character ends
	// it), lower-cased without its hyphens, is the words' joined form:
	// built only for a run of more than one word.
	emitJoined := func(end int) {
		if parts > 1 && !stopped {
			orig := text[joinStart:end]
			stopped = !fn(strings.ToLower(strings.ReplaceAll(orig, "-", "")), orig)
		}
		parts = 0
	}
	last := 0 // end of the last word
	emit := func(end int) {
		orig := text[start:end]
		tok := strings.ToLower(orig)
		if parts == 0 {
			joinStart = start
		}
		start = -1
		last = end
		if utf8.RuneCountInString(tok) > 1 || isDigits(tok) {
			stopped = !fn(tok, orig)
		}
		parts++
	}
	for i, r := range text {
		if stopped {
			return
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(i)
		}
		if r != '-' || i+1 >= len(text) || parts == 0 {
			emitJoined(last)
		}
	}
	if start >= 0 && !stopped {
		emit(len(text))
	}
	emitJoined(last)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// extraStop are words that carry no meaning in a support question, on top
// of the Snowball stop word lists of both languages.
var extraStop = map[string]bool{
	// English
	"hi": true, "hello": true, "hey": true, "please": true, "pls": true, "plz": true,
	"thanks": true, "thank": true, "thx": true, "u": true, "ur": true, "im": true,
	"whats": true, "wat": true, "wot": true, "dont": true, "cant": true, "can't": true,
	"would": true, "could": true, "also": true, "much": true, "many": true,
	"want": true, "like": true, "tell": true, "know": true, "need": true,
	"get": true, "got": true, "let": true, "ok": true, "okay": true, "yes": true,
	"anything": true, "something": true, "anyone": true, "someone": true,
	"happen": true, "happens": true, "mate": true, "guys": true, "us": true,
	"may": true, "might": true, "must": true, "shall": true, "still": true,
	// informal spellings of function words
	"gonna": true, "wanna": true, "gotta": true, "kinda": true, "sorta": true,
	"dunno": true, "lemme": true, "gimme": true, "ya": true, "yall": true,
	// Swedish
	"hej": true, "hallå": true, "tack": true, "snälla": true, "ska": true, "vill": true,
	"får": true, "få": true, "fick": true, "finns": true, "gör": true, "göra": true, "också": true,
	"bara": true, "lite": true, "mer": true, "mest": true, "nån": true, "nåt": true,
	"dom": true, "måste": true, "behöver": true, "undrar": true, "typ": true,
	"alltså": true, "asså": true, "händer": true, "hända": true, "kunna": true,
	"jo": true, "ja": true, "nej": true, "okej": true, "mej": true, "dej": true,
	"sen": true, "samt": true, "annars": true, "går": true, "gå": true,
	// words that frame a question rather than say what it is about
	// ("how long", "hur stor", "where do I find")
	"long": true, "big": true, "large": true, "small": true, "find": true,
	"look": true, "see": true, "use": true, "work": true, "works": true,
	"make": true, "people": true, "thing": true, "things": true, "way": true,
	"lång": true, "långt": true, "länge": true, "många": true, "stor": true,
	"stort": true, "stora": true, "liten": true, "litet": true, "hitta": true,
	"hittar": true, "se": true, "ser": true, "kolla": true, "titta": true, "tittar": true, "använda": true,
	"fungerar": true, "funkar": true, "folk": true, "personer": true,
	"sak": true, "saker": true, "sätt": true, "vara": true,
}

// stopWord reports a word that is not indexed or searched.
func stopWord(w string) bool {
	return english.IsStopWord(w) || swedish.IsStopWord(w) || extraStop[w]
}

// stems returns the stems of a word for a language: one stem for English or
// Swedish, both (deduplicated) when the language is unknown, and for an
// irregular English form also its base form's (see addLemma). Words with
// digits are not stemmed.
func stems(w, lang string, buf []string) []string {
	buf = buf[:0]
	if hasDigit(w) {
		return append(buf, w)
	}
	switch lang {
	case English:
		return addLemma(append(buf, english.Stem(w, true)), w)
	case Swedish:
		sv := stemSwedish(w)
		return addVerb(append(buf, sv), sv)
	}
	en, sv := english.Stem(w, true), stemSwedish(w)
	buf = append(buf, en)
	if sv != en {
		buf = append(buf, sv)
	}
	buf = addLemma(buf, w)
	if !sortedHas(wordsEN, en) {
		// not an English word ("listening", "returning"): its -ning is
		// the Swedish noun ending
		buf = addVerb(buf, sv)
	}
	return buf
}

// addVerb adds to a Swedish noun's stems the stem of the verb it is made
// from when its stem ends in "-ning" or "-ering" ("synkning" is also
// "synka", "registrering" "registrera"), as an English "-ing" form stems as
// its verb. The noun's own stem stays. Stems under 8 letters are left
// alone: there the ending is often the verb's own "n" ("räkning" is made
// from "räkna", not "räka") or no ending at all ("tidning").
func addVerb(buf []string, sv string) []string {
	var verb string
	switch {
	case strings.HasSuffix(sv, "ering") && utf8.RuneCountInString(sv) >= 8:
		verb = strings.TrimSuffix(sv, "ing") + "a"
	case strings.HasSuffix(sv, "ning") && utf8.RuneCountInString(sv) >= 8:
		verb = strings.TrimSuffix(sv, "ning") + "a"
	default:
		return buf
	}
	if st := swedish.Stem(verb, true); !slices.Contains(buf, st) {
		buf = append(buf, st)
	}
	return buf
}

// detectLang guesses whether text is English or Swedish from its stop
// words and letters; it returns "" when it cannot tell.
func detectLang(text string) string {
	en, sv := 0, 0
	tokenize(text, func(w string) {
		isEn, isSv := english.IsStopWord(w), swedish.IsStopWord(w)
		switch {
		case isEn && !isSv:
			en++
		case isSv && !isEn:
			sv++
		}
		for _, r := range w {
			if r == 'å' || r == 'ä' || r == 'ö' {
				sv++
				break
			}
		}
	})
	switch {
	case sv > en:
		return Swedish
	case en > sv:
		return English
	}
	return ""
}

// pathLang returns the language a path declares: a directory named "en"
// or "sv", or a file name ending in ".en.md" / ".sv.md".
func pathLang(path string) string {
	base := path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		base = path[i+1:]
	}
	lower := strings.ToLower(base)
	for _, l := range []string{English, Swedish} {
		if strings.HasSuffix(lower, "."+l+".md") {
			return l
		}
	}
	dirs := strings.Split(strings.ToLower(path), "/")
	for i := len(dirs) - 2; i >= 0; i-- {
		switch dirs[i] {
		case English, Swedish:
			return dirs[i]
		}
	}
	return ""
}

// swedishStems corrects the Snowball Swedish stemmer where it joins words
// a support question must keep apart ("månad" → "mån", the stem of "månen",
// the moon; "data" and "dator" → "dat") or splits one word ("månad" and
// "månaden" → "mån" and "månad").
var swedishStems = map[string]string{
	"månad": "månad", "månads": "månad",
	"data": "data", "datan": "data",
	"dator": "dator", "datorn": "dator", "datorer": "dator", "datorerna": "dator",
	"tidigare": "tidigare",
	"lager":    "lager", "lagret": "lager",
}

func stemSwedish(w string) string {
	if s, ok := swedishStems[w]; ok {
		return s
	}
	// The Snowball stemmer keeps the definite "-et" of neuter nouns
	// ("abonnemanget", "lösenordet", "tillägget"); a long word loses it.
	if strings.HasSuffix(w, "et") && !strings.HasSuffix(w, "het") && utf8.RuneCountInString(w) >= 8 {
		w = strings.TrimSuffix(w, "et")
	}
	return swedish.Stem(w, true)
}

//go:embed lexicon/lemmas-en.txt
var lemmasEN string

// addLemma adds to an English word's stems the stem of its base form when
// it is an irregular form by WordNet's exception lists
// (kb/lexicon/lemmas-en.txt, looked up in the embedded text): "sent" is
// also "send", "earliest" "early", "children" "child". The form's own stem
// stays ("left" is a direction too).
func addLemma(buf []string, w string) []string {
	st, ok := sortedGet(lemmasEN, w)
	if !ok || slices.Contains(buf, st) {
		return buf
	}
	return append(buf, st)
}
