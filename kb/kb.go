// Package kb is groundwire's knowledge base: markdown files cut into
// snippets of 1–3 source lines, and ranked retrieval over them.
//
// # Loading
//
// [Load] reads every .md file of any [fs.FS] (recursively, lexical order;
// hidden directories such as .git are skipped, other files are ignored).
// A file that cannot be read or is not valid UTF-8 is left out and reported
// by [Base.Problems]; the rest is still loaded. [LoadDir] loads a directory
// on disk, [Default] the knowledge base embedded in the binary (kb/en and
// kb/sv of this repository), and a [Reloader] re-reads a directory without a
// restart.
//
// # Snippets
//
// A snippet is what a citation shows: 1–3 lines of one file, with the file's
// path and the 1-based line of its first line. Markdown structure decides
// the cuts: blank lines split; a paragraph longer than 3 lines is cut into
// balanced pieces; a list item stays whole (up to 3 lines); a heading is not
// a snippet but its text (with the headings above it) is searchable context
// of every snippet under it, kept in [Snippet.Heading]; each table row is a
// snippet whose Text is the header row followed by the row — two source
// lines, so the row keeps its meaning for the reader, the model and the
// search — and whose Line is the row's line; fenced code is kept verbatim.
// The numbers of each snippet are extracted once, at load time
// ([Snippet.Source]).
//
// # Search
//
// [Base.Search] ranks snippets with BM25F (k1 = 2, b = 0.75) over two
// fields: a snippet's text (a table row's header row counts in it at a
// lower weight), normalised by its length, and its context — its headings,
// the lead-in line of its list, its parent item and its sections' "asked"
// comments — counted 1.75 times and not normalised by the text's length.
// Words are lower-cased (å, ä and ö are kept), stop words of
// English and Swedish are dropped, and words are stemmed with the Snowball
// stemmer of the snippet's language (from the path: an en/ or sv/ directory
// or a .en.md / .sv.md name; otherwise guessed from the file's words; when
// unknown, with both); an irregular English form ("sent", "earliest") is
// also stemmed as its base form by WordNet's exception lists. A query word
// is stemmed with both stemmers and matches through any of its stems. A query word may also match, at a lower
// weight: the words of its thesaurus group (a bilingual vocabulary of
// support questions: fee/price/cost, tier/plan, forgot/reminder …); a close
// spelling of a word of the knowledge base or of the thesaurus (one edit
// for words of 4–7 letters, two from 8); and compounds: a word that is part
// of an indexed word ("öppet" → "öppettider"), a compound split into two
// known words ("lagringstillägget" → "lagring" + "tillägget"), and the
// knowledge base's own compounds split the same way at load time
// ("fraktkostnader" is found by "frakt" and by "kostnad"). A word naming a
// currency matches the base's currency names, and one naming a unit the
// base's words for that unit (units.go); two
// neighbouring words of the question that are neighbours in a snippet add
// a little to its score (proximity.go). A part's hits are picked one at a
// time: a snippet of another file under the same headings as a hit already
// picked (another answer to the same question) counts half its score
// (diversity.go).
//
// A message is read whole: it is cut into parts (sentences, and two
// questions joined by "and"/"och"), each part is searched, and the best
// hits of every part are merged (each part's best first, each snippet
// once). Questions are preferred to statements (which are searched only
// when no question finds anything and none is off topic); clauses with no
// word the knowledge base knows ("Hi", "hope you're well") are small talk;
// words of conversation (greetings, family, thinking and hoping) are not
// searched.
//
// The off-topic rule and the confidence ([Base.Find], [Thresholds]): each
// word of a part weighs its inverse document frequency (a word the
// knowledge base has never seen weighs the most; numbers count only alone;
// a name the customer introduces themselves with weighs nothing). A part is
// off topic when its best snippet covers less than [DefaultQueryFloor] of
// its weight, or unknown words (names included) hold [DefaultUnknown] of
// it — unknown being also a compound known only by one part
// ("premiumbensin"), a word of the language known only as a close
// spelling of another ("movie", "move") and half of a two-word English
// noun the base never writes ("post office"; see otherNouns) — or unknown
// names alone (a
// capital inside the word or mid-sentence: "YouTube", "HBO") hold
// [DefaultNames] — decided from the whole part, never from one word. The
// confidence is high when the best part's coverage is at least
// [DefaultHigh] and unknown words hold less than [DefaultHighUnknown] of
// it, low otherwise. Snippets in the query's language (when it can be
// told) rank before snippets in the other language. Ties are broken by
// file, then line.
package kb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// DefaultK is the number of hits [Base.Search] returns when asked for k <= 0.
const DefaultK = 3

