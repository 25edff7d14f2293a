package guardrail

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// unitRows returns the rows of currencySpec and unitSpec: each unit's
// dimension, name and spellings, in order.
func unitRows() (out []struct {
	dim, name string
	words     []string
}) {
	for _, spec := range []string{currencySpec, unitSpec} {
		rows(spec, func(dim, name, words string) {
			var ws []string
			fields(words, func(w string) { ws = append(ws, w) })
			out = append(out, struct {
				dim, name string
				words     []string
			}{dim, name, ws})
		})
	}
	return out
}

// TestUnitRows: every row has a dimension and a name, each spelling is of
// one row only, and every spelling reads as its unit after a number (a
// currency exactly when its row is one).
func TestUnitRows(t *testing.T) {
	seen := map[string]string{}
	for _, r := range unitRows() {
		if r.dim == "" || r.name == "" {
			t.Errorf("row %q: no dimension or name", r.name)
		}
		for _, w := range r.words {
			if other, ok := seen[w]; ok {
				t.Errorf("%q spells both %s and %s", w, other, r.name)
			}
			seen[w] = r.name
			for _, text := range []string{"12 " + w, "12 " + w + " more", "12 " + strings.ToUpper(w) + "."} {
				ns := Extract(text)
				if len(ns) != 1 || ns[0].Unit.String() != r.name {
					t.Errorf("Extract(%q) = %+v, want one number in %s", text, ns, r.name)
				} else if ns[0].Unit.Currency() != (r.dim == "currency") {
					t.Errorf("Extract(%q): %s.Currency() = %v in dimension %s", text, r.name, ns[0].Unit.Currency(), r.dim)
				}
			}
		}
	}
}

// TestCurrenciesAreISO holds the codes of currencySpec to ISO 4217 as
// iso-codes installs it (Debian's iso-codes package), when it is there: a
// name of three capitals is an active ISO 4217 code.
func TestCurrenciesAreISO(t *testing.T) {
	const path = "/usr/share/iso-codes/json/iso_4217.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no %s (apt-get install iso-codes): %v", path, err)
	}
	var iso map[string][]struct {
		Code string `json:"alpha_3"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &iso); err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, c := range iso["4217"] {
		codes[c.Code] = c.Name
	}
	n := 0
	for _, r := range unitRows() {
		if r.dim != "currency" || len(r.name) != 3 || strings.ToUpper(r.name) != r.name {
			continue
		}
		n++
		if _, ok := codes[r.name]; !ok {
			t.Errorf("%s is no ISO 4217 code", r.name)
		}
	}
	if n < 40 {
		t.Errorf("%d ISO currencies; want at least 40", n)
	}
}

// TestUnitSwapsBlock perturbs the correct answers of the labelled real
// answers (../shared/realdata/dev.jsonl, when there): each grounded number
// printed with a unit or currency has its unit swapped for another of the
// same dimension that no source states with that value, and the number
// must then be ungrounded — in at least 95 % of the swaps.
func TestUnitSwapsBlock(t *testing.T) {
	byName := map[string]int{}
	all := unitRows()
	for i, r := range all {
		byName[r.name] = i
	}
	swaps, blocked := 0, 0
	currency := [2]int{} // of them, currencies: swaps, blocked
	for _, c := range realAnswers(t) {
		if c.Expect != "pass" {
			continue
		}
		srcs := NewSources(c.Sources)
		stated := map[string]bool{} // value and unit the sources state
		for _, s := range srcs {
			for _, n := range s.Numbers {
				stated[n.Canonical+" "+n.Unit.String()] = true
			}
		}
		for _, nv := range Verify(c.Answer, srcs).Numbers {
			i, ok := byName[nv.Unit.String()]
			if nv.State != Grounded || !ok {
				continue
			}
			at, spelled := spellingIn(nv.Text, all[i].words)
			if at < 0 {
				continue // a rate read from a unit and a period
			}
			// The next unit of the dimension, in table order, that the
			// sources do not state with this value.
			var to string
			for k := 1; k < len(all) && to == ""; k++ {
				r := all[(i+k)%len(all)]
				if r.dim == all[i].dim && len(r.words) > 0 && !stated[nv.Canonical+" "+r.name] {
					to = r.words[0]
				}
			}
			if to == "" {
				continue
			}
			if all[i].dim == "currency" && isLetter(rune(to[0])) {
				to = strings.ToUpper(to) // a code, which reads before a number too
			}
			p := nv.Start + at
			swapped := c.Answer[:p] + to + c.Answer[p+len(spelled):]
			swaps++
			isCurrency := all[i].dim == "currency"
			if isCurrency {
				currency[0]++
			}
			for _, n := range Verify(swapped, srcs).Numbers {
				if n.Start <= p && p < n.End+len(to) && n.Canonical == nv.Canonical {
					if n.State == Ungrounded {
						blocked++
						if isCurrency {
							currency[1]++
						}
					} else {
						t.Logf("%s: %q → %q stays grounded", c.ID, nv.Text, swapped[n.Start:n.End])
					}
					break
				}
			}
		}
	}
	if swaps == 0 {
		t.Skip("no grounded number with a unit among the correct answers")
	}
	rate := float64(blocked) / float64(swaps)
	t.Logf("unit and currency swaps blocked: %d/%d = %.3f (currencies %d/%d, other units %d/%d)",
		blocked, swaps, rate, currency[1], currency[0], blocked-currency[1], swaps-currency[0])
	if rate < 0.95 {
		t.Errorf("swaps blocked %.3f, under 0.95", rate)
	}
}

// spellingIn returns where in text (lower-cased as a whole) the longest of
// words stands as a word of its own (not within letters), and the text
// there; -1 for none.
func spellingIn(text string, words []string) (int, string) {
	low := strings.ToLower(text)
	best, at := "", -1
	for _, w := range words {
		for i := 0; i+len(w) <= len(low); i++ {
			if low[i:i+len(w)] != w || len(w) <= len(best) {
				continue
			}
			before, after := rune(' '), rune(' ')
			if i > 0 {
				before = lastRune(low[:i])
			}
			if i+len(w) < len(low) {
				after = []rune(low[i+len(w):])[0]
			}
			if !isLetter(before) && !isLetter(after) || !isLetter(rune(w[0])) {
				best, at = w, i
			}
		}
	}
	if at < 0 {
		return -1, ""
	}
	return at, text[at : at+len(best)]
}
