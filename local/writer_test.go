package main

import (
	"bytes"
	"net"
	"testing"
	"time"
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
