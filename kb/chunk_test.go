package kb

import (
	"strings"
	"testing"
	"testing/fstest"
)

type wantChunk struct {
	line    int
	text    string
	heading string
}

func checkChunks(t *testing.T, md string, want []wantChunk) []chunk {
	t.Helper()
	got := chunkMarkdown(md)
	if len(got) != len(want) {
		for _, c := range got {
			t.Logf("  %d %q [%s]", c.line, c.text, strings.Join(c.heading, " > "))
		}
		t.Fatalf("got %d chunks, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.line != w.line || g.text != w.text {
			t.Errorf("chunk %d = line %d %q, want line %d %q", i, g.line, g.text, w.line, w.text)
		}
		if w.heading != "-" && strings.Join(g.heading, " > ") != w.heading {
			t.Errorf("chunk %d heading = %q, want %q", i, strings.Join(g.heading, " > "), w.heading)
		}
		if n := strings.Count(g.text, "\n") + 1; n > MaxLines {
			t.Errorf("chunk %d has %d lines", i, n)
		}
	}
	return got
}

func TestChunkHeadings(t *testing.T) {
	md := "# Title\n\nIntro line.\n\n## Sub ##\n\nUnder sub.\n\n### Deeper\nDeep text.\n\n## Other\n\nOther text.\n\nSetext\n======\n\nUnder setext.\n\nSecond\n------\nUnder second.\n#not a heading\n"
	checkChunks(t, md, []wantChunk{
		{3, "Intro line.", "Title"},
		{7, "Under sub.", "Title > Sub"},
		{10, "Deep text.", "Title > Sub > Deeper"},
		{14, "Other text.", "Title > Other"},
		{19, "Under setext.", "Setext"},
		{23, "Under second.\n#not a heading", "Setext > Second"},
	})
}

func TestChunkParagraphSplits(t *testing.T) {
	lines := func(from, n int) string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, "line "+itoa(from+i))
		}
		return strings.Join(s, "\n")
	}
	for _, tc := range []struct {
		n     int
		sizes []int
	}{{1, []int{1}}, {3, []int{3}}, {4, []int{2, 2}}, {5, []int{3, 2}}, {7, []int{3, 2, 2}}, {9, []int{3, 3, 3}}} {
		got := chunkMarkdown(lines(1, tc.n))
		if len(got) != len(tc.sizes) {
			t.Fatalf("%d lines: %d chunks, want %d", tc.n, len(got), len(tc.sizes))
		}
		line := 1
		for i, c := range got {
			if n := strings.Count(c.text, "\n") + 1; n != tc.sizes[i] || c.line != line || c.text != lines(line, n) {
				t.Errorf("%d lines: chunk %d = line %d %q", tc.n, i, c.line, c.text)
			}
			line += tc.sizes[i]
		}
	}
}

func TestChunkLists(t *testing.T) {
	md := "## Prices\n\nWhat it costs:\n\n- Basic: 99 kr/month\n- Premium: 399 kr/month\n  billed monthly\n  * nested detail\n1. first step\n2) second step\n\nAfter the list.\n"
	got := checkChunks(t, md, []wantChunk{
		{5, "- Basic: 99 kr/month", "Prices"},
		{6, "- Premium: 399 kr/month\n  billed monthly", "Prices"},
		{8, "  * nested detail", "Prices"},
		{9, "1. first step", "Prices"},
		{10, "2) second step", "Prices"},
		{12, "After the list.", "Prices"},
	})
	if got[0].lead != "What it costs:" || got[1].lead != "What it costs:" {
		t.Errorf("lead-in = %q, %q; want the line before the list", got[0].lead, got[1].lead)
	}
	if !strings.Contains(got[2].context, "Premium: 399 kr/month") {
		t.Errorf("nested item context = %q, want its parent item", got[2].context)
	}
	if got[5].lead != "" {
		t.Errorf("paragraph after the list has lead %q", got[5].lead)
	}
}

func TestChunkLeadWithoutList(t *testing.T) {
	checkChunks(t, "Note:\n\nJust a paragraph.\n", []wantChunk{
		{1, "Note:", ""},
		{3, "Just a paragraph.", ""},
	})
}

