package guardrail

import (
	"os"
	"strings"
	"testing"
)

// blindCase is one line of testdata/realdata_blind.jsonl: an answer
// written blind (by engineers who saw neither the guard's code nor its
// tests) from the sources of the case id of ../shared/realdata/dev.jsonl,
// which are not copied here (their licences). A "pass" answer restates
// only what its sources support, in the forms writers use; a "block"
// answer is faithful but for one number, wrong in the way given by kind
// (value, scale, unit, period, date, percent, arithmetic, bound,
// rounding).
//
// testdata/kb_blind.jsonl has the same fields but ID, and the support
// answer's language, the customer's question and its sources: the lines
// of kb/en or kb/sv it cites, copied (a table row with its header).
type blindCase struct {
	ID       string   `json:"id"`
	Lang     string   `json:"lang"`
	Question string   `json:"question"`
	Sources  []string `json:"sources"`
	Answer   string   `json:"answer"`
	Expect   string   `json:"expect"`
	Split    string   `json:"split"` // "heldout": never looked at while the guard was changed
	Wrong    string   `json:"wrong"`
	Kind     string   `json:"kind"`
	Batch    int      `json:"batch"` // kb_blind: the second round (richer answers) is 2, the first has none
}

// Thresholds of TestBlindAnswers and TestKBBlindAnswers over their
// development parts, a little under what the guard does now (README,
// "Measured on answers written blind").
const (
	minBlindPass    = 0.83
	minBlindBlock   = 0.85
	minKBBlindPass  = 0.90
	minKBBlindBlock = 0.88
)

// TestBlindAnswers verifies the answers of testdata/realdata_blind.jsonl
// against their sources in ../shared/realdata/dev.jsonl (it skips when that
// file is not there); see scoreBlind.
func TestBlindAnswers(t *testing.T) {
	sources := map[string][]*Source{}
	for _, c := range realAnswers(t) {
		if sources[c.ID] == nil {
			sources[c.ID] = NewSources(c.Sources)
		}
	}
	cases := readJSONL[blindCase](t, "../testdata/realdata_blind.jsonl")
	for _, c := range cases {
		if sources[c.ID] == nil {
			t.Fatalf("%s: no such case in ../shared/realdata/dev.jsonl", c.ID)
		}
	}
	scoreBlind(t, cases, func(c blindCase) []*Source { return sources[c.ID] }, minBlindPass, minBlindBlock)
}

// TestKBBlindAnswers verifies the support answers of
// testdata/kb_blind.jsonl, written blind from the lines of kb/en and kb/sv
// that each cites (its sources, copied); see scoreBlind.
func TestKBBlindAnswers(t *testing.T) {
	cases := readJSONL[blindCase](t, "../testdata/kb_blind.jsonl")
	scoreBlind(t, cases, func(c blindCase) []*Source { return NewSources(c.Sources) }, minKBBlindPass, minKBBlindBlock)
}

// TestQABlindAnswers verifies the cases of testdata/qa_blind.jsonl: 364
// support answers with their sources, in English and Swedish, written by
// two independent testers who read only the README's rule (round 1 from
// the help pages of many kinds of service: subscriptions, shops, phone and
// broadband plans, stores' hours, salaries; round 2 from a gym's, an
// electricity supplier's and a bus operator's), before either ran the
// guard. Their misses were read and fixed by class, so all of it is
// development; it fails under 0.84 passed or 0.93 blocked.
func TestQABlindAnswers(t *testing.T) {
	cases := readJSONL[blindCase](t, "../testdata/qa_blind.jsonl")
	for i := range cases {
		cases[i].Split = "dev"
	}
	scoreBlind(t, cases, func(c blindCase) []*Source { return NewSources(c.Sources) }, 0.84, 0.93)
}

