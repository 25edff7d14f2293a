package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
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

// recordConn keeps a copy of what is written to it.
type recordConn struct {
	net.Conn
	mu  sync.Mutex
	out bytes.Buffer
}

func (r *recordConn) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.out.Write(p)
	r.mu.Unlock()
	return r.Conn.Write(p)
}

func (r *recordConn) take() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := bytes.Clone(r.out.Bytes())
	r.out.Reset()
	return b
}

// The writer frames data itself (appendText): byte for byte what
// gorilla/websocket's WriteMessage writes for the same messages, at every
// length encoding's bounds and past gorilla's write buffer; a client reads
// them back.
func TestAppendTextAsGorilla(t *testing.T) {
	sizes := []int{0, 1, 125, 126, 127, 4000, 4096, 5000, 65535, 65536, 70000}
	var msgs [][]byte
	for i, n := range sizes {
		msgs = append(msgs, bytes.Repeat([]byte{byte('a' + i)}, n))
	}
	gorilla := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rc *recordConn
		up := websocket.Upgrader{WriteBufferPool: &sync.Pool{}}
		ws, err := up.Upgrade(hijackWrapper{w, func(c net.Conn) net.Conn { rc = &recordConn{Conn: c}; return rc }}, r, nil)
		if err != nil {
			t.Error(err)
			gorilla <- nil
			return
		}
		defer ws.Close()
		rc.take() // the handshake's answer
		for _, m := range msgs {
			if err := ws.WriteMessage(websocket.TextMessage, m); err != nil {
				t.Error(err)
			}
		}
		gorilla <- rc.take()
		ws.ReadMessage() // until the client goes
	}))
	defer srv.Close()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for i, m := range msgs {
		if _, got, err := ws.ReadMessage(); err != nil || !bytes.Equal(got, m) {
			t.Fatalf("message %d (%d bytes): read %d bytes, %v", i, len(m), len(got), err)
		}
	}
	want := <-gorilla

	a, b := net.Pipe()
	defer b.Close()
	fl := newFrameLimitConn(a, 1024)
	var q []queued
	for _, m := range msgs {
		q = append(q, queued{data: m})
	}
	fl.cork()
	if err := fl.appendText(q); err != nil {
		t.Fatal(err)
	}
	go fl.uncork()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(b, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("appendText wrote %d bytes unlike gorilla's %d", len(got), len(want))
	}
	a.Close()
}

// appendText refuses data frames where gorilla/websocket would: not
// corked, after a close frame went out (corked or not), after a failed
// write.
func TestAppendTextRefuses(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	go io.Copy(io.Discard, b)
	fl := newFrameLimitConn(a, 1024)
	q := []queued{{data: []byte(`{"type":"stream"}`)}}
	if err := fl.appendText(q); err == nil {
		t.Error("appended while not corked")
	}
	ping := []byte{0x80 | websocket.PingMessage, 0}
	fl.Write(ping)
	fl.cork()
	if err := fl.appendText(q); err != nil {
		t.Fatalf("after a ping: %v", err)
	}
	fl.Write(append([]byte{0x80 | websocket.CloseMessage, 2}, 0x03, 0xe8))
	if err := fl.appendText(q); !errors.Is(err, websocket.ErrCloseSent) {
		t.Errorf("after a close frame, corked: %v, want ErrCloseSent", err)
	}
	fl.uncork()

	fl = newFrameLimitConn(a, 1024)
	fl.Write(append([]byte{0x80 | websocket.CloseMessage, 2}, 0x03, 0xe8))
	fl.cork()
	if err := fl.appendText(q); !errors.Is(err, websocket.ErrCloseSent) {
		t.Errorf("after a close frame: %v, want ErrCloseSent", err)
	}
	fl.uncork()

	a.Close()
	fl = newFrameLimitConn(a, 1024)
	if _, err := fl.Write(ping); err == nil {
		t.Fatal("wrote to a closed pipe")
	}
	fl.cork()
	if err := fl.appendText(q); err == nil {
		t.Error("appended after a failed write")
	}
}

// nullConn is a network connection that takes every write and has nothing
// to read.
type nullConn struct{ net.Conn }

