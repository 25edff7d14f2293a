package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/emulator"
)

// metrics are the server's Prometheus metrics, in a registry of their own
// (plus the Go runtime and process collectors). What the agent does is
// observed from the outside: the frames a client sends (messages by type)
// and the frames the handler sends back through the Sender (answers by
// status, numbers, actions, errors, latencies), so the handler needs no
// hooks and the numbers are exactly what clients saw.
type metrics struct {
	reg *prometheus.Registry

	connections   prometheus.Gauge
	connects      *prometheus.CounterVec // by HTTP status of the upgrade
	disconnects   *prometheus.CounterVec // by close code
	messages      *prometheus.CounterVec // client frames by type
	answers       *prometheus.CounterVec // by status (+ cancelled)
	numbers       *prometheus.CounterVec // grounded / blocked
	suggestions   *prometheus.CounterVec // by action
	actions       *prometheus.CounterVec // executed / ignored / expired / ...
	errors        *prometheus.CounterVec // error frames by code
	dropped       prometheus.Counter     // clients dropped for not reading
	ttft          prometheus.Histogram
	verifyLatency prometheus.Histogram

	// the counters of every frame or answer, by label
	messageCounts, answerCounts, numberCounts counters
}

// counters caches a vector's counters by label value (WithLabelValues
// hashes and validates the value on every call, several times a message).
// Only for label values from a small set.
type counters struct {
	vec *prometheus.CounterVec
	mu  sync.RWMutex
	m   map[string]prometheus.Counter
}

func (c *counters) with(label string) prometheus.Counter {
	c.mu.RLock()
	ctr, ok := c.m[label]
	c.mu.RUnlock()
	if ok {
		return ctr
	}
	ctr = c.vec.WithLabelValues(label)
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[string]prometheus.Counter)
	}
	c.m[label] = ctr
	c.mu.Unlock()
	return ctr
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.connections = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "groundwire_connections", Help: "Open WebSocket connections.",
	})
	m.connects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_connects_total", Help: "WebSocket upgrade requests by HTTP status (101 accepted; 400, 401, 403, 429, 502, 503 refused).",
	}, []string{"status"})
	m.disconnects = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_disconnects_total", Help: "Closed WebSocket connections by close code.",
	}, []string{"code"})
	m.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_messages_total", Help: "Frames received from clients by type (message, cancel, confirm_action, other, invalid, binary).",
	}, []string{"type"})
	m.answers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_answers_total", Help: "Answers by final status: verified, no_sources, blocked, or cancelled (stream_end cancelled).",
	}, []string{"status"})
	m.numbers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_numbers_total", Help: "Numbers in final responses: grounded, or blocked (not grounded).",
	}, []string{"result"})
	m.suggestions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_action_suggestions_total", Help: "Action suggestions sent, by action.",
	}, []string{"action"})
	m.actions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_actions_total", Help: "Confirms by result: executed, ignored (already executed), expired, cancelled, unknown, failed.",
	}, []string{"result"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "groundwire_errors_total", Help: "Error frames sent, by code.",
	}, []string{"code"})
	m.dropped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "groundwire_slow_clients_dropped_total", Help: "Connections closed because the client did not read its frames.",
	})
	m.ttft = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "groundwire_time_to_first_token_seconds",
		Help:    "Time from a `message` frame's arrival to its first `stream` frame.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	m.verifyLatency = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "groundwire_verify_latency_seconds",
		Help:    "Time from an answer's last `stream` frame (or its `sources`) to its `response`: how long the client waits for the verdict after the text.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
	})
	for _, c := range []prometheus.Collector{
		m.connections, m.connects, m.disconnects, m.messages, m.answers, m.numbers,
		m.suggestions, m.actions, m.errors, m.dropped, m.ttft, m.verifyLatency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		f(c)
	}
	m.messageCounts.vec, m.answerCounts.vec, m.numberCounts.vec = m.messages, m.answers, m.numbers
	// Series that should read 0 rather than be missing.
	for _, s := range []string{lambda.StatusVerified, lambda.StatusNoSources, lambda.StatusBlocked, lambda.ReasonCancelled} {
		m.answers.WithLabelValues(s)
	}
	for _, r := range []string{"grounded", "blocked"} {
		m.numbers.WithLabelValues(r)
	}
	for _, r := range []string{"executed", "ignored", "expired"} {
		m.actions.WithLabelValues(r)
	}
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

func (m *metrics) connect(status int) {
	m.connects.WithLabelValues(strconv.Itoa(status)).Inc()
}

// disconnect counts a closed connection by its close code: the codes of
// RFC 6455 as they are, application codes (3000–4999, chosen by clients)
// as "application", so that clients cannot make up label values.
func (m *metrics) disconnect(code int) {
	label := strconv.Itoa(code)
	switch {
	case code >= 1000 && code <= 1015:
	case code >= 3000 && code <= 4999:
		label = "application"
	default:
		label = "other"
	}
	m.disconnects.WithLabelValues(label).Inc()
}

