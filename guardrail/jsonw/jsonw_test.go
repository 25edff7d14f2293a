package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendInt compares AppendInt with strconv on the edges of int64 and
// of each power of ten, and random values, appended after a prefix.
func TestAppendInt(t *testing.T) {
	vs := []int64{0, 1, -1, 9, 10, -10, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		vs = append(vs, p-1, p, p+1, -p+1, -p, -p-1)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		vs = append(vs, r.Int64()>>r.IntN(64), -r.Int64()>>r.IntN(64))
	}
	for _, v := range vs {
		if got, want := string(AppendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("AppendInt(%d) = %q, want %q", v, got, want)
		}
	}
}

// TestAppendString compares AppendString with encoding/json on strings of
// every escape class, random bytes (invalid UTF-8 too) and their mixes,
// with HTML escaped and not.
func TestAppendString(t *testing.T) {
	cases := []string{"", "plain", `"quoted" \ back`, "\b\f\n\r\t\x00\x1f\x7f", "<a href='x'>&amp;</a>",
		"\u2028\u2029", "åäö €399 ½", "\xff\xfe bad \xc3", "\xe2\x80", "\xed\xa0\x80 surrogate", "🚀 emoji"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b), cases[r.IntN(11)]+string(b)+cases[r.IntN(11)])
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s, true); !bytes.Equal(got, want) {
			t.Fatalf("html: %q\n got %s\nwant %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString([]byte("x"), s, false); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("no html: %q\n got %s\nwant %s", s, got, want)
		}
	}
}

// FuzzAppendString holds AppendString to encoding/json on any string.
func FuzzAppendString(f *testing.F) {
	f.Add("<\u2028\xff\"\n")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s, true); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
