//go:build !js

package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/guardrail"
)

// slowLine is what scoreLine reads from line with encoding/json alone, in
// the cases where quickLine may answer (ok false otherwise).
func slowLine(line []byte) (id, answer string, sources []byte, ok bool) {
	var in batchIn
	if json.Unmarshal(line, &in) != nil || in.Answer == nil || len(in.ID) == 0 ||
		len(in.Sources) == 0 || string(in.Sources) == "null" || json.Unmarshal(in.ID, &id) != nil || id == "" {
		return "", "", nil, false
	}
	return id, *in.Answer, in.Sources, true
}

// checkQuick fails when quickLine reads line otherwise than encoding/json,
// and returns whether it read it.
func checkQuick(t *testing.T, line []byte) bool {
	t.Helper()
	id, answer, sources, ok := quickLine(line)
	if !ok {
		return false
	}
	sid, sanswer, ssources, sok := slowLine(line)
	if !sok || id != sid || answer != sanswer || !bytes.Equal(sources, ssources) {
		t.Errorf("quickLine(%q) = %q, %q, %s, %v; encoding/json: %q, %q, %s, %v",
			line, id, answer, sources, ok, sid, sanswer, ssources, sok)
	}
	return true
}

func TestQuickLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		quick bool // whether quickLine reads it (else encoding/json does)
	}{
		{`{"id":"q1","answer":"It costs 499.","sources":["399"]}`, true},
		{` { "id" : "q1" , "answer" : "a" , "sources" : [ "x" , "y" ] , "why" : {"a":[1,2,{"b":"}]"}]} } `, true},
		{`{"why":"\"}","id":"q1","expect":-1.5e+3,"answer":"a","x":null,"y":true,"sources":[]}`, true},
		{`{"id":"q1","answer":"a\nb \u00e5 \ud83d\ude00","sources":["\""]}`, true},
		{`{"id":"q1","answer":"a","sources":["x"],"answer":"b","id":"q2"}`, true},
		{"{\"id\":\"q1\",\"answer\":\"bad \xff utf-8\",\"sources\":[\"x\"]}", true},
		{`{"id":"q\u0031","answer":"a","sources":["x"]}`, true},
		{`{"ID":"q1","answer":"a","sources":["x"]}`, false},
		{`{"id":"q1","Answer":"a","sources":["x"]}`, false},
		{`{"i\u0064":"q1","answer":"a","sources":["x"]}`, false},
		{`{"id":"q1","answer":"a","sources":null}`, false},
		{`{"id":"q1","answer":"a"}`, false},
		{`{"id":"","answer":"a","sources":["x"]}`, false},
		{`{"id":1,"answer":"a","sources":["x"]}`, false},
		{`{"id":"q1","answer":null,"sources":["x"]}`, false},
		{`{"id":"q1","answer":"a","sources":["x"]`, false},
		{`["id","answer"]`, false},
		{`oops`, false},
	} {
		if got := checkQuick(t, []byte(c.line)); got != c.quick {
			t.Errorf("quickLine(%q) read it: %v, want %v", c.line, got, c.quick)
		}
	}
}

// TestQuickLineMutated compares quickLine with encoding/json on lines of
// the real data, when it is there, and generated ones, each with random
// bytes changed, added or removed.
func TestQuickLineMutated(t *testing.T) {
	var lines [][]byte
	if data, err := os.ReadFile(realData); err == nil {
		lines = bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	}
	for i := range 50 {
		lines = append(lines, bytes.TrimSpace(genLine(i)))
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "{}[]\":,\\ u0aA\xc3\xa5\xff\n"
	read := 0
	for _, line := range lines {
		if !checkQuick(t, line) {
			t.Errorf("quickLine did not read %q", line)
		}
		for range 40 {
			m := bytes.Clone(line)
			for range 1 + r.IntN(3) {
				k := r.IntN(len(m))
				c := alphabet[r.IntN(len(alphabet))]
				switch r.IntN(3) {
				case 0:
					m[k] = c
				case 1:
					m = append(m[:k], append([]byte{c}, m[k:]...)...)
				default:
					m = append(m[:k], m[k+1:]...)
				}
			}
			if checkQuick(t, m) {
				read++
			}
		}
	}
	t.Logf("%d lines, %d mutated lines read by quickLine", len(lines), read)
}

// The cache of source lists gives one list the same Sources, keeps at most
// its number of lists and bytes of their JSON, the oldest dropped first,
// and reports a list that is not one of strings.
func TestSourceCache(t *testing.T) {
	c := newSourceCache(2, 40)
	a, ok := c.get([]byte(`["Premium: 399 kr"]`))
	if !ok || len(a) != 1 || a[0].Text != "Premium: 399 kr" {
		t.Fatalf("get = %v, %v", a, ok)
	}
	if b, _ := c.get([]byte(`["Premium: 399 kr"]`)); &b[0] != &a[0] {
		t.Error("the same list was built again")
	}
	c.get([]byte(`["99"]`))
	c.get([]byte(`["7"]`)) // a third list: the first goes
	if len(c.m) != 2 || c.m[`["Premium: 399 kr"]`] != nil {
		t.Errorf("cache holds %d lists, the oldest dropped: %v", len(c.m), c.m[`["Premium: 399 kr"]`] == nil)
	}
	c.get([]byte(`["a long snippet of thirty-four bytes"]`)) // 39 bytes: over 40 with any other
	if c.bytes > 40 || len(c.m) != 1 {
		t.Errorf("cache holds %d bytes in %d lists, want at most 40", c.bytes, len(c.m))
	}
	if _, ok := c.get([]byte(`[1]`)); ok {
		t.Error("a list of a number was read")
	}
}

// validJSON never finds valid what json.Valid does not, and finds valid
// what it does, but for nesting deeper than it reads.
func TestValidJSON(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid: %v", b, got, want)
		}
	}
	for _, s := range []string{
		``, ` `, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e`, `1e-`, `-1.5e-07`, `1 2`,
		`true`, `tru`, `truex`, `null`, `nul`, `false`, `"a"`, `"a`, `"\"`, `"\q"`, `"\u00e5"`, `"\u00g5"`, `"\u00e"`,
		"\"a\tb\"", "\"\x7f\xff\"", `[]`, `[ ]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{ }`, `{"a"}`, `{"a":}`, `{"a":1,}`,
		`{"a":1 "b":2}`, `{1:2}`, `{"a":[1,{"b":[]}],"c":{"d":null}}`, `[[[]]]`, `[[]`, `[]]`, `{"a":1}}`, `]`,
		`{"a":"}"}`, `{"a":"\\"}`, ` {"a" : [ 1 , "x" ] } `, "[1]\n", `[1]x`,
	} {
		check([]byte(s))
	}
	deep := bytes.Repeat([]byte("["), 100)
	if validJSON(append(deep, bytes.Repeat([]byte("]"), 100)...)) {
		t.Error("validJSON read JSON nested 100 deep")
	}
	var lines [][]byte
	if data, err := os.ReadFile(realData); err == nil {
		lines = bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	}
	for i := range 50 {
		lines = append(lines, bytes.TrimSpace(genLine(i)))
	}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "{}[]\":,\\ u0e.-+aAtn\x1f\xff\n"
	for _, line := range lines {
		check(line)
		for range 40 {
			m := bytes.Clone(line)
			for range 1 + r.IntN(3) {
				k := r.IntN(len(m))
				c := alphabet[r.IntN(len(alphabet))]
				switch r.IntN(3) {
				case 0:
					m[k] = c
				case 1:
					m = append(m[:k], append([]byte{c}, m[k:]...)...)
				default:
					m = append(m[:k], m[k+1:]...)
				}
			}
			check(m)
		}
	}
}

