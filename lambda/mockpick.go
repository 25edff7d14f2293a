package lambda

// The mock model's choice of sentences: the sentences of the cited
// snippets (analysed once, by kb, at load) that answer the question's parts
// best, read with a cache of the question's words and a pooled scratch.

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/swedish"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/kb/memo"
)

// sentence is one sentence of a snippet, as the mock says it.
type sentence struct {
	*Sentence
	cite int // index of its snippet
}

// pickSentences picks the one or two sentences of the snippets that best
// answer question. Each content word of the question counts (matched
// through its English and Swedish stems, a close spelling, a compound or a
// concept such as price), weighted up when few sentences have it; the
// first sentence is the one covering the most weight (half as much for a
// heading or a lead-in, and, when the question asks for an amount, for a
// sentence without a digit). A second one is said only for a part of the
// question ("…, and can I pay with Swish?") that the first leaves mostly
// unanswered and that it answers at least 40 % of. A word no sentence has
// weighs nothing. Ties go to the better-ranked snippet. When no sentence
// shares a word with the question, the first sentence of the best snippet
// is the answer: retrieval found the snippet relevant on grounds the mock
// cannot see.
//
// What it returns is in sc, until sc is released.
func pickSentences(question string, snippets [][]Sentence, cache *wordCache, sc *pickScratch) []*sentence {
	n := 0
	for _, ss := range snippets {
		n += len(ss)
	}
	backing := resize(sc.backing, n)
	all := sc.all[:0]
	for i, ss := range snippets {
		for j := range ss {
			backing[len(all)] = sentence{Sentence: &ss[j], cite: i}
			all = append(all, &backing[len(all)])
		}
	}
	sc.backing, sc.all = backing, all
	if len(all) == 0 {
		return nil
	}
	questionParts(question, cache, sc)
	qs := sc.words
	// match[i][j]: how well sentence j answers word i
	match, cells := resize(sc.match, len(qs)), resize(sc.cells, len(qs)*len(all))
	sc.match, sc.cells = match, cells
	for i := range qs {
		q := &qs[i]
		match[i] = cells[i*len(all) : (i+1)*len(all) : (i+1)*len(all)]
		df := 0
		for j, s := range all {
			match[i][j] = q.match(s)
			if match[i][j] > 0 {
				df++
			}
		}
		if df == 0 {
			q.weight = 0 // nothing to answer it with
			continue
		}
		n := float64(len(all))
		q.weight *= 0.5 + 0.5*math.Log(1+n/float64(df))/math.Log(1+n)
	}
	covered := resize(sc.covered, len(qs))
	clear(covered)
	sc.covered = covered
	gain := func(j int, from, to int) float64 {
		g, amount := 0.0, false
		for i := from; i < to; i++ {
			g += qs[i].weight * max(0, match[i][j]-covered[i])
			amount = amount || qs[i].any != nil
		}
		if all[j].Weak {
			g /= 2
		}
		// Retrieval ranked the snippets with more than this overlap
		// (its vocabulary, misspellings, the whole message): a sentence
		// of a lower-ranked snippet must match clearly better to win.
		g /= 1 + 0.25*float64(all[j].cite)
		if amount && !all[j].Digit {
			g /= 2 // "how much …?" is answered with a number
		}
		return g
	}
	best, bestGain := -1, 0.0
	for j := range all {
		if g := gain(j, 0, len(qs)); g > bestGain+1e-9 {
			best, bestGain = j, g
		}
	}
	if best < 0 {
		for _, s := range all {
			if s.cite == all[0].cite && !s.Weak {
				return []*sentence{s}
			}
		}
		return all[:1]
	}
	picked := append(sc.picked[:0], all[best])
	for i := range qs {
		covered[i] = match[i][best]
	}
	// a second sentence for the part of the question answered least
	second, secondGain := -1, 0.0
	from := 0
	for _, to := range sc.ends {
		total, got := 0.0, 0.0
		for i := from; i < to; i++ {
			total += qs[i].weight
			got += qs[i].weight * covered[i]
		}
		if total > 0 && got <= total/2 {
			for j := range all {
				if j == best {
					continue
				}
				g := gain(j, from, to)
				if g < 0.4*total || g < 0.3 {
					continue
				}
				// ties go to the sentence closer to the whole question
				for i := range qs {
					g += 0.01 * qs[i].weight * match[i][j]
				}
				if g > secondGain+1e-9 {
					second, secondGain = j, g
				}
			}
		}
		from = to
	}
	if second >= 0 {
		picked = append(picked, all[second])
	}
	sc.picked = picked
	return picked
}

