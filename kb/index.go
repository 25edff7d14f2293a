package kb

import (
	"math"

	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb/memo"
)

// BM25F parameters: a snippet's own text is normalised by its length (b);
// its context (headings, the lead-in line of its list, its parent item,
// its section's "asked" comment) is a field of its own, counted wField
// times and not normalised by the text's length, since a section's heading
// says what every snippet under it is about, however long the snippet. k1
// saturates the sum. Calibrated on the development part of
// testdata/retrieval.jsonl and the StackFAQ development queries (README,
// "Knowledge base").
const (
	bm25K1 = 2.0
	bm25B  = 0.75
	wField = 1.75
)

// Weights of the parts of a snippet in its term frequencies, and of query
// words matched other than exactly.
const (
	wText          = 1.0 // a word of the snippet's text
	wHeading       = 1.0 // a word of the nearest heading
	wOuterHeading  = 0.5 // a word of a heading further up
	wLead          = 1.0 // a word of the lead-in line of a list ("Prices:")
	wTableHeader   = 0.4 // a word of the header row of a table row's snippet
	wContext       = 0.5 // a word of the parent list item
	wKind          = 0.5 // a word for the kind of a number in the snippet
	wAsked         = 0.4 // a word of how customers ask about the section ("<!-- asked: … -->")
	wOuterAsked    = 0.2 // …about a section it is under (halved, as wOuterHeading is)
	wFuzzy         = 0.8 // a query word matched through a close spelling
	wCompound      = 0.7 // a query word matched as part of a compound
	wSynonym       = 0.6 // a query word matched through its thesaurus group
	wPrefix        = 0.5 // a query word matched by a shared beginning
	wHint          = 0.5 // a word a phrase of the question points to
	wMessage       = 0.5 // a word of an earlier part of the message
	maxExpansions  = 32  // fuzzy or compound matches per query word
	minCompoundLen = 5   // runes of the shorter part of a compound match
)

// kindWords are searchable words for the snippets holding a number of a
// kind (guardrail's classification).
var kindWords = map[guardrail.Kind]string{
	guardrail.KindPhone: "phone number telephone telefonnummer telefon",
}

type posting struct {
	doc uint32
	tf  float32 // in the snippet's text, weighted (see wText …)
	ctx float32 // in its context, weighted (see bm25K1)
}

type index struct {
	docLen     []float32
	avgLen     float64
	terms      map[string][]posting
	vocab      []string            // sorted stems
	fwords     []fuzzyWord         // sorted surface words (for spelling mistakes)
	byLen      [][]int32           // the indexes of fwords by their length in runes
	surface    map[string][]string // surface word → its indexed stems
	langs      map[string]uint8    // surface word or stem → languages it is in (langBit)
	rvocab     []string            // sorted reversed stems
	fwd        *trie               // surface words, stems and thesaurus words (see buildTries)
	lexKinds   int                 // the kinds of lexicon expansion (WithLexicon)
	bwd        *trie               // the same, reversed
	pool       sync.Pool
	cache      expansionCache
	pairs      []pairPosting // the pairs of neighbouring stems of the snippets (see proximity)
	heading    []int32       // per snippet: its heading trail (see headingIDs, diversify)
	duplicates bool          // some heading trail is in two files (see diversify)

	unitOnce    sync.Once
	currencyIdx []string            // the surface words that name a currency (see unitWords)
	unitIdx     map[string][]string // a unit → the surface words that name it (see unitWords)
}

// expansionCache remembers what query words expand to: expanding a word the
// knowledge base does not hold exactly compares it with every indexed word
// (spelling mistakes), the bulk of a search's cost, and customers ask with
// the same words again and again. The index never changes (a reload builds
// a new one), so entries never go stale; the cache is bounded by emptying
// it when full.
type expansionCache struct {
	mu      sync.Mutex
	m       map[stemKey]wordInfo
	stemmed map[string]bool   // stemIndexed of a name (see stemIndexedCached)
	english map[string]string // English stems (see otherNouns)
}