// clientFrame counts a frame from a client by its type and returns the
// type's label: the known types, or "other".
func (m *metrics) clientFrame(typ string) string {
	switch typ {
	case lambda.TypeMessage, lambda.TypeCancel, lambda.TypeConfirmAction, "invalid", "binary":
	default:
		typ = "other"
	}
	m.messageCounts.with(typ).Inc()
	return typ
}

// outFrame is what the metrics read of a server frame.
type outFrame struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Reason  string `json:"reason"`
	Status  string `json:"status"`
	Code    string `json:"code"`
	Action  string `json:"action"`
	Numbers []struct {
		Grounded bool `json:"grounded"`
	} `json:"numbers"`
	Result struct {
		Success bool   `json:"success"`
		Ignored bool   `json:"ignored"`
		Message string `json:"message"`
	} `json:"result"`
}

// maxTimings bounds the answers timed per connection.
const maxTimings = 16

// timing is one answer's timestamps, for the latency histograms.
type timing struct {
	received time.Time // the `message` frame arrived
	last     time.Time // the last frame with text or sources was sent
	streamed bool
}

// frameObserver watches one connection's frames for the metrics.
type frameObserver struct {
	m       *metrics
	mu      sync.Mutex
	timings map[string]*timing // by message id
}

func (m *metrics) observer() *frameObserver {
	return &frameObserver{m: m, timings: make(map[string]*timing)}
}

// received notes a `message` frame from the client.
func (o *frameObserver) received(msgID string, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.timings) < maxTimings || o.timings[msgID] != nil {
		o.timings[msgID] = &timing{received: now, last: now}
	}
}

// Most frames are `stream` frames and the largest are `sources`: of both,
// only the type and id matter here, and they come first (the order of the
// fields of lambda's frame types), so they are read without decoding the
// frame.
var (
	streamPrefix  = []byte(`{"type":"stream","id":"`)
	sourcesPrefix = []byte(`{"type":"sources","id":"`)
)

// frameHead returns the type and id of a stream or sources frame whose id
// needs no unescaping (the id in data, not copied).
func frameHead(data []byte) (typ string, id []byte, ok bool) {
	var rest []byte
	switch {
	case bytes.HasPrefix(data, streamPrefix):
		typ, rest = lambda.TypeStream, data[len(streamPrefix):]
	case bytes.HasPrefix(data, sourcesPrefix):
		typ, rest = lambda.TypeSources, data[len(sourcesPrefix):]
	default:
		return "", nil, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", nil, false
	}
	return typ, rest[:end], true
}

// Every answer ends with a stream_end and a response frame, the response
// repeating the answer and its citations: what the metrics need of them
// (the reason; the status and whether each number is grounded) is read
// without decoding them either. A key of lambda's frames cannot be met
// inside a string of them (JSON escapes a string's quotes), and the
// fields come in the order of lambda's types.
var (
	streamEndPrefix = []byte(`{"type":"stream_end","id":"`)
	responsePrefix  = []byte(`{"type":"response","id":"`)
	reasonKey       = []byte(`,"reason":"`)
	statusKey       = []byte(`,"status":"`)
	numbersKey      = []byte(`,"numbers":`)
	groundedKey     = []byte(`"grounded":`)
)

// frameTail fills f from a stream_end or response frame whose id and
// strings read need no unescaping, and reports whether it could.
func frameTail(data []byte, f *outFrame) bool {
	var rest []byte
	switch {
	case bytes.HasPrefix(data, streamEndPrefix):
		f.Type, rest = lambda.TypeStreamEnd, data[len(streamEndPrefix):]
	case bytes.HasPrefix(data, responsePrefix):
		f.Type, rest = lambda.TypeResponse, data[len(responsePrefix):]
	default:
		return false
	}
	id, rest, ok := plainString(rest)
	if !ok {
		return false
	}
	f.ID = id
	// the string value after key, in rest
	value := func(key []byte) (string, []byte, bool) {
		i := bytes.Index(rest, key)
		if i < 0 {
			return "", nil, false
		}
		return plainString(rest[i+len(key):])
	}
	if f.Type == lambda.TypeStreamEnd {
		f.Reason, _, ok = value(reasonKey)
		return ok
	}
	if f.Status, rest, ok = value(statusKey); !ok || !bytes.HasPrefix(rest, numbersKey) {
		return false
	}
	for rest = rest[len(numbersKey):]; ; {
		j := bytes.Index(rest, groundedKey)
		if j < 0 {
			return true
		}
		rest = rest[j+len(groundedKey):]
		f.Numbers = append(f.Numbers, struct {
			Grounded bool `json:"grounded"`
		}{bytes.HasPrefix(rest, []byte("true"))})
	}
}

// plainString reads a JSON string's contents up to its closing quote, and
// reports false when it has escapes (or no end).
func plainString(b []byte) (string, []byte, bool) {
	end := bytes.IndexByte(b, '"')
	if end < 0 || bytes.IndexByte(b[:end], '\\') >= 0 {
		return "", nil, false
	}
	return string(b[:end]), b[end+1:], true
}

