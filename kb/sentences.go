package kb

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// Sentence is one sentence of a snippet as an answer can say it, with the
// words it holds as the search reads them. [Load] analyses every snippet
// once ([Snippet.Sentences]), so that whoever picks sentences to answer
// with (the mock model) stems nothing per message.
type Sentence struct {
	// Text is the sentence: markdown markers gone (headings, bullets,
	// ordered-list numbers, emphasis), the lines of a paragraph or list
	// item joined, a table row said cell by cell after its header
	// ("Premium — yearly price: 3 830 kr; …"); numbers exactly as written.
	Text string
	// Weak marks a heading, or a lead-in ending in ":" or "?" ("What each
	// plan costs:"): worth saying only when nothing else matches as well.
	Weak bool
	// Digit reports a digit in Text.
	Digit bool
	// Terms are the sentence's words (tokenized as the search does) and
	// their English and Swedish stems, each once, weighing 1, or 0.5 when
	// only the table header the sentence repeats has it. A sentence has a
	// dozen: a pass over them costs less than a map.
	Terms []Term
}

// Term is a word or stem of a sentence.
type Term struct {
	Word   string
	Runes  int // utf8.RuneCountInString(Word)
	Weight float64
}

// Weight returns the weight of the term w in s, or 0.
func (s *Sentence) Weight(w string) float64 {
	for i := range s.Terms {
		if s.Terms[i].Word == w {
			return s.Terms[i].Weight
		}
	}
	return 0
}

// addTerm adds w to s's terms at weight, or raises its weight to it.
func (s *Sentence) addTerm(w string, weight float64) {
	for i := range s.Terms {
		if s.Terms[i].Word == w {
			s.Terms[i].Weight = max(s.Terms[i].Weight, weight)
			return
		}
	}
	s.Terms = append(s.Terms, Term{Word: w, Runes: utf8.RuneCountInString(w), Weight: weight})
}

// SentencesOf analyses a snippet's text as [Load] does for
// [Snippet.Sentences]: its sentences that the guard finds grounded in the
// text (joining a paragraph's lines can make a new number — "1" at the end
// of a line and "000 kr" on the next — and then the lines are taken one by
// one), with their terms.
func SentencesOf(text string) []Sentence {
	return newAnalyser().sentences(text, nil)
}

// Words calls fn with each word of text as the search reads it: lower
// case, runs of letters and digits, a hyphenated word also joined
// ("e-post" → "post", "epost"), single letters dropped.
func Words(text string, fn func(word string)) { tokenize(text, fn) }

// Stems returns a word's English and Swedish stems (one when they agree;
// a word with digits is its own stem), as the search stems a word of
// unknown language.
func Stems(word string) []string { return stems(word, "", nil) }

// analyser analyses sentences, remembering the stems of the words it saw.
type analyser struct {
	stems map[string][]string
}

func newAnalyser() *analyser { return &analyser{stems: map[string][]string{}} }

// addSentences analyses the sentences of every snippet.
func addSentences(docs []*Snippet) {
	a := newAnalyser()
	for _, d := range docs {
		d.Sentences = a.sentences(d.Text, d.Source)
	}
}

func (a *analyser) sentences(text string, src *guardrail.Source) []Sentence {
	raw := groundedSentences(text, src)
	out := make([]Sentence, len(raw))
	for i, r := range raw {
		s := Sentence{Text: r.text, Weak: r.weak, Digit: strings.ContainsAny(r.text, "0123456789")}
		add := func(weight float64) func(string) {
			return func(w string) {
				s.addTerm(w, weight)
				for _, st := range a.stemsOf(w) {
					s.addTerm(st, weight)
				}
			}
		}
		tokenize(r.header, add(0.5))
		tokenize(r.body, add(1))
		out[i] = s
	}
	return out
}

func (a *analyser) stemsOf(w string) []string {
	ss, ok := a.stems[w]
	if !ok {
		ss = stems(w, "", nil)
		a.stems[w] = ss
	}
	return ss
}

