package lambda

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameAsMarshal fails t when a stream frame's appendJSON differs from
// json.Marshal.
func sameAsMarshal(t *testing.T, f StreamFrame) {
	t.Helper()
	want, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.appendJSON(nil); !bytes.Equal(got, want) {
		t.Fatalf("%+q:\n got %s\nwant %s", f, got, want)
	}
}

// StreamFrame.appendJSON is json.Marshal's encoding, byte for byte: every
// byte alone, edge cases, and random strings of the characters JSON
// escapes, multi-byte letters and broken UTF-8.
func TestStreamFrameJSON(t *testing.T) {
	for c := range 256 {
		sameAsMarshal(t, StreamFrame{Type: TypeStream, ID: "m" + string(rune(c)), Delta: string([]byte{byte(c)})})
	}
	for _, s := range []string{"", " Premium: 399 kr/month", "a\u2028b\u2029c", "<script>&amp;</script>", "\x7f", "\xe2\x80", "\xed\xa0\x80", "😀\xff😀", `"\/`} {
		sameAsMarshal(t, StreamFrame{Type: TypeStream, ID: s, Delta: s})
	}
	rng := rand.New(rand.NewPCG(3, 14))
	pieces := []string{"a", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "\u2028", "\u2029", "😀", "\xff", "\xe2\x80", "\xc3"}
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(10); n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		sameAsMarshal(t, StreamFrame{Type: TypeStream, ID: "id", Delta: b.String()})
	}
}

func FuzzStreamFrameJSON(f *testing.F) {
	f.Add("m1", " Premium: 399 kr/month")
	f.Add("<&>", "a\u2028\xff")
	f.Fuzz(func(t *testing.T, id, delta string) {
		sameAsMarshal(t, StreamFrame{Type: TypeStream, ID: id, Delta: delta})
	})
}
