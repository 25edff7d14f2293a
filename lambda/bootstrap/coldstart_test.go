package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkColdStart measures the Lambda Init phase of the deployable
// binary: from starting the process, with the environment a deployment
// gives it (mock model, embedded knowledge base, plain secrets), to its
// first GET of the next invocation from the Runtime API. Each iteration
// starts, in turn, the bootstrap, the minimal aws-lambda-go function of
// testdata/minimal (the baseline) and that function loading the embedded
// knowledge base first (testdata/kbload), all built as the bootstrap is
// deployed, and kills each at that request. It reports the medians
// (init-ms, baseline-init-ms, kb-init-ms) and init-ratio, init-ms over
// baseline-init-ms. HTTP(S) leaving the machine goes to a proxy that fails
// the benchmark: nothing at init may reach out.
func BenchmarkColdStart(b *testing.B) {
	needBinaryHost(b)
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("needs the go command in PATH to build the binaries")
	}
	fns := []*coldFunction{
		{metric: "init-ms", bin: build(b, runtime.GOARCH)},
		{metric: "baseline-init-ms", bin: buildPackage(b, "testdata/minimal", runtime.GOARCH)},
		{metric: "kb-init-ms", bin: buildPackage(b, "testdata/kbload", runtime.GOARCH)},
	}
	out := &outbound{}
	proxy := httptest.NewServer(out)
	defer proxy.Close()
	api, addr := newRuntimeAPI(b)
	api.next = make(chan time.Time, 1)
	env := append(lambdaEnv(addr),
		"GROUNDWIRE_TABLE=groundwire-coldstart",
		"GROUNDWIRE_MODEL=mock",
		"GROUNDWIRE_AUTH_TOKEN=s3cret",
		"HTTP_PROXY="+proxy.URL, "HTTPS_PROXY="+proxy.URL, // not for the Runtime API: loopback
	)
	i := 0
	for b.Loop() {
		for j := range fns { // each first in turn
			f := fns[(i+j)%len(fns)]
			f.times = append(f.times, coldStart(b, f.bin, env, api.next))
		}
		i++
	}
	if reqs := out.list(); len(reqs) > 0 {
		b.Fatalf("reached out at init: %s", strings.Join(reqs, ", "))
	}
	for _, f := range fns {
		b.ReportMetric(ms(median(f.times)), f.metric)
	}
	b.ReportMetric(float64(median(fns[0].times))/float64(median(fns[1].times)), "init-ratio")
}

// TestColdStartReadme checks the README's command of "Cold start": its
// -bench pattern selects BenchmarkColdStart and kb's BenchmarkDefault, in
// the packages it names, and nothing else there.
func TestColdStartReadme(t *testing.T) {
	cmds := readmeBlocks(t, "### Cold start")
	if len(cmds) != 1 {
		t.Fatalf("want one command, got %q", cmds)
	}
	m := regexp.MustCompile(`-bench '([^']+)'`).FindStringSubmatch(cmds[0])
	if m == nil {
		t.Fatalf("no -bench '…' in %q", cmds[0])
	}
	pattern := regexp.MustCompile(m[1])
	want := map[string]string{"./lambda/bootstrap/": "BenchmarkColdStart", "./kb/": "BenchmarkDefault"}
	for dir, bench := range want {
		if !strings.Contains(cmds[0], " "+dir) {
			t.Errorf("%q does not name %s", cmds[0], dir)
		}
		files, _ := filepath.Glob(filepath.Join("../..", dir, "*_test.go"))
		var selected []string
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range regexp.MustCompile(`(?m)^func (Benchmark\w+)\(`).FindAllStringSubmatch(string(src), -1) {
				if pattern.MatchString(name[1]) {
					selected = append(selected, name[1])
				}
			}
		}
		if len(selected) != 1 || selected[0] != bench {
			t.Errorf("-bench %q selects %v in %s, want %s", m[1], selected, dir, bench)
		}
	}
}

// coldFunction is a binary BenchmarkColdStart starts and its init times.
type coldFunction struct {
	metric string
	bin    string
	times  []time.Duration
}

// coldStart starts bin with env and returns the time until next receives
// its first GET of the next invocation; the process is killed then.
func coldStart(b *testing.B, bin string, env []string, next <-chan time.Time) time.Duration {
	b.Helper()
	select { // a request of a process killed before
	case <-next:
	default:
	}
	logs := &syncBuffer{}
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logs, logs
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	select {
	case at := <-next:
		cmd.Process.Kill()
		<-exited
		return at.Sub(start)
	case err := <-exited:
		b.Fatalf("%s exited during init (%v):\n%s", bin, err, logs.String())
	case <-timeout.C:
		cmd.Process.Kill()
		<-exited
		b.Fatalf("%s did not ask for an invocation in 20 s:\n%s", bin, logs.String())
	}
	return 0
}

// outbound is an HTTP proxy that records what goes through it and
// forwards nothing.
type outbound struct {
	mu   sync.Mutex
	reqs []string
}

func (o *outbound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	o.reqs = append(o.reqs, fmt.Sprintf("%s %s", r.Method, r.Host))
	o.mu.Unlock()
	http.Error(w, "no network at init", http.StatusBadGateway)
}

func (o *outbound) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.reqs)
}

// median returns the median of ds (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