// Snippet is 1–3 lines of a markdown file.
type Snippet struct {
	// File is the file's path with the base's prefix, slash-separated,
	// e.g. "kb/en/pricing.md".
	File string `json:"file"`
	// Line is the 1-based line of the first line of Text; for a table row,
	// the line of the row.
	Line int `json:"line"`
	// Text is the source lines, joined by "\n" (line endings normalised,
	// trailing spaces removed). For a table row: the header row, "\n", the row.
	Text string `json:"snippet"`
	// Source holds Text's numbers, extracted once when the base is loaded.
	Source *guardrail.Source `json:"-"`
	// Heading is the trail of headings above the snippet, outermost first,
	// joined by " > " (e.g. "Pricing > Monthly prices"); searchable context,
	// not part of Text.
	Heading string `json:"heading,omitempty"`
	// Lang is "en", "sv" or "" (unknown).
	Lang string `json:"lang,omitempty"`
	// Sentences are Text's sentences with their words, analysed once when
	// the base is loaded (see [SentencesOf]).
	Sentences []Sentence `json:"-"`
}

// Hit is a search result.
type Hit struct {
	Snippet *Snippet
	Score   float64
}

// ErrEmpty is returned (wrapped) by [Load] when there is no snippet to load.
var ErrEmpty = errors.New("kb: no usable markdown snippets")

// Base is a loaded knowledge base. It is immutable and safe for concurrent
// use.
type Base struct {
	snippets []*Snippet
	problems []error
	idx      *index
	opts     options
}

// Option configures [Load].
type Option func(*options)

type options struct {
	lex      int
	prefix   string
	floor    floor
	otherLng float64
}

// floor holds the thresholds of the off-topic rule and of the confidence
// (see [Thresholds]).
type floor struct {
	query, snippet    float64 // least share of a part a hit covers; that a snippet matches
	unknown, names    float64 // unknown words, unknown names: a part holding this share of them is off topic
	high, highUnknown float64 // least coverage, and less unknown share than this, for high confidence
}

// Thresholds are the thresholds of the off-topic rule and of the
// confidence levels (see the package documentation and the README,
// "Knowledge base"). Each share is of a part's weight (each word weighs its
// inverse document frequency; a word the base does not know, the most).
// The defaults were calibrated on the development part of
// testdata/retrieval.jsonl and on the StackFAQ development queries.
type Thresholds struct {
	// Coverage: a part is answered only when its best snippet covers at
	// least this share; Snippet: every snippet returned covers at least
	// this share.
	Coverage, Snippet float64
	// Unknown: a part whose unknown words (names included) hold at least
	// this share is off topic; Names: likewise for unknown names alone
	// ("Netflix", "HBO", a capital inside the word or mid-sentence).
	Unknown, Names float64
	// High: the confidence is high when the best part's coverage is at
	// least High and its unknown words hold less than HighUnknown; it is
	// low otherwise.
	High, HighUnknown float64
}

// The default thresholds (see [Thresholds]).
const (
	DefaultQueryFloor   = 0.2 // Thresholds.Coverage
	DefaultSnippetFloor = 0.1 // Thresholds.Snippet
	DefaultUnknown      = 0.45
	DefaultNames        = 0.3
	DefaultHigh         = 0.5
	DefaultHighUnknown  = 0.2
)

// DefaultThresholds returns the default thresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{DefaultQueryFloor, DefaultSnippetFloor, DefaultUnknown, DefaultNames, DefaultHigh, DefaultHighUnknown}
}

// WithThresholds sets the thresholds of the off-topic rule and of the
// confidence levels.
func WithThresholds(t Thresholds) Option {
	return func(o *options) {
		o.floor = floor{t.Coverage, t.Snippet, t.Unknown, t.Names, t.High, t.HighUnknown}
	}
}

func defaults() options {
	o := options{otherLng: 0.8}
	WithThresholds(DefaultThresholds())(&o)
	return o
}

// WithPrefix sets the path prefix of [Snippet.File] (default: none for
// [Load], see [LoadDir]).
func WithPrefix(prefix string) Option {
	return func(o *options) { o.prefix = strings.Trim(filepath.ToSlash(prefix), "/") }
}

