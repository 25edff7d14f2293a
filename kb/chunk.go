package kb

import (
	"strings"
)

// MaxLines is the largest number of source lines in one snippet.
const MaxLines = 3

// chunk is one snippet before it is indexed: its text (the source lines it
// shows) and the context that is searchable with it but not shown.
type chunk struct {
	line    int      // 1-based line of the first line shown (for a table row: the row)
	text    string   // 1–3 source lines joined by "\n"
	heading []string // heading trail, outermost first
	lead    string   // searchable context: the lead-in line of a list ("Prices:")
	context string   // searchable context: the parent list item
	asked   string   // searchable context: how customers ask about its section
	outer   string   // searchable context: how customers ask about the sections it is under
}

// Chunking rules (see the package documentation for the why):
//
//   - Blank lines, headings, thematic breaks and fences end a block.
//   - A heading (ATX "## x" or setext "x\n===") is not a snippet of its own;
//     its text, with the texts of the headings above it, is the context of
//     every snippet under it.
//   - A paragraph of up to 3 lines is one snippet; a longer one is cut into
//     balanced pieces of at most 3 lines (4 → 2+2, 5 → 3+2, 7 → 3+2+2).
//   - A list item (with its continuation lines) is one snippet; an item longer
//     than 3 lines is cut like a paragraph. A nested item has its parent item's
//     text as context. A paragraph of up to 3 lines ending in ':' right before
//     a list ("What each plan costs:") is not a snippet but the context of
//     every item of the list.
//   - A table (header row, delimiter row, body rows) gives one snippet per body
//     row whose text is the header row followed by the row (2 source lines),
//     so the row keeps its meaning; Line is the row's line.
//   - Lines in a fenced code block are kept verbatim and chunked like a
//     paragraph (blank lines split); markdown inside is not interpreted.
//   - YAML front matter at the top of a file and HTML comments are skipped,
//     but for "<!-- asked: … -->": how customers ask about a section, written
//     at the end of its heading line or on a line of its own in it. It is
//     searchable with every snippet of the section and of the sections under
//     it, and never shown.
type chunker struct {
	lines    []string
	out      []chunk
	asked    map[string]string // heading trail (joined by "\x00") → its "asked" comments
	headings [6]string
	trail    []string // cached heading trail, nil when stale
	// pending paragraph or list item
	block     []string
	blockLine int
	blockCtx  string
	blockLead string
	// list nesting: indent of each open item and its text
	listIndent []int
	listText   []string
	// a paragraph ending in ':' waits to see whether a list follows; if one
	// does, it is the list's context instead of a snippet
	lead     []string
	leadLine int
	listLead string
}

