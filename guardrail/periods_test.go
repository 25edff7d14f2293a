package guardrail

import "testing"

// TestPeriodTimes: a period of several units is the unit of its length,
// named first; a month is no number of days; a length no unit has is
// irregular, and a count of what is no unit of time no period.
func TestPeriodTimes(t *testing.T) {
	for _, c := range []struct {
		n          int
		unit, want string
	}{
		{1, "month", "month"},
		{2, "week", "fortnight"},
		{14, "day", "fortnight"},
		{7, "day", "week"},
		{3, "month", "quarter"},
		{6, "month", "half-year"},
		{12, "month", "year"},
		{24, "month", "2 years"},
		{10, "year", "decade"},
		{2, "month", "2 months"},
		{4, "week", "4 weeks"},
		{28, "day", "4 weeks"},
		{30, "day", "30 days"},
		{24, "hour", "day"},
		{60, "minute", "hour"},
		{2, "hour", "irregular"},
		{32, "day", "irregular"},
		{13, "month", "irregular"},
		{2, "fortnight", "4 weeks"},
		{2, "quarter", "half-year"},
		{5, "user", ""},
		{10, "GB", ""},
	} {
		if got := names[periodTimes(c.n, unitNamed(c.unit))]; got != c.want {
			t.Errorf("%d × %s = %q, want %q", c.n, c.unit, got, c.want)
		}
	}
}

// TestPeriodsOfSeveralUnits: what reads as a period of several units after
// a price, and what does not.
func TestPeriodsOfSeveralUnits(t *testing.T) {
	for _, c := range []struct {
		text, number, period string
	}{
		{"199 kr every 3 months.", "199 kr every 3 months", "quarter"},
		{"199 kr every two weeks.", "199 kr every two weeks", "fortnight"},
		{"199 kr every 2nd week.", "199 kr every 2nd week", "fortnight"},
		{"199 kr every other month.", "199 kr every other month", "2 months"},
		{"199 kr per 4 weeks.", "199 kr per 4 weeks", "4 weeks"},
		{"199 kr var tredje månad.", "199 kr var tredje månad", "quarter"},
		{"199 kr var 14:e dag.", "199 kr var 14:e dag", "fortnight"},
		{"199 kr vart annat år.", "199 kr vart annat år", "2 years"},
		{"199 kr varannan vecka.", "199 kr varannan vecka", "fortnight"},
		{"199 kr every 90 days.", "199 kr every 90 days", "irregular"},
		{"199 kr twice a year.", "199 kr twice a year", "half-year"},
		{"199 kr per half year.", "199 kr per half year", "half-year"},
		{"199 kr every half-year.", "199 kr every half-year", "half-year"},
		{"199 kr every half hour.", "199 kr every half hour", "irregular"},
		{"199 kr per halfway point.", "199 kr", ""},
		{"199 kr four times a year.", "199 kr four times a year", "quarter"},
		{"199 kr three times a year.", "199 kr three times a year", "4 months"},
		{"199 kr två gånger om året.", "199 kr två gånger om året", "half-year"},
		{"199 kr seven times a week.", "199 kr seven times a week", "day"},
		{"199 kr twice a month.", "199 kr twice a month", "irregular"},
		{"199 kr twice.", "199 kr", ""},
		{"199 kr two times in a row.", "199 kr", ""},
		// not periods: a count of users, a join that does not count, a
		// lead
		{"399 kr per 5 users.", "399 kr", ""},
		{"99 kr i två månader.", "99 kr", ""},
		{"99 kr om två månader.", "99 kr", ""},
		{"99 kr for the first two months.", "99 kr", ""},
		{"199 kr every 3 apples.", "199 kr", ""},
	} {
		ns := Extract(c.text)
		if len(ns) == 0 || ns[0].Text != c.number || ns[0].Period.String() != c.period {
			t.Errorf("%q: %+v, want %q per %q", c.text, ns, c.number, c.period)
		}
	}
}

// TestPeriodLengths: a snippet's period of several units states its
// length printed with a count, so an answer may say it alone.
func TestPeriodLengths(t *testing.T) {
	srcs := NewSources([]string{"Premium: 199 kr every two weeks."})
	for answer, want := range map[string]bool{
		"Premium is billed every two weeks, 199 kr each time.": true,
		"You are billed every 2 weeks.":                        true,
		"You are billed every 3 weeks.":                        false,
		"Premium costs 199 kr a week.":                         false,
	} {
		if got := Verify(answer, srcs).Grounded; got != want {
			t.Errorf("%q: grounded %v, want %v", answer, got, want)
		}
	}
}
