package lambda

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

// sameAsMarshal fails t when a frame's appendJSON differs from
// json.Marshal.
func sameAsMarshal(t *testing.T, f jsonAppender) {
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

// The frames of an answer likewise, with every field of their types (and
// of the types they hold) filled at random by reflection: strings with the
// characters JSON escapes, edge integers, both booleans, and slices nil,
// empty or filled. A field added to a frame type that appendJSON does not
// write makes this fail.
func TestAnswerFramesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 15))
	pieces := []string{"a", " ", "\"", "\\", "<", "&", "\n", "\x01", "é", "\u2028", "\xff", "399 kr"}
	ints := []int64{0, 1, -1, 42, -1 << 31, 1<<31 - 1}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			var b strings.Builder
			for n := rng.IntN(5); n > 0; n-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			v.SetString(b.String())
		case reflect.Int, reflect.Int64, reflect.Int32:
			v.SetInt(ints[rng.IntN(len(ints))])
		case reflect.Bool:
			v.SetBool(rng.IntN(2) == 0)
		case reflect.Slice:
			n := rng.IntN(4) - 1 // -1: nil
			if n < 0 {
				v.SetZero()
				return
			}
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		default:
			t.Fatalf("fill: no values for %s", v.Type())
		}
	}
	for range 5000 {
		for _, f := range []jsonAppender{&SourcesFrame{}, &StreamFrame{}, &StreamEndFrame{}, &ResponseFrame{}} {
			v := reflect.ValueOf(f).Elem()
			fill(v)
			sameAsMarshal(t, v.Interface().(jsonAppender))
		}
	}
}

func FuzzStreamFrameJSON(f *testing.F) {
	f.Add("m1", " Premium: 399 kr/month")
	f.Add("<&>", "a\u2028\xff")
	f.Fuzz(func(t *testing.T, id, delta string) {
		sameAsMarshal(t, StreamFrame{Type: TypeStream, ID: id, Delta: delta})
	})
}

// TestSizeHint: a frame of the embedded knowledge base's text, a stream
// piece, an answer with its numbers and citations, is encoded within its
// sizeHint, so sendLocked allocates it once.
func TestSizeHint(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	snippets := base.Snippets()
	for i := 0; i+2 < len(snippets); i++ {
		var cites []Citation
		for _, s := range snippets[i : i+3] {
			cites = append(cites, Citation{File: s.File, Line: s.Line, Snippet: s.Text})
		}
		text := snippets[i].Text
		var nums []NumberVerdict
		for _, n := range guardrail.Extract(text) {
			nums = append(nums, NumberVerdict{Text: n.Text, Canonical: n.Canonical, Kind: n.Kind.String(), State: "grounded", Grounded: true, Citation: 1})
		}
		for _, f := range []jsonAppender{
			SourcesFrame{Type: TypeSources, ID: "m12", Citations: cites, Confidence: "high"},
			StreamFrame{Type: TypeStream, ID: "m12", Delta: text},
			StreamEndFrame{Type: TypeStreamEnd, ID: "m12", Reason: ReasonDone},
			ResponseFrame{Type: TypeResponse, ID: "m12", Text: text, Citations: cites, Status: StatusVerified, Numbers: nums},
		} {
			if n := len(f.appendJSON(nil)); n > f.sizeHint() {
				t.Errorf("%T of %s:%d: %d bytes, sizeHint %d", f, snippets[i].File, snippets[i].Line, n, f.sizeHint())
			}
		}
	}
}
