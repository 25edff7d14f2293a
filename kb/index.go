package kb

import (
	"math"

	"github.com/groundwire/groundwire/guardrail"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Weights of the parts of a snippet in its term frequencies, and of query
// words matched other than exactly.
const (
	wText          = 1.0 // a word of the snippet's text
	wHeading       = 1.0 // a word of the nearest heading
	wOuterHeading  = 0.5 // a word of a heading further up
	wLead          = 1.0 // a word of the lead-in line of a list ("Prices:")
	wContext       = 0.5 // a word of the parent list item
	wKind          = 0.5 // a word for the kind of a number in the snippet
	wFuzzy         = 0.8 // a query word matched through a close spelling
	wCompound      = 0.6 // a query word matched as part of a compound
	wSynonym       = 0.6 // a query word matched through its thesaurus group
	wPrefix        = 0.5 // a query word matched by a shared beginning
	wHint          = 0.5 // a word a phrase of the question points to
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
	tf  float32
}

type index struct {
	docLen  []float32
	avgLen  float64
	terms   map[string][]posting
	vocab   []string            // sorted stems
	words   []string            // sorted surface words (for spelling mistakes)
	surface map[string][]string // surface word → its indexed stems
	langs   map[string]uint8    // surface word or stem → languages it is in (langBit)
	rvocab  []string            // sorted reversed stems
	pool    sync.Pool
	cache   expansionCache
}

// expansionCache remembers what query words expand to: expanding a word the
// knowledge base does not hold exactly compares it with every indexed word
// (spelling mistakes), the bulk of a search's cost, and customers ask with
// the same words again and again. The index never changes (a reload builds
// a new one), so entries never go stale; the cache is bounded by emptying
// it when full.
type expansionCache struct {
	mu sync.Mutex
	m  map[stemKey]cachedExpansion
}

type cachedExpansion struct {
	exps  expansions // read only once cached
	exact bool
}

// maxCachedWords bounds the expansion cache of one index.
const maxCachedWords = 4096

// expandCached is expand through the index's cache.
func (ix *index) expandCached(word, lang string) (expansions, bool) {
	k := stemKey{word, lang}
	c := &ix.cache
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return e.exps, e.exact
	}
	exps, exact := ix.expand(word, lang)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedWords {
		c.m = make(map[stemKey]cachedExpansion)
	}
	c.m[k] = cachedExpansion{exps, exact}
	c.mu.Unlock()
	return exps, exact
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
	tf := make(map[string]float32)
	var buf []string
	var length float32
	add := func(text, lang string, w float32) {
		tokenize(text, func(tok string) {
			if stopWord(tok) {
				return
			}
			// Numbers are searchable but do not make a snippet longer: the
			// snippets with the numbers are the ones worth citing.
			if !isDigits(tok) {
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
				tf[s] += w
			}
		})
	}
	var total float64
	for i, d := range docs {
		c := chunks[i]
		add(c.text, d.Lang, wText)
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
		// What kind of numbers a snippet holds is searchable too: "what is
		// your phone number" finds the snippet with the phone number.
		for _, n := range d.Source.Numbers {
			if words := kindWords[n.Kind]; words != "" {
				add(words, d.Lang, wKind)
				break
			}
		}
		for s, f := range tf {
			ix.terms[s] = append(ix.terms[s], posting{doc: uint32(i), tf: f})
		}
		clear(tf)
		ix.docLen[i] = max(length, 1)
		total += float64(ix.docLen[i])
		length = 0
	}
	if len(docs) > 0 {
		ix.avgLen = total / float64(len(docs))
	}
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
	ix.words = make([]string, 0, len(ix.surface))
	for w := range ix.surface {
		ix.words = append(ix.words, w)
	}
	slices.Sort(ix.words)
	slices.Sort(ix.rvocab)
	n := len(docs)
	ix.pool.New = func() any { return newScratch(n) }
	return ix
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
	for _, s := range stems(word, "", buf[:0]) {
		if _, ok := ix.terms[s]; ok {
			es.add(s, w)
			found = true
		}
	}
	return found
}

