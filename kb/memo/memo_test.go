package memo

import (
	"sync"
	"testing"
)

func TestGet(t *testing.T) {
	var mu sync.Mutex
	var m map[int]int
	calls := 0
	sq := func(k int) func() int { return func() int { calls++; return k * k } }
	for range 2 {
		if got := Get(&mu, &m, 3, 2, sq(2)); got != 4 {
			t.Fatalf("Get(2) = %d", got)
		}
	}
	if calls != 1 {
		t.Fatalf("f ran %d times for one key", calls)
	}
	for k := 3; k <= 5; k++ {
		Get(&mu, &m, 3, k, sq(k))
	}
	if len(m) > 3 {
		t.Fatalf("map holds %d entries, bound 3", len(m))
	}
	if _, ok := m[2]; ok {
		t.Fatal("a full map was not emptied before a new key")
	}
}
