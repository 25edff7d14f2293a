package kb

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// How a whole customer message is read (see the package documentation):
//
//   - It is cut into sentences (at ".", "!", "?", ";", ":" before a space,
//     at a line break and at a dash between spaces), and a sentence into its
//     questions where "and"/"och" is followed by a question word ("How much
//     is Family and how much storage do we get?"). Each piece is a part,
//     searched on its own; its hits are merged with the other parts' hits.
//   - A part is cut into clauses at commas; a clause with no word the
//     knowledge base knows ("Hi", "I'm Anna from Västerås", "hope you're
//     well") is small talk and left out of the part.
//   - Words of conversation (greetings, politeness, people of the family,
//     verbs of thinking and hoping, number words) are not searched and do
//     not count in the off-topic rule.
//   - A part that is a question (it ends in "?" or starts with a question
//     word) is preferred: statements ("My grandson says I need more room")
//     are searched only when no question of the message finds anything.

// msgPart is one part of a message: its clauses, and whether it asks.
type msgPart struct {
	clauses  []string
	question bool
}

// questionWords start a question, in English and Swedish.
var questionWords = wordSet(`
how what what's whats when where which who why is are do does did can could will would should
hur vad vart när var vilken vilket vilka vem varför kan får finns är har ska tar kostar ingår blir går
`)

// conversationWords are words of a customer message that say nothing about
// what is asked: greetings and politeness, feelings, people of the family,
// verbs of thinking, hoping and wondering, fillers and number words. They
// are not searched, and a word the knowledge base does not know but that is
// one of these (or one edit from one, or from a stop word) is no sign that
// the question is about something else.
var conversationWords = wordSet(`
morning evening afternoon night day today tonight tomorrow yesterday ago lately recently soon next coming upcoming
hope hoping hoped well fine great good nice lovely awesome cool happy glad sad sorry bother bothering apologies
quick quickly question questions query wondering wondered wonder think thinking thought guess believe feel
love loving loved enjoy really actually basically probably maybe perhaps definitely though anyway just far lot lots
bit already ever never always sure whether whenever possible able kind sort one ones someone everyone
instead rather since because mistake mistakenly accident accidentally without another provider providers again doesnt isnt wont didnt havent arent cannot write called named live living
haha hehe lol omg btw cheers regards best kindly dear sir madam team folks guys there
wife husband son daughter kids kid child grandson granddaughter grandma grandpa grandmother grandfather
mum mom dad mother father parents parent brother sister partner boyfriend girlfriend twins baby friend's
go goes going gone went say says said told tell understand understood mean means set setup wanted trying help helping wants
thing stuff bunch couple few little bit yeah yep nope hmm ah oh wow
two three four five six seven eight nine ten eleven twelve
god goddag godmorgon morgon förmiddag eftermiddag kväll godkväll natt idag imorgon igår nyss snart nästa kommande
hoppas hoppades mår bra fint trevlig trevligt glad ledsen ursäkta förlåt störa stör snabb snabbt fråga frågor
undrar undrade funderar funderade fundera tänker tänkte tror trodde känns gillar älskar verkligen faktiskt
kanske nog väl ju visst liksom typ precis redan aldrig alltid säker huruvida möjligt hälsningar hälsning mvh
vänliga vänlig fru make man sambo dotter döttrar son söner barnbarn mormor morfar farmor farfar mamma pappa
föräldrar syster bror tvillingar bebis kompis kompisar säga sa sagt förstår förstod menar betyder hjälp hjälpa
istället ändå dock därför eftersom fortfarande råkade råka misstag oavsiktligt igen heter bor skriva skriver leverantör leverantörer förhand
två tre fyra fem sex sju åtta nio tio elva tolv
`)