// expand returns what a query word matches in the index: its own stems
// (exact), and the words of its thesaurus groups; when its own stems are not
// indexed, also close spellings and compounds.
//
// Close spellings, compounds and shared beginnings are looked for only among
// words of the query's language, when it is known: a Swedish "livet" is not
// a misspelt English "live".
func (ix *index) expand(word, lang string) (exps expansions, exact bool) {
	exact = ix.addWord(&exps, word, 1)
	inLang := func(w string) bool { return ix.langs[w]&langBit(lang) != 0 }
	if !exact && !hasDigit(word) {
		n := utf8.RuneCountInString(word)
		if max := editBudget(n); max > 0 {
			for _, v := range ix.words {
				if d := utf8.RuneCountInString(v) - n; d <= max && d >= -max && inLang(v) && osa(word, v, max) <= max {
					for _, st := range ix.surface[v] {
						exps.add(st, wFuzzy)
					}
				}
			}
		}
		var buf [2]string
		for _, s := range stems(word, "", buf[:0]) {
			ix.compounds(&exps, s, inLang)
			ix.sharedPrefix(&exps, s, inLang)
		}
	}
	for _, syn := range synonyms[word] {
		ix.addWord(&exps, syn, wSynonym)
	}
	return exps, exact
}

// sharedPrefix adds indexed stems that share a long beginning with s
// (at least 5 runes and all of s but its last 3): another form of the same
// word that the stemmers do not join ("levererar" → "leverans").
func (ix *index) sharedPrefix(exps *expansions, s string, inLang func(string) bool) {
	r := []rune(s)
	n := max(minCompoundLen, len(r)-3)
	if len(r) < n {
		return
	}
	p := string(r[:n])
	for i, _ := slices.BinarySearch(ix.vocab, p); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], p); i++ {
		if inLang(ix.vocab[i]) {
			exps.add(ix.vocab[i], wPrefix)
		}
	}
}

// compounds adds indexed stems that s begins or ends ("öppet" →
// "öppettid") and indexed stems that begin or end s ("familjeabonnemang" →
// "familj", "abonnemang").
func (ix *index) compounds(exps *expansions, s string, inLang func(string) bool) {
	if utf8.RuneCountInString(s) < minCompoundLen {
		return
	}
	for i, _ := slices.BinarySearch(ix.vocab, s); i < len(ix.vocab) && strings.HasPrefix(ix.vocab[i], s); i++ {
		if inLang(ix.vocab[i]) {
			exps.add(ix.vocab[i], wCompound)
		}
	}
	rs := reverse(s)
	for i, _ := slices.BinarySearch(ix.rvocab, rs); i < len(ix.rvocab) && strings.HasPrefix(ix.rvocab[i], rs); i++ {
		if v := reverse(ix.rvocab[i]); inLang(v) {
			exps.add(v, wCompound)
		}
	}
	r := []rune(s)
	for k := len(r) - 1; k >= minCompoundLen; k-- {
		if v := string(r[:k]); inLang(v) {
			exps.add(v, wCompound)
		}
		if v := string(r[len(r)-k:]); inLang(v) {
			exps.add(v, wCompound)
		}
	}
}

// editBudget is the number of edits a misspelt word of n runes may have.
func editBudget(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 5:
		return 1
	}
	return 0
}

// osa returns the optimal string alignment distance between a and b (edits:
// insert, delete, substitute, swap two neighbours), or max+1 when it is
// larger than max.
func osa(a, b string, max int) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	n, m := len(ra), len(rb)
	prev2 := make([]int, m+1)
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[m] > max {
		return max + 1
	}
	return prev[m]
}

// scratch is per-search working memory, reused through a pool.
type scratch struct {
	score, cover []float64 // per snippet: total score, matched query weight
	best, bestW  []float64 // per snippet: best score and weight for the current word
	hit          []bool
	touched      []uint32 // snippets with hit set
	wordTouched  []uint32 // snippets with best set
}

