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
// of hours, is irregular (see irregular): it agrees with no period. "half"
// after a counting join halves the period ("per half year", "every
// half-year").

// halfWord halves the period after a counting join: "per half year".
var halfWord = newWordSet(table(`= half`))

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
	for n := int64(2); n <= 31; n++ {
		if n%7 != 0 { // (7 and 14 days are a week and a fortnight)
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
	return periodOfLength(sc.family, size)
}

// periodOfLength returns the period of family whose length is size (a
// named one first, see scales), or irregular when none has it.
func periodOfLength(family int, size dec) uint8 {
	for c, other := range scales {
		if other.family == family && other.size.cmp(size) == 0 {
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

// spacedPeriod reads the period after a space at p after a quantity of
// unit (0: none): an adverb ("monthly"), or joins and a period word ("per
// month", "for the whole year", "every 3 months"; see periodSpaced). It
// returns the period and where it ends, or 0.
func (s *scanner) spacedPeriod(p int, unit uint8) (uint8, int) {
	if code, e := s.timesPeriod(p + 1); code != 0 {
		return code, e // "twice a year"
	}
	w, e, ok := s.read(periodSpaced, p+1)
	// count: several of the period ("every 3 months", "varannan vecka").
	count := 1
	for n := 0; ok && w.code == 0 && s.ascii(e) == ' ' && n < 3; n++ { // a join: the period follows
		lead, at := w.value == "+", e+1
		if w.value == "2" {
			count = 2
		}
		if lead && unit == 0 { // leads only after a unit: "399 kr for a year"
			return 0, 0
		}
		counted := false
		if w.value == "n" && count == 1 {
			if _, h, ok := s.read(halfWord, at); ok && (s.ascii(h) == ' ' || s.ascii(h) == '-') {
				// "per half year", "every half-year": the period halved
				if v, end, ok := s.read(periodWords, h+1); ok {
					if code := periodDivided(v.code, 2); code != 0 {
						return code, end
					}
				}
				return 0, 0
			}
			count, at, counted = s.periodCount(at)
			if !counted {
				count, at = 1, e+1
			}
		}
		if counted {
			// a count: the unit of time, in the plural too ("every 3
			// months")
			w, e, ok = s.read(unitWords, at)
		} else if w, e, ok = s.read(periodWords, at); !ok {
			// After "for", "the", another join; after "per", "calendar".
			var v *trieNode
			if v, e, ok = s.read(periodSpaced, at); ok && (lead || v.value == "+") {
				w = v
			} else {
				ok = false
			}
		}
	}
	if !ok || w.code == 0 {
		return 0, 0
	}
	if a, _ := s.wordAt(e); timeAgo[a] {
		return 0, 0 // "$0.29 a year ago" is no price per year
	}
	if code := periodTimes(count, w.code); code != 0 {
		return code, e
	}
	return 0, 0
}

// timeAgo are the words after "a year", "ett år" that make it a time
// before or after, not a period: "$0.29 a year ago", "ett år tidigare".
var timeAgo = wordList(`ago earlier later before after back sedan tidigare senare innan efter`)

// The periods of a price per a count and a time: "99 kr per user per
// month", "3 000 kr per person och månad", "149 kr a month per household"
// (in either order; the second after a space and a period, or after "and"
// or "och" and a period word, or after '/'). Each is a period of its own
// ("user per month"), made of two parts that perParts gives; an answer's
// period agrees with a snippet's when each part the answer prints is the
// snippet's (see periodAgrees). A count with another time ("per user
// every 2 weeks") is irregular.
var (
	perCounts = [...]string{"user", "household", "device", "account"}
	perTimes  = [...]string{"day", "week", "month", "quarter", "year"}
)

// perParts are the parts of each period by code: what it counts per and
// its time (0: none); a period that is no compound has one of them.
var perParts = func() (out [256][2]uint8) {
	for c := range out {
		if perCount[c] {
			out[c][0] = uint8(c)
		} else {
			out[c][1] = uint8(c) // (a code with no name too: it agrees with none but itself)
		}
	}
	for _, c := range perCounts {
		for _, t := range perTimes {
			out[unitNamed(c+" per "+t)] = [2]uint8{unitNamed(c), unitNamed(t)}
		}
	}
	out[0] = [2]uint8{}
	return out
}()

// perCompound returns the period per count and time, irregular when no
// code has it.
func perCompound(count, time uint8) uint8 {
	for c := range names {
		if perParts[c] == [2]uint8{count, time} && perCount[count] && time != 0 {
			return uint8(c)
		}
	}
	return irregular
}

// secondPeriod reads a second period at p after a quantity's period
// first, when one of them counts what the price is per and the other is
// a time ("99 kr per user per month"): the period of both and where it
// ends, or 0.
func (s *scanner) secondPeriod(first uint8, p int, unit uint8) (uint8, int) {
	if perCount[first] == (perParts[first][1] != 0) || first == irregular {
		return 0, 0 // neither a count nor a time alone
	}
	var second uint8
	e := 0
	switch s.ascii(p) {
	case '/':
		if w, end, ok := s.read(periodWords, p+1); ok {
			second, e = w.code, end
		}
	case ' ':
		if w, end, ok := s.read(andWords, p+1); ok && s.ascii(end) == ' ' {
			if w, end, ok = s.read(periodWords, end+1); ok {
				second, e = w.code, end
			}
			break
		}
		second, e = s.spacedPeriod(p, unit)
	}
	switch {
	case second == 0 || perCount[first] == perCount[second] || second == irregular:
		return 0, 0
	case perCount[first]:
		return perCompound(first, second), e
	}
	return perCompound(second, first), e
}

// andWords join a second period to a first: "per person och månad".
var andWords = newWordSet(table(`= and och`))

// periodAgrees reports whether an answer's quantity per the period ans
// may be a snippet's per src: where both print a period, each part of the
// answer's (what it counts per, its time) is the snippet's, so that an
// answer may leave a part out ("149 kr per month" for "149 kr per
// household per month") but not add one ("149 kr per user per month" for
// "149 kr/month"); the irregular period agrees with none.
func periodAgrees(src, ans uint8) bool {
	if src == 0 || ans == 0 {
		return true
	}
	if src == ans {
		return src != irregular
	}
	s, a := perParts[src], perParts[ans]
	return (a[0] == 0 || a[0] == s[0]) && (a[1] == 0 || a[1] == s[1] && a[1] != irregular)
}

// Periods divided: "199 kr twice a year" is paid every half-year, "four
// times a year" every quarter, "två gånger om året" every half-year: a
// count of times ("twice", "thrice", a count word and "times" or
// "gånger") before a join and a period word is the period divided by the
// count, when it divides it into a whole number of the family's units
// that a period has (twice a month, twice a day: irregular).
var (
	timesWords = newWordSet(table(`
	2 = twice
	3 = thrice`))
	timesNouns = newWordSet(table(`= times gånger`))
)

// periodStarts are the words a period after a space may begin with (see
// quantityAfter and scanner.may): periodSpaced's and the counts of times.
var periodStarts = func() *wordSet {
	m := map[string]string{}
	for _, ws := range []*wordSet{periodSpaced, periodCounts, timesWords} {
		for w := range ws.words {
			m[w] = ""
		}
	}
	return newWordSet(m).withPairs()
}()

// timesPeriod reads at i a count of times, a join and a period word
// ("twice a year", "four times a year", "två gånger per år"): the period
// they make (see above) and where it ends, or 0.
func (s *scanner) timesPeriod(i int) (uint8, int) {
	n, e := 0, 0
	if w, end, ok := s.read(timesWords, i); ok {
		n, e = digitsValue(w.value), end
	} else if c, at, ok := s.periodCount(i); ok {
		if _, end, ok := s.read(timesNouns, at); ok {
			n, e = c, end
		}
	}
	if n == 0 || s.ascii(e) != ' ' {
		return 0, 0
	}
	w, e, ok := s.read(periodSpaced, e+1)
	if !ok || w.code != 0 || w.value != "" && w.value != "n" || s.ascii(e) != ' ' {
		return 0, 0
	}
	if w, e, ok = s.read(periodWords, e+1); !ok {
		return 0, 0
	}
	if code := periodDivided(w.code, n); code != 0 {
		return code, e
	}
	return 0, 0
}

// periodDivided returns the period of code divided by n (see above):
// irregular when no period has that length, 0 when code is no time.
func periodDivided(code uint8, n int) uint8 {
	sc := scales[code]
	if sc.family != secondFamily && sc.family != monthFamily {
		return 0
	}
	size, ok := sc.size.scaled(0)
	if !ok || sc.size.e < 0 || n <= 0 || size%int64(n) != 0 {
		return irregular
	}
	return periodOfLength(sc.family, dec{c: size / int64(n)})
}

// timeUnitWords are the unit words of time ("weeks", "månader"), which a
// count before a period reads in the plural too.
var timeUnitWords = func() *wordSet {
	m := map[string]string{}
	for w, v := range unitWords.words {
		_, name, _ := cut(v, ' ')
		if f := scales[nameCode(name)].family; f == secondFamily || f == monthFamily {
			m[w] = v
		}
	}
	return newWordSet(m)
}()