// wordInfo is what the index makes of a query word.
type wordInfo struct {
	exps         expansions // read only once cached
	exact, known bool       // see expand
	left, right  string     // its parts, when it is a compound (see splitCompound)
	filler       bool       // unknown, and one edit from a stop word or a word of conversation
	other        bool       // a word of the language known only as a close spelling of another (see analyse)
	spec         float64    // how much it counts in the ranking (see specificity; 1 in Swedish)
}

// maxCachedWords bounds the expansion cache of one index.
const maxCachedWords = 4096

// expandCached is info through the index's cache.
func (ix *index) expandCached(word, lang string) wordInfo {
	return memo.Get(&ix.cache.mu, &ix.cache.m, maxCachedWords, stemKey{word, lang}, func() wordInfo { return ix.info(word, lang) })
}

// stemIndexedCached is stemIndexed through the index's cache: a name
// ("Premium", "Swish") is looked up by its stems in every message that
// has it, and stemming is most of that.
func (ix *index) stemIndexedCached(word string) bool {
	return memo.Get(&ix.cache.mu, &ix.cache.stemmed, maxCachedWords, word, func() bool { return ix.stemIndexed(word) })
}

// info returns what the index makes of a query word.
func (ix *index) info(word, lang string) wordInfo {
	w := wordInfo{spec: 1}
	if utf8.RuneCountInString(word) > maxWordRunes {
		return w // not a word anyone types: unknown, at no cost
	}
	if lang != Swedish {
		w.spec = specificity(word)
	}
	var spelt bool
	w.exps, w.exact, w.known, spelt = ix.expand(word, lang)
	w.other = spelt && inDictionary(word) && uses(word) < commonUses
	w.left, w.right = ix.splitCompound(word)
	if w.left != "" {
		w.known = true // searched as its parts (see analyse)
	}
	w.filler = !w.known && nearFiller(word)
	return w
}

type stemKey struct{ word, lang string }

// langBit is a language as a bit; unknown is every language.
func langBit(lang string) uint8 {
	switch lang {
	case English:
		return 1
	case Swedish:
		return 2
	}
	return 3
}

