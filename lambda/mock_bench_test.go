package lambda

import (
	"testing"

	"github.com/groundwire/groundwire/kb"
)

// BenchmarkMockAnswer is the mock's work for one message (the question
// read, the cited snippets' sentences picked, the answer rendered), with
// the snippets as kb loaded them (analysed) and as bare citations (the
// mock analyses their text itself).
func BenchmarkMockAnswer(b *testing.B) {
	base, err := kb.Default()
	if err != nil {
		b.Fatal(err)
	}
	questions := []string{"What does Premium cost?", "Vad kostar Familj per månad?", "How do I cancel, and do I get money back?"}
	var prompts []Prompt
	for _, q := range questions {
		lang := DetectLang(q)
		hits, _ := search(base, q, DefaultTopK, lang)
		cites, _ := citations(hits)
		prompts = append(prompts, Prompt{Question: q, Lang: lang, Snippets: cites, Sentences: sentences(hits)})
	}
	m := NewMock(MockDelay(0, 0))
	b.Run("analysed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			m.Answer(prompts[i%len(prompts)])
			i++
		}
	})
	b.Run("text", func(b *testing.B) {
		i := 0
		for b.Loop() {
			p := prompts[i%len(prompts)]
			p.Sentences = nil
			m.Answer(p)
			i++
		}
	})
}
