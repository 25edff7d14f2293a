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
	idle chan *invocation // unbuffered: a send succeeds only to a waiting worker
}

func newWorkers(ctx context.Context) *workers {
	return &workers{ctx: ctx, idle: make(chan *invocation)}
}

// run runs f on an idle worker, or on a new one.
func (w *workers) run(f *invocation) {
	select {
	case w.idle <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f *invocation) {
	// The timer runs on from the first invocation rather than being reset
	// after every one (a change to the runtime's timer heap per message):
	// when it fires early, it is set again for the rest of workerIdle.
	var t *time.Timer
	for {
		f.run()
		last := time.Now()
		if t == nil {
			t = time.NewTimer(workerIdle)
		}
		for f = nil; f == nil; {
			select {
			case f = <-w.idle:
			case <-t.C: // perhaps fired while f ran
				idle := time.Since(last)
				if idle >= workerIdle {
					return
				}
				t.Reset(workerIdle - idle)
			case <-w.ctx.Done():
				t.Stop()
				return
			}
		}
	}
}