// WithLexicon sets the kinds of lexicon expansion a query word gets
// ([LexSynonyms], [LexHypernyms]; 0: none). Default: none (see the README:
// neither kind helped the held-out messages).
func WithLexicon(kinds int) Option {
	return func(o *options) { o.lex = kinds }
}

// WithFloor sets the coverage floor of a part (query, 0–1) and of a
// snippet (snippet); see [Thresholds]. WithFloor(0, 0) turns the off-topic
// rule off (the unknown words' and names' thresholds too) and returns
// anything that matches at all.
func WithFloor(query, snippet float64) Option {
	return func(o *options) {
		o.floor.query, o.floor.snippet = query, snippet
		if query == 0 && snippet == 0 {
			o.floor.unknown, o.floor.names = 2, 2
		}
	}
}

// Load reads the .md files of fsys. It fails only when nothing usable is
// found; problems with single files are reported by [Base.Problems].
func Load(fsys fs.FS, opts ...Option) (*Base, error) {
	o := defaults()
	for _, f := range opts {
		f(&o)
	}
	b := &Base{opts: o}
	var docs []*Snippet
	var chunks []chunk
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			b.problems = append(b.problems, fmt.Errorf("kb: %s: %w", b.name(p), err))
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !isMarkdown(p) {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			b.problems = append(b.problems, fmt.Errorf("kb: %s: %w", b.name(p), err))
			return nil
		}
		if !utf8.Valid(data) {
			b.problems = append(b.problems, fmt.Errorf("kb: %s: line %d: not valid UTF-8 (file skipped)", b.name(p), invalidLine(data)))
			return nil
		}
		text := string(data)
		lang := pathLang(p)
		if lang == "" {
			lang = detectLang(text)
		}
		cs := chunkMarkdown(text)
		chunks = append(chunks, cs...)
		file := b.name(p)
		for _, c := range cs {
			docs = append(docs, &Snippet{
				File:    file,
				Line:    c.line,
				Text:    c.text,
				Source:  guardrail.NewSource(c.text),
				Heading: strings.Join(c.heading, " > "),
				Lang:    lang,
			})
		}
		return nil
	})
	if err != nil {
		b.problems = append(b.problems, fmt.Errorf("kb: %w", err))
	}
	if len(docs) == 0 {
		return nil, errors.Join(append([]error{ErrEmpty}, b.problems...)...)
	}
	b.snippets = docs
	// The index and the sentences' analysis read the snippets and write
	// nothing the other reads: on a machine with more than one core (a
	// Lambda function of 1,769 MB or more) they are built side by side.
	done := make(chan struct{})
	go func() {
		defer close(done)
		addSentences(docs)
	}()
	b.idx = buildIndex(docs, chunks)
	b.idx.lexKinds = o.lex
	<-done
	return b, nil
}

// LoadDir loads the .md files under dir. Snippet files are named by their
// path under dir with a prefix: dir itself when it is a relative path
// inside the working directory ("docs/faq.md" for LoadDir("docs")),
// otherwise dir's last element ("kb/faq.md" for LoadDir("/srv/kb")), so
// that absolute paths of the server never reach a client. WithPrefix
// overrides it.
func LoadDir(dir string, opts ...Option) (*Base, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("kb: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("kb: %s is not a directory", dir)
	}
	prefix := filepath.Clean(dir)
	if !filepath.IsLocal(prefix) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("kb: %w", err)
		}
		prefix = filepath.Base(abs)
	}
	if prefix == "." {
		prefix = ""
	}
	return Load(os.DirFS(dir), append([]Option{WithPrefix(prefix)}, opts...)...)
}

func (b *Base) name(p string) string {
	if b.opts.prefix == "" || p == "." {
		return p
	}
	return path.Join(b.opts.prefix, p)
}

func isMarkdown(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".md" || ext == ".markdown"
}

// invalidLine returns the 1-based line of the first invalid UTF-8 byte.
func invalidLine(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[n:]
	}
	return line
}

// Problems returns what went wrong with single files or directories while
// loading (each error names the file); they were left out.
func (b *Base) Problems() []error { return b.problems }

// Snippets returns every snippet, in file then line order. The slice must
// not be modified.
func (b *Base) Snippets() []*Snippet { return b.snippets }

// Len returns the number of snippets.
func (b *Base) Len() int { return len(b.snippets) }
