package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// The writer's cork: frames written while corked leave in one write, at
// uncork; uncorked writes go straight through.
func TestFrameLimitConnCork(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	fl := newFrameLimitConn(a, 1024)
	got := make(chan []byte, 8)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := b.Read(buf)
			if err != nil {
				close(got)
				return
			}
			got <- append([]byte(nil), buf[:n]...)
		}
	}()
	if _, err := fl.Write([]byte("direct")); err != nil {
		t.Fatal(err)
	}
	if w := <-got; string(w) != "direct" {
		t.Fatalf("got %q", w)
	}
	fl.cork()
	fl.Write([]byte("one,"))
	fl.Write([]byte("two,"))
	fl.Write([]byte("three"))
	select {
	case w := <-got:
		t.Fatalf("%q written while corked", w)
	case <-time.After(20 * time.Millisecond):
	}
	done := make(chan error)
	go func() { done <- fl.uncork() }()
	if w := <-got; !bytes.Equal(w, []byte("one,two,three")) {
		t.Fatalf("got %q, want one write", w)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := fl.uncork(); err != nil { // not corked: nothing
		t.Fatal(err)
	}
}

// The metrics read the type and id of stream and sources frames without
// decoding them; whatever the id, they agree with decoding.
func TestMetricsFrameHead(t *testing.T) {
	for _, id := range []string{"m1", "", `q"uote`, `back\slash`, "ünïcode", "<script>", "a\u2028b"} {
		for _, v := range []any{
			lambda.StreamFrame{Type: lambda.TypeStream, ID: id, Delta: ` "id":"x" `},
			lambda.SourcesFrame{Type: lambda.TypeSources, ID: id, Citations: []lambda.Citation{{File: "f", Line: 1, Snippet: `"id":"y"`}}},
			lambda.StreamEndFrame{Type: lambda.TypeStreamEnd, ID: id, Reason: lambda.ReasonDone},
		} {
			data, _ := json.Marshal(v)
			var want outFrame
			json.Unmarshal(data, &want)
			if typ, got, ok := frameHead(data); ok && (typ != want.Type || string(got) != want.ID) {
				t.Errorf("%s: %q %q, want %q %q", data, typ, got, want.Type, want.ID)
			} else if !ok && (want.Type == lambda.TypeStream || want.Type == lambda.TypeSources) && !strings.ContainsAny(id, `"\<>`+"\u2028") {
				t.Errorf("%s: not read fast", data)
			}
		}
	}
}

// The metrics read the reason of stream_end frames and the status and
// numbers of response frames without decoding them; whatever the id and
// the strings (keys of the frame written inside them included), they agree
// with decoding.
func TestMetricsFrameTail(t *testing.T) {
	tricky := []string{"", `"status":"blocked","numbers":[{"grounded":true}]`, `\"grounded\":false`, `back\slash`, "ünï<>&\u2028"}
	for _, id := range []string{"m1", "", `q"uote`, `back\slash`, "ünïcode"} {
		for _, s := range tricky {
			for _, nums := range [][]lambda.NumberVerdict{nil, {{Text: s, Grounded: true}}, {{Text: "1", Grounded: false, Canonical: s}, {Kind: s, Grounded: true}}} {
				for _, v := range []any{
					lambda.StreamEndFrame{Type: lambda.TypeStreamEnd, ID: id, Reason: lambda.ReasonCancelled},
					lambda.ResponseFrame{Type: lambda.TypeResponse, ID: id, Text: s, Citations: []lambda.Citation{{File: s, Line: 2, Snippet: s}},
						Status: lambda.StatusVerified, Numbers: nums, Error: s},
					lambda.ResponseFrame{Type: lambda.TypeResponse, ID: id, Text: s, Status: lambda.StatusBlocked, Numbers: nums},
				} {
					data, _ := json.Marshal(v)
					var want outFrame
					if err := json.Unmarshal(data, &want); err != nil {
						t.Fatal(err)
					}
					var got outFrame
					if !frameTail(data, &got) {
						if !strings.ContainsAny(id, `"\`) {
							t.Errorf("%s: not read fast", data)
						}
						continue
					}
					if got.Type != want.Type || got.ID != want.ID || got.Reason != want.Reason || got.Status != want.Status ||
						fmt.Sprint(got.Numbers) != fmt.Sprint(want.Numbers) {
						t.Errorf("%s:\n got %+v\nwant %+v", data, got, want)
					}
				}
			}
		}
	}
}
