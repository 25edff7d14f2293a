package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/lambda"
)

// TestTablePrices: prices in the embedded knowledge base's tables
// (kb/en/pricing.md, kb/sv/priser.md) are read with their column headers,
// end to end over the WebSocket in hold and after mode: a monthly price
// said as a yearly one, or a yearly as a monthly, is blocked; each said
// with its own period is verified.
func TestTablePrices(t *testing.T) {
	cases := []struct {
		say    string
		status string
		number string // a number of the answer that a table row must be cited with
	}{
		{"Premium costs 399 kr per year.", lambda.StatusBlocked, "399 kr"},
		{"Premium costs 3 830 kr per month.", lambda.StatusBlocked, "3 830 kr"},
		{"Familj kostar 5 270 kr i månaden.", lambda.StatusBlocked, "5 270 kr"},
		{"Premium costs 399 kr a month.", lambda.StatusVerified, ""},
		{"Premium costs 3 830 kr a year.", lambda.StatusVerified, "3 830 kr"},
		{"Premium kostar 3 830 kr per år.", lambda.StatusVerified, "3 830 kr"},
		{"you save 958 kr per year", lambda.StatusVerified, "958 kr"},
	}
	for _, mode := range []lambda.Mode{lambda.ModeHold, lambda.ModeAfter} {
		ts := startServer(t, func(c *config) { c.Mode = mode })
		c := ts.dial(t, "", nil)
		for i, tc := range cases {
			id := "t" + strconv.Itoa(i)
			c.message(id, "$say "+tc.say)
			reason := lambda.ReasonDone
			if tc.status == lambda.StatusBlocked {
				reason = lambda.ReasonBlocked
			}
			resp := checkFlow(t, c.answer(id), id, reason, tc.status)
			if tc.number == "" {
				continue
			}
			// The verdict is the table's: the row that prints the
			// number is among the snippets the answer was checked with.
			cited := false
			for _, ct := range resp.Citations {
				cited = cited || strings.HasPrefix(ct.Snippet, "|") && strings.Contains(ct.Snippet, "| "+tc.number+" |")
			}
			if !cited {
				t.Errorf("%q (mode %v): no table row with %s among %+v", tc.say, mode, tc.number, resp.Citations)
			}
		}
	}
}
