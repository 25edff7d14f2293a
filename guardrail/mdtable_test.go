package guardrail

import (
	"slices"
	"strings"
	"testing"
)

// tableCase is one line of testdata/tables.jsonl: a quantityCase whose
// snippets hold Markdown tables, in the split "dev" (the default) or
// "heldout" (written before the rule was run, never tuned on).
type tableCase struct {
	quantityCase
	Split string `json:"split"`
}

// TestTables checks every pair of testdata/tables.jsonl, whole and
// streamed rune by rune in hold mode, and reports the dev and held-out
// pairs apart: every dev pair must hold; a held-out pair that fails is
// reported, and the held-out figure must stay at 80 % or more.
func TestTables(t *testing.T) {
	cases := readJSONL[tableCase](t, "../testdata/tables.jsonl")
	if len(cases) < 30 {
		t.Fatalf("%d cases; the table must keep at least 30", len(cases))
	}
	type score struct{ right, all int }
	scores := map[string]*score{"dev": {}, "heldout": {}}
	for _, c := range cases {
		split := c.Split
		if split == "" {
			split = "dev"
		}
		sc, ok := scores[split]
		if !ok {
			t.Fatalf("%s: unknown split %q", c.Why, c.Split)
		}
		sc.all++
		srcs := NewSources(c.Snippets)
		v := Verify(c.Answer, srcs)
		got := verdictWord(v)
		g := NewStreamGuard(srcs)
		for _, r := range c.Answer {
			if _, ok := g.Feed(string(r)); !ok {
				break
			}
		}
		if _, sv := g.Close(); sv.Grounded != v.Grounded {
			t.Errorf("%s: streamed verdict %v, whole %v", c.Why, sv.Grounded, v.Grounded)
		}
		if got == c.Want {
			sc.right++
			continue
		}
		report := t.Errorf
		if split == "heldout" {
			report = t.Logf
		}
		report("%s (%s)\n  snippet %q\n  answer  %q\n  got %s, want %s: %+v", c.Why, split, c.Snippets, c.Answer, got, c.Want, v.Numbers)
	}
	for _, split := range []string{"dev", "heldout"} {
		t.Logf("%s: %d/%d", split, scores[split].right, scores[split].all)
	}
	if h := scores["heldout"]; h.all == 0 || 5*h.right < 4*h.all {
		t.Errorf("held out: %d/%d, under 80 %%", h.right, h.all)
	}
}

// TestReadHeader: what a header cell says of its column, read with the
// guard's word tables.
func TestReadHeader(t *testing.T) {
	c := func(unit, period string) column {
		return column{unit: nameCode(unit), period: nameCode(period)}
	}
	for _, tc := range []struct {
		header string
		want   column
	}{
		{"Monthly price", c("", "month")},
		{"Yearly price", c("", "year")},
		{"Annual fee", c("", "year")},
		{"You save per year", c("", "year")},
		{"Pris per månad", c("", "month")},
		{"Pris /mån", c("", "month")},
		{"Månadspris", c("", "month")},
		{"Årspris", c("", "year")},
		{"Månads- och årspris", column{}}, // two periods: none
		{"Årlig avgift", c("", "year")},
		{"Price (SEK)", c("SEK", "")},
		{"Pris (kr/mån)", c("SEK", "month")},
		{"Storage (GB)", c("GB", "")},
		{"Storage (GB) per user", c("GB", "user")},
		{"Days", c("day", "")},
		{"Dagar", c("day", "")},
		{"Users", c("user", "")},
		{"Price (€)", c("EUR", "")},
		{"Price per GB", c("", "GB")}, // a price per GB, as "12 kr/GB" is
		{"Pris i kr", c("SEK", "")},
		{"Price (SEK/EUR)", column{}},
		{"Min", column{}},
		{"Most popular", column{}},
		{"Plan", column{}},
		{"Revenue (MSEK)", column{unit: cellConflict}},
		{"Discount (%)", column{percent: true}},
		{"Rabatt i procent", column{percent: true}},
		{"Discount (per cent)", column{percent: true}},
		{"Price ($)", c("USD", "")},
		{"Valid until (date)", column{date: true}},
		{"Startdatum", column{date: true}},
	} {
		if got := readHeader(lowerString(tc.header)); got != tc.want {
			t.Errorf("readHeader(%q) = %+v, want %+v", tc.header, got, tc.want)
		}
	}
}

// TestCells: the cells of a row (cellStart, cellEnd), with and without
// outer pipes and with an escaped pipe; the text after a trailing '|' is
// a last, empty cell.
func TestCells(t *testing.T) {
	for _, tc := range []struct {
		row  string
		want []string
	}{
		{"| Plan | Price |", []string{"Plan", "Price", ""}},
		{"Plan | Price", []string{"Plan", "Price"}},
		{"  | a |  | c", []string{"a", "", "c"}},
		{`| a \| b | c |`, []string{`a \| b`, "c", ""}},
	} {
		var got []string
		for c := cellStart(tc.row); c <= len(tc.row); {
			e := cellEnd(tc.row, c)
			got = append(got, strings.TrimSpace(tc.row[c:e]))
			c = e + 1
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("cells of %q = %q, want %q", tc.row, got, tc.want)
		}
	}
	for _, tc := range []struct {
		row         string
		lead, delim bool
	}{
		{"|---|:--:|", true, true},
		{"--- | ---", false, true},
		{"| a | b |", true, false},
		{"a | b", false, false},
		{"| | |", true, false},
	} {
		if _, lead, delim := lineAt(tc.row+"\nnext", 0); lead != tc.lead || delim != tc.delim {
			t.Errorf("lineAt(%q) = %v, %v; want %v, %v", tc.row, lead, delim, tc.lead, tc.delim)
		}
	}
}
