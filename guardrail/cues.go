package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// A derived number needs a cue: a word in its sentence that says the
// answer computes, of the class of the operation (see derive.go). The
// cues, English and Swedish, as data: "class = words", a phrase of several
// words joined by '_'. A Swedish word marked '-' is a cue as the last part
// of a compound too, as Swedish joins nouns: "studentrabatten",
// "prishöjningen", "årsbesparing".
const cueSpec = `
	total = in_total total totals totalling totaling altogether combined together overall in_all all_in_all
	total = sum add_up adds_up added_up plus
	total = totalt sammanlagt tillsammans sammantaget summa summan i_allt inalles allt_som_allt
	diff = more less fewer difference differ differs cheaper dearer pricier more_expensive less_expensive
	diff = higher lower save saves saved saving savings extra additional increase increases increased
	diff = decrease decreases decreased rise rises rose drop drops dropped fell cut cuts
	diff = exceed exceeds exceeded exceeding surpass surpasses surpassed surpassing
	diff = överstiger översteg överstigit överskrider överskred överskridit
	diff = longer shorter larger smaller bigger faster slower heavier lighter older younger
	diff = längre kortare större snabbare långsammare tyngre lättare äldre yngre
	diff = mer mera mindre färre -skillnad -skillnaden skiljer billigare dyrare högre lägre spara sparar
	diff = sparat sparade sparas -besparing -besparingen extra ytterligare -ökning -ökningen ökar ökat
	diff = -minskning -minskningen minskar minskat -höjning -höjningen höjs höjer höjde höjt
	diff = -sänkning -sänkningen sänks sänker sänkte sänkt
	times = times twice double doubles triple triples thrice fold multiplied multiply ×
	times = gånger dubbelt dubbla tredubbelt multiplicerat
	share = each apiece divided split shared per_person per_head per_user per_member average on_average
	share = var vardera per_styck styck delat delad delas per_användare per_medlem i_snitt genomsnitt snitt
	points = points percentage_points procentenheter procentenhet
	percent = percent per_cent percentage proportion discount off procent -rabatt -rabatten -rabatter -andel -andelen
	about = about around roughly approximately approx nearly almost some close_to circa ca c ~ ≈
	about = ungefär cirka runt omkring nästan drygt knappt kring uppemot närmare`

// cue is a set of classes of cues.
type cue uint8

const (
	cueTotal cue = 1 << iota
	cueDiff
	cueTimes
	cueShare
	cuePercent
	cuePoints
	cueAbout // a rounding word, read just before the number
)

// cueClasses are the names of the classes, in the order of their bits.
var cueClasses = [...]string{"total", "diff", "times", "share", "percent", "points", "about"}

// cueWords are the cues by their words, space-joined; cueHeads those
// that are cues as the last part of a compound too.
var cueWords, cueHeads = func() (map[string]cue, map[string]cue) {
	out, heads := map[string]cue{}, map[string]cue{}
	for w, class := range table(cueSpec) {
		head := w[0] == '-'
		if head {
			w = w[1:]
		}
		phrase := []byte(w)
		for i, b := range phrase {
			if b == '_' {
				phrase[i] = ' '
			}
		}
		c := cue(0)
		for i, name := range cueClasses {
			if name == class {
				c = 1 << i
			}
		}
		if c == 0 {
			panic("guardrail: unknown cue class " + class)
		}
		out[string(phrase)] |= c
		if head {
			heads[w] |= c
		}
	}
	return out, heads
}()

// maxCueWords is the most words of a cue.
const maxCueWords = 3

// cueAt is a cue found in a sentence: its classes and its span.
type cueAt struct {
	c          cue
	start, end int
}