func buildIndex(docs []*Snippet, chunks []chunk) *index {
	ix := &index{
		docLen: make([]float32, len(docs)),
		terms:  make(map[string][]posting),
	}
	cache := make(map[stemKey][]string)
	tf := make(map[string]int) // the snippet's stems: their postings in ps
	var ps []posting
	var buf []string
	var length float32
	inCtx := false // adding the words of the snippet's context
	var pb pairBuilder
	add := func(text, lang string, w float32) {
		pb.start()
		tokenize(text, func(tok string) {
			if stopWord(tok) {
				return
			}
			// Numbers are searchable but do not make a snippet longer: the
			// snippets with the numbers are the ones worth citing. Nor do
			// the words of its context, a field of its own.
			if !isDigits(tok) && !inCtx {
				length += w
			}
			key := stemKey{tok, lang}
			ss, ok := cache[key]
			if !ok {
				buf = stems(tok, lang, buf)
				ss = slices.Clone(buf)
				cache[key] = ss
			}
			for _, s := range ss {
				j, ok := tf[s]
				if !ok {
					j = len(ps)
					tf[s] = j
					ps = append(ps, posting{})
				}
				p := &ps[j]
				if inCtx {
					p.ctx += w
				} else {
					p.tf += w
				}
			}
			pb.word(ss)
		})
	}
	var total float64
	for i, d := range docs {
		c := chunks[i]
		pb.doc = uint32(i)
		if header, row, ok := tableRow(c.text); ok {
			// the header row is shared by every row: context, like a heading
			add(header, d.Lang, wTableHeader)
			add(row, d.Lang, wText)
		} else {
			add(c.text, d.Lang, wText)
		}
		inCtx = true
		for j, h := range c.heading {
			w := float32(wOuterHeading)
			if j == len(c.heading)-1 {
				w = wHeading
			}
			add(h, d.Lang, w)
		}
		if c.lead != "" {
			add(c.lead, d.Lang, wLead)
		}
		if c.context != "" {
			add(c.context, d.Lang, wContext)
		}
		if c.asked != "" {
			add(c.asked, d.Lang, wAsked)
		}
		if c.outer != "" {
			add(c.outer, d.Lang, wOuterAsked)
		}
		inCtx = false
		// What kind of numbers a snippet holds is searchable too: "what is
		// your phone number" finds the snippet with the phone number.
		for _, n := range d.Source.Numbers {
			if words := kindWords[n.Kind]; words != "" {
				add(words, d.Lang, wKind)
				break
			}
		}
		for s, j := range tf {
			ps[j].doc = uint32(i)
			ix.terms[s] = append(ix.terms[s], ps[j])
		}
		clear(tf)
		ps = ps[:0]
		ix.docLen[i] = max(length, 1)
		total += float64(ix.docLen[i])
		length = 0
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
	ix.pairs = pb.done()
	ix.heading, ix.duplicates = headingIDs(docs)
	ix.splitIndexCompounds()
	ix.vocab = make([]string, 0, len(ix.terms))
	ix.rvocab = make([]string, 0, len(ix.terms))
	for s, ps := range ix.terms {
		ix.terms[s] = slices.Clip(ps)
		ix.vocab = append(ix.vocab, s)
		ix.rvocab = append(ix.rvocab, reverse(s))
	}
	slices.Sort(ix.vocab)
	ix.surface = make(map[string][]string)
	ix.langs = make(map[string]uint8)
	for k, ss := range cache {
		ix.langs[k.word] |= langBit(k.lang)
		for _, st := range ss {
			ix.langs[st] |= langBit(k.lang)
			if !slices.Contains(ix.surface[k.word], st) {
				ix.surface[k.word] = append(ix.surface[k.word], st)
			}
		}
	}
	words := make([]string, 0, len(ix.surface))
	for w := range ix.surface {
		words = append(words, w)
	}
	slices.Sort(words)
	ix.fwords = make([]fuzzyWord, len(words))
	for i, w := range words {
		r := []rune(w)
		ix.fwords[i] = fuzzyWord{word: w, runes: r, mask: letterMask(r), langs: ix.langs[w]}
		for len(ix.byLen) <= len(r) {
			ix.byLen = append(ix.byLen, nil)
		}
		ix.byLen[len(r)] = append(ix.byLen[len(r)], int32(i))
	}
	slices.Sort(ix.rvocab)
	ix.buildTries()
	n := len(docs)
	ix.pool.New = func() any { return newScratch(n) }
	return ix
}

// splitIndexCompounds indexes the snippets holding a compound under its
// parts too, at weight wCompound ("fraktkostnader" → "frakt", "kostnad";
// "prisändringar" → "pris", "ändring"): a part is an indexed stem or a word
// of the thesaurus, of at least 4 letters.
func (ix *index) splitIndexCompounds() {
	var known func(string) (string, bool)
	known = func(w string) (string, bool) {
		if utf8.RuneCountInString(w) < 3 {
			return "", false
		}
		if _, ok := ix.terms[w]; ok {
			return w, true
		}
		if _, ok := synonyms[w]; ok {
			return w, true
		}
		return "", false
	}
	add := map[string]map[uint32]posting{}
	for s, ps := range ix.terms {
		r := []rune(s)
		if len(r) < 8 || hasDigit(s) {
			continue
		}
		for k := 4; k <= len(r)-3; k++ {
			right, okR := known(string(r[k:]))
			if !okR {
				continue
			}
			left, okL := known(string(r[:k]))
			if !okL && (r[k-1] == 's' || r[k-1] == 'e') {
				left, okL = known(string(r[:k-1]))
			}
			if !okL {
				continue
			}
			for _, part := range [2]string{left, right} {
				if add[part] == nil {
					add[part] = map[uint32]posting{}
				}
				for _, p := range ps {
					q := add[part][p.doc]
					q.doc, q.tf, q.ctx = p.doc, max(q.tf, p.tf*wCompound), max(q.ctx, p.ctx*wCompound)
					add[part][p.doc] = q
				}
			}
			break
		}
	}
	for part, docs := range add {
		ps := ix.terms[part]
		for i := range ps {
			if q, ok := docs[ps[i].doc]; ok {
				ps[i].tf, ps[i].ctx = max(ps[i].tf, q.tf), max(ps[i].ctx, q.ctx)
				delete(docs, ps[i].doc)
			}
		}
		for _, q := range docs {
			ps = append(ps, q)
		}
		slices.SortFunc(ps, func(a, b posting) int { return int(a.doc) - int(b.doc) })
		ix.terms[part] = ps
	}
}

// tableRow splits the text of a table row's snippet into its header row
// and its row.
func tableRow(text string) (header, row string, ok bool) {
	header, row, ok = strings.Cut(text, "\n")
	return header, row, ok && strings.HasPrefix(header, "|") && strings.HasPrefix(row, "|") && !strings.Contains(row, "\n")
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

func (ix *index) idf(df int) float64 {
	n := float64(len(ix.docLen))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// expansion is one indexed stem a query word matches, and how well.
type expansion struct {
	stem   string
	weight float64
}

type expansions []expansion

func (es *expansions) add(stem string, w float64) {
	for i := range *es {
		if (*es)[i].stem == stem {
			(*es)[i].weight = max((*es)[i].weight, w)
			return
		}
	}
	if len(*es) < maxExpansions {
		*es = append(*es, expansion{stem, w})
	}
}

// addWord adds the indexed stems of a word at weight w and reports whether
// there were any.
func (ix *index) addWord(es *expansions, word string, w float64) bool {
	var buf [2]string
	found := false
	for _, s := range stemsOf(word, buf[:0]) {
		if _, ok := ix.terms[s]; ok {
			es.add(s, w)
			found = true
		}
	}
	return found
}

// expand returns what a query word matches in the index: its own stems
// (exact), and the words of its thesaurus groups; when its own stems are not
// indexed, also close spellings and compounds. known reports whether the
// word is accounted for: the index holds it, a close spelling of it, a
// compound it is part of, every part of it as a compound, or a word of its
// thesaurus group. (A compound only one part of which is known — "gymkort",
// "premiumbensin" — matches that part but is not known.) spelt reports a
// word known only as a close spelling.
//
// Close spellings, compounds and shared beginnings are looked for only among
// words of the query's language, when it is known: a Swedish "livet" is not
// a misspelt English "live".
func (ix *index) expand(word, lang string) (exps expansions, exact, known, spelt bool) {
	exact = ix.addWord(&exps, word, 1)
	known = exact
	bit := langBit(lang)
	inLang := func(w string) bool { return ix.langs[w]&bit != 0 }
	if !exact && !hasDigit(word) {
		if ix.fuzzy(&exps, word, bit) {
			known = true
		} else if syn := nearSynonym(word); syn != "" {
			// a misspelt word of the thesaurus ("anual" → "annual")
			for _, o := range append([]string{syn}, synonyms[syn]...) {
				if ix.addWord(&exps, o, wFuzzy*wSynonym) {
					known = true
				}
			}
		}
		spelt = known
		known = false
		var buf [2]string
		for _, s := range stems(word, "", buf[:0]) {
			if ix.compounds(&exps, s, inLang) {
				known = true
			}
			if ix.sharedPrefix(&exps, s, inLang) {
				known = true
			}
		}
	}
	for _, syn := range synonyms[word] {
		if ix.addWord(&exps, syn, wSynonym) {
			known = true
		}
	}
	if !hasDigit(word) && ix.lexicon(&exps, word, bit) {
		known = true
	}
	if !exact && ix.unit(&exps, word) {
		known = true
	}
	spelt = spelt && !known
	return exps, exact, known || spelt, spelt
}

// splitCompound splits a word of 8–maxWordRunes letters into two words the
// index or the thesaurus knows (each of at least 3 letters, a linking "s"
// or "e" dropped), preferring the longest last part; or returns "", "".
// The words the word begins and ends with are read from the index's tries
// in one pass each; a last part known only through its stem ("tillägget" →
// "tillägg") is stemmed at no more than maxStemChecks split points.
func (ix *index) splitCompound(word string) (string, string) {
	r := []rune(word)
	n := len(r)
	if n < 8 || n > maxWordRunes || hasDigit(word) {
		return "", ""
	}
	var pbuf, sbuf [maxWordRunes + 1]uint8
	pre, suf := pbuf[:n+1], sbuf[:n+1]
	ix.fwd.prefixes(r, pre)
	ix.bwd.suffixes(r, suf)
	checks := 0
	for k := 3; k <= n-3; k++ {
		// a linking "s" or "e" is dropped when the word is known without it
		left := -1
		switch {
		case k-1 >= 3 && (r[k-1] == 's' || r[k-1] == 'e') && pre[k-1]&tKnown != 0:
			left = k - 1
		case pre[k]&tKnown != 0:
			left = k
		default:
			continue
		}
		known := suf[k]&tKnown != 0
		if !known && checks < maxStemChecks {
			checks++
			known = ix.stemIndexed(string(r[k:]))
		}
		if known {
			return string(r[:left]), string(r[k:])
		}
	}
	return "", ""
}

// stemIndexed reports a word one of whose stems the index holds.
func (ix *index) stemIndexed(w string) bool {
	if utf8.RuneCountInString(w) > maxWordRunes {
		return false
	}
	var buf [2]string
	for _, st := range stemsOf(w, buf[:0]) {
		if _, ok := ix.terms[st]; ok {
			return true
		}
	}
	return false
}

// sharedPrefix adds indexed stems that share a long beginning with s
// (at least 5 runes and all of s but its last 3): another form of the same
// word that the stemmers do not join ("levererar" → "leverans").
func (ix *index) sharedPrefix(exps *expansions, s string, inLang func(string) bool) bool {
	r := []rune(s)
	n := max(minCompoundLen, len(r)-3)
	if len(r) < n {
		return false
	}
	p := string(r[:n])
	found := false
	for i, _ := slices.BinarySearch(ix.vocab, p); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], p); i++ {
		if inLang(ix.vocab[i]) {
			exps.add(ix.vocab[i], wPrefix)
			found = true
		}
	}
	return found
}

// compounds adds indexed stems that s begins or ends ("öppet" →
// "öppettid") and indexed stems that begin or end s ("familjeabonnemang" →
// "familj", "abonnemang"). It reports whether s is known as a compound: it
// is part of an indexed word, or it splits into known words (a linking "s"
// or "e" allowed: "lagring+s+tillägg").
func (ix *index) compounds(exps *expansions, s string, inLang func(string) bool) (known bool) {
	if utf8.RuneCountInString(s) < minCompoundLen {
		return false
	}
	for i, _ := slices.BinarySearch(ix.vocab, s); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], s); i++ {
		if inLang(ix.vocab[i]) {
			exps.add(ix.vocab[i], wCompound)
			known = true
		}
	}
	rs := reverse(s)
	for i, _ := slices.BinarySearch(ix.rvocab, rs); i < len(ix.rvocab) && strings.HasPrefix(ix.rvocab[i], rs); i++ {
		if v := reverse(ix.rvocab[i]); inLang(v) {
			exps.add(v, wCompound)
			known = true
		}
	}
	r := []rune(s)
	n := len(r)
	if n > maxWordRunes {
		return known
	}
	var pbuf, sbuf [maxWordRunes + 1]uint8
	pre, suf := pbuf[:n+1], sbuf[:n+1]
	ix.fwd.prefixes(r, pre)
	ix.bwd.suffixes(r, suf)
	const bit = tEnglish | tSwedish
	checks := 0
	// rest reports whether the rest of a compound, r[from:to], is a known
	// word (a linking "s" or "e" dropped from its start), or a word of
	// conversation: read from the tries, or stemmed at a few places.
	rest := func(from, to int, flags func(int) uint8) bool {
		if to-from < 3 {
			return false
		}
		if flags(from)&(tKnown|tConverse) != 0 {
			return true
		}
		if (r[from] == 's' || r[from] == 'e') && to-from-1 >= 3 && flags(from+1)&(tKnown|tConverse) != 0 {
			return true
		}
		if checks < maxStemChecks {
			checks++
			return ix.stemIndexed(string(r[from:to]))
		}
		return false
	}
	for k := n - 1; k >= minCompoundLen; k-- {
		if pre[k]&bit != 0 {
			if v := string(r[:k]); inLang(v) {
				exps.add(v, wCompound)
				known = known || rest(k, n, func(i int) uint8 { return suf[i] })
			}
		}
		if suf[n-k]&bit != 0 {
			if v := string(r[n-k:]); inLang(v) {
				exps.add(v, wCompound)
				// the part before: r[:n-k], read with the forward trie
				// (a linking "s" or "e" at its end)
				known = known || ix.partBefore(r[:n-k], pre, &checks)
			}
		}
	}
	return known
}