// groundedSentences returns the sentences of a snippet that the guard
// finds grounded in it (src: the snippet's numbers, or nil).
func groundedSentences(snippet string, src *guardrail.Source) []rawSentence {
	if src == nil {
		src = guardrail.NewSource(snippet)
	}
	srcs := []*guardrail.Source{src}
	grounded := func(ss []rawSentence) []rawSentence {
		return slices.DeleteFunc(ss, func(s rawSentence) bool { return !guardrail.Verify(s.text, srcs).Grounded })
	}
	all := snippetSentences(snippet)
	if ok := grounded(slices.Clone(all)); len(ok) == len(all) {
		return all
	}
	var byLine []rawSentence
	for _, line := range strings.Split(snippet, "\n") {
		byLine = append(byLine, snippetSentences(line)...)
	}
	return grounded(byLine)
}

// rawSentence is a sentence of a snippet before its words are read; body
// is what it says, header the table headers it repeats.
type rawSentence struct {
	text, body, header string
	weak               bool
}

var (
	itemMarker = regexp.MustCompile(`^(?:[-*+>]\s+|[0-9]+[.)]\s+)+`)
	emphasis   = strings.NewReplacer("**", "", "__", "", "`", "")
	// a sentence ends at . ! or ? followed by space and a capital letter
	sentenceEnd = regexp.MustCompile(`[.!?]\s+\p{Lu}`)
)

// snippetSentences turns 1–3 markdown lines into sentences: markers
// (headings, bullets, ordered-list numbers, table pipes, emphasis) go, the
// lines of a paragraph or list item are joined, a table row becomes one
// sentence naming each cell by its header, and numbers stay exactly as
// written.
func snippetSentences(snippet string) []rawSentence {
	var (
		out    []rawSentence
		para   []string
		header []string
		rows   int
	)
	flush := func() {
		if len(para) > 0 {
			for _, s := range splitSentences(strings.Join(para, " ")) {
				out = append(out, rawSentence{text: s, body: s, weak: strings.HasSuffix(s, ":") || strings.HasSuffix(s, "?")})
			}
			para = para[:0]
		}
	}
	for _, line := range strings.Split(snippet, "\n") {
		line = strings.TrimSpace(emphasis.Replace(line))
		switch {
		case line == "" || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			flush()
		case strings.HasPrefix(line, "#"):
			flush()
			if h := strings.TrimSpace(strings.TrimLeft(line, "#")); h != "" {
				out = append(out, rawSentence{text: h, body: h, weak: true})
			}
		case strings.HasPrefix(line, "|"):
			flush()
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if strings.Trim(line, "|-: ") == "" {
				continue // table rule
			}
			if header == nil {
				header = cells
				continue
			}
			rows++
			out = append(out, rawSentence{text: tableSentence(header, cells), body: strings.Join(cells, " "), header: strings.Join(header, " ")})
		default:
			if m := itemMarker.FindString(line); m != "" {
				flush()
				line = strings.TrimSpace(line[len(m):])
			}
			if line != "" {
				para = append(para, line)
			}
		}
	}
	flush()
	if header != nil && rows == 0 {
		out = append(out, rawSentence{text: strings.Join(header, ", "), body: strings.Join(header, " ")})
	}
	return out
}

// tableSentence says a table row: its first cell, then each other cell
// after its header. The separators keep the cells' numbers apart.
func tableSentence(header, cells []string) string {
	var b strings.Builder
	b.WriteString(cells[0])
	sep := " — "
	for i, c := range cells[1:] {
		if c == "" {
			continue
		}
		b.WriteString(sep)
		sep = "; "
		if i+1 < len(header) && header[i+1] != "" {
			b.WriteString(lowerFirst(header[i+1]) + ": ")
		}
		b.WriteString(c)
	}
	return b.String()
}

// lowerFirst lower-cases the first letter of a word that is not an acronym.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r) && !unicode.IsUpper(r2) {
		return string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

// splitSentences splits running text after . ! or ? followed by a capital
// letter; the first letter of each sentence is made a capital.
func splitSentences(text string) []string {
	var out []string
	for text != "" {
		end := len(text)
		if loc := sentenceEnd.FindStringIndex(text); loc != nil {
			end = loc[0] + 1
		}
		if s := strings.TrimSpace(text[:end]); s != "" {
			r, n := utf8.DecodeRuneInString(s)
			out = append(out, string(unicode.ToUpper(r))+s[n:])
		}
		text = text[end:]
	}
	return out
}
