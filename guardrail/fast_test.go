package guardrail

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The fast paths read several bytes at once; these tests hold each such
// reading to the byte-by-byte one it stands for, on bytes chosen to hit
// the edges of every range the bit tricks tell apart.

// edgeBytes are the bytes around the bounds of the ranges asciiLetters
// and keepsAll test.
var edgeBytes = []byte{0, ' ', '-', '.', '0', '9', '@', 'A', 'Z', '[', '`', 'a', 'z', '{', 0x7F,
	0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xD7, 0xD8, 0xD9, 0xDB, 0xDF, 0xE0, 0xE2, 0xEF, 0xF0, 0xFF}

func randomWord(r *rand.Rand) (uint64, [8]byte) {
	var b [8]byte
	for k := range b {
		if r.IntN(2) == 0 {
			b[k] = edgeBytes[r.IntN(len(edgeBytes))]
		} else {
			b[k] = byte(r.IntN(256))
		}
	}
	return binary.LittleEndian.Uint64(b[:]), b
}

func TestAsciiLetters(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		x, b := randomWord(r)
		n := 0
		for n < 7 && b[n] < 0x80 && asciiClass[b[n]]&classLetter != 0 {
			n++
		}
		if got := asciiLetters(x); got != 8*n {
			t.Fatalf("asciiLetters(% x) = %d, want %d", b, got, 8*n)
		}
	}
}

func TestKeepsAll(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		x, b := randomWord(r)
		want := true
		for _, c := range b {
			if c >= 0xC0 && (c < 0xC3 || c > 0xD8) {
				want = false
			}
		}
		if got := keepsAll(x); got != want {
			t.Fatalf("keepsAll(% x) = %v, want %v", b, got, want)
		}
	}
}