// partBefore reports whether p, the first part of a compound, is a known
// word (a linking "s" or "e" dropped from its end) or a word of
// conversation; pre holds the forward trie's flags of the compound.
func (ix *index) partBefore(p []rune, pre []uint8, checks *int) bool {
	n := len(p)
	if n < 3 {
		return false
	}
	if pre[n]&(tKnown|tConverse) != 0 {
		return true
	}
	if (p[n-1] == 's' || p[n-1] == 'e') && n-1 >= 3 && pre[n-1]&(tKnown|tConverse) != 0 {
		return true
	}
	if *checks < maxStemChecks {
		*checks++
		return ix.stemIndexed(string(p))
	}
	return false
}

// prefixOf adds the stems of the indexed words that w begins, and reports
// whether there were any.
func (ix *index) prefixOf(exps *expansions, w string) bool {
	found := false
	for i, _ := slices.BinarySearchFunc(ix.fwords, w, func(f fuzzyWord, t string) int { return strings.Compare(f.word, t) }); i < len(ix.fwords) && strings.HasPrefix(ix.fwords[i].word, w); i++ {
		for _, st := range ix.surface[ix.fwords[i].word] {
			exps.add(st, wCompound)
		}
		found = true
	}
	return found
}

// scratch is per-search working memory, reused through a pool.
type scratch struct {
	score, cover []float64 // per snippet: total score, matched query weight
	best, bestW  []float64 // per snippet: best score and weight for the current word
	hit          []bool
	touched      []uint32 // snippets with hit set
	wordTouched  []uint32 // snippets with best set
	top, cands   []ranked // a part's k best snippets by score; every snippet it may return
	toks, origs  []string // a part's tokens, lower-cased and as written (see analyse)
	words        []qword  // a part's words (see analyse)
	clause       []qword  // a clause's words (see analyse)
}

