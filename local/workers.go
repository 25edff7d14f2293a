package main

import (
	"context"
	"time"
)

// workerIdle is how long a worker goroutine waits for another invocation
// before it ends.
const workerIdle = time.Second

// workers runs invocations on goroutines that outlive one invocation. A
// new goroutine starts with a small stack that an answer (decoding, search,
// the model, the guard) grows several times over, copying it each time: 5 %
// of the server's CPU under load. A worker that has answered once keeps its
// grown stack for the next invocation (until a collection finds it idle and
// shrinks it: about 3 % is left). It adds no limit and no queue: an
// invocation that finds no idle worker starts a new one at once, exactly as
// a plain goroutine would; idle workers end after workerIdle, or when ctx
// is done.
type workers struct {
	ctx  context.Context
	idle chan func() // unbuffered: a send succeeds only to a waiting worker
}

func newWorkers(ctx context.Context) *workers {
	return &workers{ctx: ctx, idle: make(chan func())}
}

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f func()) {
	select {
	case w.idle <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	var t *time.Timer
	for {
		f()
		if t == nil {
			t = time.NewTimer(workerIdle)
		} else {
			t.Reset(workerIdle)
		}
		select {
		case f = <-w.idle:
		case <-t.C:
			return
		case <-w.ctx.Done():
			t.Stop()
			return
		}
	}
}