func (nullConn) Write(p []byte) (int, error)      { return len(p), nil }
func (nullConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (nullConn) SetDeadline(time.Time) error      { return nil }
func (nullConn) SetReadDeadline(time.Time) error  { return nil }
func (nullConn) SetWriteDeadline(time.Time) error { return nil }
func (nullConn) Close() error                     { return nil }

// hijackRecorder is a ResponseWriter whose connection is c.
type hijackRecorder struct {
	*httptest.ResponseRecorder
	c net.Conn
}

func (h hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return h.c, bufio.NewReadWriter(bufio.NewReader(h.c), bufio.NewWriter(h.c)), nil
}

// BenchmarkWriteAnswer is the writer's work for one answer as the load
// generator's question gets it (8 frames, 1,275 bytes), corked into one
// network write to a connection that takes it at once: framed by
// gorilla/websocket's WriteMessage (what the writer did), and by
// appendText.
func BenchmarkWriteAnswer(b *testing.B) {
	var q []queued
	for _, n := range []int{560, 60, 60, 60, 60, 60, 40, 375} {
		q = append(q, queued{data: bytes.Repeat([]byte{'x'}, n)})
	}
	fl := newFrameLimitConn(nullConn{}, 32<<10)
	r := httptest.NewRequest("GET", "/ws", nil)
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "websocket")
	r.Header.Set("Sec-WebSocket-Version", "13")
	r.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	up := websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 4096, WriteBufferPool: writeBuffers}
	ws, err := up.Upgrade(hijackRecorder{httptest.NewRecorder(), fl}, r, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("gorilla", func(b *testing.B) {
		for b.Loop() {
			fl.cork()
			deadline := time.Now().Add(time.Second)
			for _, f := range q {
				ws.SetWriteDeadline(deadline)
				if err := ws.WriteMessage(websocket.TextMessage, f.data); err != nil {
					b.Fatal(err)
				}
			}
			if err := fl.uncork(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("appendText", func(b *testing.B) {
		for b.Loop() {
			fl.cork()
			fl.SetWriteDeadline(time.Now().Add(time.Second))
			if err := fl.appendText(q); err != nil {
				b.Fatal(err)
			}
			if err := fl.uncork(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAppendTextAllocs guards that writing an answer's frames allocates
// nothing (gorilla/websocket's WriteMessage allocated once per frame).
func TestAppendTextAllocs(t *testing.T) {
	fl := newFrameLimitConn(nullConn{}, 32<<10)
	q := []queued{{data: make([]byte, 560)}, {data: make([]byte, 60)}, {data: make([]byte, 375)}}
	n := testing.AllocsPerRun(100, func() {
		fl.cork()
		fl.SetWriteDeadline(time.Now().Add(time.Second))
		if err := fl.appendText(q); err != nil {
			t.Fatal(err)
		}
		if err := fl.uncork(); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("%.0f allocations an answer, want 0", n)
	}
}

// blockingConn holds a write of a close frame until released.
type blockingConn struct {
	net.Conn
	writing, release chan struct{}
}

func (b *blockingConn) Write(p []byte) (int, error) {
	if len(p) >= 2 && p[0] == 0x80|websocket.CloseMessage {
		close(b.writing)
		<-b.release
	}
	return len(p), nil
}

// No data frame is taken while a close frame is being written (gorilla's
// reader answers a client's close on its own goroutine): it would follow
// the close on the wire.
func TestAppendTextRefusesDuringClose(t *testing.T) {
	bc := &blockingConn{writing: make(chan struct{}), release: make(chan struct{})}
	fl := newFrameLimitConn(bc, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fl.Write(append([]byte{0x80 | websocket.CloseMessage, 2}, 0x03, 0xe8))
	}()
	<-bc.writing
	fl.cork()
	err := fl.appendText([]queued{{data: []byte(`{"type":"stream"}`)}})
	close(bc.release)
	<-done
	fl.uncork()
	if !errors.Is(err, websocket.ErrCloseSent) {
		t.Fatalf("appended while a close frame was being written: %v, want ErrCloseSent", err)
	}
}
