// Command gen writes kb's lexicon tables (kb/lexicon/en.txt, sv.txt, and
// the word lists beside them: words-*.txt, uses-en.txt, nouns-en.txt,
// lemmas-en.txt) from
// the general resources Debian installs: English WordNet 3.0 (package
// wordnet-base, /usr/share/wordnet) and Viggo Kann's Swedish synonym
// lexicon (package mythes-sv, /usr/share/mythes/th_sv_SE_v2.dat).
//
//	go run ./kb/internal/gen            # from the repository's root
//
// A table holds groups of Snowball stems, one group a line:
//
//	=a|b|-c     synonyms: a query word stemming to a or b matches the
//	            others; c ("-": a word for which this is not one of its
//	            first senses) is matched but does not expand
//	^a|b>c|d    hypernyms: a or b matches c and d (WordNet, nouns and verbs)
//
// A multi-word entry's stems are joined by "_" ("sign_up"). Noise is
// controlled here: a WordNet word expands only through its first
// maxSense senses (WordNet orders them by frequency) that were seen in
// WordNet's semantically tagged corpus, to its hypernyms only through its
// first sense, words with capitals
// or digits (names) are left out, and so are entries of more than two
// words.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/swedish"
)

// maxSense is the number of a word's first WordNet senses it expands through.
const maxSense = 2

func main() {
	wn := flag("WORDNET", "/usr/share/wordnet")
	my := flag("MYTHES", "/usr/share/mythes/th_sv_SE_v2.dat")
	out := flag("OUT", "kb/lexicon")
	if err := run(wn, my, out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func flag(env, def string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

func run(wn, my, out string) error {
	en, err := wordnet(wn)
	if err != nil {
		return err
	}
	sv, err := mythes(my)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(out, "en.txt"), enHeader, en); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "sv.txt"), svHeader, sv); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "words-en.txt"), wordsHeader+enHeader, words(en)); err != nil {
		return err
	}
	if err := write(filepath.Join(out, "words-sv.txt"), wordsHeader+svHeader, words(sv)); err != nil {
		return err
	}
	nouns, err := nounPairs(filepath.Join(wn, "index.noun"))
	if err != nil {
		return err
	}
	if err := write(filepath.Join(out, "nouns-en.txt"), nounsHeader+enHeader, nouns); err != nil {
		return err
	}
	uses, err := tagged(filepath.Join(wn, "cntlist.rev"))
	if err != nil {
		return err
	}
	if err := write(filepath.Join(out, "uses-en.txt"), usesHeader+enHeader, uses); err != nil {
		return err
	}
	lemmas, err := exceptions(wn)
	if err != nil {
		return err
	}
	return write(filepath.Join(out, "lemmas-en.txt"), lemmasHeader+enHeader, lemmas)
}

const lemmasHeader = `# Irregular English forms: "form stem", one a line in byte order, stem the
# Snowball stem of the form's base form by WordNet's exception lists
# (noun.exc, verb.exc, adj.exc, adv.exc: "sent" send, "earliest" early,
# "children" child; the first base form listed), where Snowball's stem of
# the form differs, for kb's stemming.
`