// cuesOf returns the cues of text[from:to], in order: the phrases of up
// to maxCueWords words (runs of letters, read in lower case, and the signs
// × ~ ≈ each a word) that cueWords holds.
func cuesOf(text string, from, to int) []cueAt {
	type span struct{ start, end int }
	var ws []span
	start := -1
	for i := from; i <= to; {
		c, size := rune(-1), 1
		if i < to {
			if c = rune(text[i]); c >= utf8.RuneSelf {
				c, size = utf8.DecodeRuneInString(text[i:to])
			}
		}
		letter := c >= 0 && isLetter(c)
		if start >= 0 && !letter {
			ws = append(ws, span{start, i})
			start = -1
		}
		switch {
		case letter && start < 0:
			start = i
		case c == '×' || c == '~' || c == '≈':
			ws = append(ws, span{i, i + size})
		}
		if c < 0 {
			break
		}
		i += size
	}
	var out []cueAt
	var buf [64]byte
	for i := range ws {
		b := buf[:0]
		for n := 0; n < maxCueWords && i+n < len(ws); n++ {
			if n > 0 {
				if !cuePrefixes[string(b)] {
					break
				}
				b = append(b, ' ')
			}
			for _, c := range text[ws[i+n].start:ws[i+n].end] {
				if c < utf8.RuneSelf {
					b = append(b, lowerASCII(byte(c)))
				} else {
					b = utf8.AppendRune(b, toLower(c))
				}
			}
			c, ok := cueWords[string(b)]
			for j := 2; !ok && n == 0 && j+5 <= len(b); j++ {
				c, ok = cueHeads[string(b[j:])] // "studentrabatten"
			}
			if ok {
				out = append(out, cueAt{c, ws[i].start, ws[i+n].end})
			}
		}
	}
	return out
}

// cuePrefixes are the first words of the cues of several words, and
// their first two words.
var cuePrefixes = func() map[string]bool {
	out := map[string]bool{}
	for phrase := range cueWords {
		for i := 0; i < len(phrase); i++ {
			if phrase[i] == ' ' {
				out[phrase[:i]] = true
			}
		}
	}
	return out
}()

// cuesIn returns the classes of the cues outside the span [at,end) of a
// number, and whether a rounding word ends just before it (at most one
// word between them: "about 4 800", "cirka 1 200").
func cuesIn(text string, cues []cueAt, at, end int) (cs cue, about bool) {
	for _, c := range cues {
		if c.start < end && c.end > at {
			continue // the number's own words ("25 percent")
		}
		if c.c&cueAbout != 0 && c.end <= at && wordsBetween(text, c.end, at) <= 1 {
			about = true
		}
		cs |= c.c &^ cueAbout
	}
	return cs, about
}

// wordsBetween counts the runs of letters in text[i:j].
func wordsBetween(text string, i, j int) int {
	n, in := 0, false
	for _, c := range text[i:j] {
		l := isLetter(c)
		if l && !in {
			n++
		}
		in = l
	}
	return n
}

// sentenceAt returns the sentence of text that holds the span [start,end):
// from the end of the sentence before it to the end of its own. A
// sentence ends at a line break, or at '.', '!' or '?' followed by spaces
// and then anything but a lower-case letter or a digit. known is false when the text
// read so far (up to limit, or the whole of it when final) does not tell
// where it ends yet.
func sentenceAt(text string, start, end, limit int, final bool) (from, to int, known bool) {
	if final {
		limit = len(text)
	}
	for from = start; from > 0; from-- {
		if c := text[from-1]; c == '\n' || isStop(c) && from < len(text) && isSpaceByte(text[from]) && !lowerAfter(text, from) {
			break
		}
	}
	for to = end; to < limit; to++ {
		c := text[to]
		if c == '\n' {
			return from, to, true
		}
		if !isStop(c) {
			continue
		}
		j := to + 1
		for j < limit && isSpaceByte(text[j]) {
			j++
		}
		switch {
		case j == len(text) && final:
			return from, to + 1, true
		case j == to+1 || j >= limit:
			if j >= limit && !final {
				return from, to, false
			}
			continue // "12.5", "i.e."'s first dot; or more to read
		case !lowerAfter(text, to+1):
			return from, to + 1, true
		}
	}
	return from, limit, final
}

func isStop(c byte) bool      { return c == '.' || c == '!' || c == '?' }
func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// lowerAfter reports whether the first rune after the blanks at i is a
// lower-case letter or a digit: the sentence goes on ("ca. 400", "i.e.
// the").
func lowerAfter(text string, i int) bool {
	for i < len(text) && isSpaceByte(text[i]) {
		i++
	}
	if i >= len(text) {
		return false
	}
	c, _ := utf8.DecodeRuneInString(text[i:])
	return c >= '0' && c <= '9' || isLetter(c) && toLower(c) == c && !isUpperless(c)
}

// isUpperless reports whether c, a letter that is its own lower case, has
// no case at all (then it does not tell a sentence goes on).
func isUpperless(c rune) bool { return unicode.ToUpper(c) == c }
