package guardrail

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// want is one expected number: "kind text canonical", then its unit and
// "/period" when it has them.
type want = string

func describe(nums []Number) []string {
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = fmt.Sprintf("%s %q %s", n.Kind, n.Text, n.Canonical)
		if n.Unit != 0 {
			out[i] += " " + n.Unit.String()
		}
		if n.Period != 0 {
			out[i] += " /" + n.Period.String()
		}
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []want
	}{
		// SPEC §3 table, kind by kind.
		{"integer", "12 och 99 och 1000", []want{`integer "12" 12`, `integer "99" 99`, `integer "1000" 1000`}},
		{"decimal point", "12.5", []want{`decimal "12.5" 12.5`}},
		{"decimal comma", "12,5", []want{`decimal "12,5" 12.5`}},
		{"trailing zeros", "12.50 and 12,00", []want{`decimal "12.50" 12.5`, `decimal "12,00" 12`}},
		{"grouped space", "10 000", []want{`grouped "10 000" 10000`}},
		{"grouped nbsp", "10\u00a0000", []want{`grouped "10\u00a0000" 10000`}},
		{"grouped thin", "10\u2009000", []want{`grouped "10\u2009000" 10000`}},
		{"grouped narrow nbsp", "10\u202f000", []want{`grouped "10\u202f000" 10000`}},
		{"grouped million", "1 000 000", []want{`grouped "1 000 000" 1000000`}},
		{"grouped with decimal", "10 000,50 kr", []want{`decimal "10 000,50 kr" 10000.5 SEK`}},
		{"percent", "20%", []want{`percent "20%" 20%`}},
		{"percent spaced", "20 %", []want{`percent "20 %" 20%`}},
		{"percent decimal", "12,5 %", []want{`percent "12,5 %" 12.5%`}},
		{"percent word", "20 procent och 30 percent", []want{`percent "20 procent" 20%`, `percent "30 percent" 30%`}},
		{"date dash", "2025-12-31", []want{`date "2025-12-31" 2025-12-31`}},
		{"date slash", "2025/12/31", []want{`date "2025/12/31" 2025-12-31`}},
		{"date short parts", "2025-1-5", []want{`date "2025-1-5" 2025-01-05`}},
		{"phone intl spaces", "+46 8 123 45 67", []want{`phone "+46 8 123 45 67" +4681234567`}},
		{"phone intl hyphens", "+46-8-123-45-67", []want{`phone "+46-8-123-45-67" +4681234567`}},
		{"phone intl compact", "+4681234567", []want{`phone "+4681234567" +4681234567`}},
		{"phone national", "08-123 45 67", []want{`phone "08-123 45 67" 081234567`}},
		{"phone mobile", "070-123 45 67", []want{`phone "070-123 45 67" 0701234567`}},
		{"phone mobile spaces", "070 123 45 67", []want{`phone "070 123 45 67" 0701234567`}},
		{"unit kr", "399 kr", []want{`integer "399 kr" 399 SEK`}},
		{"unit TB", "1 TB", []want{`integer "1 TB" 1 TB`}},
		{"unit attached", "1TB", []want{`integer "1TB" 1 TB`}},
		{"unit per month", "99 kr/månad", []want{`integer "99 kr/månad" 99 SEK /month`}},
		// A name with digits in it is a name, checked as written (case
		// and hyphens folded, a plural "s" dropped).
		{"name with digits", "A380", []want{`name "A380" A380`}},
		{"name with digits and hyphen", "COVID-19", []want{`name "COVID-19" COVID19`}},
		{"name lower case", "a380", []want{`name "a380" A380`}},
		{"name plural", "two A380s", []want{`words "two" 2`, `name "A380s" A380`}},
		{"name and number", "Boeing 777", []want{`integer "777" 777`}},
		{"time", "14:30", []want{`time "14:30" 14:30`}},
		{"time short", "kl 8:05", []want{`time "8:05" 08:05`}},
		{"times range", "08:00–17:00", []want{`time "08:00" 08:00`, `time "17:00" 17:00`}},

		// Rule 6: forms settled here.
		{"one group comma", "1,000", []want{`ambiguous "1,000" 1,000`}},
		{"one group point", "1.000", []want{`ambiguous "1.000" 1,000`}},
		{"several groups comma", "181,674,817", []want{`grouped "181,674,817" 181674817`}},
		{"several groups point", "1.234.567", []want{`grouped "1.234.567" 1234567`}},
		{"grouping then decimal", "1,234.56 och 1.234,5", []want{`decimal "1,234.56" 1234.56`, `decimal "1.234,5" 1234.5`}},
		{"leading zero three decimals", "0.125", []want{`decimal "0.125" 0.125`}},
		{"long integer part three decimals", "1234.567", []want{`decimal "1234.567" 1234.567`}},
		{"unsettled shape", "1.2.3 och 12.5.2025", []want{`ambiguous "1.2.3" 1,2,3`, `ambiguous "12.5.2025" 12,5,2025`}},
		{"leading decimal mark", "only .5 left", []want{`decimal ".5" 0.5`}},
		{"markdown list", "1. First\n2. Second\n  3) Third", nil},
		{"list marker not mid-line", "Step 1. Then", []want{`integer "1" 1`}},
		{"list marker then number", "1. Pay 99 kr", []want{`integer "99 kr" 99 SEK`}},
		{"decimal at line start", "1.5 GB", []want{`decimal "1.5 GB" 1.5 GB`}},
		{"national vs international", "08-123 45 67 / +46 8 123 45 67", []want{`phone "08-123 45 67" 081234567`, `phone "+46 8 123 45 67" +4681234567`}},

		// Rule 5: no bypass.
		{"full-width digits", "９９ kr", []want{`integer "９９ kr" 99 SEK`}},
		{"arabic-indic digits", "٣٩٩", []want{`integer "٣٩٩" 399`}},
		{"devanagari digits", "१२", []want{`integer "१२" 12`}},
		{"superscript", "10³", []want{`integer "10³" 103`}},
		{"unicode minus", "−5 °C", []want{`integer "−5 °C" -5 °C`}},
		{"hyphen minus", "-5 °C", []want{`integer "-5 °C" -5 °C`}},
		{"zero width inside", "3\u200b99 kr", []want{`integer "3\u200b99 kr" 399 SEK`}},
		{"soft hyphen inside", "3\u00ad99", []want{`integer "3\u00ad99" 399`}},
		{"full-width percent", "２０％", []want{`percent "２０％" 20%`}},
		{"unicode minus in phone", "+46−8−123−45−67", []want{`phone "+46−8−123−45−67" +4681234567`}},

		// Spelled-out numbers, English and Swedish.
		{"ninety-nine", "ninety-nine", []want{`words "ninety-nine" 99`}},
		{"ninety nine", "Ninety nine", []want{`words "Ninety nine" 99`}},
		{"two thousand", "two thousand", []want{`words "two thousand" 2000`}},
		{"hundred and", "two hundred and fifty kr", []want{`words "two hundred and fifty kr" 250 SEK`}},
		{"a hundred", "a hundred", []want{`words "a hundred" 100`}},
		{"big", "three million four hundred thousand", []want{`words "three million four hundred thousand" 3400000`}},
		{"twenty percent", "twenty percent", []want{`percent "twenty percent" 20%`}},
		{"tjugo", "tjugo", []want{`words "tjugo" 20`}},
		{"två tusen", "två tusen", []want{`words "två tusen" 2000`}},
		{"tvåtusen", "tvåtusen", []want{`words "tvåtusen" 2000`}},
		{"nittionio", "nittionio", []want{`words "nittionio" 99`}},
		{"tvåhundrafemtio", "tvåhundrafemtio", []want{`words "tvåhundrafemtio" 250`}},
		{"ettusen", "ettusen", []want{`words "ettusen" 1000`}},
		{"en miljon", "en miljon", []want{`words "en miljon" 1000000`}},
		{"sexton", "sexton", []want{`words "sexton" 16`}},
		{"one is not a number", "one day, en dag, ett år", nil},
		{"and alone", "two and three", []want{`words "two" 2`, `words "three" 3`}},
		{"languages do not mix", "two tusen", []want{`words "two" 2`, `words "tusen" 1000`}},
		{"not number words", "often tenant entre tiotal sextiotalet", nil},

		// What must not merge (rule 3).
		{"three separate", "3 4 5", []want{`integer "3" 3`, `integer "4" 4`, `integer "5" 5`}},
		{"range", "1-2", []want{`integer "1" 1`, `integer "2" 2`}},
		{"range en dash", "10–20 %", []want{`integer "10" 10`, `percent "20 %" 20%`}},
		{"hours range", "08-17", []want{`integer "08" 08`, `integer "17" 17`}},
		{"four digits then group", "2019 100 kunder", []want{`integer "2019" 2019`, `integer "100" 100`}},
		{"fraction", "1/2 och 24/7", []want{`integer "1" 1`, `integer "2" 2`, `integer "24" 24`, `integer "7" 7`}},
		{"time vs date", "14:30 2025-12-31", []want{`time "14:30" 14:30`, `date "2025-12-31" 2025-12-31`}},
		{"invalid date", "2025-13-45", []want{`integer "2025" 2025`, `integer "13" 13`, `integer "45" 45`}},
		{"invalid time", "25:70", []want{`integer "25" 25`, `integer "70" 70`}},
		{"date range", "2025-01-01–2025-12-31", []want{`date "2025-01-01" 2025-01-01`, `date "2025-12-31" 2025-12-31`}},
		{"comma list", "1, 2, 3", []want{`integer "1" 1`, `integer "2" 2`, `integer "3" 3`}},
		{"sentence end", "costs 399.", []want{`integer "399" 399`}},
		{"short plus", "+5 more", []want{`integer "5" 5`}},

		// Seeds.
		{"seed basic", "Basic kostar 99 kr/månad", []want{`integer "99 kr/månad" 99 SEK /month`}},
		{"seed hallucination", "Basic kostar 777 kr/månad", []want{`integer "777 kr/månad" 777 SEK /month`}},
		{"seed premium", "Premium kostar 399 kr/månad", []want{`integer "399 kr/månad" 399 SEK /month`}},
		{"seed callback", "Ring mig imorgon på +46 70 123 45 67", []want{`phone "+46 70 123 45 67" +46701234567`}},
		{"seed combinations", "399 kr, 1 TB, 10 000", []want{`integer "399 kr" 399 SEK`, `integer "1 TB" 1 TB`, `grouped "10 000" 10000`}},
		{"no numbers", "Hej! Vad kostar det?", nil},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := describe(Extract(tc.in))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Extract(%q)\n got: %q\nwant: %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestExtractSpans(t *testing.T) {
	in := "Pris: ９９ kr, ring +46 8 123 45 67 — eller tjugo procent."
	for _, n := range Extract(in) {
		if in[n.Start:n.End] != n.Text {
			t.Errorf("span [%d,%d] = %q, Text %q", n.Start, n.End, in[n.Start:n.End], n.Text)
		}
	}
}

// Every Nd range must be whole sets of ten digits starting at a zero, or
// digitValue would read a wrong value.
func TestDigitRanges(t *testing.T) {
	check := func(lo, hi, stride uint32) {
		if stride != 1 || (hi-lo+1)%10 != 0 {
			t.Errorf("Nd range %U-%U stride %d is not whole sets of ten", lo, hi, stride)
		}
	}
	for _, r := range unicode.Nd.R16 {
		check(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.Nd.R32 {
		check(r.Lo, r.Hi, r.Stride)
	}
	for _, r := range []rune{'0', '٠', '０', '𝟎', '०'} {
		if v, ok := digitValue(r); !ok || v != 0 {
			t.Errorf("digitValue(%U) = %d, %v", r, v, ok)
		}
	}
}

// toLower agrees with unicode.ToLower beyond ASCII.
func TestToLower(t *testing.T) {
	for c := rune(0x80); c <= unicode.MaxRune; c++ {
		if got, want := toLower(c), unicode.ToLower(c); got != want {
			t.Fatalf("toLower(%U) = %U, want %U", c, got, want)
		}
	}
}

// TestTokenHoldsNoPointers: the scanner's tokens, which the spare scanner
// keeps between calls, must be memory the garbage collector neither scans
// nor guards with write barriers.
func TestTokenHoldsNoPointers(t *testing.T) {
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				walk(typ.Field(i).Type, path+"."+typ.Field(i).Name)
			}
		case reflect.Array:
			if typ.Len() > 0 {
				walk(typ.Elem(), path+"[]")
			}
		case reflect.Pointer, reflect.UnsafePointer, reflect.String, reflect.Slice,
			reflect.Map, reflect.Chan, reflect.Func, reflect.Interface:
			t.Errorf("%s is a %s: tokens must hold no pointers", path, typ.Kind())
		}
	}
	walk(reflect.TypeFor[token](), "token")
}