// pickScratch is what pickSentences works in, kept for the next question
// (pickScratches) rather than allocated for every one.
type pickScratch struct {
	backing []sentence  // the snippets' sentences
	all     []*sentence // pointing into backing
	words   []qword     // the question's words, part after part (see questionParts)
	ends    []int       // the end in words of each part
	cuts    []int
	seen    map[string]bool
	match   [][]float64
	cells   []float64
	covered []float64
	picked  []*sentence
}

var pickScratches = sync.Pool{New: func() any { return &pickScratch{seen: map[string]bool{}} }}

// release gives sc back to pickScratches, holding no sentence or word.
func (sc *pickScratch) release() {
	clear(sc.backing)
	clear(sc.all[:cap(sc.all)])
	clear(sc.words[:cap(sc.words)])
	clear(sc.picked[:cap(sc.picked)])
	clear(sc.seen)
	pickScratches.Put(sc)
}

// resize returns s with length n, reusing its array when it is large
// enough (its elements are then left as they were).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// qword is a content word of the question.
type qword struct {
	word    string
	runes   int // utf8.RuneCountInString(word)
	stems   []string
	concept map[string]bool // words of its concept (price: kr, SEK, …), or nil
	weight  float64
	any     func(*sentence) bool // a virtual word: matched by a property
}

// match is how well s answers q: 1 through a stem or the concept, 0.7
// through a close spelling or a compound of it, 0.5 through a part of the
// question's compound, else 0; halved for a word only in a table header.
func (q *qword) match(s *sentence) float64 {
	if q.any != nil {
		if q.any(s) {
			return 1
		}
		return 0
	}
	best := 0.0
	for _, st := range q.stems {
		best = max(best, s.Weight(st))
	}
	if best == 1 {
		return 1
	}
	// One pass over the sentence's terms (a dozen) rather than over the
	// concept's words (a hundred for price): a term weighs at most its
	// weight however it matches, so one weighing no more than best is
	// passed over.
	n := q.runes
	for _, t := range s.Terms {
		w, weight, m := t.Word, t.Weight, t.Runes
		if weight <= best {
			continue
		}
		if q.concept[w] {
			best = weight
			continue
		}
		switch k := 1 + n/8; {
		case n >= 5 && m >= 4 && m-n <= k && n-m <= k && withinEdits(q.word, w, k):
			best = max(best, 0.7*weight) // a misspelling
		case n >= 4 && m >= n+3 && (strings.HasPrefix(w, q.word) || strings.HasSuffix(w, q.word) ||
			len(q.stems[0]) >= 4 && strings.HasPrefix(w, q.stems[0])):
			best = max(best, 0.7*weight) // a compound of the question's word
		case m >= 5 && n >= m+3 && (strings.HasPrefix(q.word, w) || strings.HasSuffix(q.word, w)):
			best = max(best, 0.5*weight) // a part of the question's compound
		}
	}
	return best
}

// questionParts splits a question into its parts (at ? ! ; or ". ", and
// before a question word after "and", "och", "also" or a comma) and
// returns the content words of each: stop words of either language and the
// small talk of support chats left out, each word once. A part asking for
// an amount ("how much", "när") also has a virtual word, matched by any
// sentence with a digit.
//
// The words are sc.words, each part's ending at the next of sc.ends.
func questionParts(question string, cache *wordCache, sc *pickScratch) {
	words, ends, seen := sc.words[:0], sc.ends[:0], sc.seen
	clear(seen)
	lower := strings.ToLower(question)
	for _, text := range splitParts(lower) {
		sc.cuts = append(joinCuts(text, append(sc.cuts[:0], 0)), len(text))
		cuts := sc.cuts
		for k := 0; k+1 < len(cuts); k++ {
			text := text[cuts[k]:cuts[k+1]]
			from := len(words)
			kb.Words(text, func(w string) {
				if seen[w] || stopWord(w) || utf8.RuneCountInString(w) < 2 {
					return
				}
				seen[w] = true
				info := cache.get(w)
				words = append(words, qword{word: w, runes: utf8.RuneCountInString(w), stems: info.stems, concept: info.concept, weight: 1})
			})
			if asksAmount(text) {
				words = append(words, qword{word: "#", weight: 0.5, any: hasDigit})
			}
			if len(words) > from {
				ends = append(ends, len(words))
			}
		}
	}
	sc.words, sc.ends = words, ends
}