func newScratch(n int) *scratch {
	return &scratch{
		score: make([]float64, n), cover: make([]float64, n),
		best: make([]float64, n), bestW: make([]float64, n),
		hit: make([]bool, n),
	}
}

// score adds to every snippet the best of what one query word matches in it,
// times rank. weight caps the word's share of the floor; a hint (cover
// false) adds score only.
func (ix *index) score(s *scratch, exps expansions, weight, rank float64, cover bool) {
	for _, e := range exps {
		ps := ix.terms[e.stem]
		idf := ix.idf(len(ps))
		for _, p := range ps {
			norm := 1 - bm25B + bm25B*float64(ix.docLen[p.doc])/ix.avgLen
			tf := float64(p.tf)/norm + wField*float64(p.ctx)
			sc := rank * e.weight * idf * tf * (bm25K1 + 1) / (tf + bm25K1)
			if s.best[p.doc] == 0 {
				s.wordTouched = append(s.wordTouched, p.doc)
			}
			if sc > s.best[p.doc] {
				s.best[p.doc] = sc
				if cover {
					s.bestW[p.doc] = e.weight * min(idf, weight)
				}
			}
		}
	}
	for _, d := range s.wordTouched {
		if !s.hit[d] {
			s.hit[d] = true
			s.touched = append(s.touched, d)
		}
		s.score[d] += s.best[d]
		s.cover[d] += s.bestW[d]
		s.best[d], s.bestW[d] = 0, 0
	}
	s.wordTouched = s.wordTouched[:0]
}

// better orders hits: higher score first, then file, then line.
func better(x, y Hit) bool {
	if x.Score != y.Score {
		return x.Score > y.Score
	}
	if x.Snippet.File != y.Snippet.File {
		return x.Snippet.File < y.Snippet.File
	}
	return x.Snippet.Line < y.Snippet.Line
}

func (s *scratch) reset() {
	for _, d := range s.touched {
		s.score[d], s.cover[d], s.hit[d] = 0, 0, false
	}
	s.touched = s.touched[:0]
}