// splitLines splits text into lines, accepting "\n", "\r\n" and a lone "\r",
// and dropping a UTF-8 byte order mark. A final newline does not add a line.
func splitLines(text string) []string {
	text = strings.TrimPrefix(text, "\uFEFF")
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// chunkMarkdown cuts a markdown document into snippets.
func chunkMarkdown(text string) []chunk {
	c := &chunker{lines: splitLines(text)}
	c.run()
	if len(c.asked) > 0 {
		for i := range c.out {
			h := c.out[i].heading
			var outer []string
			for j := 0; j < len(h); j++ {
				if a := c.asked[strings.Join(h[:j], "\x00")]; a != "" {
					outer = append(outer, a)
				}
			}
			c.out[i].asked = c.asked[strings.Join(h, "\x00")]
			c.out[i].outer = strings.Join(outer, "\n")
		}
	}
	return c.out
}

// askedMark starts the comment in which authors say how customers ask.
const askedMark = "<!-- asked:"

// cutAsked splits a line into its text and the text of an "asked" comment
// in it ("## Trash <!-- asked: I deleted a file by mistake -->").
func cutAsked(s string) (text, asked string) {
	i := strings.Index(s, askedMark)
	if i < 0 {
		return s, ""
	}
	rest := s[i+len(askedMark):]
	j := strings.Index(rest, "-->")
	if j < 0 {
		return s, ""
	}
	return strings.TrimSpace(s[:i] + rest[j+3:]), strings.TrimSpace(rest[:j])
}

// addAsked records an "asked" comment for the current section.
func (c *chunker) addAsked(a string) {
	if a == "" {
		return
	}
	if c.asked == nil {
		c.asked = map[string]string{}
	}
	k := strings.Join(c.heading(), "\x00")
	if c.asked[k] != "" {
		a = c.asked[k] + "\n" + a
	}
	c.asked[k] = a
}

// heading returns the current heading trail; snippets of one section share
// the slice (it is never modified after it is handed out).
func (c *chunker) heading() []string {
	if c.trail == nil {
		c.trail = []string{}
		for _, h := range c.headings {
			if h != "" {
				c.trail = append(c.trail, h)
			}
		}
	}
	return c.trail
}

func (c *chunker) emit(line int, lines []string, lead, ctx string) {
	text := strings.Join(lines, "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	c.out = append(c.out, chunk{line: line, text: text, heading: c.heading(), lead: lead, context: ctx})
}

// emitSplit emits lines (starting at line) as balanced pieces of at most
// MaxLines lines.
func (c *chunker) emitSplit(line int, lines []string, lead, ctx string) {
	n := len(lines)
	pieces := (n + MaxLines - 1) / MaxLines
	for i := 0; i < pieces; i++ {
		// piece i gets lines [n*i/pieces, n*(i+1)/pieces) rounded so that
		// earlier pieces are the longer ones.
		from := (n*i + pieces - 1) / pieces
		to := (n*(i+1) + pieces - 1) / pieces
		c.emit(line+from, lines[from:to], lead, ctx)
	}
}

func (c *chunker) flush(inItem bool) {
	n := len(c.block)
	if n > 0 && !inItem && n <= MaxLines && strings.HasSuffix(c.block[n-1], ":") {
		c.emitLead()
		c.lead = append(c.lead[:0], c.block...)
		c.leadLine = c.blockLine
	} else if n > 0 {
		c.emitSplit(c.blockLine, c.block, c.blockLead, c.blockCtx)
	}
	c.block = c.block[:0]
	c.blockCtx, c.blockLead = "", ""
}

// emitLead emits a pending lead-in paragraph as an ordinary snippet.
func (c *chunker) emitLead() {
	if len(c.lead) > 0 {
		c.emitSplit(c.leadLine, c.lead, "", "")
		c.lead = c.lead[:0]
	}
}

func (c *chunker) endList() {
	c.listIndent = c.listIndent[:0]
	c.listText = c.listText[:0]
	c.listLead = ""
}

func (c *chunker) run() {
	lines := c.lines
	i := 0
	// YAML front matter: "---" on the first line up to the next "---" or "...".
	if len(lines) > 0 && strings.TrimRight(lines[0], " \t") == "---" {
		for j := 1; j < len(lines); j++ {
			if t := strings.TrimRight(lines[j], " \t"); t == "---" || t == "..." {
				i = j + 1
				break
			}
		}
	}
	inItem := false // the pending block is a list item
	for ; i < len(lines); i++ {
		raw := strings.TrimRight(lines[i], " \t")
		trim := strings.TrimLeft(raw, " \t")
		ln := i + 1

		switch {
		case trim == "":
			c.flush(inItem)
			inItem = false
			continue

		case strings.HasPrefix(trim, "<!--"):
			c.flush(inItem)
			c.emitLead()
			inItem = false
			if _, a := cutAsked(trim); a != "" {
				c.addAsked(a)
			}
			for ; i < len(lines) && !strings.Contains(lines[i], "-->"); i++ {
			}
			continue

		case isFence(trim):
			c.flush(inItem)
			c.emitLead()
			inItem = false
			c.endList()
			i = c.code(i)
			continue

		case atxLevel(trim) > 0 && indent(raw) < 4:
			c.flush(inItem)
			c.emitLead()
			inItem = false
			c.endList()
			c.setHeading(atxLevel(trim), atxText(trim))
			continue

		case len(c.block) > 0 && !inItem && isSetext(trim) && indent(raw) < 4:
			// the pending paragraph is a setext heading
			level := 1
			if trim[0] == '-' {
				level = 2
			}
			text := strings.TrimSpace(strings.Join(c.block, " "))
			c.block = c.block[:0]
			c.endList()
			c.setHeading(level, text)
			continue

		case isBreak(trim) && indent(raw) < 4:
			c.flush(inItem)
			c.emitLead()
			inItem = false
			c.endList()
			continue

		case strings.Contains(trim, "|") && i+1 < len(lines) && isDelimiterRow(lines[i+1]):
			c.flush(inItem)
			c.emitLead()
			inItem = false
			c.endList()
			i = c.table(i)
			continue
		}

		if m := listMarker(raw); m > 0 {
			c.flush(inItem)
			if len(c.lead) > 0 {
				c.endList()
				c.listLead = strings.TrimSpace(strings.Join(c.lead, " "))
				c.lead = c.lead[:0]
			}
			ind := indent(raw)
			for len(c.listIndent) > 0 && c.listIndent[len(c.listIndent)-1] >= ind {
				c.listIndent = c.listIndent[:len(c.listIndent)-1]
				c.listText = c.listText[:len(c.listText)-1]
			}
			ctx := strings.Join(c.listText, " ")
			c.listIndent = append(c.listIndent, ind)
			c.listText = append(c.listText, strings.TrimSpace(raw[m:]))
			c.block = append(c.block, raw)
			c.blockLine = ln
			c.blockCtx = ctx
			c.blockLead = c.listLead
			inItem = true
			continue
		}

		// paragraph line, or continuation of a list item
		if len(c.block) == 0 {
			c.emitLead()
			c.blockLine = ln
			if indent(raw) == 0 {
				c.endList()
			}
		}
		c.block = append(c.block, raw)
	}
	c.flush(inItem)
	c.emitLead()
}

func (c *chunker) setHeading(level int, text string) {
	text, asked := cutAsked(text)
	c.headings[level-1] = text
	defer c.addAsked(asked)
	c.trail = nil
	for j := level; j < len(c.headings); j++ {
		c.headings[j] = ""
	}
}

// code consumes a fenced code block opening at lines[i] and returns the
// index of its closing fence (or the last line when it is never closed).
func (c *chunker) code(i int) int {
	open := strings.TrimLeft(c.lines[i], " \t")
	ch := open[0]
	n := 0
	for n < len(open) && open[n] == ch {
		n++
	}
	var block []string
	start := 0
	flush := func() {
		if len(block) > 0 {
			c.emitSplit(start, block, "", "")
		}
		block = block[:0]
	}
	j := i + 1
	for ; j < len(c.lines); j++ {
		raw := strings.TrimRight(c.lines[j], " \t")
		t := strings.TrimLeft(raw, " \t")
		if len(t) >= n && strings.Trim(t, string(ch)) == "" && t[0] == ch {
			break
		}
		if t == "" {
			flush()
			continue
		}
		if len(block) == 0 {
			start = j + 1
		}
		block = append(block, raw)
	}
	flush()
	return j
}

// table consumes a table whose header row is lines[i] and returns the index
// of its last row.
func (c *chunker) table(i int) int {
	header := strings.TrimRight(c.lines[i], " \t")
	j := i + 2
	for ; j < len(c.lines); j++ {
		row := strings.TrimRight(c.lines[j], " \t")
		if strings.TrimSpace(row) == "" || !strings.Contains(row, "|") {
			break
		}
		c.out = append(c.out, chunk{line: j + 1, text: header + "\n" + row, heading: c.heading()})
	}
	return j - 1
}

func indent(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

func isFence(t string) bool {
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// atxLevel returns the level of an ATX heading ("# x" … "###### x"), or 0.
func atxLevel(t string) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(t) && t[n] != ' ' && t[n] != '\t') {
		return 0
	}
	return n
}

func atxText(t string) string {
	t = strings.TrimLeft(t, "#")
	t = strings.TrimSpace(t)
	// optional closing sequence: "## x ##"
	if s := strings.TrimRight(t, "#"); s != t && (s == "" || strings.HasSuffix(s, " ")) {
		t = strings.TrimSpace(s)
	}
	return t
}

func isSetext(t string) bool {
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// isBreak reports a thematic break: three or more of the same '*', '-' or
// '_', optionally separated by spaces.
func isBreak(t string) bool {
	s := strings.ReplaceAll(strings.ReplaceAll(t, " ", ""), "\t", "")
	if len(s) < 3 {
		return false
	}
	return strings.Trim(s, s[:1]) == "" && (s[0] == '*' || s[0] == '-' || s[0] == '_')
}

// isDelimiterRow reports a table delimiter row such as "|---|:--:|".
func isDelimiterRow(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.Contains(t, "-") {
		return false
	}
	cells := 0
	for _, cell := range strings.Split(strings.Trim(t, "|"), "|") {
		cell = strings.TrimSpace(cell)
		cell = strings.TrimPrefix(cell, ":")
		cell = strings.TrimSuffix(cell, ":")
		if cell == "" || strings.Trim(cell, "-") != "" {
			return false
		}
		cells++
	}
	return cells > 1 || strings.Contains(t, "|")
}

// listMarker returns the byte length of a list item marker with the
// whitespace after it ("- ", "* ", "+ ", "1. ", "2) "), or 0.
func listMarker(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	switch {
	case j < len(s) && (s[j] == '-' || s[j] == '*' || s[j] == '+'):
		j++
	default:
		for j < len(s) && j-i < 9 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j >= len(s) || (s[j] != '.' && s[j] != ')') {
			return 0
		}
		j++
	}
	if j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		return j
	}
	return 0
}