// hasDigit is the virtual word of a question asking for an amount.
func hasDigit(s *sentence) bool { return s.Digit }

// wordInfo is what a question word is made of: its stems (kb.Stems) and
// the concept it belongs to, or nil.
type wordInfo struct {
	stems   []string
	concept map[string]bool
}

func newWordInfo(w string) wordInfo {
	info := wordInfo{stems: kb.Stems(w)}
	for _, c := range concepts {
		for _, st := range info.stems {
			if c[st] {
				info.concept = c
			}
		}
	}
	return info
}

// wordCache remembers what question words are made of: stemming is most
// of what reading a question costs, and customers ask with the same words
// again and again. It is bounded by emptying it when full; entries are
// read only.
type wordCache struct {
	mu sync.Mutex
	m  map[string]wordInfo
}

const maxCachedWords = 4096

// get returns w's info, from the cache when it has it (a nil cache has
// nothing).
func (c *wordCache) get(w string) wordInfo {
	if c == nil {
		return newWordInfo(w)
	}
	return memo.Get(&c.mu, &c.m, maxCachedWords, w, func() wordInfo { return newWordInfo(w) })
}

// splitParts splits a question where a part ends: at a run of ?, ! or ;,
// and at a period before a space, tab or line break — what
// regexp.MustCompile(`[?!;]+|\.\s`).Split(s, -1) does, without the cost
// of a regular expression on every message.
func splitParts(s string) []string {
	var out []string
	beg := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '?' || c == '!' || c == ';':
			j := i + 1
			for j < len(s) && (s[j] == '?' || s[j] == '!' || s[j] == ';') {
				j++
			}
			out = append(out, s[beg:i])
			beg, i = j, j
		case c == '.' && i+1 < len(s) && strings.IndexByte("\t\n\f\r ", s[i+1]) >= 0:
			out = append(out, s[beg:i])
			beg, i = i+2, i+2
		default:
			i++
		}
	}
	return append(out, s[beg:])
}

// joinCuts returns where a further question starts inside a part: after a
// comma or a joining word ("and", "och", "also", "samt", "plus") and the
// spaces after it, and an optional connective ("and", "then", "så", …),
// at a question word ("how", "what", "hur", "vad", "kan", …) — where the
// regular expression
//
//	(?:,|\band\b|\boch\b|\balso\b|\bsamt\b|\bplus\b)\s+(?:(?:and|och|also|plus|then|sen|så)\s+)?((?:how|…|måste)\b)
//
// starts its group, match after match, without the cost of a regular
// expression on every message (TestJoinCutsAsRegexp). Word boundaries are
// RE2's: ASCII letters, digits and _ are word characters (so "varför",
// ending in a letter that is not ASCII, never ends at one: it is not cut
// at, as before).
func joinCuts(text string, cuts []int) []int {
	for i := 0; i < len(text); {
		j := -1
		if text[i] == ',' {
			j = i + 1
		} else if i == 0 || !isWordByte(text[i-1]) {
			for _, w := range joinWords {
				if wordAt(text, i, w) {
					j = i + len(w)
					break
				}
			}
		}
		if j < 0 {
			i++
			continue
		}
		k := skipSpace(text, j)
		if k == j {
			i++
			continue
		}
		end := -1
		for _, c := range connectives {
			if !strings.HasPrefix(text[k:], c) {
				continue
			}
			if m := skipSpace(text, k+len(c)); m > k+len(c) {
				if e := questionWordAt(text, m); e > 0 {
					cuts, end = append(cuts, m), e
				}
			}
			break // the alternatives share no prefix: one can match here
		}
		if end < 0 {
			if e := questionWordAt(text, k); e > 0 {
				cuts, end = append(cuts, k), e
			}
		}
		if end < 0 {
			i++
			continue
		}
		i = end
	}
	return cuts
}

var (
	joinWords     = []string{"and", "och", "also", "samt", "plus"}
	connectives   = []string{"and", "och", "also", "plus", "then", "sen", "så"}
	questionWords = []string{"how", "what", "whats", "when", "where", "which", "why", "who", "can", "could", "do", "does",
		"is", "are", "will", "would", "should", "hur", "vad", "när", "var", "vilken", "vilket", "vilka", "varför", "kan",
		"går", "finns", "har", "är", "ska", "får", "måste"}
)