func newScratch(n int) *scratch {
	return &scratch{
		score: make([]float64, n), cover: make([]float64, n),
		best: make([]float64, n), bestW: make([]float64, n),
		hit: make([]bool, n),
	}
}

// Search returns the k best snippets for query (k <= 0: [DefaultK]), best
// first; ties are ordered by file, then line. It returns nothing when no
// snippet clears the relevance floor.
func (b *Base) Search(query string, k int) []Hit {
	if k <= 0 {
		k = DefaultK
	}
	ranked, _ := b.search(query, k, b.opts.floor)
	if len(ranked) == 0 {
		return nil
	}
	hits := make([]Hit, len(ranked))
	for i, r := range ranked {
		hits[i] = r.Hit
	}
	return hits
}

// ranked is a hit with the share of the query's weight it matched.
type ranked struct {
	Hit
	share float64
}

// search returns the k best snippets when the words the knowledge base
// knows carry at least floor.query of the query's weight, keeping only
// snippets that match at least floor.snippet of it. known is the share of
// the query's weight the knowledge base knows.
func (b *Base) search(query string, k int, fl floor) (hits []ranked, known float64) {
	ix := b.idx
	var tokens, words []string
	tokenize(query, func(tok string) {
		tokens = append(tokens, tok)
		if !stopWord(tok) && !slices.Contains(words, tok) {
			words = append(words, tok)
		}
	})
	pwords, covered := phrases(tokens, phraseWords)
	for _, w := range pwords {
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return nil, 0
	}
	s := ix.pool.Get().(*scratch)
	defer ix.pool.Put(s)
	defer s.reset()

	lang := detectLang(query)
	maxIDF := ix.idf(1)
	var queryWeight, knownWeight float64
	for _, w := range words {
		exps, exact := ix.expandCached(w, lang)
		if covered[w] && !exact {
			continue // part of a phrase, meaningless alone
		}
		// The word's weight in the floor: the idf of its own stems when they
		// are indexed; else of what it matched instead; a word the knowledge
		// base does not know at all weighs the most.
		weight := maxIDF
		if len(exps) > 0 {
			weight = 0
			for _, e := range exps {
				if !exact || e.weight == 1 {
					weight = max(weight, ix.idf(len(ix.terms[e.stem])))
				}
			}
			knownWeight += weight
		}
		queryWeight += weight
		ix.score(s, exps, weight, true)
	}
	if queryWeight == 0 {
		return nil, 0
	}
	known = knownWeight / queryWeight
	if known < fl.query {
		return nil, known
	}
	hints, _ := phrases(tokens, phraseHints)
	for _, h := range hints {
		var exps expansions
		ix.addWord(&exps, h, wHint)
		ix.score(s, exps, 0, false)
	}

	for _, d := range s.touched {
		if s.cover[d] == 0 || s.cover[d] < fl.snippet*queryWeight {
			continue
		}
		sn := b.snippets[d]
		score := s.score[d]
		if lang != "" && sn.Lang != "" && sn.Lang != lang {
			score *= b.opts.otherLng
		}
		h := ranked{Hit{Snippet: sn, Score: score}, s.cover[d] / queryWeight}
		if len(hits) == k && !better(h.Hit, hits[k-1].Hit) {
			continue
		}
		if len(hits) < k {
			hits = append(hits, h)
		} else {
			hits[k-1] = h
		}
		for i := len(hits) - 1; i > 0 && better(hits[i].Hit, hits[i-1].Hit); i-- {
			hits[i], hits[i-1] = hits[i-1], hits[i]
		}
	}
	return hits, known
}

// score adds to every snippet the best of what one query word matches in it.
// weight caps the word's share of the floor; a hint (cover false) adds
// score only.
func (ix *index) score(s *scratch, exps expansions, weight float64, cover bool) {
	for _, e := range exps {
		ps := ix.terms[e.stem]
		idf := ix.idf(len(ps))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := 1 - bm25B + bm25B*float64(ix.docLen[p.doc])/ix.avgLen
			sc := e.weight * idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
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
