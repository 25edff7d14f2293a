package lambda_test

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
)

// BenchmarkHandleMessage is the server's work for one message as local's
// load generator sends it, without the network: the embedded knowledge
// base, the mock at zero token delay, the memory store, hold mode, and a
// sender that drops the frames (giving their buffers back, as the local
// server's writer does). Each iteration is one $default invocation
// on one connection, answered in full (sources, stream, stream_end,
// response). The messages cycle through a few questions so that no single
// question's caches decide the figure.
func BenchmarkHandleMessage(b *testing.B) {
	base, err := kb.Default()
	if err != nil {
		b.Fatal(err)
	}
	var bytes, frames int
	h, err := lambda.New(lambda.Config{
		Retriever: base,
		Model:     lambda.NewMock(lambda.MockDelay(0, 0)),
		Store:     lambda.NewMemStore(),
		Sender: lambda.SenderFunc(func(_ context.Context, _ string, data []byte) error {
			bytes += len(data)
			frames++
			lambda.RecycleFrame(data) // as local's writer does once it wrote it
			return nil
		}),
		Limits: lambda.Limits{NoRateLimit: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if resp, err := h.Handle(ctx, event(lambda.EventConnect, "c1")); err != nil || resp.StatusCode != 200 {
		b.Fatalf("connect: %d %v", resp.StatusCode, err)
	}
	questions := []string{
		"What does Premium cost?",
		"Vad kostar Familj per månad?",
		"How do I cancel, and do I get money back?",
		"How long are deleted files kept?",
	}
	req := event(lambda.EventMessage, "c1")
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		req.Body = `{"type":"message","id":"m` + strconv.Itoa(i) + `","text":"` + questions[i%len(questions)] + `"}`
		if resp, err := h.Handle(ctx, req); err != nil || resp.StatusCode != 200 {
			b.Fatalf("message: %d %v", resp.StatusCode, err)
		}
		i++
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/1e3/float64(i), "cpu-µs/op")
	b.ReportMetric(float64(frames)/float64(i), "frames/op")
	b.ReportMetric(float64(bytes)/float64(i), "bytes/op")
}

// cpuTime is the CPU time (user and system) the process has used: with
// goroutines handing work to each other, the time an operation takes of
// the cores, which a server shares, not only of the clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