func TestChunkLongListItem(t *testing.T) {
	checkChunks(t, "- a\n  b\n  c\n  d\n", []wantChunk{
		{1, "- a\n  b", ""},
		{3, "  c\n  d", ""},
	})
}

func TestChunkTables(t *testing.T) {
	md := "## Plans\n\n| Plan | Price |\n|:---|---:|\n| Basic | 99 kr |\n| Premium | 399 kr |\n\nNot | a table\nat all\n"
	checkChunks(t, md, []wantChunk{
		{5, "| Plan | Price |\n| Basic | 99 kr |", "Plans"},
		{6, "| Plan | Price |\n| Premium | 399 kr |", "Plans"},
		{8, "Not | a table\nat all", "Plans"},
	})
}

func TestChunkCodeFences(t *testing.T) {
	md := "# Code\n\n```go\n# not a heading\n| a | b |\n|---|---|\n\nx := 1\n```\nafter\n\n~~~\nunterminated\n"
	checkChunks(t, md, []wantChunk{
		{4, "# not a heading\n| a | b |\n|---|---|", "Code"},
		{8, "x := 1", "Code"},
		{10, "after", "Code"},
		{13, "unterminated", "Code"},
	})
}

func TestChunkLineEndings(t *testing.T) {
	for name, md := range map[string]string{
		"crlf":       "# T\r\n\r\nfirst\r\nsecond\r\n\r\nthird\r\n",
		"cr":         "# T\r\rfirst\rsecond\r\rthird\r",
		"no newline": "# T\n\nfirst\nsecond\n\nthird",
		"bom":        "\uFEFF# T\n\nfirst\nsecond\n\nthird\n",
		"trailing":   "# T  \n\nfirst   \nsecond\t\n\nthird\n\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			checkChunks(t, md, []wantChunk{{3, "first\nsecond", "T"}, {6, "third", "T"}})
		})
	}
}

func TestChunkSkipped(t *testing.T) {
	md := "---\ntitle: x\n---\n# T\n<!-- a comment\nspanning lines -->\ntext\n\n***\n\nmore\n"
	checkChunks(t, md, []wantChunk{{7, "text", "T"}, {11, "more", "T"}})
	if got := chunkMarkdown(""); len(got) != 0 {
		t.Errorf("empty file gave %d chunks", len(got))
	}
	if got := chunkMarkdown("# Only a heading\n\n## And another\n"); len(got) != 0 {
		t.Errorf("headings alone gave %d chunks", len(got))
	}
}

// TestAsked: "asked" comments, on a heading line or a line of their own,
// are searchable with every snippet of their section (asked) and of the
// sections under it (outer), and never shown; the heading is kept without
// them.
func TestAsked(t *testing.T) {
	md := "# Storage <!-- asked: where are my things kept -->\n\nFiles live in Sweden.\n\n## Trash\n\n<!-- asked: I removed something by accident -->\nDeleted files stay 60 days.\n\n# Other\n\nUnrelated.\n"
	cs := chunkMarkdown(md)
	if len(cs) != 3 {
		t.Fatalf("%d chunks: %+v", len(cs), cs)
	}
	want := [][2]string{{"where are my things kept", ""}, {"I removed something by accident", "where are my things kept"}, {"", ""}}
	for i, c := range cs {
		if c.asked != want[i][0] || c.outer != want[i][1] {
			t.Errorf("chunk %d %q: asked %q, outer %q, want %q", i, c.text, c.asked, c.outer, want[i])
		}
		if strings.Contains(c.text, "asked") || strings.Contains(strings.Join(c.heading, " "), "asked") {
			t.Errorf("chunk %d shows the comment: %+v", i, c)
		}
	}
	base, err := Load(fstest.MapFS{"a.md": {Data: []byte(md)}})
	if err != nil {
		t.Fatal(err)
	}
	if hits := base.Search("I removed something by accident", 3); len(hits) == 0 || hits[0].Snippet.Line != 8 {
		t.Errorf("hits %v", where(hits))
	}
}