// TestSmallRefs: a ref to a number below 100 reads as its decimal form.
func TestSmallRefs(t *testing.T) {
	var s scanner
	for n := range 100 {
		if got := s.str(ref{int32(n), -1}); got != fmt.Sprint(n) {
			t.Errorf("small ref %d reads %q", n, got)
		}
	}
}

// TestNumbersOutliveTheScanner: the canonical forms a scan kept read the
// same after later scans, which reuse the spare scanner (see keep).
func TestNumbersOutliveTheScanner(t *testing.T) {
	first := Extract("Rabatt 20 %, moms 12,5 %, 10 000 filer, ring +46 8 123 45 67, två tusen kronor, three devices")
	want := describe(first)
	for range 3 {
		Extract(strings.Repeat("9 999 99,9 % +99 9 999 99 99 ", 40))
	}
	if got := describe(first); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the numbers of a scan changed with later scans:\n got %q\nwant %q", got, want)
	}
}

// A text full of numbers makes a token for each, and a Number (or, in
// Verify, a NumberVerdict) that is allocated, zeroed, filled and scanned
// by the collector: their sizes are kept where they were made small.
func TestSizes(t *testing.T) {
	if strconv.IntSize != 64 {
		t.Skip("sizes are kept for 64-bit platforms")
	}
	for _, c := range []struct {
		what      string
		got, want uintptr
	}{
		{"Number", reflect.TypeFor[Number]().Size(), 64},
		{"NumberVerdict", reflect.TypeFor[NumberVerdict]().Size(), 80}, // its Citation an int32 beside its State
		{"token", reflect.TypeFor[token]().Size(), 32},
		{"quickSlot", reflect.TypeFor[quickSlot]().Size(), quickSlotSize},
	} {
		if c.got != c.want {
			t.Errorf("a %s is %d bytes, want %d", c.what, c.got, c.want)
		}
	}
}