// decodeOutFrame decodes a frame that frameTail does not read. (Its own
// variable: decoded into, sent's would be allocated for every frame.)
func decodeOutFrame(data []byte) (outFrame, bool) {
	var f outFrame
	err := json.Unmarshal(data, &f)
	return f, err == nil
}

// sent observes a frame sent to the client.
func (o *frameObserver) sent(data []byte, now time.Time) {
	if typ, id, ok := frameHead(data); ok {
		o.streamed(typ, id, now)
		return
	}
	var f outFrame
	if !frameTail(data, &f) {
		var ok bool
		if f, ok = decodeOutFrame(data); !ok {
			return
		}
	}
	m := o.m
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.timings[f.ID]
	switch f.Type {
	case lambda.TypeSources:
		if t != nil {
			t.last = now
		}
	case lambda.TypeStream:
		if t != nil {
			if !t.streamed {
				t.streamed = true
				m.ttft.Observe(now.Sub(t.received).Seconds())
			}
			t.last = now
		}
	case lambda.TypeStreamEnd:
		if f.Reason == lambda.ReasonCancelled {
			m.answerCounts.with(lambda.ReasonCancelled).Inc()
			delete(o.timings, f.ID)
		}
	case lambda.TypeResponse:
		m.answerCounts.with(f.Status).Inc()
		for _, n := range f.Numbers {
			if n.Grounded {
				m.numberCounts.with("grounded").Inc()
			} else {
				m.numberCounts.with("blocked").Inc()
			}
		}
		if t != nil {
			m.verifyLatency.Observe(now.Sub(t.last).Seconds())
			delete(o.timings, f.ID)
		}
	case lambda.TypeActionSuggestion:
		m.suggestions.WithLabelValues(f.Action).Inc()
	case lambda.TypeActionExecuted:
		m.actions.WithLabelValues(actionResult(f.Result.Success, f.Result.Ignored, f.Result.Message)).Inc()
	case lambda.TypeError:
		m.errors.WithLabelValues(f.Code).Inc()
		if f.ID != "" {
			delete(o.timings, f.ID)
		}
	}
}

// streamed observes a sources or stream frame (the most frequent ones),
// without copying its id.
func (o *frameObserver) streamed(typ string, id []byte, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t := o.timings[string(id)]
	if t == nil {
		return
	}
	if typ == lambda.TypeStream && !t.streamed {
		t.streamed = true
		o.m.ttft.Observe(now.Sub(t.received).Seconds())
	}
	t.last = now
}

// actionResult names the outcome of a confirm.
func actionResult(success, ignored bool, msg string) string {
	switch {
	case success && ignored:
		return "ignored"
	case success:
		return "executed"
	case msg == lambda.MsgExpired:
		return "expired"
	case msg == lambda.MsgCancelled:
		return "cancelled"
	case msg == lambda.MsgUnknown:
		return "unknown"
	}
	return "failed"
}

// forwarderCollector exports the health of the Lambda endpoints (-lambda),
// read from the forwarder at each scrape.
type forwarderCollector struct {
	f                                  *emulator.Forwarder
	up, inFlight, invocations, retries *prometheus.Desc
}

// forwarder adds the metrics of the Lambda endpoints.
func (m *metrics) forwarder(f *emulator.Forwarder) {
	ep := []string{"endpoint"}
	m.reg.MustRegister(&forwarderCollector{
		f: f,
		up: prometheus.NewDesc("groundwire_lambda_endpoint_up",
			"1 while the Lambda endpoint (-lambda) is in service, 0 while it is down and probed.", ep, nil),
		inFlight: prometheus.NewDesc("groundwire_lambda_in_flight",
			"Invocations running on the Lambda endpoint, including those whose client has gone.", ep, nil),
		invocations: prometheus.NewDesc("groundwire_lambda_invocations_total",
			"Invocations ended, by endpoint and result: ok, function_error (the function failed or timed out), endpoint_error (connection failed or 5xx: the endpoint went down).",
			[]string{"endpoint", "result"}, nil),
		retries: prometheus.NewDesc("groundwire_lambda_retries_total",
			"Invocations retried on another endpoint after their endpoint failed: CONNECT and DISCONNECT, and messages that never reached it.", nil, nil),
	})
}

func (c *forwarderCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.up
	ch <- c.inFlight
	ch <- c.invocations
	ch <- c.retries
}

func (c *forwarderCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.f.Status()
	for _, e := range st.Endpoints {
		up := 0.0
		if e.Up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, e.URL)
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(e.InFlight), e.URL)
		for _, r := range []string{emulator.ResultOK, emulator.ResultFunctionError, emulator.ResultEndpointError} {
			ch <- prometheus.MustNewConstMetric(c.invocations, prometheus.CounterValue, float64(e.Invocations[r]), e.URL, r)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(st.Retries))
}