// TestFirstFolded holds firstFolded to the general loop of fold on texts
// of ASCII, runes that fold to themselves and to others, and stray bytes.
func TestFirstFolded(t *testing.T) {
	general := func(s string) int {
		for i := 0; i < len(s); {
			c, size := utf8.DecodeRuneInString(s[i:])
			if fc, keep := foldRune(c); !keep || fc != c {
				return i
			}
			i += size
		}
		return len(s)
	}
	pieces := []string{"a", "b c", "0", "å", "Ä", "ö", "é", "ж", "ש", "ؤ", "٣", "–", "—", "\u00a0", "\u00ad",
		"\u200b", "²", "€", "…", "中", "３", "𝟘", "\xc3", "\x85", "\xd9", "\xe2\x80", "\xff", "\xc0\x80"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		var b []byte
		for range r.IntN(24) {
			if r.IntN(3) == 0 {
				b = append(b, "some plain ASCII text"[:r.IntN(21)]...)
			} else {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			}
		}
		s := string(b)
		if got, want := firstFolded(s), general(s); got != want {
			t.Fatalf("firstFolded(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestTailBytes(t *testing.T) {
	text := "abcdefghijklmnop"
	for n := range len(text) + 1 {
		for i := max(0, n-7); i < n; i++ {
			var want uint64
			for k := 7; k >= 0; k-- {
				c := byte('0')
				if i+k < n {
					c = text[i+k]
				}
				want = want<<8 | uint64(c)
			}
			got := shortBytes(text[:n], i)
			if n >= 8 {
				got = tailBytes(text[:n], i)
			}
			if got != want {
				t.Errorf("tailBytes(%q, %d) = %#x, want %#x", text[:n], i, got, want)
			}
		}
	}
}

// TestLatinWordPrefix holds latinWord, told the ASCII letters it starts
// with, to latinWord reading them itself.
func TestLatinWordPrefix(t *testing.T) {
	pieces := []string{"a", "B", "zz", "å", "Ä", "ö", "é", "ß", "ª", "×", "ł", "-", " ", "1", "\xc3", "\xc2\xa0"}
	r := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		var b []byte
		for range r.IntN(8) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		s := string(b)
		j := 0
		for j < len(s) && s[j] < 0x80 && asciiClass[s[j]]&classLetter != 0 {
			j++
		}
		e1, k1 := latinWord(s, 0, j)
		e2, k2 := latinWord(s, 0, 0)
		if e1 != e2 || k1 != k2 {
			t.Fatalf("latinWord(%q, 0, %d) = %d, %#x; from 0: %d, %#x", s, j, e1, k1, e2, k2)
		}
	}
}

// TestGeneralPunctuation holds generalPunctuation to its definition, on
// every three bytes that start with 0xE2, and checks that the block holds
// no letter, mark or digit.
func TestGeneralPunctuation(t *testing.T) {
	for b := range 1 << 16 {
		s := string([]byte{0xE2, byte(b >> 8), byte(b)})
		r, size := utf8.DecodeRuneInString(s)
		want := size == 3 && r >= 0x2000 && r < 0x2060 && !unreadableRune(r)
		if got := generalPunctuation(s); got != want {
			t.Fatalf("generalPunctuation(% x) = %v, want %v", s, got, want)
		}
	}
	for r := rune(0x2000); r <= 0x206F; r++ {
		if unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) {
			t.Errorf("%U is a letter, mark or digit", r)
		}
	}
}

// TestKnownPart holds knownPart to walkLetters wherever it tells the walk
// at once: at every word of partNodes, in lower, upper and mixed case, and
// at pieces of them, followed by bytes of every kind.
func TestKnownPart(t *testing.T) {
	var words []string
	for w := range englishWords {
		words = append(words, w)
	}
	for w := range swedishParts {
		words = append(words, w)
	}
	words = append(words, "tw", "hours", "Twenty", "FOUR", "oNe", "thousands", "x", "", "\xc3\xa5", "en1", "ett-")
	after := []string{"", " ", "-", "1", "a", "Z", "@", "[", "`", "{", "\xc3\xa5", "\x80", ".", " and a", "        "}
	told := 0
	for _, w := range words {
		for _, a := range after {
			for _, pre := range []string{"", "x ", "é"} {
				text := pre + w + a
				start := len(pre)
				e, node, ok := knownPart(text, start)
				if !ok {
					continue
				}
				told++
				if we, wn := walkLetters(text, start, false); e != we || node != wn {
					t.Fatalf("knownPart(%q, %d) = %d, %d; walkLetters: %d, %d", text, start, e, node, we, wn)
				}
			}
		}
	}
	if fast && told == 0 {
		t.Fatal("knownPart told no walk")
	}
}

// TestProse holds prose, and proseRun within it, to a plain reading rune by
// rune of what they skip, on texts made of pieces that hit their edges:
// words of every length up to past the eight bytes read at once, with
// Latin-1 letters and other runes, number words, hyphens, signs, digits,
// and the end of the text.
func TestProse(t *testing.T) {
	pieces := []string{"a", "I", "the", "och", "Premium", "kostar", "requests", "abcdefg", "abcdefgh",
		"på", "får", "Över", "månad", "tvåhundra", "två", "twenty", "tre", "åtta", "ÅTTA", "µs", "ª",
		"×", "ł", "é", "ß", "\xc3", "\xc3\xc3", "’", "…", "€", "£", "$", " ", " ", " ", "  ", ", ", ". ",
		".", ",", "-", "+", "\n", "(", ")", "/", "1", "99", "\x80", "K", "A", "year", "million", "Hours",
		"b", "thousand"}
	r := rand.New(rand.NewPCG(9, 10))
	for range 200000 {
		var b []byte
		for range r.IntN(12) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		text := string(b)
		i := 0
		if len(text) > 0 {
			i = r.IntN(len(text))
			for i > 0 && !utf8.RuneStart(text[i]) {
				i--
			}
		}
		final := r.IntN(2) == 0 // the text is whole, or may grow
		s := &scanner{t: text, final: final}
		want := proseByRunes(text, i, final)
		if got := s.prose(i); got != want {
			t.Fatalf("prose(%q, %d) = %d, want %d (final %v)", text, i, got, want, final)
		}
		if !fast || i > len(text)-9 {
			continue // (see proseRun, and proseTables)
		}
		end, slow := proseRun(s.t, i)
		if end < i || end > want || !slow && end != want {
			t.Fatalf("proseRun(%q, %d) = %d, %v; prose reads to %d", text, i, end, slow, want)
		}
	}
}

// articleProse reports whether the word [i,j) of t is "a" followed by a
// space and a byte that begins none of "hundred", "thousand", "million" and
// "billion", the only words that may follow "a" in a number: prose.
func articleProse(t string, i, j int) bool {
	return (t[i:j] == "a" || t[i:j] == "A") && j+1 < len(t) && t[j] == ' ' && !strings.ContainsRune("hHtTmMbB", rune(t[j+1]))
}

// proseByRunes is what prose skips from i, read rune by rune, in a text
// that is whole (final) or may grow (where a word at its end may go on).
func proseByRunes(t string, i int, final bool) int {
	for i < len(t) {
		r, size := utf8.DecodeRuneInString(t[i:])
		switch {
		case r < 0x80 && inert[r]:
			i += size
			continue
		case r == '+' || r == '-' || r == '.' || r == ',':
			if i+1 < len(t) && !isDigit(rune(t[i+1])) {
				i += size
				continue
			}
			return i
		case r < 0x100 && latinClass[r]&clLetter != 0:
			// A word of ASCII and Latin-1 letters, which ends at a rune
			// that is no letter or mark and, in ASCII, no digit or
			// hyphen.
			j := i
			for j < len(t) {
				c, n := utf8.DecodeRuneInString(t[j:])
				if c >= 0x100 || latinClass[c]&clLetter == 0 {
					break
				}
				j += n
			}
			if j == len(t) && !final || mayBeNumber(t[i:j]) && !articleProse(t, i, j) {
				return i
			}
			c, _ := utf8.DecodeRuneInString(t[j:])
			if c < 0x80 && (isAlnum(c) || c == '-') || c >= 0x80 && (unicode.IsLetter(c) || unicode.IsMark(c)) {
				return i
			}
			i = j
		case r >= 0x80 && r != '€' && r != '£' && !unicode.IsLetter(r):
			i += size // read alone by step, finding nothing
		default:
			return i
		}
	}
	return i
}