// scoreBlind verifies each case against its sources, logs the share of
// correct answers that pass and of wrong ones that are blocked, per part,
// and fails when the development part falls under minPass or minBlock.
// The held-out part is reported, not enforced, and its misses are listed
// only with GUARDHELDOUT=1.
func scoreBlind(t *testing.T, cases []blindCase, sources func(blindCase) []*Source, minPass, minBlock float64) {
	t.Helper()
	type tally struct{ right, all int }
	got := map[[2]string]*tally{}
	for _, c := range cases {
		k := [2]string{c.Split, c.Expect}
		if got[k] == nil {
			got[k] = &tally{}
		}
		got[k].all++
		v := Verify(c.Answer, sources(c))
		if verdictWord(v) == c.Expect {
			got[k].right++
			continue
		}
		if c.Split != "heldout" || os.Getenv("GUARDHELDOUT") != "" {
			var what []string
			for _, n := range v.Numbers {
				if !n.Grounded {
					what = append(what, n.Text)
				}
			}
			who := c.ID
			if who == "" {
				who = c.Lang + " " + c.Question
			}
			t.Logf("MISS [%s %s %s] %s: %q (wrong: %q; not grounded: %q)", c.Split, c.Expect, c.Kind, who, c.Answer, c.Wrong, what)
		}
	}
	share := func(k [2]string) float64 {
		if g := got[k]; g != nil && g.all > 0 {
			return float64(g.right) / float64(g.all)
		}
		return 0
	}
	for _, split := range []string{"dev", "heldout"} {
		p, b := got[[2]string{split, "pass"}], got[[2]string{split, "block"}]
		if p == nil || b == nil {
			if split == "heldout" && p == nil && b == nil {
				continue // a set whose every case was read (testdata/qa_blind.jsonl)
			}
			t.Fatalf("no %s answers of both kinds", split)
		}
		t.Logf("%-7s correct answers passed %d/%d (%.3f), wrong ones blocked %d/%d (%.3f)", split,
			p.right, p.all, share([2]string{split, "pass"}), b.right, b.all, share([2]string{split, "block"}))
	}
	if s := share([2]string{"dev", "pass"}); s < minPass {
		t.Errorf("development part: %.3f of the correct answers pass, want %.2f", s, minPass)
	}
	if s := share([2]string{"dev", "block"}); s < minBlock {
		t.Errorf("development part: %.3f of the wrong answers are blocked, want %.2f", s, minBlock)
	}
}

// TestPerturbedDerivations takes every derived number of the correct
// answers written blind (testdata/kb_blind.jsonl, and
// testdata/realdata_blind.jsonl when ../shared/realdata is there), moves
// its last digit by one either way and verifies the answer again: the
// wrong value must block, but for a coincidence (another operation over
// the sources that gives it), which may not exceed 10 % of the tries.
func TestPerturbedDerivations(t *testing.T) {
	cases := readJSONL[blindCase](t, "../testdata/kb_blind.jsonl")
	sources := map[string][]*Source{}
	if _, err := os.Stat("../../shared/realdata/dev.jsonl"); err == nil {
		for _, c := range realAnswers(t) {
			if sources[c.ID] == nil {
				sources[c.ID] = NewSources(c.Sources)
			}
		}
		cases = append(cases, readJSONL[blindCase](t, "../testdata/realdata_blind.jsonl")...)
	}
	tried, passed := 0, 0
	for _, c := range cases {
		if c.Expect != "pass" {
			continue
		}
		src := sources[c.ID]
		if c.ID == "" {
			src = NewSources(c.Sources)
		}
		for _, n := range Verify(c.Answer, src).Numbers {
			e := strings.LastIndexAny(n.Text, "0123456789")
			if n.State != Derived || e < 0 {
				continue
			}
			for _, d := range []byte{1, 255} { // +1, −1
				digit := n.Text[e] - '0' + d
				if digit > 9 {
					continue
				}
				wrong := c.Answer[:n.Start] + n.Text[:e] + string('0'+digit) + n.Text[e+1:] + c.Answer[n.End:]
				tried++
				if Verify(wrong, src).Grounded {
					passed++
					t.Logf("passes: %q for %q in %q", n.Text[:e]+string('0'+digit)+n.Text[e+1:], n.Text, c.Answer)
				}
			}
		}
	}
	t.Logf("derived numbers moved by one in their last digit: %d tried, %d passed", tried, passed)
	if tried < 40 {
		t.Errorf("only %d derived numbers to move; the sets should hold more", tried)
	}
	if float64(passed) > 0.1*float64(tried) {
		t.Errorf("%d of %d moved derived numbers passed (more than 10 %%)", passed, tried)
	}
}