// wordAt reports whether w stands at text[i:] followed by a word boundary.
func wordAt(text string, i int, w string) bool {
	return strings.HasPrefix(text[i:], w) && boundaryAt(text, i+len(w))
}

// boundaryAt reports an RE2 word boundary at text[i], the byte before it
// being the end of a word of ASCII word bytes or not.
func boundaryAt(text string, i int) bool {
	before := i > 0 && isWordByte(text[i-1])
	after := i < len(text) && isWordByte(text[i])
	return before != after
}

// questionWordAt returns the end of the first question word (in the order
// of questionWords) at text[i:] followed by a word boundary, or -1.
func questionWordAt(text string, i int) int {
	for _, w := range questionWords {
		if strings.HasPrefix(text[i:], w) && boundaryAt(text, i+len(w)) {
			return i + len(w)
		}
	}
	return -1
}

// skipSpace returns the index after the run of RE2 \s ([\t\n\f\r ]) at
// text[i:].
func skipSpace(text string, i int) int {
	for i < len(text) && strings.IndexByte("\t\n\f\r ", text[i]) >= 0 {
		i++
	}
	return i
}

// amountPhrases ask for an amount or a time when they stand as words;
// amountStems when a word starts with them.
var (
	amountPhrases = []string{"how much", "how many", "how long", "how often", "how soon", "how fast", "when", "what time",
		"hur mycket", "hur många", "hur länge", "hur lång", "hur ofta", "hur snabbt", "när", "vilken tid"}
	amountStems = []string{"cost", "kosta", "pris", "price"}
)

// asksAmount reports whether the lower-case text asks for an amount: an
// amount phrase between word boundaries, or a word starting with an amount
// stem — what the regular expression
// \b(?:how (?:much|many|…)|when|…|vilken tid)\b|\bcost|\bkosta|\bpris|\bprice
// matches (word boundaries as RE2's \b: ASCII letters, digits and _ are
// word characters).
func asksAmount(text string) bool {
	for i := 0; i < len(text); i++ {
		if i > 0 && isWordByte(text[i-1]) {
			continue // no boundary before; a byte of a longer letter is none
		}
		rest := text[i:]
		for _, p := range amountStems {
			if strings.HasPrefix(rest, p) {
				return true
			}
		}
		for _, p := range amountPhrases {
			if strings.HasPrefix(rest, p) && (len(rest) == len(p) || !isWordByte(rest[len(p)])) {
				return true
			}
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// concepts are sets of stems a question word and a sentence share a
// meaning through: a price question is answered by a sentence in kronor.
var concepts = []map[string]bool{
	stemSet("cost costs price prices pricing fee fees charge expensive cheap kr sek kronor krona € eur euro " +
		"kostar kosta kostnad pris priset priser avgift avgiften betala dyr dyrt billig billigt"),
	stemSet("refund refunds money back återbetalning återbetala pengarna tillbaka"),
	stemSet("phone telephone call ring telefon telefonnummer"),
	stemSet("email mail e-post epost mejl mejla"),
}

func stemSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
		for _, s := range kb.Stems(w) {
			m[s] = true
		}
	}
	return m
}

func stopWord(w string) bool {
	return english.IsStopWord(w) || swedish.IsStopWord(w) || smallTalk[w]
}

// smallTalk are words of support chats that say nothing about the subject.
var smallTalk = setOf(`hi hello hey please pls plz thanks thank thx ok okay yes no
	would could also much many want wanna like tell know need get got let wondering wonder
	question quick anyone someone something anything guys mate im dont cant whats
	hej hallå tack snälla undrar vill ska får få finns gör göra också bara lite typ
	alltså asså okej kolla fråga många mycket`)

// withinEdits reports whether a and b are at most k edits (insert, delete,
// substitute, swap adjacent letters) apart.
// Words of up to 32 letters are compared without allocating.
func withinEdits(a, b string, k int) bool {
	if d := utf8.RuneCountInString(a) - utf8.RuneCountInString(b); d > k || -d > k {
		return false
	}
	var abuf, bbuf [32]rune
	var rows [3][33]int
	ra, rb := appendRunes(abuf[:0], a), appendRunes(bbuf[:0], b)
	prev2, prev, cur := rows[0][:], rows[1][:], rows[2][:]
	if len(rb)+1 > len(cur) {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		low := i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > k {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)] <= k
}

func appendRunes(buf []rune, s string) []rune {
	for _, r := range s {
		buf = append(buf, r)
	}
	return buf
}
