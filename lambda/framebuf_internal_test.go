package lambda

import "testing"

// TestFrameBuffers: a buffer from the pools is empty and holds what was
// asked, whatever buffers were given back before (any capacity, some too
// small or too large for a class, some grown by append past their class).
func TestFrameBuffers(t *testing.T) {
	sizes := []int{0, 1, 100, 255, 256, 257, 1000, 1 << 10, 1<<10 + 1, 4 << 10, 5000, 16 << 10, 16<<10 + 1, 40 << 10}
	for round := 0; round < 3; round++ {
		for _, n := range sizes {
			b := frameBuffer(n)
			if len(b) != 0 || cap(b) < n {
				t.Fatalf("frameBuffer(%d): len %d cap %d", n, len(b), cap(b))
			}
			b = append(b, make([]byte, n+round*300)...) // may outgrow its class
			RecycleFrame(b)
			RecycleFrame(make([]byte, 0, n)) // one that never came from a pool
		}
	}
}
