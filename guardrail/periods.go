package guardrail

// Periods of several units: "199 kr every 3 months", "every two weeks",
// "every other month", "var tredje månad", "var 14:e dag", "varannan
// vecka". A join that counts ("every", "each", "per", "varje", "var",
// "vart", "pro"; not "a", "i" or "om": "i två månader" is for how long,
// "om två månader" when) may put a count before the period: digits (with
// an ordinal's suffix or not: "every 2nd week"), a cardinal or ordinal
// word to twelve ("two", "third", "tre", "tredje") or "other" ("annan",
// "annat"). The period is that many of its unit, and agrees with any
// period of the same length: its length counted in seconds for the units
// of a day or less and weeks (every 2 weeks is a fortnight and every 14
// days), in months for months, quarters and years (every 3 months is a
// quarter, every 12 months a year); a month is no number of days (every 4
// weeks and every 30 days are not monthly). A length no named period has
// is a period of its own ("2 months", "3 weeks", "10 days", "2 years"),
// to 31 days, 12 weeks, 11 months and 9 years; a longer one, or a count
// of hours, is irregular (see irregular): it agrees with no period.

// periodCounts are the counts a counting join may put before a period.
var periodCounts = newWordSet(table(`
	2 = other two second annan annat två andra
	3 = three third tre tredje
	4 = four fourth fyra fjärde
	5 = five fifth fem femte
	6 = six sixth sex sjätte
	7 = seven seventh sju sjunde
	8 = eight eighth åtta åttonde
	9 = nine ninth nio nionde
	10 = ten tenth tio tionde
	11 = eleven eleventh elva elfte
	12 = twelve twelfth tolv tolfte`))

// periodMultiple is a period of several units that no unit names: its
// name, its family in convertSpec and its length there.
type periodMultiple struct {
	name, family string
	size         int64
}

// periodMultiples are the periods of several units that have a code of
// their own (see above), in the order of their codes after the units.
var periodMultiples = func() (out []periodMultiple) {
	const day = 86400
	named := map[int64]bool{day: true, 7 * day: true, 14 * day: true}
	for n := int64(2); n <= 31; n++ {
		if !named[n*day] && n%7 != 0 {
			out = append(out, periodMultiple{itoa(n) + " days", "seconds", n * day})
		}
	}
	for n := int64(3); n <= 12; n++ {
		out = append(out, periodMultiple{itoa(n) + " weeks", "seconds", 7 * n * day})
	}
	for n := int64(2); n <= 11; n++ {
		if n != 3 && n != 6 {
			out = append(out, periodMultiple{itoa(n) + " months", "months", n})
		}
	}
	for n := int64(2); n <= 9; n++ {
		out = append(out, periodMultiple{itoa(n) + " years", "months", 12 * n})
	}
	return out
}()

// periodTimes returns the period of n of the period unit code: the unit
// of its length (named first), irregular when no unit has it, or 0 when
// code is no unit of time ("per 5 users" is no period: 5 users are a
// count of their own).
func periodTimes(n int, code uint8) uint8 {
	if n == 1 {
		return code
	}
	sc := scales[code]
	if sc.family != secondFamily && sc.family != monthFamily {
		if code == irregular {
			return irregular
		}
		return 0
	}
	size, ok := sc.size.mul(dec{c: int64(n)})
	if !ok {
		return irregular
	}
	for c, other := range scales {
		if other.family == sc.family && other.size.cmp(size) == 0 {
			return uint8(c)
		}
	}
	return irregular
}

// periodCount reads a count at i that a counting join puts before a
// period ("every two weeks", "var 14:e dag"), followed by a space: its
// value and the index after the space.
func (s *scanner) periodCount(i int) (n, end int, ok bool) {
	if c := s.ascii(i); uint32(c-'0') < 10 {
		e := i
		for ; e < i+3 && uint32(s.ascii(e)-'0') < 10; e++ {
			n = 10*n + int(s.ascii(e)-'0')
		}
		if k, ok := s.ordinalSuffix(e); ok {
			e = k
		}
		if n == 0 || s.ascii(e) != ' ' {
			return 0, 0, false
		}
		return n, e + 1, true
	}
	w, e, ok := s.read(periodCounts, i)
	if !ok || s.ascii(e) != ' ' {
		return 0, 0, false
	}
	return digitsValue(w.value), e + 1, true
}

// periodLengths appends to more the lengths of time that the periods of
// several units among nums print with a count ("every two weeks": two
// weeks), which a snippet states as well as the period: "billed every
// two weeks" is grounded by "199 kr every two weeks".
func periodLengths(more, nums []Number) []Number {
	for k := range nums {
		n := &nums[k]
		if n.Period == 0 || n.Period == Unit(irregular) {
			continue
		}
		// the text after a counting join ("every", "var", …)
		x := n.Text
		for i := 0; i < len(x); i++ {
			if x[i] != ' ' {
				continue
			}
			j := i + 1
			for j < len(x) && x[j] != ' ' {
				j++
			}
			if j < len(x) && periodSpaced.value([]byte(x[i+1:j])) == "n" {
				for _, m := range Extract(x[j+1:]) {
					if f := scales[m.Unit].family; f == secondFamily || f == monthFamily {
						more = append(more, m)
					}
				}
				break
			}
		}
	}
	return more
}