// exceptions returns "form stem" lines from WordNet's exception lists
// (lines "form base …"): one-word lower-case forms, the stem of their
// first base form, where Snowball does not already stem both alike.
func exceptions(dir string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		f, err := os.Open(filepath.Join(dir, pos+".exc"))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 2 || seen[fs[0]] {
				continue
			}
			form, base := stem(fs[0], func(w string) string { return w }), stem(fs[1], enStem)
			if form == "" || base == "" || strings.Contains(form+base, "_") {
				continue
			}
			seen[form] = true
			if enStem(form) != base {
				out = append(out, form+" "+base)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

const nounsHeader = `# English nouns of two words ("post office", "tax return"), one a line in
# byte order as their stems joined by "_": the two-word nouns of WordNet
# with a sense seen in its tagged corpus, for kb's off-topic rule.
`

// nounPairs returns the stems, joined by "_", of the two-word nouns of a
// WordNet index file with a sense seen in its tagged corpus.
func nounPairs(path string) ([]string, error) {
	idx, err := readIndex(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for lemma, senses := range idx {
		if strings.Count(lemma, "_") != 1 || len(senses) == 0 {
			continue
		}
		if st := stem(lemma, enStem); st != "" {
			out = append(out, st)
		}
	}
	return out, nil
}

const usesHeader = `# How often English words are used: "stem count", one a line in byte order,
# count the uses of the words of that stem in WordNet's semantically tagged
# corpus (cntlist.rev), for kb's weighting of common words.
`

// tagged returns "stem count" lines: how many times the one-word lemmas of
// each stem were seen in WordNet's tagged corpus (cntlist.rev, lines
// "lemma%sense_key sense_number count"), all senses together.
func tagged(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	uses := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		lemma, _, ok := strings.Cut(fs[0], "%")
		n, err := strconv.Atoi(fs[2])
		if !ok || err != nil || n <= 0 {
			continue
		}
		if st := stem(lemma, enStem); st != "" && !strings.Contains(st, "_") {
			uses[st] += n
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(uses))
	for st, n := range uses {
		out = append(out, st+" "+strconv.Itoa(n))
	}
	return out, nil
}

const wordsHeader = `# The words of the table below, one stem a line in byte order (those a
# query word expands from: for WordNet, words of a sense seen in its tagged
# corpus), for kb's dictionary lookups.
`

// words returns the one-word stems a table's lines expand from.
func words(lines []string) []string {
	var out []string
	add := func(list string) {
		for w := range strings.SplitSeq(list, "|") {
			if w != "" && !strings.HasPrefix(w, "-") && !strings.Contains(w, "_") {
				out = append(out, w)
			}
		}
	}
	for _, l := range lines {
		if l == "" {
			continue
		}
		switch l[0] {
		case '=':
			add(l[1:])
		case '^':
			src, _, _ := strings.Cut(l[1:], ">")
			add(src)
		}
	}
	return out
}

const enHeader = `# kb lexicon, English: generated by "go run ./kb/internal/gen" from WordNet 3.0
# (Debian package wordnet-base). WordNet 3.0 Copyright 2006 by Princeton
# University. All rights reserved. Used under the WordNet 3.0 licence (see
# kb/lexicon/NOTICE); this table is derived from it (stems of its words).
`

const svHeader = `# kb lexicon, Swedish: generated by "go run ./kb/internal/gen" from Viggo Kann's
# synonym lexicon (Debian package mythes-sv, th_sv_SE_v2.dat), Copyright 2009
# Viggo Kann; see kb/lexicon/NOTICE. MODIFIED: words reduced to their Snowball
# stems, entries of more than two words left out, grouped per meaning.
`

func write(path, header string, lines []string) error {
	slices.Sort(lines)
	lines = slices.Compact(lines)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(header)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stem returns the stems of a one- or two-word entry joined by "_", or ""
// when it is a name, holds a digit or more than two words.
func stem(entry string, fn func(string) string) string {
	words := strings.FieldsFunc(entry, func(r rune) bool { return r == '_' || r == ' ' })
	if len(words) == 0 || len(words) > 2 {
		return ""
	}
	for i, w := range words {
		if strings.ToLower(w) != w || strings.ContainsAny(w, "0123456789.'/-") {
			return ""
		}
		words[i] = fn(w)
	}
	return strings.Join(words, "_")
}

func enStem(w string) string { return english.Stem(w, true) }
func svStem(w string) string { return swedish.Stem(w, true) }

type synset struct {
	words []string // lemmas, as written
	hyper []string // offsets of hypernyms (same part of speech)
}

// wordnet reads the data and index files of the four parts of speech.
func wordnet(dir string) ([]string, error) {
	var lines []string
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		sets, err := readData(filepath.Join(dir, "data."+pos))
		if err != nil {
			return nil, err
		}
		rank, err := readIndex(filepath.Join(dir, "index."+pos))
		if err != nil {
			return nil, err
		}
		for off, s := range sets {
			var group []string
			var srcs []string
			first := map[string]bool{}
			seen := map[string]bool{}
			for _, w := range s.words {
				st := stem(w, enStem)
				if st == "" || seen[st] {
					continue
				}
				seen[st] = true
				lw := strings.ToLower(w)
				if r, ok := rank[lw][off]; ok && r < maxSense {
					group = append(group, st)
					srcs = append(srcs, st)
					first[st] = r == 0
				} else {
					group = append(group, "-"+st)
				}
			}
			if len(srcs) > 0 && len(group) > 1 {
				lines = append(lines, "="+strings.Join(group, "|"))
			}
			if len(srcs) == 0 || pos == "adj" || pos == "adv" {
				continue
			}
			// hypernyms: only from the words whose first sense this is
			srcs = slices.DeleteFunc(srcs, func(st string) bool { return !first[st] })
			if len(srcs) == 0 {
				continue
			}
			var hyps []string
			for _, h := range s.hyper {
				for _, w := range sets[h].words {
					if st := stem(w, enStem); st != "" && !strings.Contains(st, "_") && !slices.Contains(hyps, st) && !slices.Contains(srcs, st) {
						hyps = append(hyps, st)
					}
				}
			}
			if len(hyps) > 0 {
				lines = append(lines, "^"+strings.Join(srcs, "|")+">"+strings.Join(hyps, "|"))
			}
		}
	}
	return lines, nil
}

// readData reads a WordNet data file: offset → synset.
func readData(path string) (map[string]synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sets := map[string]synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // the licence at the top
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(n)+1 {
			return nil, fmt.Errorf("%s: bad line %.40q", path, line)
		}
		var s synset
		for i := 0; i < int(n); i++ {
			w := f[4+2*i]
			if j := strings.IndexByte(w, '('); j > 0 { // adjective markers: "(a)", "(p)"
				w = w[:j]
			}
			s.words = append(s.words, w)
		}
		p := 4 + 2*int(n)
		np, _ := strconv.Atoi(f[p])
		for i := 0; i < np && p+4+4*i < len(f); i++ {
			sym, off := f[p+1+4*i], f[p+2+4*i]
			if sym == "@" || sym == "@i" {
				s.hyper = append(s.hyper, off)
			}
		}
		sets[f[0]] = s
	}
	return sets, sc.Err()
}

// readIndex reads a WordNet index file: lemma → synset offset → its sense
// rank for the lemma (0: the most frequent), for the senses seen in
// WordNet's semantically tagged corpus (the others are rare).
func readIndex(path string) (map[string]map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx := map[string]map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		nsyn, _ := strconv.Atoi(f[2])
		np, _ := strconv.Atoi(f[3])
		offs := f[4+np+2:]
		if len(offs) != nsyn {
			return nil, fmt.Errorf("%s: bad line %.40q", path, line)
		}
		tagged, _ := strconv.Atoi(f[4+np+1])
		m := map[string]int{}
		for r, o := range offs {
			if r < tagged { // a sense seen in WordNet's tagged corpus
				m[o] = r
			}
		}
		idx[f[0]] = m
	}
	return idx, sc.Err()
}

// mythes reads a MyThes thesaurus in ISO-8859-1: "word|n" followed by n
// lines "(pos)|synonym|synonym…". Each meaning is a group whose headword
// expands into its synonyms.
func mythes(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	text := latin1(data)
	var lines []string
	rows := strings.Split(text, "\n")
	for i := 1; i < len(rows); i++ {
		head, count, ok := strings.Cut(strings.TrimSpace(rows[i]), "|")
		n, err := strconv.Atoi(count)
		if !ok || err != nil {
			continue
		}
		hs := stem(head, svStem)
		for j := 1; j <= n && i+j < len(rows); j++ {
			if hs == "" {
				continue
			}
			group := []string{hs}
			for k, syn := range strings.Split(strings.TrimSpace(rows[i+j]), "|") {
				if k == 0 {
					continue // the part of speech
				}
				if st := stem(syn, svStem); st != "" && !slices.Contains(group, st) && !slices.Contains(group, "-"+st) {
					group = append(group, "-"+st)
				}
			}
			if len(group) > 1 {
				lines = append(lines, "="+strings.Join(group, "|"))
			}
		}
		i += n
	}
	return lines, nil
}

func latin1(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}
