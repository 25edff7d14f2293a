package kb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitMessage(t *testing.T) {
	for msg, want := range map[string][]msgPart{
		"Good morning! What does Family cost?": {
			{clauses: []string{"Good morning!"}}, {clauses: []string{"What does Family cost?"}, question: true}},
		"How much is Family and how much storage do we get?": {
			{clauses: []string{"How much is Family"}, question: true}, {clauses: []string{"how much storage do we get?"}, question: true}},
		"Vad kostar Basic och hur många enheter ingår?": {
			{clauses: []string{"Vad kostar Basic"}, question: true}, {clauses: []string{"hur många enheter ingår?"}, question: true}},
		"Quick one from me - do students get a discount": {
			{clauses: []string{"Quick one from me -"}}, {clauses: []string{"do students get a discount"}, question: true}},
		"Visa and Mastercard, 12.5 kr": {{clauses: []string{"Visa and Mastercard", " 12.5 kr"}}},
		"":                             nil,
	} {
		assert.Equal(t, want, splitMessage(msg), msg)
	}
}

func TestContextNames(t *testing.T) {
	for msg, want := range map[string][]string{
		"Hi, I'm Anna from Västerås, what does Premium cost?":              {"anna", "västerås"},
		"Hej, jag heter Anna Svensson och bor i Västerås. Vad kostar det?": {"anna", "svensson", "västerås"},
		"my daughter Emma starts university":                               {"emma"},
		"What does YouTube Premium cost?":                                  nil,
		"does netflix have a student discount":                             nil,
	} {
		var got []string
		for w := range contextNames(msg) {
			got = append(got, w)
		}
		assert.ElementsMatch(t, want, got, msg)
	}
}

// The off-topic rule: a salient word the knowledge base does not know puts
// a question off topic; the customer's own name and town, greetings, small
// talk and misspelt filler words do not.
func TestOffTopicRule(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	for _, q := range []string{
		"What does YouTube Premium cost?",
		"what does youtube premium cost",
		"does netflix have a student discount",
		"Vad kostar HBO Max för familjer?",
		"How do I plant tomatoes with my family?",
		"vad kostar en premiumbensin per liter",
		"hur säger jag upp mitt gymkort",
		"Hej! Vilken tid stänger Systembolaget på lördag?",
		"Good morning, hope you are well!",
		"I have Premium. What does Netflix cost?",
	} {
		assert.Empty(t, where(base.Search(q, 3)), q)
	}
	for q, file := range map[string]string{
		"Hi, I'm Anna from Västerås, what does Premium cost?":               "kb/en/pricing.md",
		"I'm Anna from Västerås and I wonder what Premium costs":            "kb/en/pricing.md",
		"Hej, jag heter Anna och bor i Västerås. Vad kostar Premium?":       "kb/sv/priser.md",
		"I pay for Spotify already. What does Premium cost?":                "kb/en/pricing.md",
		"What does Premium cost, and does Netflix have a student discount?": "kb/en/pricing.md",
		"is ther a fre trial for premum":                                    "kb/en/plans.md",
		"vad kostar lagringstillägget":                                      "kb/sv/priser.md",
	} {
		hits := base.Search(q, 3)
		if assert.NotEmpty(t, hits, q) {
			assert.Equal(t, file, hits[0].Snippet.File, q)
		}
	}
	// With the floor off, the rule is off too.
	nf, err := Load(DefaultFS(), WithPrefix("kb"), WithFloor(0, 0))
	require.NoError(t, err)
	assert.NotEmpty(t, nf.Search("What does YouTube Premium cost?", 3))
}

func TestCompounds(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	for w, want := range map[string][2]string{
		"lagringstillägget":   {"lagring", "tillägget"},
		"familjeabonnemanget": {"familj", "abonnemanget"},
		"premiumbensin":       {"", ""},
		"gymkort":             {"", ""},
	} {
		l, r := base.idx.splitCompound(w)
		assert.Equal(t, want, [2]string{l, r}, w)
	}
	// the index splits its own compounds: "fraktkostnader" is found as
	// "frakt" and "kostnad"
	var exps expansions
	require.True(t, base.idx.addWord(&exps, "kostnad", 1))
}