// nameTriggers are the words after which a customer writes a name when
// introducing themselves, greeting, signing or saying where they live or
// come from ("I'm Anna", "from Västerås", "jag heter Lars och bor i Luleå",
// "my daughter Emma"). A name there is not what the question is about.
var nameTriggers = wordSet(`
i'm im name's from hi hello hey dear regards thanks cheers heter från hej hallå tjena hälsningar mvh tack
i_am name_is this_is call_me live_in living_in based_in moved_to jag_är bor_i bor_på namn_är flyttat_till
my_son my_daughter my_wife my_husband my_partner my_mum my_mom my_dad my_friend my_grandson my_granddaughter
min_son min_dotter min_fru min_man min_sambo min_mamma min_pappa min_kompis
`)

// contextNames returns the lower-case words of the names written after a
// name trigger: a capitalised word, and the capitalised word after it.
func contextNames(msg string) map[string]bool {
	if !strings.ContainsFunc(msg, unicode.IsUpper) {
		return nil
	}
	var names map[string]bool
	var prev [2]string // the two words before, lower case
	taken := 0         // words of the current name (at most two)
	start, end := -1, 0
	word := func(w string) {
		r, _ := utf8.DecodeRuneInString(w)
		trigger := nameTriggers[prev[1]] || nameTriggers[prev[0]+"_"+prev[1]]
		if strings.TrimSpace(msg[end:start]) != "" {
			taken = 0 // a name's two words stand side by side
		}
		if unicode.IsUpper(r) && (trigger || taken == 1) {
			if names == nil {
				names = map[string]bool{}
			}
			tokenize(w, func(tok string) { names[tok] = true })
			taken++
		} else {
			taken = 0
		}
		prev[0], prev[1] = prev[1], strings.ToLower(strings.ReplaceAll(w, "’", "'"))
	}
	for i, r := range msg {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || (r == '\'' || r == '’') && start >= 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(msg[start:i])
			start, end = -1, i
		}
	}
	if start >= 0 {
		word(msg[start:])
	}
	return names
}

// splitMessage cuts a message into its parts.
func splitMessage(msg string) []msgPart {
	var parts []msgPart
	flush := func(s string, q bool) {
		if strings.TrimSpace(s) == "" {
			return
		}
		for _, piece := range splitQuestions(s) {
			parts = append(parts, msgPart{clauses: strings.Split(piece, ","), question: q || questionWords[firstToken(piece)]})
		}
	}
	start := 0
	for i, r := range msg {
		end := -1
		switch r {
		case '?', '!', '.', ';', ':':
			next, _ := utf8.DecodeRuneInString(msg[i+1:])
			if i+1 == len(msg) || unicode.IsSpace(next) {
				end = i + 1
			}
		case '\n':
			end = i + 1
		case '-', '–', '—':
			prev, _ := utf8.DecodeLastRuneInString(msg[:i])
			next, _ := utf8.DecodeRuneInString(msg[i+utf8.RuneLen(r):])
			if i > 0 && unicode.IsSpace(prev) && unicode.IsSpace(next) {
				end = i + utf8.RuneLen(r)
			}
		}
		if end < 0 && isEmoji(r) {
			// an emoji ends a sentence in a chat ("for his game clips 😅
			// can he have an account?") when a space follows it (after
			// any modifiers or joined emoji)
			j := i + utf8.RuneLen(r)
			for j < len(msg) {
				n, size := utf8.DecodeRuneInString(msg[j:])
				if !unicode.Is(unicode.So, n) && !unicode.Is(unicode.Mn, n) && !unicode.Is(unicode.Sk, n) && n != '\u200d' && !unicode.Is(unicode.Variation_Selector, n) {
					break
				}
				j += size
			}
			next, _ := utf8.DecodeRuneInString(msg[j:])
			if j < len(msg) && unicode.IsSpace(next) {
				end = j
			}
		}
		if end >= 0 && end > start {
			flush(msg[start:end], r == '?')
			start = end
		}
	}
	flush(msg[start:], false)
	return parts
}

