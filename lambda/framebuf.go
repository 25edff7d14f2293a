package lambda

import "sync"

// Frame buffers. The handler encodes each frame of an answer into a buffer
// taken from a pool by size class; a Sender that has finished with a
// frame's bytes (written them to the network) may give the buffer back
// with RecycleFrame, so that a busy server does not allocate a new buffer
// for every frame and keep it until the collector finds it. A Sender that
// does not (API Gateway's) leaves them to the collector, as before.
//
// The classes are arrays, so that a buffer goes in and out of its pool as
// a pointer, without allocating.
var (
	frames256 = sync.Pool{New: func() any { return new([256]byte) }}
	frames1K  = sync.Pool{New: func() any { return new([1 << 10]byte) }}
	frames4K  = sync.Pool{New: func() any { return new([4 << 10]byte) }}
	frames16K = sync.Pool{New: func() any { return new([16 << 10]byte) }}
)

// frameBuffer returns an empty buffer of capacity at least n: a pooled one
// up to 16 KB, a new one above.
func frameBuffer(n int) []byte {
	switch {
	case n <= 256:
		return frames256.Get().(*[256]byte)[:0]
	case n <= 1<<10:
		return frames1K.Get().(*[1 << 10]byte)[:0]
	case n <= 4<<10:
		return frames4K.Get().(*[4 << 10]byte)[:0]
	case n <= 16<<10:
		return frames16K.Get().(*[16 << 10]byte)[:0]
	}
	return make([]byte, 0, n)
}

// RecycleFrame gives a frame's buffer back for the frames to come. Only the
// frame's last holder may call it, once, when nothing refers to the bytes
// any more: a Sender that was handed the frame by Send (the handler does
// not touch a frame after Send) once its writer has written it, and
// nothing else. Any buffer may be given back (one the collector would
// otherwise free): it goes to the largest class it holds; one of 32 KB or
// more is left to the collector.
func RecycleFrame(b []byte) {
	switch c := cap(b); {
	case c >= 32<<10 || c < 256:
	case c >= 16<<10:
		frames16K.Put((*[16 << 10]byte)(b[:16<<10]))
	case c >= 4<<10:
		frames4K.Put((*[4 << 10]byte)(b[:4<<10]))
	case c >= 1<<10:
		frames1K.Put((*[1 << 10]byte)(b[:1<<10]))
	default:
		frames256.Put((*[256]byte)(b[:256]))
	}
}
