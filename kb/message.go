package kb

import (
	"regexp"
	"strings"
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
mistake mistakenly accident accidentally without another provider providers again doesnt isnt wont didnt havent arent cannot write called named live living
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
råkade råka misstag oavsiktligt igen heter bor skriva skriver leverantör leverantörer förhand
två tre fyra fem sex sju åtta nio tio elva tolv
`)

// nameContext finds names written where a customer introduces themselves,
// greets, signs or says where they live or come from ("I'm Anna",
// "from Västerås", "jag heter Lars och bor i Luleå", "my daughter Emma").
// A name there is not what the question is about.
var nameContext = regexp.MustCompile(`(?i:\b(?:i'm|i am|im|my name is|name's|this is|call me|from|live in|living in|based in|moved to|` +
	`my (?:son|daughter|wife|husband|partner|mum|mom|dad|friend|grandson|granddaughter)|` +
	`hi|hello|hey|dear|regards|thanks|cheers|jag heter|heter|mitt namn är|jag är|från|bor i|bor på|flyttat till|` +
	`min (?:son|dotter|fru|man|sambo|mamma|pappa|kompis)|hej|hallå|tjena|hälsningar|mvh|tack))[\s,]+` +
	`(\p{Lu}[\p{L}\p{M}'’-]*(?:\s+\p{Lu}[\p{L}\p{M}'’-]*)?)`)

// contextNames returns the lower-case words of the names nameContext finds.
func contextNames(msg string) map[string]bool {
	if !strings.ContainsFunc(msg, unicode.IsUpper) {
		return nil
	}
	var names map[string]bool
	for _, m := range nameContext.FindAllStringSubmatchIndex(msg, -1) {
		if names == nil {
			names = map[string]bool{}
		}
		tokenize(msg[m[2]:m[3]], func(tok string) { names[tok] = true })
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
			first := ""
			tokenize(piece, func(tok string) {
				if first == "" {
					first = tok
				}
			})
			parts = append(parts, msgPart{clauses: strings.Split(piece, ","), question: q || questionWords[first]})
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
		w := strings.ToLower(strings.Trim(words[i], ",;"))
		if (w == "and" || w == "och" || w == "also" || w == "plus") && questionWords[strings.ToLower(strings.Trim(words[i+1], ",;?!."))] && i > from+1 {
			out = append(out, strings.Join(words[from:i], " "))
			from = i + 1
		}
	}
	return append(out, strings.Join(words[from:], " "))
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
	n := utf8.RuneCountInString(w)
	if n < 4 {
		return false
	}
	for _, list := range fillers {
		for _, f := range list {
			if d := utf8.RuneCountInString(f) - n; d <= 1 && d >= -1 && osa(w, f, 1) <= 1 {
				return true
			}
		}
	}
	return false
}

// fillers are the words nearFiller compares with.
var fillers = func() [][]string {
	common := strings.Fields(`the there their they them then than that this these those what whats which when where
with much many does have would could should your yours about from just some very will also here were been being
into only other again more most such every anyone anything something please thanks
och det att som för med har inte kan vad hur när mycket många eller till från detta denna dessa vilken vilka
någon något några också bara själv sedan efter innan under över alla allt andra annan annat`)
	var extra, conv []string
	for w := range extraStop {
		extra = append(extra, w)
	}
	for w := range conversationWords {
		conv = append(conv, w)
	}
	return [][]string{common, extra, conv}
}()