// FuzzQuickLine: validJSON agrees with json.Valid but for nesting, and
// quickLine with encoding/json, on any line.
//
//	go test -run=NONE -fuzz=FuzzQuickLine ./guardrail/cmd/guardrail
func FuzzQuickLine(f *testing.F) {
	f.Add([]byte(`{"id":"q1","answer":"It costs 499.","sources":["399"]}`))
	f.Add([]byte(`{"why":"\"}","id":"q\u0031","expect":-1.5e+3,"answer":"a\n","x":[null,{}],"sources":[]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if validJSON(line) && !json.Valid(line) {
			t.Fatalf("validJSON(%q) but not json.Valid", line)
		}
		checkQuick(t, line)
	})
}

// trickyStrings are strings of the bytes that JSON escapes or decodes
// otherwise than as they are: quotes, backslashes, control bytes, bytes
// that are not UTF-8, U+2028 and U+2029, surrogate escapes, HTML.
func trickyStrings(r *rand.Rand, n int) []string {
	parts := []string{"a", "7", " ", `"`, `\`, "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"å", "€", "😀", "\u2028", "\u2029", "\xff", "\xc3", "\xe2\x80", "<", ">", "&", "/", "'",
		`\u00e5`, `\ud83d`, `\ude00`, `\ud83d\ude00`, `\u0041`, `\n`, `\"`, `\\`, `\/`, `\'`, `\x`, `\u12`}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		out[i] = b.String()
	}
	return out
}

// unquote decodes the inside of a valid JSON string (what it is given)
// as encoding/json does.
func TestUnquote(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	valid := 0
	for _, s := range trickyStrings(r, 20000) {
		var want string
		if json.Unmarshal([]byte(`"`+s+`"`), &want) != nil {
			continue
		}
		valid++
		if got, ok := unquote([]byte(s)); !ok || got != want {
			t.Errorf("unquote(%q) = %q, %v; encoding/json: %q", s, got, ok, want)
		}
	}
	if valid < 2000 {
		t.Errorf("only %d valid strings tried", valid)
	}
}

// appendResult writes what a json.Encoder that does not escape HTML writes.
func TestAppendResult(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	strs := trickyStrings(r, 4000)
	pick := func() string { return strs[r.IntN(len(strs))] }
	var values []any
	for i := range 1000 {
		out := batchOut{ID: pick(), Verdict: pick()}
		if i%7 != 0 {
			out.Numbers = []batchNumber{}
		}
		for range r.IntN(4) {
			out.Numbers = append(out.Numbers, batchNumber{Text: pick(), Canonical: pick(),
				Kind: guardrail.Kind(r.IntN(20)), State: guardrail.State(r.IntN(5)), Grounded: r.IntN(2) == 0, Source: r.IntN(5) - 1,
				Formula: []string{"", pick()}[r.IntN(2)]})
		}
		values = append(values, &out, batchErr{ID: pick(), Line: r.IntN(3), Error: pick()})
	}
	if data, err := os.ReadFile(realData); err == nil {
		s := scorer{policy: guardrail.Strict, cache: newSourceCache(cacheEntries, cacheBytes)}
		for k, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			v := s.scoreLine(job{line: k + 1, data: line})
			if out, ok := v.(*batchOut); ok {
				c := *out // (s.out is reused)
				c.Numbers = slices.Clone(out.Numbers)
				v = &c
			}
			values = append(values, v)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, v := range values {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := appendResult(nil, v); !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("appendResult(%#v) = %s, want %s", v, got, buf.Bytes())
		}
	}
}
