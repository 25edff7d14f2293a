package guardrail

import (
	"unicode/utf8"
)

// This file reads the Markdown tables of a snippet: a number in a cell of
// a table's row is what the cell's column header says it is. "399 kr"
// under "Monthly price" is 399 kr per month; "30" under "Storage (GB)" is
// 30 GB; "20" under "Discount (%)" is 20 %. The knowledge base gives each
// row its own snippet, the header row and the row ("| Plan | Monthly price
// |\n| Premium | 399 kr |"), so the row's first cell, which names what
// the row is about, stays with its numbers; a whole Markdown file is read
// the same way, table by table.
//
// A table is a header row followed by rows: either a line holding '|'
// with a delimiter row ("|---|:--:|") under it, or a run of lines that
// begin with '|' (a row's snippet), whose first line is the header.

// column is what a header cell says of the numbers under it.
type column struct {
	unit, period uint8     // codes into names; cellConflict: fail closed
	percent      bool      // the cells are percentages ("Discount (%)")
	date         bool      // the cells are dates or years ("Valid until (date)")
	q            qualifier // the cells' bound and tax ("Max users", "Price excl. VAT"; see headerQualifier)
}

// cellConflict is the code of a unit or period that no quantity of an
// answer has: that of a cell whose own unit (or period) and its column's
// differ, or under a header that prints a scale ("Revenue (MSEK)"). Such a
// cell grounds only a number that prints none. cellPercent is the same for
// a bare number of a percent column, which is also indexed as a percentage.
const (
	cellConflict       = boundUnit
	cellPercent  uint8 = 0xFE
)

// bindCells returns the attrs NewSource indexes each number of nums
// (extracted from text, with the scan's tokens toks) with: what its cell
// and its column say together (see column.bind) for a number in a cell of
// a table's row, none (its own) for the others; nil when text holds no
// table. quals are the cells' qualifiers from their headers (see
// headerQualifier), beside.
func bindCells(text string, nums []Number, toks []token) (out []attrs, quals []qualifier) {
	if indexByte(text, '|') < 0 {
		return nil, nil
	}
	var cols []column // of the table being read; nil outside one
	k := 0            // the first number not before the cell read
	for at := 0; at < len(text); {
		ln, lead, delim := lineAt(text, at)
		next := at + len(ln) + 1
		if cols == nil { // a header, when a delimiter row or a row follows
			nl, nlead, ndelim := lineAt(text, next)
			if ndelim && indexByte(ln, '|') >= 0 || lead && nlead {
				for c := cellStart(ln); c <= len(ln); {
					e := cellEnd(ln, c)
					cols = append(cols, readHeader(lowerString(ln[c:e])))
					c = e + 1
				}
			}
			if at = next; ndelim {
				at += len(nl) + 1
			}
			continue
		}
		if indexByte(ln, '|') < 0 || delim {
			cols = nil
		}
		// A row: the number in its c-th cell takes column c's.
		for c, from := 0, cellStart(ln); from <= len(ln) && c < len(cols); c++ {
			to := cellEnd(ln, from)
			// The numbers are in the order of the text, as the cells
			// are: k passes those before this cell.
			for k < len(nums) && nums[k].Start < at+from {
				k++
			}
			for m := k; m < len(nums) && nums[m].End <= at+to; m++ {
				if out == nil {
					out, quals = make([]attrs, len(nums)), make([]qualifier, len(nums))
				}
				out[m] = cols[c].bind(nums[m].Kind, attrs{toks[m].unit, toks[m].period})
				quals[m] = cols[c].q
			}
			from = to + 1
		}
		at = next
	}
	return out, quals
}

// lineAt returns the line of text that begins at byte at, whether it
// begins with '|' after spaces (lead), and whether it is a table's
// delimiter row ("|---|:--:|", "--- | ---": '-', ':', '|' and spaces only,
// with a '-').
func lineAt(text string, at int) (ln string, lead, delim bool) {
	if at < len(text) {
		ln = text[at:]
	}
	first, dash, other := byte(0), false, false
	for i := 0; i < len(ln); i++ {
		c := ln[i]
		if c == '\n' {
			ln = ln[:i]
			break
		}
		if first == 0 && c != ' ' && c != '\t' {
			first = c
		}
		switch c {
		case '-':
			dash = true
		case ':', '|', ' ', '\t', '\r':
		default:
			other = true
		}
	}
	return ln, first == '|', dash && !other
}

// cellStart returns where the first cell of a row begins: after a leading
// '|'.
func cellStart(s string) int {
	if i := indexByte(s, '|'); i >= 0 && blankLine(s[:i]) {
		return i + 1
	}
	return 0
}

// cellEnd returns where the cell of a row that begins at i ends: at the
// next '|' not escaped, or at the end of the row.
func cellEnd(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			return i
		}
	}
	return len(s)
}

func blankLine(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\r' {
			return false
		}
	}
	return true
}

