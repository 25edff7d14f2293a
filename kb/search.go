package kb

import (
	"maps"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Search returns the k best snippets for query (k <= 0: [DefaultK]), best
// first; ties are ordered by file, then line. It returns nothing when the
// message is off topic (see [Base.Find], which also says how sure it is).
func (b *Base) Search(query string, k int) []Hit {
	return b.Find(query, k).Hits
}

// ranked is a hit with the share of the query's weight it matched.
type ranked struct {
	Hit
	share float64
	other bool   // in the other language than the query's
	doc   uint32 // the snippet's index
}

// better orders the hits of a part: those in the query's language first.
func (x ranked) better(y ranked) bool {
	if x.other != y.other {
		return !x.other
	}
	return better(x.Hit, y.Hit)
}

// qword is one word of a part of a message, as the index understands it.
type qword struct {
	word   string
	exps   expansions
	exact  bool
	weight float64 // its weight in the relevance floor
	name   bool    // written as a name (see isName, capitalised)
	rank   float64 // how much it counts in the ranking (see specificity)
	known  bool    // the index knows it (see expand); a word it does not may still rank by a part of it
	other  bool    // another word of the language, spelt close to a word of the base (see analyse)
}

// vouches reports whether a word speaks for the part being on topic: the
// knowledge base knows it, not only through the general lexicon and not
// only as a close spelling of one of its words when it is a word of the
// language of its own ("movie" is not a misspelt "move").
func (q qword) vouches() bool {
	return q.known && len(q.exps) > 0 && !q.other && !lexOnly(q.exps)
}

// search returns the k best snippets for a message: the best of each of
// its parts in turn (see splitMessage), questions before statements, and
// the message's score: the largest share of a part's weight that one of
// its hits covers. A part none of whose hits covers fl.query of its weight
// is off topic.
func (b *Base) search(query string, k int, fl floor) (hits []ranked, v verdict) {
	query = clip(query, maxMessageBytes)
	parts := splitMessage(query)
	if len(parts) == 0 {
		return nil, verdict{}
	}
	parts = parts[:min(len(parts), maxParts)]
	budget := maxMessageWords
	lang := detectLang(query)
	names := contextNames(query)
	s := b.idx.pool.Get().(*scratch)
	defer func() {
		clear(s.toks[:cap(s.toks)]) // the message's words are not kept
		clear(s.origs[:cap(s.origs)])
		clear(s.words[:cap(s.words)])
		clear(s.clause[:cap(s.clause)])
		b.idx.pool.Put(s)
	}()

	var found [2][][]ranked // per kind of part (question, statement): the ranked hits of each part
	var best [2]verdict     // per kind of part: the best part's verdict
	var before []string     // the words of the parts before
	var said []qword        // the words of the statements before that were on topic
	offTopicQuestion := false
	for _, p := range parts {
		ws, tokens := b.analyse(s, p, lang, names, &budget)
		// A part of one or two words leans on the parts before it: "How
		// much is Family and how much storage do we get?"
		var context []string
		if len(ws) <= 2 {
			context = before
		}
		hs, v := b.searchPart(s, ws, tokens, context, lang, k, fl)
		s.reset()
		if p.question && (len(hs) == 0 || !fl.answers(v)) && len(said) > 0 &&
			!slices.ContainsFunc(ws, func(q qword) bool { return q.name && !q.vouches() }) {
			// A question off topic on its own, after statements on topic,
			// that names nothing the base does not know is read with
			// them: "My card payment failed. Will you try again
			// automatically?" (but not "I have Premium. What does Netflix
			// cost?").
			hs, v = b.searchPart(s, append(slices.Clone(said), ws...), tokens, nil, lang, k, fl)
			s.reset()
		}
		if !p.question && len(hs) > 0 && fl.answers(v) {
			said = append(said, ws...)
		}
		if len(hs) == 0 || !fl.answers(v) {
			// nothing covers enough of this part: off topic (and no
			// context for the parts after it)
			offTopicQuestion = offTopicQuestion || p.question && len(ws) > 0
			continue
		}
		for _, w := range ws {
			if len(w.exps) > 0 {
				before = append(before, w.word)
			}
		}
		kind := 1
		if p.question {
			kind = 0
		}
		found[kind] = append(found[kind], hs)
		if len(found[kind]) == 1 || v.better(best[kind]) {
			best[kind] = v
		}
	}
	lists, v := found[0], best[0]
	if len(lists) == 0 && !offTopicQuestion {
		// no question, or none with an answer: the statements ("my card
		// payment failed."); but not when the question is off topic
		// ("I have Premium. What does Netflix cost?")
		lists, v = found[1], best[1]
	}
	return merge(lists, k), v
}

// clip returns s cut to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// merge merges the ranked hits of the parts of a message: the best hit of
// each part in turn, then the others by their score relative to the best
// of their part; each snippet once.
func merge(lists [][]ranked, k int) []ranked {
	if len(lists) == 1 {
		return lists[0]
	}
	var hits []ranked
	has := func(h ranked) bool {
		return slices.ContainsFunc(hits, func(x ranked) bool { return x.Snippet == h.Snippet })
	}
	type rest struct {
		ranked
		rel float64
	}
	var rests []rest
	for _, l := range lists {
		for i, h := range l {
			if i == 0 && !has(h) && len(hits) < k {
				hits = append(hits, h)
				continue
			}
			rests = append(rests, rest{h, h.Score / l[0].Score})
		}
	}
	slices.SortStableFunc(rests, func(a, b rest) int {
		if a.other != b.other {
			if a.other {
				return 1
			}
			return -1
		}
		switch {
		case a.rel > b.rel:
			return -1
		case a.rel < b.rel:
			return 1
		}
		return 0
	})
	for _, r := range rests {
		if len(hits) == k {
			break
		}
		if !has(r.ranked) {
			hits = append(hits, r.ranked)
		}
	}
	return hits
}

// analyse returns the words of a part that are searched, with their weight
// in the relevance floor, or nil when the part is off topic. A clause that
// holds no word the knowledge base knows is small talk and left out. A word
// the knowledge base does not know at all is salient — a sign the part is
// about something else — unless it is short and written in lower case (a
// typing slip or an abbreviation), a number, a misspelt stop word or word
// of conversation, or a name where a customer introduces themselves; with
// the relevance floor on, one salient word puts the part off topic.
//
// budget is the number of words the message may still expand (see
// maxMessageWords); the words after it are not read. all is every token of
// the part's clauses, in order (what searchPart reads its hints from), in
// s's buffers, as out is, until the next part's analyse.
func (b *Base) analyse(s *scratch, p msgPart, lang string, names map[string]bool, budget *int) (out []qword, all []string) {
	ix := b.idx
	maxIDF := ix.idf(1)
	all, origs := s.toks[:0], s.origs[:0] // origs: as written, beside all
	out, ws := s.words[:0], s.clause[:0]  // ws: the clause's words
	defer func() { s.toks, s.origs, s.words, s.clause = all, origs, out, ws }()
	first := true // the first word of the part, capitalised as any first word
	for _, clause := range p.clauses {
		// the clause's tokens, read once
		from := len(all)
		tokenizeOrig(clause, func(tok, orig string) {
			all = append(all, tok)
			origs = append(origs, orig)
		})
		tokens := all[from:len(all):len(all)]
		ws = ws[:0]
		knows := false
		seen := func(w string) bool {
			return slices.ContainsFunc(out, func(q qword) bool { return q.word == w }) ||
				slices.ContainsFunc(ws, func(q qword) bool { return q.word == w })
		}
		var covered, nouns map[string]bool
		var addWord func(w, orig string)
		addWord = func(w, orig string) {
			if seen(w) || *budget <= 0 {
				return
			}
			*budget--
			name := isName(orig) || capitalised(orig) && !first
			var info wordInfo
			if name && !ix.stemIndexedCached(w) {
				// a name is not expanded (see below): no cost
				info.spec = 1
				info.filler = utf8.RuneCountInString(w) <= maxWordRunes && nearFiller(w)
			} else {
				info = ix.expandCached(w, lang)
			}
			exps, exact, kn := info.exps, info.exact, info.known
			if covered[w] && !exact {
				return // part of a phrase, meaningless alone
			}
			if !exact && name {
				// "iPhone", "YouTube", "HBO", "Systembolaget" (a capital
				// inside the word or the sentence): a name is what it is,
				// not a misspelling or a compound of the knowledge base's
				// words; it may begin one ("Mac" → "macOS")
				exps, kn = nil, false
				if utf8.RuneCountInString(w) >= 3 {
					kn = ix.prefixOf(&exps, w)
				}
			} else if left, right := info.left, info.right; left != "" {
				// A compound is also searched as its parts: when the
				// knowledge base does not hold it whole, as two words
				// ("lagringstillägget" → "lagring", "tillägget"); when it
				// does, its parts are other matches of the word
				// ("månadsavgiften" → "månadsavgift", or "månad", "avgift").
				if !exact {
					addWord(left, left)
					addWord(right, right)
					knows = true
					return
				}
				exps = slices.Clone(exps)
				for _, part := range [2]string{left, right} {
					ix.addWord(&exps, part, wCompound)
					for _, syn := range synonyms[part] {
						ix.addWord(&exps, syn, wCompound*wSynonym)
					}
				}
			}
			q := qword{word: w, exps: exps, exact: exact, name: name, rank: info.spec}
			q.known = kn
			// A word of the language the base does not hold is another
			// word, not a misspelling of one it holds ("movie", "move";
			// "planterar", "planerar"): it ranks the snippets but weighs
			// as unknown — unless it is among the commonest words of
			// English, which say little of what a part is about
			// ("comes").
			q.other = info.other || nouns[w]
			switch {
			case q.other:
				knows = true
				q.weight = maxIDF
			case kn:
				knows = true
				for _, e := range exps {
					if !exact || e.weight == 1 {
						q.weight = max(q.weight, ix.idf(len(ix.terms[e.stem])))
					}
				}
			case isSalient(w, orig, names, info.filler), utf8.RuneCountInString(w) == 3:
				// an unknown word says the part may be about something
				// else: it weighs the most ("car" too; "fre" in "fre
				// trial" is a slip, and a name the customer introduces
				// themselves with weighs nothing)
				q.weight = maxIDF
			}
			ws = append(ws, q)
		}
		pwords, cov := phrases(tokens, phraseWords)
		covered = cov
		nouns = ix.otherNouns(tokens, lang)
		if slots := platformSlots(tokens, nil); slots != nil {
			names = maps.Clone(names)
			if names == nil {
				names = slots
			} else {
				maps.Copy(names, slots)
			}
		}
		for i, tok := range tokens {
			if !stopWord(tok) && !conversationWords[tok] {
				addWord(tok, origs[from+i])
			}
			first = false
		}
		for _, w := range pwords {
			covered[w] = false
			addWord(w, w)
		}
		if !knows {
			continue // small talk
		}
		out = append(out, ws...)
	}
	return out, all
}

// lexOnly reports expansions that all come from the lexicon (see
// wLexSynonym, wLexHypernym).
func lexOnly(exps expansions) bool {
	for _, e := range exps {
		if e.weight != wLexSynonym && e.weight != wLexHypernym {
			return false
		}
	}
	return true
}

// isName reports a word written with a capital letter after its first
// letter: "iPhone", "YouTube", "HBO", "SL".
func isName(orig string) bool {
	for i, r := range orig {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// numberLike reports a number or a unit of one ("kr", "gb").
func numberLike(w string) bool {
	return isDigits(w) || units[w]
}

var units = wordSet("kr sek kronor kronor öre gb tb mb kb procent percent")

// capitalised reports a word written with a capital first letter.
func capitalised(orig string) bool {
	r, _ := utf8.DecodeRuneInString(orig)
	return unicode.IsUpper(r)
}

// isSalient reports whether a word the knowledge base does not know says
// what a question is about.
func isSalient(w, orig string, names map[string]bool, filler bool) bool {
	switch {
	case names[w], isDigits(w):
		return false
	case utf8.RuneCountInString(w) <= 3 && !isName(orig):
		return false // "fre", "u", "re": a slip or an abbreviation
	case !isName(orig) && filler:
		return false
	}
	return true
}

// searchPart ranks the snippets for the words of one part (tokens: all its
// tokens, see analyse), with the words of context (they add a little to a
// snippet's score).
//
// Its verdict holds the share of the part's weight that the best of its k
// best snippets by score covers (before duplicates are discounted, see
// diversify), and the shares held by words the knowledge base does not
// know and by unknown names.
func (b *Base) searchPart(s *scratch, words []qword, tokens []string, context []string, lang string, k int, fl floor) (hits []ranked, v verdict) {
	ix := b.idx
	// Numbers count in the floor only in a part of nothing but numbers:
	// "300 000 kr" says nothing of what a question is about.
	numbersOnly := !slices.ContainsFunc(words, func(q qword) bool { return !numberLike(q.word) && q.weight > 0 })
	var queryWeight, unknownWeight, nameWeight float64
	for _, w := range words {
		if numberLike(w.word) && !numbersOnly {
			continue
		}
		queryWeight += w.weight
		if !w.vouches() {
			// unknown, or known only through the general lexicon, only
			// by a part of it ("premiumbensin") or only as a close
			// spelling: it may rank the snippets but does not vouch
			// for the part
			unknownWeight += w.weight
			if w.name && len(w.exps) == 0 {
				nameWeight += w.weight
			}
		}
	}
	if queryWeight == 0 {
		return nil, verdict{}
	}
	v.unknown = unknownWeight / queryWeight
	v.names = nameWeight / queryWeight
	for _, w := range words {
		if len(w.exps) > 0 {
			ix.score(s, w.exps, w.weight, w.rank, true)
		}
	}
	hints, _ := phrases(tokens, phraseHints)
	for _, h := range hints {
		var exps expansions
		ix.addWord(&exps, h, wHint)
		ix.score(s, exps, 0, 1, false)
	}
	for _, c := range context {
		if slices.ContainsFunc(words, func(q qword) bool { return q.word == c }) {
			continue
		}
		exps := ix.expandCached(c, lang).exps
		ctx := make(expansions, len(exps))
		for i, e := range exps {
			ctx[i] = expansion{e.stem, e.weight * wMessage}
		}
		ix.score(s, ctx, 0, 1, false)
	}

	ix.proximity(s, words, fl.snippet*queryWeight)
	top := s.top[:0]
	defer func() { s.top = top[:0] }()
	s.cands = s.cands[:0]
	for _, d := range s.touched {
		if s.cover[d] == 0 || s.cover[d] < fl.snippet*queryWeight {
			continue
		}
		sn := b.snippets[d]
		score := s.score[d]
		other := lang != "" && sn.Lang != "" && sn.Lang != lang
		if other {
			score *= b.opts.otherLng
		}
		h := ranked{Hit{Snippet: sn, Score: score}, s.cover[d] / queryWeight, other, d}
		if ix.duplicates {
			s.cands = append(s.cands, h)
		}
		if len(top) == k && !h.better(top[k-1]) {
			continue
		}
		if len(top) < k {
			top = append(top, h)
		} else {
			top[k-1] = h
		}
		for i := len(top) - 1; i > 0 && top[i].better(top[i-1]); i-- {
			top[i], top[i-1] = top[i-1], top[i]
		}
	}
	for _, h := range top {
		v.share = max(v.share, h.share)
	}
	if ix.duplicates {
		return slices.Clone(ix.diversify(s.cands, k)), v
	}
	return slices.Clone(top), v
}