// splitQuestions cuts a sentence where "and" or "och" (after a comma or
// not) is followed by a question word: two questions in one sentence.
func splitQuestions(s string) []string {
	var out []string
	words := strings.Fields(s)
	from := 0
	for i := 1; i+1 < len(words); i++ {
		if w := strings.Trim(words[i], ",;"); len(w) != 3 && len(w) != 4 {
			// lower-cased, no other word is "and", "och", "also" or
			// "plus": only ASCII letters lower-case to those letters
			continue
		}
		w := strings.ToLower(strings.Trim(words[i], ",;"))
		if (w == "and" || w == "och" || w == "also" || w == "plus") && questionWords[strings.ToLower(strings.Trim(words[i+1], ",;?!."))] && i > from+1 {
			out = append(out, strings.Join(words[from:i], " "))
			from = i + 1
		}
	}
	if from == 0 && singleSpaced(s) {
		return append(out, s) // what joining its words gives
	}
	return append(out, strings.Join(words[from:], " "))
}

// singleSpaced reports whether s's words are separated by one space each,
// with no space before the first or after the last.
func singleSpaced(s string) bool {
	prevSpace := true // at the start, a space would lead
	for _, r := range s {
		space := unicode.IsSpace(r)
		if space && (prevSpace || r != ' ') {
			return false
		}
		prevSpace = space
	}
	return !prevSpace || s == ""
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// nearFiller reports a word within one edit of a stop word or a word of
// conversation ("ther", "mutch", "wats"): a misspelling of nothing the
// knowledge base is about.
func nearFiller(w string) bool {
	r := []rune(w)
	// a word of the language is no misspelling ("snow" is not "now")
	return len(r) >= 4 && nearWord(r, fillers(), 1) && !inDictionary(w)
}

// fuzzyList is a list of words prepared for nearWord: in lexical order,
// and by length (a word is compared only with words of its length ±budget).
type fuzzyList struct {
	words []fuzzyWord
	byLen [][]int32 // indexes of words, by length in runes
}

func newFuzzyList(words []string) fuzzyList {
	slices.Sort(words)
	words = slices.Compact(words)
	l := fuzzyList{words: make([]fuzzyWord, len(words))}
	for i, w := range words {
		r := []rune(w)
		l.words[i] = fuzzyWord{word: w, runes: r, mask: letterMask(r)}
		for len(l.byLen) <= len(r) {
			l.byLen = append(l.byLen, nil)
		}
		l.byLen[len(r)] = append(l.byLen[len(r)], int32(i))
	}
	return l
}

// nearWord reports whether r is within budget edits of a word of l.
func nearWord(r []rune, l fuzzyList, budget int) bool {
	return firstNear(r, l, budget) != ""
}

// firstNear returns the first word of l (in lexical order) within budget
// edits of r, or "".
func firstNear(r []rune, l fuzzyList, budget int) string {
	mask := letterMask(r)
	first := int32(-1)
	for n := max(len(r)-budget, 0); n <= len(r)+budget && n < len(l.byLen); n++ {
		for _, i := range l.byLen[n] {
			if first >= 0 && i > first {
				break // indexes ascend within a length
			}
			v := &l.words[i]
			if popcount(mask^v.mask) > 2*budget {
				continue
			}
			if osaRunes(r, v.runes, budget) <= budget {
				first = i
				break
			}
		}
	}
	if first < 0 {
		return ""
	}
	return l.words[first].word
}

// fillers are the words nearFiller compares with.
var fillers = sync.OnceValue(func() fuzzyList {
	words := strings.Fields(`the there their they them then than that this these those what whats which when where
with much many does have would could should your yours about from just some very will also here were been being
into only other again more most such every anyone anything something please thanks
och det att som för med har inte kan vad hur när mycket många eller till från detta denna dessa vilken vilka
någon något några också bara själv sedan efter innan under över alla allt andra annan annat`)
	for w := range extraStop {
		words = append(words, w)
	}
	for w := range conversationWords {
		words = append(words, w)
	}
	return newFuzzyList(words)
})

// isEmoji reports a rune of the emoji blocks: pictographs, emoticons,
// transport and map symbols, supplemental symbols (U+1F000–U+1FAFF), and
// the miscellaneous symbols and dingbats (U+2600–U+2793), not the
// dingbats' arrows (U+2794–U+27BF: "Settings ➜ Account" is one sentence).
func isEmoji(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x2793
}