// bind returns what a number of kind k printed with own (its unit and
// period) in a cell of column c is indexed with. A cell's own unit or
// period stands where its column has none or the same one; where they
// differ, it is cellConflict. Units go to amounts (plain numbers and
// numbers in words), periods to amounts and percentages; a date, time,
// phone number or ordinal keeps what it prints.
func (c column) bind(k Kind, own attrs) attrs {
	amount := plain(k) || k == KindWords
	if !amount && k != KindPercent {
		return own
	}
	a := attrs{own.unit, merge(own.period, c.period)}
	if amount {
		a.unit = merge(own.unit, c.unit)
	}
	switch {
	case c.date && amount:
		a = attrs{cellConflict, cellConflict} // a year, not an amount
	case c.percent && amount && own.unit == 0:
		a.unit = cellPercent
	case c.percent:
		// A percentage grounds no amount with a unit, and a cell that
		// prints a unit is no percentage.
		a.unit = cellConflict
	}
	return a
}

// merge returns what a cell's own code and its column's say together.
func merge(own, col uint8) uint8 {
	switch {
	case col == 0 || own == col:
		return own
	case own == 0:
		return col
	}
	return cellConflict
}

// readHeader reads what a header cell, lower-cased, says its numbers are,
// with the guard's word tables:
//   - a period: a period word after a join or '/' ("per month", "pris per
//     månad", "GB/user"), an adverb of period or its adjective ("monthly",
//     "annual", "årlig"), or a Swedish compound of a period word and 's'
//     ("månadspris", "årsavgift", "Månads-");
//   - a unit or currency: a unit word ("Days", "Dagar", "Price (SEK)",
//     "Storage (GB)", "Pris i kr") not after a join unless a currency
//     ("per GB" says neither what the cells count in nor a period the
//     guard knows), except "min", which a header uses for minimum as
//     often as for minutes; a scale word ("(MSEK)", "thousands") makes
//     the unit cellConflict, as the cells do not print the value;
//   - a kind: '%' or a percent word, a percentage; a date word ("Date",
//     "Datum", "Startdatum"), a date.
//
// A header that names two different units (or periods) binds none of them.
func readHeader(h string) column {
	var c column
	var named [2]uint8 // the unit and the period named (cellConflict: several)
	scaled := false
	prev := "" // the word or symbol before, "" at the start
	for i := 0; i < len(h); {
		r, size := utf8.DecodeRuneInString(h[i:])
		j := i + size
		for j < len(h) && isLetter(r) {
			r, size = utf8.DecodeRuneInString(h[j:])
			if !isLetter(r) {
				break
			}
			j += size
		}
		w := h[i:j]
		hyphen := j < len(h) && h[j] == '-'
		// (A join: "per", "a", "i", "om", … as periodSpaced holds them,
		// or '/'.)
		join := prev == "/" || periodSpaced.has([]byte(prev)) && (periodSpaced.words[prev] == "" || periodSpaced.words[prev] == "n")
		slot, code := 0, uint8(0)
		switch {
		case w == " " || w == "-" || w == "_" || w == "*" || w == "\t":
			i = j
			continue
		case w == "%" || percentWords.has([]byte(w)) || percentWords.has([]byte(prev+" "+w)): // ("per cent")
			c.percent = true
		case join && periodWords.code(w) != 0:
			slot, code = 1, periodWords.code(w)
		case join && prev != "/" && unitWords.code(w) > lastCurrency:
			// What a quantity is per, and no period ("per GB"): not
			// its unit. (No quantity is per a currency: "pris i kr"
			// is in kronor. The currencies come first in names.)
		case periodAdverb(w) != 0:
			slot, code = 1, periodAdverb(w)
		case w != "min" && unitWords.code(w) != 0:
			code = unitWords.code(w)
		case periodCompound(w, hyphen) != 0:
			slot, code = 1, periodCompound(w, hyphen)
		case dateHeads[w] != "" || len(w) > len("datum") && w[len(w)-len("datum"):] == "datum":
			c.date = true
		case scaleWords.words[w] != "":
			scaled = true
		}
		if code != 0 && named[slot] != code {
			if named[slot] != 0 {
				code = cellConflict
			}
			named[slot] = code
		}
		prev, i = w, j
	}
	for k := range named {
		if named[k] == cellConflict {
			named[k] = 0 // several: none
		}
	}
	c.unit, c.period = named[0], named[1]
	if scaled {
		c.unit = cellConflict
	}
	c.q = headerQualifier(h)
	return c
}

// dateHeads are the words of a header that names a date; a Swedish
// compound ends in "datum" ("startdatum").
var dateHeads = table(`date = date dates datum`)

// periodAdverb returns the period of w when it is an adverb of period of
// periodSpaced ("monthly", "årligen") or an adjective of one, which the
// adverb adds "ly" or "en" to ("annual", "årlig"); 0 otherwise.
func periodAdverb(w string) uint8 {
	if len(w) < 4 {
		return 0
	}
	for _, a := range [...]string{w, w + "ly", w + "en"} {
		if c := periodSpaced.code(a); c != 0 {
			return c
		}
	}
	return 0
}

// periodCompound returns the period of a Swedish compound of a period
// word, 's' and more ("månadspris", "årsavgift", "dygnspris"), or of the
// first part of one written with a hyphen ("Månads-"); 0 otherwise.
func periodCompound(w string, hyphen bool) uint8 {
	for k := len(w) - 1; k >= 3; k-- { // (a part of 3 bytes or more: not "mo" of "most")
		if w[k] != 's' || !hyphen && k == len(w)-1 {
			continue
		}
		if c := periodWords.code(w[:k]); c != 0 {
			return c
		}
	}
	return 0
}
